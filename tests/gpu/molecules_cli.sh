#!/usr/bin/env bash
# molecules_cli.sh MODE VESICA CONFIG OUTDIR PRECISION [REACH]: the vesica command with
# molecules on the GPU backend (run through skip_without_gpu.sh).
#   repro: two identical GPU runs write byte-identical thermo.csv (bond and angle columns
#          included).
#   error: a bonded reach (REACH, default 0.75) just above the longest build length
#          stretches a bond beyond it within a few steps: the GPU run exits 1 naming both
#          beads (consecutive tags of a chain) and the step; in double precision the CPU run
#          stops at the same step.
set -euo pipefail
mode=$1; bin=$2; cfg=$3; out=$4; prec=$5; reach=${6:-0.75}
rm -rf "$out"
mkdir -p "$out"
gpu=(--set backend=gpu --set "precision=$prec")
case "$mode" in
repro)
  for k in 1 2; do
    "$bin" run "$cfg" "${gpu[@]}" --set "output.dir=$out/run$k" --set integrator.steps=300 \
        > "$out/run$k.log"
  done
  head -1 "$out/run1/thermo.csv" | grep -q bond || { echo "FAIL no bond column"; exit 1; }
  cmp "$out/run1/thermo.csv" "$out/run2/thermo.csv"
  echo "ok: two GPU runs with molecules ($prec) wrote identical thermo.csv"
  ;;
error)
  run_failing() { # BACKEND_ARGS... ; prints the fatal line, fails unless the exit status is 1
    local log=$out/$1.log; shift
    set +e
    "$bin" run "$cfg" "$@" --set "bonded.reach=$reach" --set integrator.steps=200 \
        --set "output.dir=$out/run" > "$log" 2>&1
    local rc=$?
    set -e
    [ "$rc" -eq 1 ] || { echo "FAIL exit status $rc, expected 1" >&2; cat "$log" >&2; exit 1; }
    grep -o "step [0-9]*: the bond between beads [0-9]* and [0-9]* is stretched to r = [^,]*, beyond the bonded reach $reach" "$log" | head -1 || true
  }
  line=$(run_failing gpu "${gpu[@]}")
  [ -n "$line" ] || { echo "FAIL no bonded-reach message from the GPU run"; exit 1; }
  echo "GPU: $line"
  read -r step a b < <(echo "$line" | sed -E 's/step ([0-9]+): the bond between beads ([0-9]+) and ([0-9]+).*/\1 \2 \3/')
  [ $((a - b)) -eq 1 ] || [ $((b - a)) -eq 1 ] || { echo "FAIL beads $a and $b are not bonded"; exit 1; }
  if [ "$prec" = double ]; then
    cpu_line=$(run_failing cpu --set backend=cpu)
    echo "CPU: $cpu_line"
    cpu_step=$(echo "$cpu_line" | sed -E 's/step ([0-9]+):.*/\1/')
    [ "$cpu_step" = "$step" ] || { echo "FAIL GPU stopped at step $step, CPU at $cpu_step"; exit 1; }
  fi
  echo "ok: a stretched bond stops the GPU run ($prec) with exit 1, both beads and step $step"
  ;;
*)
  echo "unknown mode $mode"; exit 2 ;;
esac
