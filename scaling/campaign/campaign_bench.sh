#!/usr/bin/env bash
# A campaign's sustained throughput against a benchmark of the same system (issue 48: the
# campaign, trajectory and checkpoint writes included, should reach 90% of the benchmark).
#
# Usage: scaling/campaign/campaign_bench.sh CONFIG RUN NRANKS [STEPS] [VESICA ARGS...]
#   CONFIG and RUN are the campaign's configuration and folder (RUN/legs.csv from
#   scaling/campaign/campaign.sh, RUN/checkpoints/); STEPS (default 2000) the benchmark's length.
# The benchmark restarts from RUN's newest checkpoint into a scratch folder (RUN is not
# touched) with the same VESICA ARGS as the campaign's later legs, no trajectory and no
# checkpoint, on NRANKS ranks, and reads perf.json's particle-steps/s (the step loop). The
# campaign's figure is the mean of legs.csv's particle_steps_per_s over the legs that ended
# with status 0 or 3 after at least STEPS steps, the first leg left out (the random start),
# weighted by their wall time. Prints both and their ratio; writes RUN/bench.json.
# Environment: VESICA, MPIRUN, MPIRUN_ARGS, LAUNCHER as campaign.sh.
set -euo pipefail
cfg=${1:?usage: campaign_bench.sh CONFIG RUN NRANKS [STEPS] [VESICA ARGS...]}
run=${2:?RUN missing}; nranks=${3:?NRANKS missing}; shift 3
steps=2000
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then steps=$1; shift; fi
bin=${VESICA:-build/vesica}
ckpt=$(ls "$run"/checkpoints/ckpt_*.h5 2> /dev/null | sed 's/.*ckpt_\([0-9]*\)\.h5/\1 &/' | sort -n | tail -1 | cut -d' ' -f2)
[ -n "$ckpt" ] || { echo "campaign_bench: no checkpoint in $run/checkpoints" >&2; exit 2; }
at=$(basename "$ckpt" .h5); at=${at#ckpt_}
if [ -n "${LAUNCHER:-}" ]; then
  read -r -a launcher <<< "$LAUNCHER"
elif [ "$nranks" -eq 1 ]; then
  launcher=()
else
  read -r -a launcher <<< "${MPIRUN:-mpirun} ${MPIRUN_ARGS:---bind-to none}"
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  launcher+=(-n "$nranks")
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/campaign_bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# the benchmark's own settings come last, so that they win over the campaign's arguments
"${launcher[@]}" "$bin" run "$cfg" "$@" --restart "$ckpt" --set "output.dir=$scratch" \
  --set "integrator.steps=$((at + steps))" --set output.trajectory_interval=0 \
  --set output.checkpoint_keep=0 --set output.thermo_interval="$steps" > "$scratch/log" 2>&1 ||
  { tail -n 5 "$scratch/log" >&2; echo "campaign_bench: the benchmark run failed" >&2; exit 1; }
[ -f "$scratch/perf.json" ] || { tail -n 5 "$scratch/log" >&2; echo "campaign_bench: the benchmark ran no step" >&2; exit 1; }
bench=$(sed -n 's/^ *"particle_steps_per_s": *\([-+0-9.eE]*\),*$/\1/p' "$scratch/perf.json")
awk -F, -v steps="$steps" -v bench="$bench" -v at="$at" -v ranks="$nranks" -v out="$run/bench.json" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  NR > 2 && ($col["status"] == 0 || $col["status"] == 3) && $col["steps"] >= steps {
    w += $col["wall_s"]; s += $col["wall_s"] * $col["particle_steps_per_s"]; n++ }
  END {
    if (n == 0) { print "campaign_bench: no leg after the first ran " steps " steps or more" > "/dev/stderr"; exit 1 }
    r = s / w / bench
    printf "benchmark %.4e particle-steps/s (from step %d, %d ranks); campaign %.4e over %d leg(s): %.1f%%\n", bench, at, ranks, s / w, n, 100 * r
    printf "{\n  \"benchmark_particle_steps_per_s\": %.6e,\n  \"campaign_particle_steps_per_s\": %.6e,\n  \"legs\": %d,\n  \"ratio\": %.4f,\n  \"from_step\": %d,\n  \"ranks\": %d\n}\n", bench, s / w, n, r, at, ranks > out
  }' "$run/legs.csv"
