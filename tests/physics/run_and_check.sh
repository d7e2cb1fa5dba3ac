#!/usr/bin/env bash
# run_and_check.sh RANKS OUTDIR -- VESICA_ARGS... -- CHECK_ARGS...
# Runs vesica on RANKS MPI ranks with output in OUTDIR, then check_thermo.py on its thermo.csv.
set -euo pipefail
ranks=$1; out=$2; shift 2
[ "$1" = "--" ] && shift
run_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do run_args+=("$1"); shift; done
[ $# -gt 0 ] && shift
rm -rf "$out"
mpiexec --oversubscribe -n "$ranks" "${run_args[@]}" --set "output.dir=$out"
python3 "$(dirname "$0")/check_thermo.py" "$out/thermo.csv" "$@"
