#!/usr/bin/env bash
# walls_ranks.sh BACKEND PRECISION VESICA OUTDIR SET [SKIN]: the walls of
# tests/walls/walls.cfg (free slip along x, periodic y, no slip with a moving wall and the
# erfc force along z) give the same bits on any rank count, as the periodic code does (exact
# sums, and on the GPU in mixed precision one position grid): 200 steps on 1 rank, then SET:
#   np2      on 2 ranks cut along x, y and z in turn
#   np4      on 4 ranks cut along x and y, and along y and z
#   np8      on 8 ranks cut along all three
#   restart  100 steps on 2 ranks continued with --restart latest on 4 ranks to step 200
# thermo.csv the same bytes and the final checkpoint's /particles the same bits as on 1 rank.
# Prints one "ok:" line or the first difference.
set -u
BACKEND=$1; PREC=$2; BIN=$3; OUT=$4; SET=$5; SKIN=${6:-0.3}
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac
CFG=$(cd "$(dirname "$0")" && pwd)/walls.cfg
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { # ranks decomposition dir [more --set]
    local n=$1 dec=$2 dir=$3
    shift 3
    mpiexec --oversubscribe -n "$n" "$BIN" run "$CFG" --set backend="$BACKEND" \
        --set precision="$PREC" --set neighbor.skin="$SKIN" --set decomposition="$dec" \
        --set output.dir="$dir" "$@" >"$dir.log" 2>&1 ||
        { rc=$?; tail -5 "$dir.log" >&2; fail "$dir: exit $rc"; }
}
same() { # dir: the same thermo and final particles as one rank's
    cmp one/thermo.csv "$1"/thermo.csv || {
        diff one/thermo.csv "$1"/thermo.csv | head -4 >&2
        fail "thermo.csv differs between 1 rank and $1"
    }
    h5diff one/checkpoints/ckpt_200.h5 "$1"/checkpoints/ckpt_200.h5 /particles /particles ||
        fail "the final particles differ between 1 rank and $1"
}
run 1 "[1, 1, 1]" one
case $SET in
np2) LAYOUTS=("2 [2, 1, 1]" "2 [1, 2, 1]" "2 [1, 1, 2]") ;;
np4) LAYOUTS=("4 [2, 2, 1]" "4 [1, 2, 2]") ;;
np8) LAYOUTS=("8 [2, 2, 2]") ;;
restart)
    run 2 "[1, 1, 2]" restart --set integrator.steps=100
    run 4 "[2, 1, 2]" restart --restart latest
    same restart
    echo "ok: walls ($BACKEND, $PREC, skin $SKIN): 100 steps on 2 ranks and 100 more after a restart on 4 are the bits of 200 steps on 1"
    exit 0 ;;
*) fail "unknown set $SET" ;;
esac
for dec in "${LAYOUTS[@]}"; do
    n=${dec%% *}
    d=${dec#* }
    dir=np$n-$(echo "$d" | tr -d '[], ')
    run "$n" "$d" "$dir"
    same "$dir"
done
echo "ok: walls ($BACKEND, $PREC, skin $SKIN) bit-identical on 1 rank and on ${LAYOUTS[*]}"
