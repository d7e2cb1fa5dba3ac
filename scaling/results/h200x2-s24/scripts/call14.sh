#!/bin/bash
# Session 24, device call 14: wip/s24-near-gate ("gate": the image passes skip warps of far
# particles by the near-face flags; the slots taken once per block)
# against main (a0e7101's GPU code, "merged"): same bits, A/B, then the GPU tests.
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254; S64=27.734451
sb() { # tag bin ranks box n [env]
  local tag=$1 bin=$2 np=$3 box=$4 n=$5 prec=$6; shift 6
  env "$@" timeout 60 mpiexec -n $np $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=$n \
    --set "decomposition=[$np, 1, 1]" --set comm.transport=peer --set integrator.steps=300 --set output.thermo_interval=20 \
    --set precision=$prec --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $tag failed rc=$?" >> $OUT/samebits.txt
}
sb m2 vesica-merged 2 "[$BX, $L, $L]" 2000000 mixed
sb g2 vesica-gate 2 "[$BX, $L, $L]" 2000000 mixed
sb m1 vesica-merged 1 "[$L, $L, $L]" 1000000 mixed
sb g1 vesica-gate 1 "[$L, $L, $L]" 1000000 mixed
sb m1d vesica-merged 1 "[$L, $L, $L]" 1000000 double
sb g1d vesica-gate 1 "[$L, $L, $L]" 1000000 double
sb m16 vesica-merged 2 "[349.432186, 174.716093, 174.716093]" 32000000 mixed
sb g16 vesica-gate 2 "[349.432186, 174.716093, 174.716093]" 32000000 mixed VESICA_GPU_SLAB_ABOVE=1000000000
sb m64 vesica-merged 1 "[$S64, $S64, $S64]" 64000 mixed
sb g64 vesica-gate 1 "[$S64, $S64, $S64]" 64000 mixed
for p in "m2 g2" "m1 g1" "m1d g1d" "m64 g64" "m16 g16"; do set -- $p
  cmp -s $R/sb-$1/thermo.csv $R/sb-$2/thermo.csv && echo "same thermo.csv: $1 $2" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: $1 $2" >> $OUT/samebits.txt
done
for v in merged gate merged gate; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 timeout 80 bash scaling/bench/gpu_bench.sh $B/vesica-$v "3000000 1000000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
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
mkdir -p /tmp/tb && cp $B/vesica-gate /tmp/tb/vesica && cp $B/test_gpu_backend-gate /tmp/tb/test_gpu_backend && cp $B/test_gpu_multi-gate /tmp/tb/test_gpu_multi
timeout 200 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'physics_groot_warren_gpu|gpu_multi_np2_skin0|gpu_thermo_ranks|gpu_ranks_bitwise_fluid_skin0$|gpu_slab_bound|gpu_halo_bytes|gpu_io_restart_exact|gpu_stress_corners_np2_2_1_1_peer_skin0|gpu_walls_ranks_skin0|gpu_walls_mixed|aniso_nve_disk_gpu|gpu_molecules_mixed_np1|field_gpu_ranks' \
  --jobs 8 --timeout 180 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
timeout 60 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb '^test_gpu_backend$' --jobs 1 --timeout 55 --scratch /tmp/s2 --logs $OUT/logs2 >> $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
