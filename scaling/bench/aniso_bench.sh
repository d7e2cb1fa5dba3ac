#!/usr/bin/env bash
# Throughput of GALAMOST's anisotropic benchmark (its Table 1: triblock Janus particles,
# alpha^R 396, alpha^A 132, beta 65 deg, nu 0.5, rho 3, boxes 20^3 to 80^3) on one device,
# against GALAMOST's steps per second on a GTX 680. A benchmark, not a test (issue 49: >= 1e9
# particle-steps/s at 1,536,000).
#
# Usage: scaling/bench/aniso_bench.sh VESICA [BOXES] [STEPS] [RELAX] [--set k=v]...
#   defaults: "20 40 60 80", 1000 steps, 4000 steps to relax; e.g. --set backend=cpu
#   --set precision=double
# The system is configs/aniso-triblock.cfg at rho 3 and kT 1 (the table gives neither the
# temperature nor the time step; the config's dt 0.002 and Berendsen thermostat are kept),
# at skin 0 (the list rebuilt every step: with nu = 0.5 some particle of a large system is
# kicked across half of any skin in nearly every step, docs/performance.md; --set
# neighbor.skin=0.3 to compare),
# from its random start: RELAX steps to relax, then STEPS measured from the checkpoint
# (--restart latest). The random start at rho 3 is far from equilibrium (the overlaps' energy
# heats it to T ~ 15 within 250 steps); Berendsen brings T within 10% of kT after about 3500
# steps (8 time units; box 8 on the CPU), and until then the list is rebuilt nearly every
# step, against every ~18 steps after: a shorter relaxation measures the transient. Figures
# from perf.json (the step loop only); `builds`: the neighbour list builds in the measured
# steps, and T the temperature at their end (kT 1 when relaxed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=$1; boxes=${2:-20 40 60 80}; steps=${3:-1000}; relax=${4:-4000}
shift $(( $# < 4 ? $# : 4 ))
extra=("$@")
declare -A galamost=([20]=945.4 [40]=128.2 [60]=37.1 [80]=15.3)
out=$(mktemp -d)
printf "%5s %10s %8s %14s %10s %14s %8s %8s %6s\n" box particles steps particle-steps/s steps/s \
  GALAMOST_steps/s ratio builds T
for L in $boxes; do
  set_=(--set "box=[$L.0, $L.0, $L.0]" --set density=3.0 --set dpd.kT=1.0
        --set "output.dir=$out/b$L" --set output.trajectory_interval=0
        --set output.checkpoint_interval=0 --set neighbor.skin=0 "${extra[@]}")
  "$bin" run "$root/configs/aniso-triblock.cfg" "${set_[@]}" --set output.checkpoint_keep=1 \
    --set "integrator.steps=$relax" --set "output.thermo_interval=$relax" > "$out/b$L.warm.log"
  "$bin" run "$root/configs/aniso-triblock.cfg" "${set_[@]}" --set output.checkpoint_keep=0 \
    --set "integrator.steps=$((relax + steps))" --set "output.thermo_interval=$steps" \
    --restart latest > "$out/b$L.log"
  builds=$(sed -n 's/^Neighbor list builds = \([0-9]*\).*/\1/p' "$out/b$L.log")
  python3 - "$out/b$L/perf.json" "$L" "${galamost[$L]:-nan}" "${builds:-?}" \
    "$out/b$L/thermo.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ref = float(sys.argv[3])
sps = d["steps"] / d["wall_s"]
rows = [line.strip().split(",") for line in open(sys.argv[5]) if line.strip()]
temp = float(rows[-1][rows[0].index("temperature")])
print(f'{sys.argv[2]:>5s} {d["particles"]:10d} {d["steps"]:8d} {d["particle_steps_per_s"]:14.4e} '
      f'{sps:10.1f} {ref:14.1f} {sps / ref:8.1f} {sys.argv[4]:>8s} {temp:6.3f}')
PY
done
grep -h '"device"' "$out"/b*/perf.json | head -1
rm -rf "$out"
