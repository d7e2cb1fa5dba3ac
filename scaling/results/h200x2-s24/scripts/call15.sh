#!/bin/bash
# Session 24, device call 15: wip/s24-near-gate ("gate": the image passes in two kernels, a
# light one that finds the candidates by the near-face flags, 16 a thread, and one that
# writes the candidates' images, slots taken once per block) against main (a0e7101's GPU
# code, "merged"): same bits, the GPU tests, then A/B.
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254; S64=27.734451; S=174.716093; SX=349.432186
sb() { # tag bin ranks box n [env]
  local tag=$1 bin=$2 np=$3 box=$4 n=$5; shift 5
  env "$@" timeout 60 mpiexec -n $np $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=$n \
    --set "decomposition=[$np, 1, 1]" --set comm.transport=peer --set integrator.steps=200 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $tag failed rc=$?" >> $OUT/samebits.txt
}
sb m2 vesica-merged 2 "[$BX, $L, $L]" 2000000
sb g2 vesica-gate 2 "[$BX, $L, $L]" 2000000
sb m1 vesica-merged 1 "[$L, $L, $L]" 1000000
sb g1 vesica-gate 1 "[$L, $L, $L]" 1000000
sb m64 vesica-merged 1 "[$S64, $S64, $S64]" 64000
sb g64 vesica-gate 1 "[$S64, $S64, $S64]" 64000
for p in "m2 g2" "m1 g1" "m64 g64"; do set -- $p
  cmp -s $R/sb-$1/thermo.csv $R/sb-$2/thermo.csv && echo "same thermo.csv: $1 $2" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: $1 $2" >> $OUT/samebits.txt
done
mkdir -p /tmp/tb && cp $B/vesica-gate /tmp/tb/vesica && cp $B/test_gpu_backend-gate /tmp/tb/test_gpu_backend && cp $B/test_gpu_multi-gate /tmp/tb/test_gpu_multi
timeout 110 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'physics_groot_warren_gpu_mixed|gpu_multi_np2_skin0$|gpu_thermo_ranks_exact_(mixed|double)_np2|gpu_ranks_bitwise_fluid_skin0$|gpu_slab_bound|gpu_halo_bytes_np2|gpu_io_restart_exact_np[12]|gpu_stress_corners_np2_2_1_1_peer_skin0|gpu_walls_ranks_skin0|gpu_walls_mixed' \
  --jobs 8 --timeout 100 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
timeout 40 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb '^test_gpu_backend$' --jobs 1 --timeout 35 --scratch /tmp/s2 --logs $OUT/logs2 >> $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
for v in merged gate; do
  echo "== $v" >> $OUT/bench2.txt
  timeout 40 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done
echo "== gate 16M, slab forced on" >> $OUT/bench16.txt
VESICA_GPU_SLAB_ABOVE=1000000000 timeout 60 bash scaling/bench/gpu_multi_bench.sh $B/vesica-gate "2" 16000000 16000000 100 peer >> $OUT/bench16.txt 2>&1
for v in merged gate; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 timeout 30 bash scaling/bench/gpu_bench.sh $B/vesica-$v "3000000 1000000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
  CUDA_VISIBLE_DEVICES=0 timeout 20 bash scaling/bench/gpu_bench.sh $B/vesica-$v "64000" mixed 0 4000 auto >> $OUT/bench1.txt 2>&1
done
