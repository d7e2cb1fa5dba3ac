#!/bin/bash
# The checkerboard sweep (mc.sweep = "checkerboard") on the CPU (its bad input: mc_bad_input.sh):
# restarts are exact (nvt with a checkpoint inside the tuning, npt with volume
# moves between the sweeps, gcmc with insertions and deletions between them, gibbs with two
# boxes and transfers, gibbs_npt of two species), thermo.csv byte for byte;
# the sweep moves particles (accepted displacements) and is not the sequential mode's
# trajectory. Usage: mc_checkerboard.sh VESICA WORKDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
VESICA=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

. "$HERE/mc_cfg.sh"
RUN='kT = 1.2; cycles = 60; equilibration = 40; tune_every = 5; blocks = 3; sweep = "checkerboard";'
mc_cfg nvt 7.0 180 23 0.7 "$RUN ensemble = \"nvt\";"
mc_cfg npt 7.0 180 23 0.7 "$RUN ensemble = \"npt\"; pressure = 0.5; moves = { displacement = 0.9; volume = 0.1; };"
mc_cfg gibbs 7.0 180 23 1 "$RUN ensemble = \"gibbs\"; box2 = [6.0, 6.0, 6.0]; particles2 = 40;"
mc_cfg gibbs_npt 7.0 180 23 0.7 "$RUN ensemble = \"gibbs_npt\"; pressure = 0.3; box2 = [6.0, 6.0, 6.0]; particles2 = 40;"
mc_cfg gcmc 7.0 180 23 1 "$RUN ensemble = \"gcmc\"; activity = 0.1;"
for e in nvt npt gcmc gibbs gibbs_npt; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-full\" > /dev/null || { echo "FAIL: $e full run"; fail=1; continue; }
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --set mc.cycles=30 > /dev/null || fail=1
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --restart latest > /dev/null || fail=1
    if cmp -s $e-full/thermo.csv $e-part/thermo.csv; then
        echo "$e: restart at cycle 30 exact ($(wc -l < $e-full/thermo.csv) rows)"
    else
        echo "FAIL: $e: thermo.csv differs after a restart"; fail=1
    fi
    # column 8 of nvt/npt (displacement_accepted_0), 13 of gibbs: some moves were accepted
    col=$(case $e in gibbs*) echo 13 ;; *) echo 8 ;; esac)
    acc=$(tail -1 $e-full/thermo.csv | cut -d, -f$col)
    if [ "${acc:-0}" -gt 0 ]; then
        echo "$e: $acc displacements accepted"
    else
        echo "FAIL: $e: no displacement accepted"; fail=1
    fi
done
# a restart inside the tuning (cycle 20 of 40)
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-eq\" --set mc.cycles=20 > /dev/null || fail=1
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-eq\" --restart latest > /dev/null || fail=1
if cmp -s nvt-full/thermo.csv nvt-eq/thermo.csv; then
    echo "nvt: restart at cycle 20, during the tuning, exact"
else
    echo "FAIL: nvt: restart during the tuning differs"; fail=1
fi
# the default (sequential) is another trajectory
"$VESICA" mc nvt.cfg --set output.dir=\"nvt-seq\" --set mc.sweep=\"sequential\" > /dev/null || fail=1
if cmp -s nvt-full/thermo.csv nvt-seq/thermo.csv; then
    echo "FAIL: the checkerboard run equals the sequential one"; fail=1
else
    echo "checkerboard and sequential runs differ (two kinds of sweep)"
fi
exit $fail
