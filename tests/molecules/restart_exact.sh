#!/usr/bin/env bash
# restart_exact.sh RANKS VESICA CONFIG OUTDIR [--set ...]: with molecules, a run of 200 steps with a
# checkpoint at 100, and the same run restarted from that checkpoint, must write byte-identical
# thermo.csv (the topology is stored in the checkpoint and restored with its particles).
# Further arguments go to both runs (the GPU tests: --set backend=gpu --set precision=...).
set -euo pipefail
ranks=$1; bin=$2; cfg=$3; out=$4
shift 4
rm -rf "$out"
common=(--set "output.dir=$out" --set integrator.steps=200 --set output.checkpoint_interval=100
        --set output.checkpoint_keep=5 "$@")
mpiexec --oversubscribe -n "$ranks" "$bin" run "$cfg" "${common[@]}" > /dev/null
cp "$out/thermo.csv" "$out/full.csv"
mpiexec --oversubscribe -n "$ranks" "$bin" run "$cfg" "${common[@]}" \
    --restart "$out/checkpoints/ckpt_100.h5" > /dev/null
cmp "$out/full.csv" "$out/thermo.csv"
echo "ok: restart with molecules on $ranks ranks is bit-identical ($*)"
