#!/usr/bin/env bash
# Throughput of the vesicle system (configs/vesicle.cfg: BBBAABBB triblocks, 10% of the beads,
# in solvent at rho = 5) against the plain rho = 5 fluid of the same size
# (scaling/bench/plain-rho5.cfg), one GPU, one after the other in the same session.
# A benchmark, not a test; the target (issue 25) is a ratio >= 0.85.
#
# Usage: scaling/bench/vesicle_bench.sh [VESICA] [SIZES] [STEPS] [PRECISION] [REACH]
#   defaults: build/vesica, "16000000", 500, mixed. A 50-step warm-up of each is not counted;
#   figures from perf.json (the step loop only). Prints one row per run and the ratio.
#   Without REACH both runs start from the configurations' random start (the vesicle's first
#   ~100 steps stretch bonds to 2.3, hence its bonded.reach of 3.0). With REACH, each system
#   first runs 1000 steps from its start and writes a checkpoint, and the measured STEPS
#   continue from it (--restart latest), the vesicle with bonded.reach = REACH: the relaxed
#   system of a production run (docs/history/performance-2026-11.md; 1.5 is safe there).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=${1:-build/vesica}
sizes=${2:-16000000}
steps=${3:-500}
prec=${4:-mixed}
reach=${5:-}
warm=1000
out=$(mktemp -d)
printf "%10s %8s %10s %6s %14s %10s %9s %9s %9s %8s %8s\n" particles system precision steps \
  particle-steps/s steps/s pair_s neigh_s comm_s builds B/part
for n in $sizes; do
  side=$(python3 -c "print(f'{($n / 5.0) ** (1 / 3):.6f}')")
  declare -A rate=()
  for sys in vesicle plain; do
    cfg=$root/configs/vesicle.cfg; [ $sys = plain ] && cfg=$here/plain-rho5.cfg
    common=(--set "box=[$side, $side, $side]" --set backend=gpu --set "precision=$prec"
            --set "output.dir=$out/$sys" --set output.checkpoint_interval=0
            --set output.trajectory_interval=0 --set output.checkpoint_keep=0)
    if [ -z "$reach" ]; then
      "$bin" run "$cfg" "${common[@]}" --set integrator.steps=50 > /dev/null
      "$bin" run "$cfg" "${common[@]}" --set "integrator.steps=$steps" \
        --set "output.thermo_interval=$steps" > "$out/$sys.log"
    else
      relaxed=(--set output.checkpoint_keep=0) # no final checkpoint inside the timed loop
      [ $sys = vesicle ] && relaxed+=(--set "bonded.reach=$reach")
      "$bin" run "$cfg" "${common[@]}" --set output.checkpoint_keep=1 \
        --set "integrator.steps=$warm" > /dev/null
      "$bin" run "$cfg" "${common[@]}" "${relaxed[@]}" --set "integrator.steps=$((warm + steps))" \
        --set "output.thermo_interval=$steps" --restart latest > "$out/$sys.log"
    fi
    rate[$sys]=$(python3 - "$out/$sys/perf.json" "$sys" "$prec" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["phases_s"]
print(f'{d["particles"]:10d} {sys.argv[2]:>8s} {sys.argv[3]:>10s} {d["steps"]:6d} '
      f'{d["particle_steps_per_s"]:14.4e} {d["steps"] / d["wall_s"]:10.1f} {p["pair"]:9.4f} '
      f'{p["neighbor"]:9.4f} {p["comm"]:9.4f} {d["neighbor_builds"]:8d} '
      f'{d["memory_bytes_per_particle"]:8.1f}', file=sys.stderr)
print(d["particle_steps_per_s"])
PY
)
  done
  python3 -c "print(f'ratio vesicle / plain at $n: {${rate[vesicle]} / ${rate[plain]}:.3f} (target >= 0.85)')"
done
grep -h "device" "$out/plain/perf.json" || true
rm -rf "$out"
