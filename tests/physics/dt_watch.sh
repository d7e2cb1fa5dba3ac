#!/usr/bin/env bash
# dt_watch.sh VESICA OUTDIR: a mistyped time step is caught. tests/io/tiny.cfg (dt = 0.02, in
# the tested range) runs without a warning; at dt = 0.2 the run warns at the start, warns when
# the temperature is far from kT after equilibration, and stops with exit 1 after
# run.temperature_rows such thermo rows.
set -u
BIN=$1; OUT=$2
CFG=$(cd "$(dirname "$0")/../io" && pwd)/tiny.cfg
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
short=(--set output.trajectory_interval=0 --set output.checkpoint_keep=0 --set output.thermo_interval=5)
"$BIN" run "$CFG" --set output.dir=ok "${short[@]}" --set integrator.steps=600 >ok.log 2>&1 ||
    fail "dt = 0.02: exit $?"
! grep -q "warning" ok.log || fail "dt = 0.02: a warning: $(grep warning ok.log)"
"$BIN" run "$CFG" --set output.dir=bad "${short[@]}" --set integrator.dt=0.2 \
    --set integrator.steps=1000 >bad.log 2>&1
rc=$?
[ $rc -eq 1 ] || fail "dt = 0.2: expected exit 1, got $rc"
grep -q "warning (rank 0): integrator.dt = 0.2 is outside the tested range dt <= 0.0548" bad.log ||
    fail "dt = 0.2: no warning at the start"
grep -q "warning (rank 0): step 50: kinetic temperature .* times dpd.kT = 1 after equilibration" bad.log ||
    fail "dt = 0.2: no temperature warning at the first watched row (time 10)"
grep -q "^vesica: error (rank 0): step 70: kinetic temperature .* for 5 thermo rows in a row (run.temperature_rows): stopping$" bad.log ||
    fail "dt = 0.2: no stop after 5 rows"
echo "ok: dt = 0.02 runs quietly; dt = 0.2 warns and stops with exit 1"
