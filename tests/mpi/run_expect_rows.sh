#!/usr/bin/env bash
# run_expect_rows.sh RANKS OUTDIR ROWS VESICA CONFIG [--set key=value]...: run, then require exit
# 0 and a thermo.csv with the header and ROWS data rows (the run reached its last step with
# every integrity check passed: a lost or duplicated particle stops the run with exit 1).
set -euo pipefail
ranks=$1; out=$2; rows=$3; bin=$4; cfg=$5; shift 5
rm -rf "$out"
mpiexec --oversubscribe -n "$ranks" "$bin" run "$cfg" --set "output.dir=$out" "$@"
got=$(($(wc -l < "$out/thermo.csv") - 1))
if [ "$got" -ne "$rows" ]; then
  echo "FAIL: $out/thermo.csv has $got rows, expected $rows" >&2
  exit 1
fi
grep -q '"neighbor_builds"' "$out/perf.json"
grep -q '"plan": "' "$out/perf.json"
echo "ok: $rows thermo rows, perf.json written"
