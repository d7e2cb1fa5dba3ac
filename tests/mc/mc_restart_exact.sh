#!/bin/bash
# Restarts of the Monte Carlo engine are exact: per ensemble (nvt with a checkpoint inside
# the tuning of the step sizes, npt, gcmc, gibbs, gibbs_npt of two species), a run of C cycles and a run stopped at a
# checkpoint and continued with --restart latest leave the same thermo.csv, byte for byte;
# and a SIGTERM stops a run with exit status 3 and a checkpoint it continues from.
# Usage: mc_restart_exact.sh VESICA WORKDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
VESICA=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

. "$HERE/mc_cfg.sh"
RUN='kT = 1.2; cycles = 60; equilibration = 40; tune_every = 5; blocks = 3;'
mc_cfg nvt 6.0 100 17 0.7 "$RUN ensemble = \"nvt\";"
mc_cfg npt 6.0 100 17 0.7 "$RUN ensemble = \"npt\"; pressure = 0.5; moves = { displacement = 0.9; volume = 0.1; };"
mc_cfg gibbs 6.0 100 17 1 "$RUN ensemble = \"gibbs\"; box2 = [7.0, 7.0, 7.0]; particles2 = 40;"
mc_cfg gibbs_npt 6.0 100 17 0.7 "$RUN ensemble = \"gibbs_npt\"; pressure = 0.3; box2 = [7.0, 7.0, 7.0]; particles2 = 40; moves = { displacement = 0.7; volume = 0.1; exchange = 0.2; };"
mc_cfg gcmc 6.0 100 17 1 "$RUN ensemble = \"gcmc\"; activity = 0.1;"

H5DIFF=$(command -v h5diff || true)
for e in nvt npt gcmc gibbs gibbs_npt; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-full\" > /dev/null || { echo "FAIL: $e full run"; fail=1; continue; }
    # stop at 30 (inside the tuning for nvt's checkpoint at 20 too), continue to 60
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --set mc.cycles=30 > /dev/null || fail=1
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --restart latest > /dev/null || fail=1
    if cmp -s $e-full/thermo.csv $e-part/thermo.csv; then
        echo "$e: restart at cycle 30 exact ($(wc -l < $e-full/thermo.csv) rows)"
    else
        echo "FAIL: $e: thermo.csv differs after a restart"; fail=1
    fi
    # the closing statistics cover the campaign's production rows, those of the stopped run
    # read back from thermo.csv: the same values (h5diff compares values, not file bytes)
    if [ -n "$H5DIFF" ]; then
        if "$H5DIFF" $e-full/mc_summary.h5 $e-part/mc_summary.h5 > /dev/null; then
            echo "$e: mc_summary.h5 the same after the restart"
        else
            echo "FAIL: $e: mc_summary.h5 differs after a restart"; fail=1
        fi
    fi
done
# a restart from a checkpoint inside the tuning (cycle 20 of 40)
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-eq\" --set mc.cycles=20 > /dev/null || fail=1
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-eq\" --restart latest > /dev/null || fail=1
if cmp -s nvt-full/thermo.csv nvt-eq/thermo.csv; then
    echo "nvt: restart at cycle 20, during the tuning, exact"
else
    echo "FAIL: nvt: restart during the tuning differs"; fail=1
fi
# other physics: refused with exit status 2
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-eq\" --set mc.kT=1.3 --restart latest 2> other.err
rc=$?
if [ $rc -eq 2 ] && grep -q "differ" other.err; then
    echo "a changed mc.kT is refused on restart (exit 2)"
else
    echo "FAIL: a changed mc.kT on restart gave exit $rc: $(cat other.err)"; fail=1
fi
# SIGTERM: exit 3 and a checkpoint to continue from
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-sig\" --set mc.cycles=100000000 > sig.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
    [ -n "$(ls nvt-sig/checkpoints 2>/dev/null)" ] && break
    sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -eq 3 ] && grep -q "Stopped at cycle" sig.log; then
    echo "SIGTERM: exit 3 with a checkpoint"
else
    echo "FAIL: SIGTERM gave exit $rc"; fail=1
fi
exit $fail
