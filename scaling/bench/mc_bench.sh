#!/usr/bin/env bash
# Monte Carlo displacement throughput (a benchmark, not a test): attempted displacements per
# second of the checkerboard sweep (mc.sweep = "checkerboard") for the LJ fluid at rho* 0.8,
# T* 0.9, r_c 3 with tail corrections, NVT, on the CPU (one core) and on one GPU.
#
# Usage: [MC_RANKS=R] [MC_DECOMP=domain] [MC_CYCLES=C] scaling/bench/mc_bench.sh VESICA [SIZES] [BACKENDS]
#   defaults: "4000 64000 1000000", "cpu gpu"; MC_RANKS=R runs the CPU rows on R ranks
#   (mpiexec --oversubscribe -n R; the sweep's cells split over them), MC_DECOMP their
#   mc.decomposition (default replicated), MC_CYCLES the CPU rows' cycles (default by size).
# Each run starts from the simple cubic lattice with a step of 0.12 (near the tuned one: 45-50%
# acceptance) and tunes it towards 50% throughout (mc.equilibration = mc.cycles); the rate is vesica's own figure, the
# attempted displacements over the time spent in the cycles' moves (thermo rows and the
# start excluded). Prints one row per run:
#   N backend cycles attempted seconds per_second acceptance
set -euo pipefail
bin=$1
sizes=${2:-"4000 64000 1000000"}
backends=${3:-"cpu gpu"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cycles_for() { # backend, N: a few seconds of moves
  if [ "$1" = gpu ]; then
    case $2 in 4000) echo 200 ;; 64000) echo 100 ;; *) echo 60 ;; esac
  else
    case $2 in 4000) echo "${MC_CYCLES:-40}" ;; 64000) echo "${MC_CYCLES:-4}" ;; *) echo "${MC_CYCLES:-1}" ;; esac
  fi
}
printf "%-9s %-7s %6s %12s %9s %11s %6s\n" N backend cycles attempted seconds per_second acc
for n in $sizes; do
  L=$(python3 -c "print(repr(($n / 0.8) ** (1 / 3)))")
  for be in $backends; do
    c=$(cycles_for "$be" "$n")
    cat > "$out/lj.cfg" <<EOF2
box = [$L, $L, $L];
particles = $n;
seed = 5;
backend = "$be";
species = ( { name = "A"; } );
pair = ( { style = "lj"; rc = 3.0; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "nvt"; kT = 0.9; cycles = $c; equilibration = $c; tune_every = 5;
       max_displacement = 0.12; sweep = "checkerboard"; decomposition = "${MC_DECOMP:-replicated}"; };
output = { dir = "$out/run"; thermo_interval = $c; checkpoint_keep = 0; };
EOF2
    rm -rf "$out/run"
    launch=()
    [ "$be" = cpu ] && [ -n "${MC_RANKS:-}" ] && launch=(mpiexec --oversubscribe -n "$MC_RANKS")
    "${launch[@]}" "$bin" mc "$out/lj.cfg" > "$out/log" 2>&1 || { echo "$n $be: failed: $(tail -2 "$out/log")"; continue; }
    line=$(grep "attempted displacements in" "$out/log")
    att=$(echo "$line" | sed -E 's/.*Monte Carlo: ([0-9]+) attempted.*/\1/')
    sec=$(echo "$line" | sed -E 's/.* in ([0-9.]+) s of moves.*/\1/')
    rate=$(echo "$line" | sed -E 's/.*: ([0-9.e+]+) per second.*/\1/')
    acc=$(grep -o "displacement acceptance [0-9.]*" "$out/log" | head -1 | awk '{print $3}')
    printf "%-9s %-7s %6s %12s %9s %11s %6s\n" "$n" "$be" "$c" "$att" "$sec" "$rate" "$acc"
  done
done
