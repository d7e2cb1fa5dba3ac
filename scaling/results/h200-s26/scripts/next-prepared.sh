#!/bin/bash
# PREPARED, NOT RUN (session 26 had no device time left). Needs .carry-s27 carried:
# bin/vesica_lj_cluster.xz (exp/s26-lj-cluster's scaling/bench/lj_cluster.cu, nvcc -O3
# -arch=sm_90, stripped), bin/vesica-main.xz (18371b0's GPU code, the same as main's since),
# common/ = the device bundle. About 2 minutes on nvidia-h200, 4 on nvidia-h200-x2.
# 1. The LJ pair stage studies: cluster pairs, and the Newton walk with its j-shares in a
#    thread-block cluster's distributed shared memory, against the walk from both sides
#    (docs/performance.md, "Session 26"); every variant checked against fp64 and the fixed-sum
#    variants against each other's bits.
# 2. With two GPUs: 2 x 1M on slabs along z against slabs along x, alternated (the first
#    measurement of the overlap plan, "Session 25").
set -u
C=$PWD/.carry-s27
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for b in vesica_lj_cluster vesica-main; do xz -dc $C/bin/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
timeout 200 /tmp/vesica_lj_cluster 1000000 50 > $OUT/lj_cluster-1m.txt 2>&1
echo "rc=$?" >> $OUT/lj_cluster-1m.txt
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] || exit 0
L=69.336127; L2=138.672254
for rep in 1 2; do
  for v in "x [$L2, $L, $L] [2, 1, 1]" "z [$L, $L, $L2] [1, 1, 2]"; do
    set -- $v; tag=$1; box=$(echo "$v" | cut -d' ' -f2-4); dec=$(echo "$v" | cut -d' ' -f5-7)
    timeout 60 mpiexec -n 2 /tmp/vesica-main run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=2000000 \
      --set "decomposition=$dec" --set comm.transport=peer --set integrator.steps=1000 --set output.thermo_interval=1000 \
      --set output.dir=/tmp/sl-$tag-$rep > /tmp/sl-$tag-$rep.log 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['wall_s']/d['steps']*1e3, 'ms/step', d['phases_s'])" \
      /tmp/sl-$tag-$rep/perf.json "$tag slabs $dec rep $rep" >> $OUT/slabs.txt 2>&1
  done
done
timeout 40 bash scaling/bench/gpu_multi_bench.sh /tmp/vesica-main "1" 1000000 1000000 1000 peer >> $OUT/slabs.txt 2>&1
