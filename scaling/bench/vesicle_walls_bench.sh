#!/usr/bin/env bash
# Throughput of the vesicle system (configs/vesicle.cfg) periodic and in a closed box
# (bounce-forward walls on all six faces, the core paper's campaign box), over rank counts, one
# rank per GPU. A benchmark, not a test: issue 47's bar (the closed box within 5% of periodic,
# one GPU) and the campaign's cost projection (issue 48).
#
# Usage: scaling/bench/vesicle_walls_bench.sh VESICA BOX "RANKS..." [WARM] [STEPS] [--set k=v]...
#   e.g. scaling/bench/vesicle_walls_bench.sh build/vesica 80 "1 2 4"   (2.56M beads)
# Each system first runs WARM steps (default 500) from its random start and writes a
# checkpoint; the STEPS (default 1000) measured continue from it (--restart latest), so the
# figures are the relaxed system's. Figures from perf.json (the step loop only); no trajectory
# and no checkpoint inside the measured run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=$1; box=$2; ranks=$3; warm=${4:-500}; steps=${5:-1000}; shift $(( $# < 5 ? $# : 5 ))
extra=("$@") # further --set overrides for every run
out=$(mktemp -d)
walls=(--set boundary.x.kind=bounce_forward --set boundary.y.kind=bounce_forward
       --set boundary.z.kind=bounce_forward)
for p in $ranks; do
  declare -A rate=()
  for sys in periodic closed; do
    set_=(--set "box=[$box, $box, $box]" --set output.trajectory_interval=0
          --set output.checkpoint_interval=0 --set "output.dir=$out/$sys-$p" "${extra[@]}")
    [ $sys = closed ] && set_+=("${walls[@]}")
    mpiexec --oversubscribe -n "$p" "$bin" run "$root/configs/vesicle.cfg" "${set_[@]}" \
      --set output.checkpoint_keep=1 --set "integrator.steps=$warm" \
      --set "output.thermo_interval=$warm" > "$out/$sys-$p.warm.log"
    mpiexec --oversubscribe -n "$p" "$bin" run "$root/configs/vesicle.cfg" "${set_[@]}" \
      --set output.checkpoint_keep=0 --set "integrator.steps=$((warm + steps))" \
      --set "output.thermo_interval=$steps" --restart latest > "$out/$sys-$p.log"
    rate[$sys]=$(python3 - "$out/$sys-$p/perf.json" "$sys" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); p = d["phases_s"]
print(f'{sys.argv[2]:>8s} P={d["ranks"]} N={d["particles"]} steps={d["steps"]} '
      f'particle-steps/s={d["particle_steps_per_s"]:.4e} ms/step={1e3 * d["wall_s"] / d["steps"]:.3f} '
      f'pair={p["pair"]:.3f} neigh={p["neighbor"]:.3f} comm={p["comm"]:.3f} s '
      f'builds={d["neighbor_builds"]} bytes/particle={d.get("memory_bytes_per_particle", 0):.1f}',
      file=sys.stderr)
print(d["particle_steps_per_s"])
PY
)
  done
  python3 -c "print(f'P=$p: closed / periodic = {${rate[closed]} / ${rate[periodic]}:.3f} (issue 47: >= 0.95)')"
done
rm -rf "$out"
