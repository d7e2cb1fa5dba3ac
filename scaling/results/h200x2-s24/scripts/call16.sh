#!/bin/bash
# Session 24, device call 16: wip/s24-near-gate with the one-rank candidate pass from 2^19
# particles (below: one pass over every particle) against main: same bits at 64k, the
# molecules' and fluid tests, A/B at 64k, 192k, 1M and 250k per GPU on two.
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
S64=27.734451
for v in merged gate; do
  timeout 30 $B/vesica-$v run scaling/bench/gpu-fluid.cfg --set "box=[$S64, $S64, $S64]" --set particles=64000 \
    --set integrator.steps=300 --set output.thermo_interval=20 --set output.dir=$R/sb-$v > $R/sb-$v.log 2>&1 || echo "run $v failed" >> $OUT/samebits.txt
done
cmp -s $R/sb-merged/thermo.csv $R/sb-gate/thermo.csv && echo "same thermo.csv: 64k merged gate" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: 64k" >> $OUT/samebits.txt
mkdir -p /tmp/tb && cp $B/vesica-gate /tmp/tb/vesica && cp $B/test_gpu_molecules-gate /tmp/tb/test_gpu_molecules
timeout 85 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_molecules_mixed_np1|gpu_special_mixed_np1|gpu_molecules_double_np1|physics_groot_warren_gpu_mixed|gpu_ranks_bitwise_fluid_skin0$|gpu_io_restart_exact_np1' \
  --jobs 6 --timeout 80 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
for v in merged gate; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 timeout 25 bash scaling/bench/gpu_bench.sh $B/vesica-$v "1000000 192000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 timeout 15 bash scaling/bench/gpu_bench.sh $B/vesica-$v "64000" mixed 0 4000 auto >> $OUT/bench1.txt 2>&1
done
for v in merged gate; do
  echo "== $v" >> $OUT/bench2.txt
  timeout 30 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 250000 500000 800 peer >> $OUT/bench2.txt 2>&1
done
