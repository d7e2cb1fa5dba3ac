#!/bin/bash
# The GPU Monte Carlo engine on two ranks (each rank's device holds the whole box and runs its
# brick's cells of each colour; src/engine/mc/mc_ranks.h) makes the one-rank CPU reference's
# trajectory bit for bit: thermo.csv byte for byte for nvt (a grid of 4^3 cells: 2 layers per
# rank, neighbourhoods read from global memory), npt (volume moves, their energies on each
# device), gibbs (two boxes, transfers) and gcmc (insertions and deletions); a 2-rank GPU run
# stopped at cycle 30 and continued on one rank equals the straight run. Run through
# tests/gpu/skip_without_gpu.sh (exit 77 without a GPU); the ranks share the node's GPUs.
# Usage: mc_gpu_ranks.sh VESICA WORKDIR MPIEXEC...
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
VESICA=$1
WORK=$2
shift 2
MPIEXEC=("$@")
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
fail=0
. "$HERE/mc_cfg.sh"
mc_gpu_cases
# two_ranks CASE SUFFIX LABEL LOG_LINE [--set ...]: CASE on 2 ranks' GPUs into CASE-SUFFIX,
# its log showing LOG_LINE, and its thermo.csv byte for byte the one-rank CPU run's
two_ranks() {
    local e=$1 out=$1-$2 label=$3 line=$4
    shift 4
    "${MPIEXEC[@]}" -n 2 "$VESICA" mc $e.cfg --set output.dir=\"$out\" --set backend=\"gpu\" \
        "$@" > $out.log 2>&1 || { echo "FAIL: $e $label: $(tail -2 $out.log)"; return 1; }
    if ! grep -q "$line" $out.log || ! grep -q "^Monte Carlo: 2 ranks" $out.log; then
        echo "FAIL: $e: not $label"; return 1
    fi
    if cmp -s $e-cpu/thermo.csv $out/thermo.csv; then
        echo "$e: one rank's CPU and $label: thermo.csv identical ($(wc -l < $out/thermo.csv) rows)"
    else
        echo "FAIL: $e: one rank's CPU and $label differ"
        diff $e-cpu/thermo.csv $out/thermo.csv | head -4
        return 1
    fi
}
for e in nvt npt gibbs gcmc; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-cpu\" --set backend=\"cpu\" > $e-cpu.log 2>&1 ||
        { echo "FAIL: $e on the CPU: $(tail -1 $e-cpu.log)"; fail=1; continue; }
    two_ranks $e gpu2 "two ranks' GPUs" "checkerboard sweeps on the GPU" || fail=1
    # the boxes split over the two ranks (mc.decomposition = "domain"): each device sweeps
    # its rank's brick and ghosts, the other moves on the host
    two_ranks $e dom2 "two ranks' GPUs, split" "sweeps on the GPU over each rank's brick" \
        --set 'mc.decomposition="domain"' || fail=1
done
# two ranks' GPUs to cycle 30, then one rank's GPU from the checkpoint
if "${MPIEXEC[@]}" -n 2 "$VESICA" mc gibbs.cfg --set output.dir=\"gibbs-part\" --set backend=\"gpu\" \
       --set mc.cycles=30 > gibbs-part.log 2>&1 &&
   "$VESICA" mc gibbs.cfg --set output.dir=\"gibbs-part\" --set backend=\"gpu\" --restart latest \
       >> gibbs-part.log 2>&1 && cmp -s gibbs-cpu/thermo.csv gibbs-part/thermo.csv; then
    echo "gibbs: two ranks' GPUs to cycle 30, continued on one: the straight run"
else
    echo "FAIL: gibbs: the 2-rank GPU run continued on one rank differs: $(tail -2 gibbs-part.log)"; fail=1
fi
exit $fail
