#!/bin/bash
# Session 23, device call 9 (the session's last 238 s): exp/s23-bin-spin against main's
# merged code: the ghosts binned by the unpack (and the owned particles with their local
# images before the wait), and with VESICA_GPU_SLAB_SPIN=1 the waits done by the kernels.
set -u
C=$PWD/.carry-s23
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254
for v in merged exp exp:spin; do
  bin=vesica-${v%%:*}; tag=${v/:/-}; s=0; [ "$v" = exp:spin ] && s=1
  VESICA_GPU_SLAB_SPIN=$s timeout 40 mpiexec -n 2 $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=[$BX, $L, $L]" --set particles=2000000 \
    --set "decomposition=[2, 1, 1]" --set comm.transport=peer --set integrator.steps=300 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $v failed rc=$?" >> $OUT/samebits.txt
done
cmp $R/sb-merged/thermo.csv $R/sb-exp/thermo.csv && echo "2 x 1M 300 steps: exp the same thermo.csv as merged" >> $OUT/samebits.txt
cmp $R/sb-merged/thermo.csv $R/sb-exp-spin/thermo.csv && echo "2 x 1M 300 steps: exp with spin the same thermo.csv as merged" >> $OUT/samebits.txt
for v in merged exp exp:spin; do
  bin=vesica-${v%%:*}; s=0; [ "$v" = exp:spin ] && s=1
  echo "== $v" >> $OUT/bench2.txt
  VESICA_GPU_SLAB_SPIN=$s timeout 30 bash scaling/bench/gpu_multi_bench.sh $B/$bin "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done
mkdir -p /tmp/tb && cp $B/vesica-exp /tmp/tb/vesica
timeout 70 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb 'gpu_ranks_bitwise_fluid_skin0$' \
  --jobs 1 --timeout 65 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
for v in merged exp merged exp; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 timeout 60 bash scaling/bench/gpu_bench.sh $B/vesica-$v "16000000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 timeout 40 bash scaling/bench/gpu_bench.sh $B/vesica-$v "64000" mixed 0 4000 auto >> $OUT/bench1.txt 2>&1
done
