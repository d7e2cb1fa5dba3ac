#!/usr/bin/env bash
# Throughput of GALAMOST's surface-initiated polymerization benchmark (its Table 2: a frozen
# ball of radius R with initiators on its surface at about 0.51 per unit area in a bath of
# monomers, polymerization every 50 steps) on one device, against GALAMOST's steps per second
# on a Tesla C2050, and the reaction step's share of the loop. A benchmark, not a test (issue
# 50: >= 20x Table 2's steps per second, the reaction step under 5 % of the step time).
#
# Usage: scaling/bench/sip_bench.sh VESICA [RADII] [STEPS] [--set k=v]...
#   defaults: "5 10 15 25 45", 2000 steps; e.g. --set precision=double
# Each system is Table 2's particle count in a cubic box at its density (48,210 particles in
# 38.25^3: 0.8615), written by scaling/tools/sip_ball.py and run with
# configs/surface-polymerization.cfg (DPD a = 25, the ball repelling the fluid, Pr = 0.1 every
# 50 steps) from its start, STEPS steps: with reactions, and with reactions.interval beyond
# the run (the same system, no reaction step). Table 2 measured after 1M steps, with the
# chains grown; these runs start from the bare ball. Figures from perf.json (the step loop):
# rx-share is the reaction steps' own time (perf.json's reaction_s), overhead the whole cost
# of reacting (1 - steps/s over no-rx: the reaction steps and the rebuilds they force).
# VESICA_GPU_REACTIONS=mirror in the environment runs the GPU's reaction steps through the
# host mirror instead of on the device (src/engine/reactions.c), for a before/after figure.
# SIP_GROW=N grows each ball for N steps first (Table 2's condition: GALAMOST measured after
# 1M steps, the chains grown) and measures STEPS from its checkpoint; SIP_GROW_RANKS=K grows
# it on K ranks (mpiexec, one GPU each: the same grown ball, for a run is the same bits on
# any rank count, sooner) and still measures on one; SIP_REPEATS=K runs each
# pair of runs K times, one after the other (a row each: short runs of a small system differ
# by a few per cent from run to run). SIP_VARIANTS="A=1 B=2,C=3 ..." runs each pair once per
# variant (space-separated; a variant's comma-separated assignments are put in the runs'
# environment, e.g. VESICA_GPU_REORDER_EVERY=128; "-" adds nothing) on the same grown ball,
# a row each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
bin=$1; radii=${2:-5 10 15 25 45}; steps=${3:-2000}; shift $(( $# < 3 ? $# : 3 ))
extra=("$@")
declare -A particles=([5]=48210 [10]=192876 [15]=434046 [25]=1206216 [45]=3907593)
declare -A galamost=([5]=780.9 [10]=220.4 [15]=126.4 [25]=43.28 [45]=13.31)
py=${VESICA_PYTHON:-python3}
grow=${SIP_GROW:-0}; grow_ranks=${SIP_GROW_RANKS:-1}; repeats=${SIP_REPEATS:-1}; variants=${SIP_VARIANTS:--}
out=$(mktemp -d)
run() { # LOG COMMAND...: the command's output into LOG; where it fails, LOG's end and stop
  local log=$1; shift
  "$@" > "$log" 2>&1 || { echo "failed ($log):" >&2; tail -5 "$log" >&2; exit 1; }
}
printf "%4s %10s %8s %10s %10s %10s %8s %10s %9s\n" R particles steps steps/s no-rx GALAMOST \
  ratio rx-share overhead
for R in $radii; do
  n=${particles[$R]}
  L=$($py -c "print(round(38.25 * ($n / 48210) ** (1 / 3), 3))")
  $py "$root/scaling/tools/sip_ball.py" "$out/r$R.data" --box "$L" --radius "$R" \
    --sigma 0.51 --density 0.8615 > "$out/r$R.gen.log"
  cfg=("$root/configs/surface-polymerization.cfg" --set "input.file=$out/r$R.data"
       --set output.trajectory_interval=0)
  start=(); [ "$grow" -gt 0 ] && start=(--restart latest --force-restart)
  grower=("$bin"); [ "$grow_ranks" -gt 1 ] && grower=(mpiexec --oversubscribe -n "$grow_ranks" "$bin")
  if [ "$grow" -gt 0 ]; then
    run "$out/r$R-grow.log" "${grower[@]}" run "${cfg[@]}" --set "output.dir=$out/r$R-grow" \
      --set "integrator.steps=$grow" --set "output.thermo_interval=$grow" \
      --set "output.checkpoint_interval=$grow" "${extra[@]}"
    grep -h "Reactions: [0-9]" "$out/r$R-grow.log" | sed "s/^/    grown $grow steps on $grow_ranks rank(s): /" || true
  fi
  for rep in $(seq "$repeats"); do
  for variant in $variants; do
  vars=(); [ "$variant" != - ] && IFS=, read -r -a vars <<< "$variant"
  [ "$variant" != - ] && echo "    variant: $variant"
  for mode in rx plain; do
    iv=50; [ $mode = plain ] && iv=$((10 * (grow + steps)))
    dir=$out/r$R-$mode; [ "$grow" -gt 0 ] && dir=$out/r$R-grow
    run "$out/r$R-$mode.log" env "${vars[@]}" "$bin" run "${cfg[@]}" "${start[@]}" \
      --set "output.dir=$dir" \
      --set "integrator.steps=$((grow + steps))" --set "output.thermo_interval=$steps" \
      --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 \
      --set "reactions.interval=$iv" "${extra[@]}"
    cp "$dir/perf.json" "$out/r$R-$mode.json"
  done
  $py - "$out/r$R-rx.json" "$out/r$R-plain.json" "$R" "${galamost[$R]}" <<'PY'
import json, sys
d, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ref = float(sys.argv[4])
sps, plain = d["steps"] / d["wall_s"], p["steps"] / p["wall_s"]
share = d.get("reaction_s", 0.0) / d["wall_s"]
print(f'{sys.argv[3]:>4s} {d["particles"]:10d} {d["steps"]:8d} {sps:10.1f} {plain:10.1f} '
      f'{ref:10.2f} {sps / ref:8.1f} {100 * share:9.1f}% {100 * (1 - sps / plain):8.1f}%')
PY
  grep -h "Reactions" "$out/r$R-rx.log" | sed 's/^/    /' || true
  done
  done
done
grep -h '"device"' "$out"/r*.json | head -1
rm -rf "$out"
