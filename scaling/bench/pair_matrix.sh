#!/usr/bin/env bash
# The benchmark matrix of Tang & Karniadakis's GPU DPD paper on one GPU (a benchmark, not a
# test): densities 3, 6 and 50, cut-offs 1.0 and 1.5, dt = 0.005, mixed precision.
#
# Usage: scaling/bench/pair_matrix.sh [VESICA] [PARTICLES] [SKINS] [BUILDERS] [STEPS] [POINTS]
#   defaults: build/vesica, 2000000 (1000000 at rho = 50), "0 0.3", "auto", 500,
#   POINTS "3:1.0 6:1.0 3:1.5 6:1.5 50:1.0" (rho:r_c)
# Prints one row per run: pair evaluations per second = particle-steps/s x the pairs per
# particle within r_c at that density (2/3 pi rho r_c^3), from the measured run's perf.json
# after a 50-step warm-up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}
n_base=${2:-2000000}
skins=${3:-"0 0.3"}
builders=${4:-auto}
steps=${5:-500}
points=${6:-"3:1.0 6:1.0 3:1.5 6:1.5 50:1.0"}
out=$(mktemp -d)
printf "%5s %4s %5s %7s %10s %14s %14s %9s %9s %9s %8s\n" rho rc skin builder particles \
  particle-steps/s pairs/s pair_s neigh_s integ_s builds
for point in $points; do
  rho=${point%:*} rc=${point#*:}
  n=$n_base
  [ "$rho" = 50 ] && n=$((n_base / 2))
  side=$(python3 -c "print(f'{($n / $rho) ** (1 / 3):.6f}')")
  for skin in $skins; do
    for builder in $builders; do
      common=(--set "neighbor.gpu_builder=$builder" --set "box=[$side, $side, $side]"
              --set "particles=$n" --set precision=mixed --set "dpd.rc=$rc"
              --set integrator.dt=0.005 --set "neighbor.skin=$skin"
              --set "output.dir=$out/run" --set output.checkpoint_keep=0)
      "$bin" run "$here/gpu-fluid.cfg" "${common[@]}" --set integrator.steps=50 > /dev/null
      "$bin" run "$here/gpu-fluid.cfg" "${common[@]}" --set "integrator.steps=$steps" \
        --set "output.thermo_interval=$steps" > "$out/log"
      python3 - "$out/run/perf.json" "$rho" "$rc" "$skin" "$builder" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
rho, rc, skin, builder = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
p = d["phases_s"]
rate = d["particle_steps_per_s"]
pairs = rate * 2.0 / 3.0 * math.pi * rho * rc ** 3
print(f'{rho:5g} {rc:4g} {skin:5g} {builder:>7s} {d["particles"]:10d} {rate:14.4e} {pairs:14.4e} '
      f'{p["pair"]:9.4f} {p["neighbor"]:9.4f} {p["integrate"]:9.4f} {d["neighbor_builds"]:8d}')
PY
    done
  done
done
rm -rf "$out"
