#!/usr/bin/env bash
# Where the MD-SCF melt's plain step goes, kernel by kernel (a profile, not a test): the melt of
# scaling/bench/field-melt.cfg at SIZE particles (the box and count of field_bench.sh), its
# fields made at step 0 and kept (an interval longer than the run), run for STEPS steps under
# Nsight Compute, which times every kernel on its own (`gpu__time_duration`, clocks left as they
# are). Prints one row per kernel: launches, total and median ms, and, for the kernels of
# every step (at least STEPS - 1 launches: the first step may take another variant), the
# median times the launches per step; the others are the set-up's and the rebuilds'. Needs
# ncu (Nsight Compute) on the PATH or in /usr/local/cuda/bin.
#
# Usage: scaling/bench/field_kernels.sh VESICA [SIZE] [STEPS]   (defaults 16000000, 6)
# FIELD_KERNELS_CSV=FILE keeps ncu's CSV.
set -euo pipefail
export CUDA_MODULE_LOADING=EAGER
here=$(cd "$(dirname "$0")" && pwd)
bin=$1
n=${2:-16000000}
steps=${3:-6}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu" ] || { echo "field_kernels.sh: no ncu (Nsight Compute) found" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
side=$(python3 -c "print(max(8, round(($n / 3.0) ** (1 / 3))))")
parts=$(python3 -c "print(20 * ((3 * $side ** 3) // 20))")
csv=${FIELD_KERNELS_CSV:-$out/kernels.csv}
"$ncu" --clock-control none --csv --metrics gpu__time_duration.sum "$bin" run "$here/field-melt.cfg" \
  --set "box=[$side.0, $side.0, $side.0]" --set "particles=$parts" \
  --set "output.dir=\"$out/run\"" --set output.checkpoint_keep=0 \
  --set field.interval=1000000000 --set "integrator.steps=$steps" \
  --set "output.thermo_interval=$steps" > "$csv" 2> "$out/ncu.err" ||
  { tail -5 "$out/ncu.err" >&2; exit 1; }
python3 - "$csv" "$steps" "$parts" <<'PY'
import collections, csv, sys
steps, parts = int(sys.argv[2]), int(sys.argv[3])
scale = {"ns": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0, "nsecond": 1e-6}
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
name, value, unit = (head.index(k) for k in ("Kernel Name", "Metric Value", "Metric Unit"))
times = collections.defaultdict(list)
for r in rows[1:]:
    times[r[name].split("(")[0].replace("void ", "")[:60]].append(
        float(r[value].replace(",", "")) * scale[r[unit]])
print(f"# {parts} particles, {steps} steps; ms")
print(f"{'kernel':60s} {'launches':>8s} {'total':>9s} {'median':>8s} {'per step':>9s}")
every = 0.0
for k, v in sorted(times.items(), key=lambda kv: -sum(kv[1])):
    per = sorted(v)[len(v) // 2] * max(1, round(len(v) / steps)) if len(v) >= steps - 1 \
        else float("nan")
    every += 0.0 if per != per else per
    print(f"{k:60s} {len(v):8d} {sum(v):9.3f} {sorted(v)[len(v) // 2]:8.3f} {per:9.3f}")
print(f"# the kernels of every step: {every:.3f} ms per step")
PY
