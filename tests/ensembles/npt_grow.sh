#!/usr/bin/env bash
# npt_grow.sh VESICA CONFIG OUTDIR: an npt box that grows without bound (a negative target
# pressure) stops clearly (issue 46 item 3): exit 1, one line naming the step and the box,
# before any cell count overflows; thermo.csv ends on a whole row, the trajectory still reads,
# no checkpoint is left half-written. On 2 ranks, at two pressures: -1e4 (the box runs away
# within a few steps) and -100 (a slow expansion).
set -u
BIN=$1; CFG=$2; OUT=$3
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
for p in -1e4 -100; do
    mpiexec --oversubscribe -n 2 "$BIN" run "$CFG" --set output.dir=o$p --set integrator.kind=\"npt\" \
        --set integrator.tau=0.5 --set integrator.tau_p=1.0 --set "integrator.pressure=$p" \
        --set integrator.steps=2000 --set neighbor.skin=0 --set output.trajectory_interval=10 \
        --set output.checkpoint_interval=50 --set output.checkpoint_keep=2 \
        --set run.energy_limit=0 >"l$p.log" 2>&1
    rc=$?
    [ $rc -eq 1 ] || { tail -5 "l$p.log" >&2; fail "pressure $p: expected exit 1, got $rc"; }
    line=$(grep '^vesica: \(fatal\|error\)' "l$p.log" | sort -u)
    [ "$(printf '%s\n' "$line" | wc -l)" -eq 1 ] || { tail -5 "l$p.log" >&2; fail "pressure $p: expected one line"; }
    printf '%s\n' "$line" | grep -q "step [0-9]*: npt: the box grew to [0-9.e+]* x [0-9.e+]* x [0-9.e+]*, .*expands without bound" ||
        { echo "$line" >&2; fail "pressure $p: the line does not name the step, the box and the cause"; }
    [ -z "$(tail -c 1 o$p/thermo.csv)" ] || fail "pressure $p: thermo.csv ends inside a row"
    [ -z "$(ls o$p/checkpoints | grep -v '^ckpt_[0-9]*\.h5$')" ] || fail "pressure $p: a partial checkpoint is left"
    "$PY" -c 'import sys, h5py; h5py.File(sys.argv[1], "r")["particles/all/position/value"][-1]' \
        o$p/traj.h5md || fail "pressure $p: the trajectory does not read"
    echo "pressure $p: $line"
done
echo "ok: a box that grows without bound stops with one line"
