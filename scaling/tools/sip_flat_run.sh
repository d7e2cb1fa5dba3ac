#!/usr/bin/env bash
# sip_flat_run.sh [OUT] [VESICA]: the flat-surface brush matrix of docs/validation.md
# ("Flat-surface brushes"): surface-initiated chain growth from a flat frozen slab
# (configs/surface-polymerization-flat.cfg, systems from scaling/tools/sip_flat.py) at two
# grafting densities (SIGMAS, initiators per unit area) and two rates (PRS, Pr at tau = 50
# steps), every run to the same number of reaction intervals (STEPS / 50), one after the
# other on one CPU rank; the sparse brushes have few chains, so they run SEEDS_SPARSE seeds
# (their systems and their runs' draws both change with the seed), the dense ones
# SEEDS_DENSE. Then scaling/tools/sip_flat_analysis.py writes OUT/summary.json, the table
# (OUT/table.md) and the figure (OUT/sip-flat.png). A run whose final checkpoint exists is
# not run again. Defaults: OUT out/sip-flat, VESICA build-cpu/vesica, SIGMAS "0.1 0.4",
# PRS "0.1 0.5", STEPS 5000 (100 intervals), SEEDS_SPARSE 3, SEEDS_DENSE 2, HEIGHT 20.
set -euo pipefail
out=${1:-out/sip-flat}
vesica=${2:-build-cpu/vesica}
sigmas=${SIGMAS:-0.1 0.4}
prs=${PRS:-0.1 0.5}
steps=${STEPS:-5000}
seeds_sparse=${SEEDS_SPARSE:-3}
seeds_dense=${SEEDS_DENSE:-2}
height=${HEIGHT:-20}
py=/usr/bin/python3
tools=$(dirname "$0")
cfg=$(dirname "$0")/../../configs/surface-polymerization-flat.cfg
mkdir -p "$out"
sparse=$(echo "$sigmas" | tr ' ' '\n' | sort -g | head -1)
for sigma in $sigmas; do
  nseed=$seeds_dense
  [ "$sigma" = "$sparse" ] && nseed=$seeds_sparse
  for seed in $(seq 1 "$nseed"); do
    data="$out/flat-s$sigma-seed$seed.data"
    [ -f "$data" ] || $py "$tools/sip_flat.py" "$data" --sigma "$sigma" --height "$height" \
        --seed "$seed" | tee "$data.log"
    for pr in $prs; do
      dir="$out/s$sigma-pr$pr-seed$seed"
      if [ -f "$dir/checkpoints/ckpt_$steps.h5" ]; then
        echo "$dir: done"
        continue
      fi
      echo "$dir: sigma $sigma, Pr $pr, seed $seed, $steps steps"
      "$vesica" run "$cfg" --set backend=cpu --set "input.file=$data" \
          --set "output.dir=$dir" --set "seed=$seed" \
          --set "reactions.chain.probability=$pr" --set "integrator.steps=$steps" \
          --set output.trajectory_interval=250 > "$out/s$sigma-pr$pr-seed$seed.log" 2>&1
      tail -1 "$out/s$sigma-pr$pr-seed$seed.log"
    done
  done
done
$py "$tools/sip_flat_analysis.py" "$out" --steps "$steps"
