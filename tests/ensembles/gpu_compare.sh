#!/usr/bin/env bash
# gpu_compare.sh VESICA CONFIG OUTDIR PRECISION TOLERANCE [--set KEY=VALUE]...: an ensemble on
# the GPU backend against the CPU reference, and against itself.
#  - the GPU run repeated gives byte-identical thermo.csv (bit-reproducible: fixed reduction
#    orders, exact thermostat sums, random numbers keyed by (seed, step, tag));
#  - its thermo rows up to step 50 (before the chaos of the dynamics has amplified the
#    round-off) agree with the CPU backend's: every energy, temperature, pressure and the
#    ensemble's columns within TOLERANCE relative (double: tight; mixed: loose). Both
#    backends draw the same random numbers; they differ by round-off only (the device's
#    log, sin, cos and fused multiply-adds).
set -euo pipefail
BIN=$1; CFG=$2; OUT=$3; PREC=$4; TOL=$5
shift 5
PY=${VESICA_PYTHON:-/usr/bin/python3}
# the comparison needs numpy: a Python without it is a reason to skip, not a failure
"$PY" -c 'import numpy' 2>/dev/null ||
    { echo "skip: $PY has no numpy (configure with -DVESICA_ANALYSIS_PYTHON=a Python with numpy)"; exit 77; }
rm -rf "$OUT" && mkdir -p "$OUT"
common=(--set integrator.steps=50 --set output.thermo_interval=10 --set output.checkpoint_keep=0
        "$@")
# VESICA_RANKS (default 1): the rank count of every run
ranks=${VESICA_RANKS:-1}
mpiexec --oversubscribe -n "$ranks" "$BIN" run "$CFG" --set backend=cpu --set output.dir="$OUT/cpu" \
    "${common[@]}" > "$OUT/cpu.log"
for k in 1 2; do
    mpiexec --oversubscribe -n "$ranks" "$BIN" run "$CFG" --set backend=gpu --set precision="$PREC" --set output.dir="$OUT/gpu$k" \
        "${common[@]}" > "$OUT/gpu$k.log"
done
cmp "$OUT/gpu1/thermo.csv" "$OUT/gpu2/thermo.csv" ||
    { echo "FAIL: two GPU runs differ" >&2; exit 1; }
"$PY" - "$OUT/cpu/thermo.csv" "$OUT/gpu1/thermo.csv" "$TOL" <<'PY'
import sys
import numpy as np
a = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
b = np.genfromtxt(sys.argv[2], delimiter=",", names=True)
tol = float(sys.argv[3])
bad = 0
for col in a.dtype.names:
    if col in ("step", "time", "px", "py", "pz"):
        continue
    scale = np.maximum(np.abs(a[col]), 1.0)
    err = np.max(np.abs(a[col] - b[col]) / scale)
    ok = err <= tol
    bad += not ok
    print("%s %s: largest relative difference %.3g (tolerance %g)" % ("ok  " if ok else "FAIL",
                                                                      col, err, tol))
sys.exit(1 if bad else 0)
PY
echo "ok: GPU ($PREC) reproducible and within $TOL of the CPU ($*)"
