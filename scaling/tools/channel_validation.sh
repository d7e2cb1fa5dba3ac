#!/usr/bin/env bash
# channel_validation.sh OUTDIR [SEEDS] [VESICA]: the channel validations of docs/validation.md
# (configs/channel.cfg, Backer's fluid between walls along x, g = 0.055 along z):
#   steady/RECIPE/SEED   120000 steps (t = 120, fitted from t = 60) in a 6 x 8 x 8 box (2304
#                        particles) per seed for bounce_back alone, one seed each with the
#                        erfc wall force (f = 1, d = 0.5) and the dpd one (f = 2, d = 1);
#                        channel.py steady: viscosity against the double Poiseuille value
#                        2.09 (3%), slip lengths, density at the walls
#   startup/SEED         30 seeds (101-130) of 8300 steps (6 x 8 x 8) with named windows at
#                        t = 0.5, 1, 2, 4, 8 (half width 0.25); channel.py transient against
#                        eq. 10 with the steady nu, with no slip and with the steady slip
# Figures channel_RECIPE.png and startup.png in OUTDIR; each analysis's output in OUTDIR/*.txt.
set -u
OUT=$1; SEEDS=${2:-"1 2 3"}; BIN=${3:-vesica}
HERE=$(cd "$(dirname "$0")" && pwd)
CFG=$HERE/../../configs/channel.cfg
PY=/usr/bin/python3
mkdir -p "$OUT"
BOX=(--set "box=[6.0, 8.0, 8.0]" --set particles=2304)
for r in bounce_back erfc dpd; do
    seeds=$SEEDS
    [ "$r" = bounce_back ] || seeds=${SEEDS%% *}
    case $r in
    bounce_back) R=() ;;
    erfc) R=(--set 'boundary.x.force.kind="erfc"' --set boundary.x.force.f=1.0
             --set boundary.x.force.d=0.5) ;;
    dpd) R=(--set 'boundary.x.force.kind="dpd"' --set boundary.x.force.f=2.0
            --set boundary.x.force.d=1.0) ;;
    esac
    for s in $seeds; do
        d=$OUT/steady/$r/$s
        [ -f "$d/profiles.h5" ] && continue
        "$BIN" run "$CFG" --set seed=$s --set output.dir="\"$d\"" "${BOX[@]}" ${R[@]+"${R[@]}"} \
            >"$OUT/steady_${r}_$s.log" 2>&1 || { echo "run $r $s failed"; exit 1; }
    done
    "$PY" "$HERE/channel.py" steady "$OUT"/steady/$r/*/profiles.h5 --g 0.055 \
        --expect-eta 2.09 --png "$OUT/channel_$r.png" | tee "$OUT/steady_$r.txt"
done
NU=$(awk '/^nu = /{print $3}' "$OUT/steady_bounce_back.txt")
SLIP=$(awk '/^slip length:/{print ($3 + $10) / 2}' "$OUT/steady_bounce_back.txt")
for s in $(seq 101 130); do
    d=$OUT/startup/$s
    [ -f "$d/profiles.h5" ] && continue
    "$BIN" run "$CFG" --set seed=$s --set output.dir="\"$d\"" "${BOX[@]}" --set profiles.window=0 \
        --set 'profiles.times=[0.5, 1.0, 2.0, 4.0, 8.0]' --set profiles.half_width=0.25 \
        --set integrator.steps=8300 >"$OUT/startup_$s.log" 2>&1 || { echo "startup $s failed"; exit 1; }
done
"$PY" "$HERE/channel.py" transient "$OUT"/startup/*/profiles.h5 --g 0.055 --nu "$NU" \
    --png "$OUT/startup.png" | tee "$OUT/startup.txt"
"$PY" "$HERE/channel.py" transient "$OUT"/startup/*/profiles.h5 --g 0.055 --nu "$NU" \
    --slip "$SLIP" --png "$OUT/startup_slip.png" | tee "$OUT/startup_slip.txt"
