#!/usr/bin/env bash
# Where a step's time goes, kernel by kernel, against the GPU's two roofs (a profiling aid,
# not a benchmark): Nsight Compute measures each kernel of STEPS steps of the Groot-Warren
# fluid (time, DRAM bytes, warp instructions, issue-slot and unit throughputs), and
# scaling/bench/gpu_roofline.py prints them per step with each kernel's floor: its bytes at the copy
# bandwidth or its instructions at the peak issue rate, whichever is longer.
# Usage: scaling/bench/gpu_roofline.sh VESICA COPY_BANDWIDTH_BIN PARTICLES [STEPS] [--set key=value]...
# COPY_BANDWIDTH_BIN: build-gpu/vesica_copy_bandwidth (the bandwidth roof, measured first).
# VS_ROOFLINE_RANKS=P: P ranks (one GPU each) in P x 1 x 1 slabs of PARTICLES each, the weak
# series of gpu_multi_bench.sh over the peer transport; a table per rank (set against one
# rank's, the kernels a multi-rank step adds and what they cost on the device).
# VS_ROOFLINE_METRICS=time: each kernel's time alone (one pass, no kernel replay; the other
# columns print as 0). The full set replays each kernel, which restores only the device's
# own memory; on 2 ranks over the peer transport (whose kernels read the neighbour's) that
# run stopped at an illegal address (2026-11-30).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1; copy=$2; n=$3; steps=${4:-8}; shift $(( $# < 4 ? $# : 4 ))
side=$(python3 -c "print(f'{($n / 3.0) ** (1 / 3):.6f}')")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
copy_line=$("$copy" 2)
echo "$copy_line"
bw=$(sed -n 's/.*cudaMemcpy D2D \([0-9.]*\) GB\/s.*/\1/p' <<<"$copy_line")
sms=$(sed -n 's/.*(\([0-9]*\) SMs).*/\1/p' <<<"$copy_line")
[ -n "$bw" ] && [ -n "$sms" ] || { echo "gpu_roofline: no bandwidth or SM count from $copy" >&2; exit 1; }
# the metrics this ncu knows (names differ between versions)
known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
metrics=gpu__time_duration.sum
[ "${VS_ROOFLINE_METRICS:-all}" = time ] || for m in dram__bytes_read.sum dram__bytes_write.sum smsp__inst_executed.sum \
    smsp__issue_active.avg.pct_of_peak_sustained_active \
    sm__throughput.avg.pct_of_peak_sustained_elapsed \
    l1tex__throughput.avg.pct_of_peak_sustained_active \
    lts__throughput.avg.pct_of_peak_sustained_elapsed \
    sm__warps_active.avg.pct_of_peak_sustained_active \
    smsp__inst_executed_op_shared_atom.sum \
    sm__cycles_elapsed.avg.per_second; do
    grep -qx "${m%%.*}" <<<"$known" && metrics+=",$m" || echo "gpu_roofline: ncu lacks ${m%%.*}" >&2
done
# STEPS + 2 steps profiled; the script keeps the STEPS whole steps between the first and the
# last (a step begins with its first half-step's kernel)
ranks=${VS_ROOFLINE_RANKS:-1}
layout=()
box="[$side, $side, $side]"
if [ "$ranks" -gt 1 ]; then
    box="[$(python3 -c "print(f'{$ranks * $side:.6f}')"), $side, $side]"
    layout=(--set "decomposition=[$ranks, 1, 1]" --set comm.transport=peer)
fi
profile=(ncu --csv --print-units base --print-kernel-base function --clock-control none
    --metrics "$metrics")
args=(run "$here/gpu-fluid.cfg" --set "box=$box" --set "particles=$((ranks * n))"
    --set "integrator.steps=$((steps + 2))" --set "output.dir=$out/run"
    --set output.checkpoint_keep=0 "${layout[@]}" "$@")
if [ "$ranks" -gt 1 ]; then
    # each rank's report into a file of its own (Open MPI's rank in the environment)
    mpiexec --oversubscribe -n "$ranks" bash -c 'exec "$@" >"'"$out"'/ncu_${OMPI_COMM_WORLD_RANK}.csv" 2>"'"$out"'/ncu_${OMPI_COMM_WORLD_RANK}.err"' \
        _ "${profile[@]}" "$bin" "${args[@]}" || { cat "$out"/ncu_*.err >&2; exit 1; }
else
    "${profile[@]}" "$bin" "${args[@]}" >"$out/ncu_0.csv" 2>"$out/ncu_0.err" ||
        { cat "$out/ncu_0.err" >&2; exit 1; }
fi
for ((r = 0; r < ranks; ++r)); do
    [ "$ranks" -eq 1 ] || echo "rank $r of $ranks ($ranks x 1 x 1 slabs of $n particles):"
    python3 "$here/gpu_roofline.py" "$out/ncu_$r.csv" "$steps" "$bw" "$sms" "$n"
done
