#!/bin/bash
# Session 24, device call 10: the image passes gated by the first half-step's near-face flags
# (wip/s24-near-gate, "gate") against main (a0e7101's GPU code, "merged").
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254
sb() { # tag bin ranks box n [env]
  local tag=$1 bin=$2 np=$3 box=$4 n=$5; shift 5
  env "$@" timeout 60 mpiexec -n $np $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=$n \
    --set "decomposition=[$np, 1, 1]" --set comm.transport=peer --set integrator.steps=300 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $tag failed rc=$?" >> $OUT/samebits.txt
}
sb m2 vesica-merged 2 "[$BX, $L, $L]" 2000000
sb g2 vesica-gate 2 "[$BX, $L, $L]" 2000000
sb g2off vesica-gate 2 "[$BX, $L, $L]" 2000000 VESICA_GPU_SLAB_ABOVE=0
sb m1 vesica-merged 1 "[$L, $L, $L]" 1000000
sb g1 vesica-gate 1 "[$L, $L, $L]" 1000000
sb g1sel vesica-gate 1 "[$L, $L, $L]" 1000000 VESICA_GPU_GHOSTS_ON_DEVICE=0
for p in "m2 g2" "m2 g2off" "m1 g1" "m1 g1sel" "m1 m2"; do set -- $p
  cmp -s $R/sb-$1/thermo.csv $R/sb-$2/thermo.csv && echo "same thermo.csv: $1 $2" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: $1 $2" >> $OUT/samebits.txt
done
cp $R/sb-m2/thermo.csv $OUT/thermo-m2.csv
for v in merged gate merged gate; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 timeout 60 bash scaling/bench/gpu_bench.sh $B/vesica-$v "16000000 1000000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 timeout 40 bash scaling/bench/gpu_bench.sh $B/vesica-$v "64000" mixed 0 4000 auto >> $OUT/bench1.txt 2>&1
done
for v in merged gate; do
  echo "== $v" >> $OUT/bench2.txt
  timeout 40 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done
echo "== gate 16M, slab off above 2M (default)" >> $OUT/bench16.txt
timeout 150 bash scaling/bench/gpu_multi_bench.sh $B/vesica-gate "1 2" 16000000 16000000 100 peer >> $OUT/bench16.txt 2>&1
echo "== gate 16M, slab forced on" >> $OUT/bench16.txt
VESICA_GPU_SLAB_ABOVE=1000000000 timeout 100 bash scaling/bench/gpu_multi_bench.sh $B/vesica-gate "2" 16000000 16000000 100 peer >> $OUT/bench16.txt 2>&1
echo done >> $OUT/bench16.txt
