#!/bin/bash
# The Monte Carlo engine on the GPU makes the CPU reference's trajectory bit for bit:
# thermo.csv (energies, pressures, counts, step sizes at %.17g) byte-identical between
# backend = "cpu" and "gpu" for nvt (two species, a grid of 4^3 cells of 41 particles: the
# kernel reads the neighbours from global memory), npt (volume moves between the sweeps, their
# whole-box energies on the device; 6^3 cells, the neighbourhoods staged in shared memory),
# gibbs (two boxes, transfers and volume exchanges), gibbs_npt (two species, each box's
# volume moves with its own step), gcmc (insertions and deletions from 20 particles to
# hundreds: the device's box grows), a larger nvt box of 12^3 cells, two small nvt boxes of 2^3
# cells (the kernel's filter by the minimum image; 500 particles staged, 800 read from global
# memory), mie (the kernel's path for a style other than lj alone), gcbig (gcmc at 70,000
# particles, where a trial particle's energy takes many blocks); gibbs, gibbs_npt, gcmc and
# gcbig also with the exchange energies on the device (VESICA_MC_GPU_EXCHANGE=device). The GPU
# runs must take the device paths: their closing log line counts the particle and whole-box
# energies computed there (whole-box ones wherever the ensemble has volume moves, particle
# ones with the exchange energies on the device, none without) and one upload per box (the
# box never goes back to the device from the host). A GPU run stopped and continued with
# --restart latest equals one that never stopped (nvt, npt, gcmc, gibbs; gibbs also with the
# exchange energies on the device). Run through
# tests/gpu/skip_without_gpu.sh (exit 77 without a GPU).
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
RUN=$MC_GPU_RUN
mc_gpu_cases
mc_cfg gibbs_npt 12.0 1200 31 0.8 "$RUN ensemble = \"gibbs_npt\"; pressure = 0.1; box2 = [10.0, 10.0, 10.0]; particles2 = 200;"
mc_cfg big 31.0 24000 31 0.8 "kT = 1.1; cycles = 6; equilibration = 4; tune_every = 2; blocks = 3; sweep = \"checkerboard\"; ensemble = \"nvt\";"
mc_cfg small 9.0 500 31 0.8 "$RUN ensemble = \"nvt\";"
mc_cfg small2 9.5 800 31 0.8 "$RUN ensemble = \"nvt\";"
MC_STYLE=mie mc_cfg mie 15.0 2700 31 1 "$RUN ensemble = \"nvt\";"
# above 65,536 particles a trial particle's energy takes many blocks (gpu_mc.cu)
mc_cfg gcbig 44.0 70000 31 1 "kT = 1.1; cycles = 4; equilibration = 2; tune_every = 2; blocks = 2; sweep = \"checkerboard\"; ensemble = \"gcmc\"; activity = 0.3; moves_per_cycle = 2000;"

# device_paths NAME LOG EXCHANGE: the closing line's counts. Whole-box energies expected in
# npt and the Gibbs ensembles; particle energies in gcmc and the Gibbs ensembles with
# EXCHANGE = device, none with host; one upload per box.
device_paths() {
    local line parts boxes
    line=$(grep "Monte Carlo on the GPU:" "$2") || { echo "FAIL: $1: no device counts"; return 1; }
    parts=$(echo "$line" | sed -E 's/.*GPU: ([0-9]+) particle and ([0-9]+) whole-box.* ([0-9]+) times to the device.*/\1 \2 \3/')
    local name=$1 ex=$3
    set -- "$1" $parts
    case $name in gibbs*) boxes=2 ;; *) boxes=1 ;; esac
    case $name:$ex in
        gc*:device|gibbs*:device) [ "$2" -gt 0 ] || { echo "FAIL: $name: no particle energies on the GPU"; return 1; } ;;
        *) [ "$2" -eq 0 ] || { echo "FAIL: $name: $2 particle energies on the GPU, none expected"; return 1; } ;;
    esac
    case $name in npt|gibbs*) [ "$3" -gt 0 ] || { echo "FAIL: $name: no whole-box energies on the GPU"; return 1; } ;; esac
    [ "$4" -eq "$boxes" ] || { echo "FAIL: $name: $4 uploads of $boxes box(es)"; return 1; }
    echo "$name ($ex exchange energies): on the GPU $2 particle and $3 whole-box energies, $4 upload(s)"
}

for e in nvt npt gibbs gibbs_npt gcmc big small small2 mie gcbig; do
    "$VESICA" mc $e.cfg --set output.dir=\"$e-cpu\" --set backend=\"cpu\" > $e-cpu.log 2>&1 ||
        { echo "FAIL: $e on the CPU: $(tail -1 $e-cpu.log)"; fail=1; continue; }
    "$VESICA" mc $e.cfg --set output.dir=\"$e-gpu\" --set backend=\"gpu\" > $e-gpu.log 2>&1 ||
        { echo "FAIL: $e on the GPU: $(tail -1 $e-gpu.log)"; fail=1; continue; }
    grep -q "checkerboard sweeps on the GPU" $e-gpu.log || { echo "FAIL: $e: not on the GPU"; fail=1; }
    device_paths $e $e-gpu.log host || fail=1
    if cmp -s $e-cpu/thermo.csv $e-gpu/thermo.csv; then
        echo "$e: CPU and GPU thermo.csv identical ($(wc -l < $e-gpu/thermo.csv) rows; $(grep 'acceptance' $e-gpu.log | head -1))"
    else
        echo "FAIL: $e: CPU and GPU thermo.csv differ"; fail=1
        diff $e-cpu/thermo.csv $e-gpu/thermo.csv | head -4
    fi
done
# the exchange moves' energies on the device too: the box stays there within a cycle
for e in gibbs gibbs_npt gcmc gcbig; do
    VESICA_MC_GPU_EXCHANGE=device "$VESICA" mc $e.cfg --set output.dir=\"$e-gpudev\" \
        --set backend=\"gpu\" > $e-gpudev.log 2>&1 || { echo "FAIL: $e on the GPU, device exchanges"; fail=1; continue; }
    device_paths $e $e-gpudev.log device || fail=1
    if [ -f $e-cpu/thermo.csv ] && cmp -s $e-cpu/thermo.csv $e-gpudev/thermo.csv; then
        echo "$e: the GPU with the exchange energies on the device: thermo.csv identical"
    else
        echo "FAIL: $e: the GPU with the exchange energies on the device differs"; fail=1
    fi
done
for run in nvt npt gcmc gibbs gibbs:device; do
    e=${run%%:*}
    ex=host
    [ "$run" = "$e" ] || ex=${run##*:}
    part=$e-part-$ex
    for c in "--set mc.cycles=30" "--restart latest"; do
        VESICA_MC_GPU_EXCHANGE=$ex "$VESICA" mc $e.cfg --set output.dir=\"$part\" \
            --set backend=\"gpu\" $c > /dev/null || fail=1
    done
    if cmp -s $e-gpu/thermo.csv $part/thermo.csv; then
        echo "$e ($ex exchange energies): GPU restart at cycle 30 exact"
    else
        echo "FAIL: $e ($ex exchange energies): GPU restart differs"; fail=1
    fi
done
exit $fail
