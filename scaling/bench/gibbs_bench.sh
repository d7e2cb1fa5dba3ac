#!/usr/bin/env bash
# Gibbs-ensemble throughput (a benchmark, not a test): Gibbs cycles per second of `vesica mc`
# for the LJ fluid at coexistence, T* = 1.0 (r_c 3 with tail corrections; Vesica's own
# coexistence there, docs/validation.md: rho_l 0.701, rho_v 0.0273), N particles in all, 90 %
# of them in the liquid box and 10 % in the vapour box, each box at its coexistence density,
# started from simple cubic lattices. The moves are GOMC's GEMC benchmark's (Nejahi et al.,
# SoftwareX 9, 20 (2019), section 5: 40 % displacement, 40 % rotation, 19 % swap, 1 % volume
# exchange) with the rotations, which single sites do not have, as displacements: 0.80
# displacement, 0.19 transfer, 0.01 volume exchange at N = 1000. A cycle is N moves
# (mc.moves_per_cycle at its default), so at 1000 it holds 10 volume exchanges on average;
# larger sizes keep those 10 (probability 10 / N, the transfers 0.2 - 10 / N): each exchange
# recomputes both boxes' energies, O(N), so GOMC's 1 % of moves would cost O(N^2)
# a cycle (at 65,000 one cycle took 160 s of one core here, 650 exchanges), the scaling GOMC's
# paper reports for its own n-octane GEMC; a fixed number per cycle is the textbook's choice
# (Frenkel & Smit, Understanding Molecular Simulation, ch. 8). The step sizes are tuned
# throughout (mc.equilibration = mc.cycles).
#
# Usage: scaling/bench/gibbs_bench.sh VESICA [SIZES] [RUNS] [VOLUME_PER_CYCLE]
#   SIZES default "1000 65000"; RUNS, backend:sweep pairs, default
#   "cpu:sequential cpu:checkerboard gpu:checkerboard" (gpu rows only where the build has
#   CUDA and a device answers: otherwise the row says why it failed); VOLUME_PER_CYCLE the
#   volume exchanges per cycle on average, default 10 (GOMC's 1 % at 1000).
# With mc.sweep = "checkerboard" a cycle is one sweep of each box (N displacements, on the
# GPU with backend = "gpu") and then round(0.2 N) transfers and volume exchanges: on the GPU
# backend the volume exchanges' energies on the device, the transfers' on the host from one
# copy of the positions per cycle (VESICA_MC_GPU_EXCHANGE=device: on the device too);
# the CPU and GPU runs of a checkerboard make the same trajectory bit for bit, so their times
# compare the same work. The rate is vesica's own time in the cycles' moves (the start and the
# thermo rows left out; the log line "... in X s of moves"). Prints one row per run:
#   N backend sweep cycles seconds cycles_per_s speedup
# speedup: cycles_per_s over that of the size's first row (by default the CPU's sequential
# run, one core: the baseline GOMC's Fig. 4 speed-ups are relative to).
set -euo pipefail
bin=$1
sizes=${2:-"1000 65000"}
runs=${3:-"cpu:sequential cpu:checkerboard gpu:checkerboard"}
vpc=${4:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cycles_for() { # backend, N: tens of seconds of moves at most on one core
  if [ "$1" = gpu ]; then
    case $2 in 1000) echo 200 ;; *) echo 10 ;; esac
  else
    case $2 in 1000) echo 100 ;; *) echo 2 ;; esac
  fi
}
printf "%-7s %-7s %-12s %6s %9s %12s %7s\n" N backend sweep cycles seconds cycles_per_s speedup
for n in $sizes; do
  base=""
  nv=$(( (n + 5) / 10 ))
  nl=$(( n - nv ))
  ll=$(python3 -c "print(repr(($nl / 0.701) ** (1 / 3)))")
  lv=$(python3 -c "print(repr(($nv / 0.0273) ** (1 / 3)))")
  pv=$(python3 -c "print(repr($vpc / $n))")
  pe=$(python3 -c "print(repr(round(0.2 - $vpc / $n, 12)))")
  for r in $runs; do
    be=${r%%:*}
    sw=${r##*:}
    c=$(cycles_for "$be" "$n")
    cat > "$out/gibbs.cfg" <<EOF2
box = [$ll, $ll, $ll];
particles = $nl;
seed = 7;
backend = "$be";
species = ( { name = "A"; } );
pair = ( { style = "lj"; rc = 3.0; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
mc = { ensemble = "gibbs"; kT = 1.0; box2 = [$lv, $lv, $lv]; particles2 = $nv;
       cycles = $c; equilibration = $c; tune_every = 1; max_displacement = 0.15;
       max_log_volume = 0.01; sweep = "$sw";
       moves = { displacement = 0.80; volume = $pv; exchange = $pe; }; };
output = { dir = "$out/run"; thermo_interval = $c; checkpoint_keep = 0; };
EOF2
    rm -rf "$out/run"
    if ! "$bin" mc "$out/gibbs.cfg" > "$out/log" 2>&1; then
      echo "$n $be $sw: failed: $(tail -1 "$out/log")"
      continue
    fi
    sec=$(grep "attempted displacements in" "$out/log" | sed -E 's/.* in ([0-9.]+) s of moves.*/\1/')
    rate=$(python3 -c "print('%.4g' % ($c / $sec))")
    base=${base:-$rate}
    sp=$(python3 -c "print('%.3g' % ($rate / $base))")
    printf "%-7s %-7s %-12s %6s %9s %12s %7s\n" "$n" "$be" "$sw" "$c" "$sec" "$rate" "$sp"
  done
done
