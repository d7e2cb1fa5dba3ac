#!/bin/bash
# Session 29 call 1 (one H200). (1) The 16M plain fluid: main before (910d360) and after the
# z_first switch moved to read_switches (read once at state creation), alternated. (2) The GPU
# tests that need only vesica and test_gpu_multi (the bitwise rank tests with the zfirst mode
# among them), built here from the working tree with the change.
set -u
C=$PWD/.carry-s29
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/tm /tmp/wheel
for b in vesica test_gpu_multi; do xz -dc $C/bin/$b.xz > /tmp/tm/$b; chmod +x /tmp/tm/$b; done
xz -dc $C/bin/vesica-head.xz > /tmp/vhead; chmod +x /tmp/vhead
(cd /tmp/wheel && python3 -m zipfile -e $C/common/h5py-*.whl .)
export PYTHONPATH=/tmp/wheel
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt
for v in head new new head; do
  b=/tmp/vhead; [ $v = new ] && b=/tmp/tm/vesica
  echo "== $v" >> $OUT/fluid16m.txt
  timeout 80 bash scaling/bench/gpu_bench.sh $b 16000000 mixed 0 100 auto 2>&1 | grep -v "^particles\|device" >> $OUT/fluid16m.txt
done
cat $OUT/fluid16m.txt
R='^(?!test_gpu_(backend|flow)$|gpu_(molecules|dihedrals|special|tables)_(double|mixed)_np\d$|gpu_wide_bonds_)(test_gpu|gpu_|physics_groot_warren_gpu|aniso_.*_gpu|reactions_gpu|field_gpu|mc_gpu)'
timeout 440 python3 -u scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tm "$R" \
  --jobs 6 --timeout 300 --scratch /tmp/s1 --logs $OUT/logs > $OUT/tests1.txt 2>&1
echo "rc=$?" >> $OUT/tests1.txt
tail -n 40 $OUT/tests1.txt
