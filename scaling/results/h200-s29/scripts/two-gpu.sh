#!/bin/bash
# PREPARED, NOT RUN: item 2's measurements for the first session that is lent two GPUs
# (nvidia-h200-x2). Self-contained: it builds vesica on the device from the carried checkout,
# so it needs only the device bundle in carry (`bash ../shared/device/make-bundle.sh` writes
# .devbundle/; run with carry [".devbundle"]; about 3 minutes of build and 3 of runs).
# 1. 2 x 1M on slabs along z against slabs along x, alternated twice (the overlap plan's step 1,
#    z_first, is on main: the z slabs' border layers are contiguous ranges of cells).
# 2. The weak and strong series at 1M / 2M per GPU, three repeats (gpu_multi_bench.sh), the
#    figures of docs/performance.md's Targets table (1M weak, 2M strong).
set -u
source .devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] || { echo "two-gpu.sh: needs two GPUs"; exit 1; }
git log --oneline -1 > "$OUT"/commit.txt 2>/dev/null
PATH=/usr/local/cuda/bin:$PATH cmake -S . -B /tmp/b -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT"/build.txt 2>&1 &&
  cmake --build /tmp/b -j "$(nproc)" --target vesica >> "$OUT"/build.txt 2>&1 ||
  { tail -n 30 "$OUT"/build.txt; exit 1; }
B=/tmp/b/vesica
L=69.336127; L2=138.672254
for rep in 1 2; do
  for tag in x z; do
    if [ $tag = x ]; then box="[$L2, $L, $L]"; dec="[2, 1, 1]"; else box="[$L, $L, $L2]"; dec="[1, 1, 2]"; fi
    timeout 60 mpiexec -n 2 $B run scaling/bench/gpu-fluid.cfg --set "box=$box" \
      --set particles=2000000 --set "decomposition=$dec" --set comm.transport=peer \
      --set integrator.steps=1000 --set output.thermo_interval=1000 \
      --set output.dir=/tmp/sl-$tag-$rep > /tmp/sl-$tag-$rep.log 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['wall_s']/d['steps']*1e3, 'ms/step', d['phases_s'])" \
      /tmp/sl-$tag-$rep/perf.json "$tag slabs $dec rep $rep" >> "$OUT"/slabs.txt 2>&1
  done
done
GMB_REPEATS=3 timeout 240 bash scaling/bench/gpu_multi_bench.sh $B "1 2" 1000000 2000000 400 peer \
  > "$OUT"/multi.txt 2>&1
cat "$OUT"/slabs.txt "$OUT"/multi.txt
