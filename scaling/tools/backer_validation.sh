#!/usr/bin/env bash
# backer_validation.sh [SEEDS] [STEPS] [--set ...]: the Backer double Poiseuille case
# (configs/backer-poiseuille.cfg) with SEEDS independent seeds (default 10, as Tang &
# Karniadakis), STEPS steps each (default 100000: t = 100), then the viscosity with its error
# bar (scaling/tools/viscosity.py, windows from t >= 60, each window of each run a block) and
# the figure. Published: eta = 2.09 +- 0.02.
#   CPU:  VESICA_LAUNCH="mpirun -n 2" scaling/tools/backer_validation.sh 10 100000 --set backend=cpu
#   GPU:  scaling/tools/backer_validation.sh 10 100000 --set backend=gpu --set precision=double
# OUT (default out/backer) holds seed_<k>/ and viscosity.png.
set -euo pipefail
seeds=${1:-10}; steps=${2:-100000}; shift $(( $# >= 2 ? 2 : $# ))
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=${VESICA:-$root/build/vesica}; out=${OUT:-out/backer}
read -r -a launch <<<"${VESICA_LAUNCH:-}"
mkdir -p "$out"
start=$(date +%s)
for k in $(seq 1 "$seeds"); do
    "${launch[@]}" "$bin" run "$root/configs/backer-poiseuille.cfg" --set seed="$k" \
        --set integrator.steps="$steps" --set output.dir="$out/seed_$k" "$@" \
        >"$out/seed_$k.log" 2>&1
    echo "seed $k done ($(( $(date +%s) - start )) s)"
done
/usr/bin/python3 "$here/viscosity.py" "$out"/seed_*/profiles.h5 --g 0.055 --skip-time 60 \
    --png "$out/viscosity.png" --expect eta=2.09:0.02
