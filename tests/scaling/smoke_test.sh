#!/usr/bin/env bash
# Smoke test of scaling/bench/scaling.py (not a benchmark): a 1- and 2-rank weak and strong series
# of a tiny CPU system, then the plots and the model. Checks that the CSV has its four rows,
# the efficiency definitions in its header, that every PNG and model file was written, and
# the model's ghost count against the shell volume.
# Usage: smoke_test.sh VESICA SOURCE_DIR WORK_DIR. Exit 77 (skipped) without numpy/matplotlib.
set -euo pipefail
bin=$1 src=$2 work=$3
py=${PYTHON:-/usr/bin/python3}
"$py" -c "import numpy, matplotlib" 2>/dev/null || { echo "no numpy/matplotlib: skipped"; exit 77; }
rm -rf "$work"
"$py" "$src/scaling/bench/scaling.py" run --binary "$bin" --backend cpu --gpus 1,2 \
  --weak-per-gpu 1500 --strong-total 3000 --steps 10 \
  --warmup 3 --out "$work"
"$py" "$src/scaling/bench/scaling.py" plot "$work/scaling.csv"
"$py" "$src/scaling/bench/scaling.py" model "$work/scaling.csv" --tang-karniadakis --max-gpus 64
test "$(grep -vc '^#' "$work/scaling.csv")" -eq 5
grep -q "strong efficiency E(P) = P0 T(P0) / (P T(P))" "$work/scaling.csv"
for f in throughput.png efficiency.png phases.png model.png model.csv model.json; do
  test -s "$work/$f" || { echo "missing $f" >&2; exit 1; }
done
# The model's ghost count against an independent one: the shell of width w around a brick,
# rho ((bx + 2w)(by + 2w)(bz + 2w) - bx by bz), here 192,000 particles at rho 3 on 2 and 8
# ranks (bricks 40x40x20 and 20x20x20).
"$py" - "$src/scaling/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import scaling
for p, b in ((2, (40, 40, 20)), (8, (20, 20, 20))):
    dims, bricks, per_dir, ghosts = scaling.brick_geometry(192000, 3.0, p, 1.3)
    shell = 3.0 * ((b[0] + 2.6) * (b[1] + 2.6) * (b[2] + 2.6) - b[0] * b[1] * b[2])
    assert abs(ghosts - shell) < 1e-6 * shell, (p, dims, ghosts, shell)
    assert sorted(round(x, 9) for x in bricks) == sorted(b), bricks
print("ghost geometry: OK")
PY
echo "scaling smoke test: PASS"
