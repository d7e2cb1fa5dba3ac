#!/bin/bash
# The checkerboard sweep on the GPU makes the CPU reference's trajectory bit for bit:
# thermo.csv (energies, pressures, counts, step sizes at %.17g) byte-identical between
# backend = "cpu" and "gpu" for nvt (two species, a grid of 4^3 cells of 41 particles: the
# kernel reads the neighbours from global memory), npt (volume moves on the host between the
# sweeps; 6^3 cells, the neighbourhoods staged in shared memory), gibbs (two boxes,
# transfers), gibbs_npt (two species, each box's volume moves) and a larger nvt box of 12^3 cells; a GPU run stopped and continued with --restart latest equals one that never
# stopped. Run through tests/gpu/skip_without_gpu.sh (exit 77 without a GPU).
# Usage: mc_gpu_exact.sh VESICA WORKDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
VESICA=$1
WORK=$2
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0

. "$HERE/mc_cfg.sh"
RUN='kT = 1.1; cycles = 40; equilibration = 20; tune_every = 5; blocks = 3; sweep = "checkerboard";'
mc_cfg nvt 14.9 2600 31 0.8 "$RUN ensemble = \"nvt\";"
mc_cfg npt 15.0 2700 31 0.8 "$RUN ensemble = \"npt\"; pressure = 1.0; moves = { displacement = 0.98; volume = 0.02; };"
mc_cfg gibbs 12.0 1200 31 1 "$RUN ensemble = \"gibbs\"; box2 = [10.0, 10.0, 10.0]; particles2 = 200;"
mc_cfg gibbs_npt 12.0 1200 31 0.8 "$RUN ensemble = \"gibbs_npt\"; pressure = 0.1; box2 = [10.0, 10.0, 10.0]; particles2 = 200;"
mc_cfg big 31.0 24000 31 0.8 "kT = 1.1; cycles = 6; equilibration = 4; tune_every = 2; blocks = 3; sweep = \"checkerboard\"; ensemble = \"nvt\";"

for e in nvt npt gibbs gibbs_npt big; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-cpu\" --set backend=\"cpu\" > $e-cpu.log 2>&1 ||
        { echo "FAIL: $e on the CPU: $(tail -1 $e-cpu.log)"; fail=1; continue; }
    "$VESICA" mc $e.cfg --set output.dir=\"$e-gpu\" --set backend=\"gpu\" > $e-gpu.log 2>&1 ||
        { echo "FAIL: $e on the GPU: $(tail -1 $e-gpu.log)"; fail=1; continue; }
    grep -q "checkerboard sweeps on the GPU" $e-gpu.log || { echo "FAIL: $e: not on the GPU"; fail=1; }
    if cmp -s $e-cpu/thermo.csv $e-gpu/thermo.csv; then
        echo "$e: CPU and GPU thermo.csv identical ($(wc -l < $e-gpu/thermo.csv) rows; $(grep 'acceptance' $e-gpu.log | head -1))"
    else
        echo "FAIL: $e: CPU and GPU thermo.csv differ"; fail=1
        diff $e-cpu/thermo.csv $e-gpu/thermo.csv | head -4
    fi
done
for e in nvt npt; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --set backend=\"gpu\" --set mc.cycles=30 > /dev/null || fail=1
    "$VESICA" mc $e.cfg --set output.dir=\"$e-part\" --set backend=\"gpu\" --restart latest > /dev/null || fail=1
    if cmp -s $e-gpu/thermo.csv $e-part/thermo.csv; then
        echo "$e: GPU restart at cycle 30 exact"
    else
        echo "FAIL: $e: GPU restart differs"; fail=1
    fi
done
exit $fail
