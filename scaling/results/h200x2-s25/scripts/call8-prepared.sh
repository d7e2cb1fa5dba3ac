#!/bin/bash
# PREPARED, NOT RUN (session 25 had no device time left). Needs main's vesica as bin/vesica.xz
# (-DCMAKE_CUDA_ARCHITECTURES=90, stripped, xz'd into .carry-s26/bin), common/ as in session 25
# (.devbundle, the h5py wheel, tests.json) and the branch's tests/gpu/ranks_bitwise.sh
# (wip-s25-slab-yz.patch) as common/ranks_bitwise-yz.sh. About 3 minutes on nvidia-h200-x2.
# 1. Slabs along y and z against one rank, bit for bit (the branch's ranks_bitwise.sh).
# 2. 2 x 1M on slabs along z against slabs along x, alternated: the z slabs' ghosts and
#    arrivals fill contiguous ranges of cells (the cell index is z-major), the first step
#    towards the exchange behind the interior forces (docs/performance.md, "Session 25").
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/tb && xz -dc $C/bin/vesica.xz > /tmp/tb/vesica && chmod +x /tmp/tb/vesica
cp $C/common/ranks_bitwise-yz.sh tests/gpu/ranks_bitwise.sh
timeout 150 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb 'gpu_ranks_bitwise_fluid_skin0$' \
  --jobs 1 --timeout 140 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
L=69.336127; L2=138.672254
for rep in 1 2; do
  for v in "x [$L2, $L, $L] [2, 1, 1]" "z [$L, $L, $L2] [1, 1, 2]"; do
    set -- $v; tag=$1; box=$(echo "$v" | cut -d' ' -f2-4); dec=$(echo "$v" | cut -d' ' -f5-7)
    timeout 60 mpiexec -n 2 /tmp/tb/vesica run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=2000000 \
      --set "decomposition=$dec" --set comm.transport=peer --set integrator.steps=400 --set output.thermo_interval=400 \
      --set output.dir=/tmp/sl-$tag-$rep > /tmp/sl-$tag-$rep.log 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['wall_s']/d['steps']*1e3, 'ms/step', d['phases_s'])" \
      /tmp/sl-$tag-$rep/perf.json "$tag slabs $dec rep $rep" >> $OUT/slabs.txt 2>&1
  done
done
timeout 30 bash scaling/bench/gpu_multi_bench.sh /tmp/tb/vesica "1" 1000000 1000000 400 peer >> $OUT/slabs.txt 2>&1
