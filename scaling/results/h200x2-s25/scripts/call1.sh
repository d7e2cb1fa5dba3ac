#!/bin/bash
# Session 25, device call 1 (session 24's prepared call 18, on 97bc035): wip/s24-pack-blocks
# rebased on main as bin/vesica-blocks against main as bin/vesica-main. Same bits at 2 x 1M with
# the spread pack forced and at 2 x 16M; the slab tests with the branch's ranks_bitwise.sh;
# 16M and 1M A/B (one and two GPUs); a CUPTI timeline of the spread pack at 2 x 16M.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254; S=174.716093; SX=349.432186
sb() { # tag bin ranks box n [env...]
  local tag=$1 bin=$2 np=$3 box=$4 n=$5; shift 5
  env "$@" timeout 60 mpiexec -n $np $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=$n \
    --set "decomposition=[$np, 1, 1]" --set comm.transport=peer --set integrator.steps=120 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $tag failed rc=$?" >> $OUT/samebits.txt
}
sb m2 vesica-main 2 "[$BX, $L, $L]" 2000000
sb b2 vesica-blocks 2 "[$BX, $L, $L]" 2000000 VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=-1
sb m16 vesica-main 2 "[$SX, $S, $S]" 32000000
sb b16 vesica-blocks 2 "[$SX, $S, $S]" 32000000
for p in "m2 b2" "m16 b16"; do set -- $p
  cmp -s $R/sb-$1/thermo.csv $R/sb-$2/thermo.csv && echo "same thermo.csv: $1 $2" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: $1 $2" >> $OUT/samebits.txt
done
cp $R/sb-b16.log $OUT/sb-b16.log
cp $C/common/ranks_bitwise-blocks.sh tests/gpu/ranks_bitwise.sh
mkdir -p /tmp/tb && cp $B/vesica-blocks /tmp/tb/vesica
timeout 150 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_thermo_ranks_exact_mixed_np2|gpu_slab_bound|gpu_halo_bytes_np2|gpu_io_restart_exact_np2|gpu_stress_corners_np2_2_1_1_peer_skin0' \
  --jobs 6 --timeout 140 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
for v in main blocks; do
  echo "== $v" >> $OUT/bench.txt
  timeout 60 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 16000000 16000000 100 peer >> $OUT/bench.txt 2>&1
  timeout 40 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench.txt 2>&1
done
echo "== blocks again (16M)" >> $OUT/bench.txt
timeout 60 bash scaling/bench/gpu_multi_bench.sh $B/vesica-blocks "1 2" 16000000 16000000 100 peer >> $OUT/bench.txt 2>&1
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
timeout 100 mpiexec -n 2 -x CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so -x CUPTI_TRACE_OUT=/tmp/slab-p2 -x LD_LIBRARY_PATH \
  $B/vesica-blocks run scaling/bench/gpu-fluid.cfg --set "box=[$SX, $S, $S]" --set particles=32000000 --set comm.transport=peer \
  --set "decomposition=[2, 1, 1]" --set integrator.steps=60 --set output.thermo_interval=60 --set output.dir=/tmp/t2 > $OUT/slab-p2.log 2>&1
python3 scaling/tools/cupti_timeline.py slab_pack_blocks /tmp/slab-p2.0.csv /tmp/slab-p2.1.csv > $OUT/timeline16-blocks.txt 2>&1
