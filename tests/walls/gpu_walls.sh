#!/usr/bin/env bash
# gpu_walls.sh PRECISION VESICA OUTDIR: the walls on the GPU backend. tests/walls/walls.cfg
# (free slip along x, periodic y, no slip with a moving wall and the erfc force along z) on
# one GPU rank follows the CPU backend's trajectory: the thermo rows of the first 40 steps
# agree to 1e-6 relative (double) or 1e-4 (mixed) before the chaos of a fluid separates them;
# on 2 ranks (a slab cut along z, the image path; cut along x and z, the staged protocol) the
# run finishes with every particle; a particle leaving through a wall in one step stops the
# run with exit 1 naming its tag; and the closed bounce-forward box at rest
# (tests/walls/closed-box.cfg) passes tests/walls/closed_box.py. Mixed precision's bits on
# any rank count are tests/walls/walls_ranks.sh's (gpu_walls_ranks_*).
set -u
PREC=$1; BIN=$2; OUT=$3
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
# the analysis Python (VESICA_PYTHON: the build's VESICA_ANALYSIS_PYTHON), else Debian's
PY=${VESICA_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { # backend ranks decomposition dir [more]
    local be=$1 n=$2 dec=$3 dir=$4
    shift 4
    mpiexec --oversubscribe -n "$n" "$BIN" run "$HERE/walls.cfg" --set backend="$be" \
        --set precision="$PREC" --set decomposition="$dec" --set output.dir="$dir" \
        --set output.thermo_interval=10 "$@" >"$dir.log" 2>&1
}
run cpu 1 "[1, 1, 1]" cpu --set integrator.steps=40 || fail "cpu run"
run gpu 1 "[1, 1, 1]" gpu --set integrator.steps=40 || { tail -5 gpu.log >&2; fail "gpu run"; }
TOL=1e-6
[ "$PREC" = mixed ] && TOL=1e-4
"$PY" - "$TOL" <<'PYEOF' || fail "the GPU's thermo rows differ from the CPU's"
import csv, sys
tol = float(sys.argv[1])
a = list(csv.DictReader(open("cpu/thermo.csv")))
b = list(csv.DictReader(open("gpu/thermo.csv")))
assert len(a) == len(b), (len(a), len(b))
for ra, rb in zip(a, b):
    for k in ("temperature", "pressure", "kinetic_energy", "potential_energy"):
        x, y = float(ra[k]), float(rb[k])
        if abs(x - y) > tol * max(1.0, abs(x)):
            sys.exit(f"step {ra['step']} {k}: cpu {x} gpu {y}")
print(f"GPU thermo rows match the CPU's to {tol} over {len(a)} rows")
PYEOF
for dec in "[1, 1, 2]" "[2, 1, 1]"; do
    dir=np2-$(echo "$dec" | tr -d '[], ')
    run gpu 2 "$dec" "$dir" || { tail -5 "$dir.log" >&2; fail "gpu on 2 ranks $dec"; }
done
run gpu 1 "[1, 1, 1]" escape --set 'species.[0].body_force=[0.0, 0.0, 1e5]' \
    --set run.temperature_tolerance=0.0
rc=$?
[ "$rc" = 1 ] || fail "an escape through a wall: exit $rc, expected 1"
grep -q "left the box through a wall" escape.log || fail "no escape line in the log"
"$BIN" run "$HERE/closed-box.cfg" --set backend=gpu --set precision="$PREC" \
    --set output.dir=box >box.log 2>&1 || { tail -5 box.log >&2; fail "closed box"; }
if "$PY" -c "import h5py" 2>/dev/null; then
    "$PY" "$HERE/closed_box.py" box || fail "closed box"
    echo "ok: walls on the GPU ($PREC): the CPU's trajectory, 2 ranks, the escape fault, the closed box"
else # the machine lacks h5py: the closed box ran (no escape) but its profiles are not read
    tail -1 box/thermo.csv
    echo "ok: walls on the GPU ($PREC): the CPU's trajectory, 2 ranks, the escape fault, the closed box ran (no h5py here: its profiles not checked)"
fi
