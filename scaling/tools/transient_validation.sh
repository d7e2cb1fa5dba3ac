#!/usr/bin/env bash
# transient_validation.sh [SEEDS] [--set ...]: the transient double Poiseuille case
# (configs/transient-poiseuille.cfg, Tang & Karniadakis figure 10) with SEEDS independent seeds
# (default 10, as the paper), each to T = 10000 (1,000,050 steps), then the profiles at
# T = 100 ... 10000 against the analytic series (scaling/tools/transient.py; nu from the
# steady window at T = 10000) and the figure.
#   GPU:  scaling/tools/transient_validation.sh 10
#         scaling/tools/transient_validation.sh 10 --set precision=double
# A run interrupted by a job limit (exit 3, or killed) resumes from its checkpoints (one per
# 100,000 steps): rerunning the script continues every unfinished seed with --restart latest
# and skips the finished ones. OUT (default out/transient) holds seed_<k>/ and transient.png.
# FIRST (default 1) is the first seed run; the seeds below it are taken from the stored runs of
# scaling/results/transient-h100-mixed (seeds 1-10, README.md there). Their profiles.h5 files
# are binary, so they live in git history only (commit 151b0dd): the script extracts them into
# OUT/stored/ with git show (FIRST=11 with SEEDS 12 adds two to the stored ten).
# PARALLEL (default 1) seeds run at once; on one GPU that pays only under MPS
# (nvidia-cuda-mps-control -d first: 6 at once gave 1.5x the steps of one alone on an H100,
# without MPS 2 or 4 at once were slower than one after another).
set -euo pipefail
seeds=${1:-10}; shift $(( $# >= 1 ? 1 : 0 ))
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=${VESICA:-$root/build/vesica}; out=${OUT:-out/transient}
read -r -a launch <<<"${VESICA_LAUNCH:-}"
g=0.0005  # flow.g of the configuration
mkdir -p "$out"
start=$(date +%s)
first=${FIRST:-1}
stored=()
stored_commit=151b0dd
[ "$first" -gt 1 ] && mkdir -p "$out/stored" && for k in $(seq 1 $((first - 1))); do
    f=$out/stored/seed_$k.h5
    [ -s "$f" ] || git -C "$root" show \
        "$stored_commit:scaling/results/transient-h100-mixed/seed_$k/profiles.h5" >"$f"
    stored+=("$f")
done
par=${PARALLEL:-1}
run_seed() {
    local k=$1 dir=$out/seed_$1 restart=(); shift
    ls "$dir"/checkpoints/* >/dev/null 2>&1 && restart=(--restart latest)
    if "${launch[@]}" "$bin" run "$root/configs/transient-poiseuille.cfg" --set seed="$k" \
        --set output.dir="$dir" "${restart[@]}" "$@" >>"$out/seed_$k.log" 2>&1; then
        touch "$dir/done"; echo "seed $k done ($(( $(date +%s) - start )) s)"
    else
        echo "seed $k stopped (exit $?; see $out/seed_$k.log)"
    fi
}
for k in $(seq "$first" "$seeds"); do
    [ -f "$out/seed_$k/done" ] && { echo "seed $k already done"; continue; }
    run_seed "$k" "$@" &
    while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
done
wait
for k in $(seq "$first" "$seeds"); do
    [ -f "$out/seed_$k/done" ] || { echo "seed $k unfinished: run the script again to resume"; exit 3; }
done
/usr/bin/python3 "$here/transient.py" "${stored[@]}" "$out"/seed_*/profiles.h5 --g "$g" \
    --png "$out/transient.png" --expect-max-z 6  # 384 values, t with 9 dof: ~0.1 above 6 by chance
