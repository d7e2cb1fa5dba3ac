#!/usr/bin/env bash
# A/B comparison of two builds on one GPU in one session (a benchmark, not a test): the
# 192,000-particle trajectory check and the single-GPU throughput, alternating the builds so
# that drift of the machine shows up as spread, not as a difference.
#
# Usage: scaling/bench/ab_bench.sh VESICA_A VESICA_B [SIZES] [REPEATS]
#   defaults: "64000 16000000", 2 repeats. Mixed precision, skin 0, the default builder (auto).
# Prints, per build: the temperature after 200 steps of 192,000 particles at skin 0 and 0.3
# (17 digits; thermo every 10 steps, and whether thermo.csv is byte-identical between the two
# builds), then one gpu_bench.sh row per size, build and repeat.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$1
b=$2
sizes=${3:-"64000 16000000"}
repeats=${4:-2}
out=$(mktemp -d)
# the 192k fluid as the benchmark configures it (seed 4) and as the example does (seed 42)
for cfg in scaling/bench/gpu-fluid.cfg configs/dpd-fluid.cfg; do
  for skin in 0 0.3; do
    for tag in A B; do
      bin=$a; [ "$tag" = B ] && bin=$b
      "$bin" run "$here/../../$cfg" --set backend=\"gpu\" --set precision=\"mixed\" \
        --set "box=[40.0, 40.0, 40.0]" --set integrator.steps=200 \
        --set output.thermo_interval=10 --set "neighbor.skin=$skin" \
        --set "output.dir=\"$out/traj-$tag\"" --set output.checkpoint_keep=0 > /dev/null
      t=$(tail -1 "$out/traj-$tag/thermo.csv" | cut -d, -f3)
      echo "192k $cfg skin $skin build $tag: T = $t"
    done
    same=identical
    cmp -s "$out/traj-A/thermo.csv" "$out/traj-B/thermo.csv" || same=DIFFERS
    echo "192k $cfg skin $skin: thermo.csv $same"
  done
done
for n in $sizes; do
  for r in $(seq 1 "$repeats"); do
    for tag in A B; do
      bin=$a; [ "$tag" = B ] && bin=$b
      printf "build %s repeat %d: " "$tag" "$r"
      bash "$here/gpu_bench.sh" "$bin" "$n" mixed 0 200 auto | grep -E '^ +[0-9]' 
    done
  done
done
rm -rf "$out"
