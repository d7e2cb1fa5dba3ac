#!/usr/bin/env bash
# cupti_timeline.sh OUTDIR: scaling/tools/cupti_timeline.py on a made-up two-rank trace whose
# figures are known. Each rank runs four steps 100 us apart: a pack kernel (the anchor) for
# 10 us, 5 us idle, an image pass for 10 us, 1 us idle, a Newton kernel for 64 us; each
# queued by the host 50 us before it starts. Rank 1 runs 2 us behind rank 0. So each step
# is 100 us with 84 busy; rank 0's image pass follows the other rank's pack end by 3 us,
# rank 1's by 7; the last anchor closes the third step. A third trace, with no kernel
# (an MPI helper process the library was injected into), is skipped.
set -u
OUT=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 - "$OUT" <<'PY' || fail "could not write the traces"
import sys
out = sys.argv[1]
names = {"pack": "_Z21slab_pack_fill_kernelPii", "write": "_Z17slab_write_kernelPi",
         "newton": "_Z16vs_newton_kernelv"}
for rank, shift in ((0, 0), (1, 2000)):
    rows, corr = [], 0
    for step in range(4):
        t0 = step * 100000 + shift
        parts = [("pack", 0, 10000), ("write", 15000, 25000), ("newton", 26000, 90000)]
        for name, a, b in parts[:1] if step == 3 else parts:
            corr += 1
            rows.append(f"kernel,{t0 + a},{t0 + b},{rank},7,{corr},{names[name]}")
            rows.append(f"runtime,{t0 + a - 60000},{t0 + a - 50000},0,0,{corr},cudaLaunchKernel")
    open(f"{out}/trace.{rank}.csv", "w").write(
        "kind,start_ns,end_ns,device,stream,correlation,name\n" + "\n".join(rows) + "\n")
# a process with no kernel (the library injected into an MPI helper) between the two ranks
open(f"{out}/trace.helper.csv", "w").write("kind,start_ns,end_ns,device,stream,correlation,name\n")
PY
python3 "$SRC/scaling/tools/cupti_timeline.py" pack_fill "$OUT/trace.0.csv" "$OUT/trace.helper.csv" \
    "$OUT/trace.1.csv" \
    > "$OUT/table.txt" 2>&1 || { cat "$OUT/table.txt"; fail "cupti_timeline.py failed"; }
cat "$OUT/table.txt"
expect() { grep -Eq -- "$1" "$OUT/table.txt" || fail "expected a line matching: $1"; }
expect "trace\.helper\.csv: fewer than three 'pack_fill' kernels, skipped"
expect '^rank 0: 3 steps, 3 with the commonest sequence \(3 activities\)'
expect '^  slab_pack_fill_kernel +0\.0 +10\.0 +0\.0 +50\.0$'
expect '^  slab_write_kernel +15\.0 +10\.0 +5\.0 +50\.0$'
expect '^  vs_newton_kernel +26\.0 +64\.0 +1\.0 +50\.0$'
expect 'median 100\.0 us; busy 84\.0 us'
expect "^rank 1's anchor after rank 0's: median 2\.0 us"
expect '^  slab_write_kernel +<- slab_pack_fill_kernel +3 +5\.0 +3\.0$'
expect '^  slab_write_kernel +<- slab_pack_fill_kernel +3 +5\.0 +7\.0$'
echo "cupti_timeline: the made-up trace's figures are found"
