#!/usr/bin/env bash
# roofline_table.sh OUTDIR: scaling/bench/gpu_roofline.py on a made-up Nsight Compute CSV whose
# figures are known: set-up launches before the first first half-step and a last step with
# huge figures (both must be left out), 10 steps in between, a reorder every 8th. Per step:
# first_half 1 ms moving 3.024 GB (its floor at 3024 GB/s: 1 ms), forces 2 ms issuing 792M
# warp instructions at 1.5 GHz on 132 SMs (floor 792e6 / (4 x 132 x 1.5e9) s = 1 ms), the
# reorder 0.8 ms once in the 8-step window (0.1 ms per step, floor 0). So the table must say
# 3.100 ms per step and 2.000 ms of floors.
set -u
OUT=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 - "$OUT/ncu.csv" <<'PY' || fail "could not write the CSV"
import csv, sys
rows, lid = [], 0
def launch(name, t_ns, dram, inst):
    global lid
    for metric, v in (("gpu__time_duration.sum", t_ns), ("dram__bytes_read.sum", dram / 2),
                      ("dram__bytes_write.sum", dram / 2), ("smsp__inst_executed.sum", inst),
                      ("sm__cycles_elapsed.avg.per_second", 1.5e9),
                      ("smsp__issue_active.avg.pct_of_peak_sustained_active", 50)):
        rows.append([lid, 1, "vesica", "host", name, 1, 7, "(256, 1, 1)", "(10, 1, 1)", 0, "9.0",
                     "Command line profiler metrics", metric, "", f"{v:,.0f}"])
    lid += 1
launch("init_kernel", 9e9, 9e12, 9e12)
launch("force_kernel", 9e9, 9e12, 9e12)
for step in range(11):
    launch("first_half_kernel", 1e6, 3.024e9, 0)
    if step == 4:
        launch("reorder_kernel", 0.8e6, 0, 0)
    launch("force_kernel", 2e6, 0, 792e6) if step < 10 else launch("force_kernel", 9e9, 9e12, 9e12)
with open(sys.argv[1], "w", newline="") as f:
    f.write("==PROF== Connected to process 1 (vesica)\n")
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
                "Metric Name", "Metric Unit", "Metric Value"])
    w.writerows(rows)
PY
python3 "$SRC/scaling/bench/gpu_roofline.py" "$OUT/ncu.csv" 8 3024 132 3100000 >"$OUT/table.txt" ||
    fail "gpu_roofline.py failed"
cat "$OUT/table.txt"
grep -qF "| first_half_kernel | 1 | 1.000 | 3024 | 3.02 | 0.0 | 50 | issue 50 | 1.000 | 0.000 |" "$OUT/table.txt" ||
    fail "the first half-step's row"
grep -qF "| force_kernel | 1 | 2.000 | 0 | 0.00 | 792.0 | 50 | issue 50 | 0.000 | 1.000 |" "$OUT/table.txt" ||
    fail "the force kernel's row"
grep -qF "| reorder_kernel | 0.125 | 0.100 |" "$OUT/table.txt" || fail "the reorder's row"
grep -qF "kernel time per step 3.100 ms: 1.000e+09 particle-steps/s; the floors' sum 2.000 ms: at most 1.550e+09" \
    "$OUT/table.txt" || fail "the totals"
python3 "$SRC/scaling/bench/gpu_roofline.py" "$OUT/ncu.csv" 11 3024 132 3100000 >/dev/null 2>&1 &&
    fail "11 whole steps accepted where the CSV holds 10"
echo "ok: gpu_roofline.py keeps the window's launches and computes the floors"
