#!/usr/bin/env bash
# Smoke test of scaling/scaling.py (not a benchmark): a 1- and 2-rank weak and strong series
# of a tiny CPU system, then the plots and the model. Checks that the CSV has its four rows,
# the efficiency definitions in its header, and that every PNG and model file was written.
# Usage: smoke_test.sh VESICA SOURCE_DIR WORK_DIR. Exit 77 (skipped) without numpy/matplotlib.
set -euo pipefail
bin=$1 src=$2 work=$3
py=${PYTHON:-/usr/bin/python3}
"$py" -c "import numpy, matplotlib" 2>/dev/null || { echo "no numpy/matplotlib: skipped"; exit 77; }
rm -rf "$work"
"$py" "$src/scaling/scaling.py" run --binary "$bin" --backend cpu --gpus 1,2 \
  --weak-per-gpu 1500 --strong-total 3000 --steps 10 \
  --warmup 3 --out "$work"
"$py" "$src/scaling/scaling.py" plot "$work/scaling.csv"
"$py" "$src/scaling/scaling.py" model "$work/scaling.csv" --tang-karniadakis --max-gpus 64
test "$(grep -vc '^#' "$work/scaling.csv")" -eq 5
grep -q "strong efficiency E(P) = P0 T(P0) / (P T(P))" "$work/scaling.csv"
for f in throughput.png efficiency.png phases.png model.png model.csv model.json; do
  test -s "$work/$f" || { echo "missing $f" >&2; exit 1; }
done
echo "scaling smoke test: PASS"
