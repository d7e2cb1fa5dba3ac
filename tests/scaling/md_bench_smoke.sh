#!/usr/bin/env bash
# Smoke test of scaling/bench/md_bench.py (not a benchmark): the LJ liquid and the Kremer-Grest
# melt prepared and measured on the CPU backend at 2000 particles, two skins, a few steps, so
# that the device commands of docs/performance.md keep working. Checks the rows, the JSON and
# that a second call reuses the prepared frames instead of preparing again.
# Usage: md_bench_smoke.sh VESICA SOURCE_DIR WORK_DIR
set -euo pipefail
bin=$1 src=$2 work=$3
py=${PYTHON:-/usr/bin/python3}
rm -rf "$work"
args=(--vesica "$bin" --backend cpu --sizes 2000 --precisions double --steps 10 --warmup 2
      --work "$work" --json "$work/bench.json")
"$py" "$src/scaling/bench/md_bench.py" "${args[@]}" --system lj kg --skins 0.3 0.4 | tee "$work.log"
test "$(grep -c '^lj  *2000  *double' "$work.log")" -eq 2
test "$(grep -c '^kg  *2000  *double' "$work.log")" -eq 2
grep -q "^# fastest kg N = 2000 double" "$work.log"
grep -q "^# prepared lj N = 2000" "$work.log"
# a second call measures from the same frames: no preparation line, two more JSON rows
"$py" "$src/scaling/bench/md_bench.py" "${args[@]}" --system lj --skins 0.2 | tee "$work.log2"
if grep -q "^# prepared" "$work.log2"; then echo "prepared again" >&2; exit 1; fi
"$py" - "$work/bench.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 5, len(runs)
assert all(r["particles"] == 2000 and r["particle_steps_per_s"] > 0 and r["steps"] == 10
           for r in runs), runs
assert {r["system"] for r in runs} == {"lj", "kg"}
print("md_bench smoke: %d rows ok" % len(runs))
PY
