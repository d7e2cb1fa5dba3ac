#!/bin/bash
# Session 24, device call 17 (the last seconds): the slab path at 16M per rank with the final
# code, the same bits as main's default path; 8M per GPU weak, slab forced against default.
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
S=174.716093; SX=349.432186
for v in merged:2097152 gate:1000000000; do
  b=${v%%:*}; above=${v##*:}
  VESICA_GPU_SLAB_ABOVE=$above timeout 40 mpiexec -n 2 $B/vesica-$b run scaling/bench/gpu-fluid.cfg --set "box=[$SX, $S, $S]" --set particles=32000000 \
    --set "decomposition=[2, 1, 1]" --set comm.transport=peer --set integrator.steps=120 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$b > $R/sb-$b.log 2>&1 || echo "run $b failed rc=$?" >> $OUT/samebits.txt
done
cmp -s $R/sb-merged/thermo.csv $R/sb-gate/thermo.csv && echo "same thermo.csv: 2 x 16M, merged default path, gate slab forced" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: 16M" >> $OUT/samebits.txt
grep -h "perf\|steps/s\|wall" $R/sb-gate.log | tail -2 >> $OUT/samebits.txt
for above in 2097152 1000000000; do
  echo "== gate 8M per GPU weak, VESICA_GPU_SLAB_ABOVE=$above" >> $OUT/bench8.txt
  VESICA_GPU_SLAB_ABOVE=$above timeout 25 bash scaling/bench/gpu_multi_bench.sh $B/vesica-gate "2" 8000000 8000000 100 peer >> $OUT/bench8.txt 2>&1
done
