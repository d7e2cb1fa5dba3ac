#!/bin/bash
# Session 25, device call 2: main after the merge of wip/s24-pack-blocks (bin/vesica-blocks, the
# same GPU code). 2 x 1M and 2M strong with the spread pack at 1M forced (threshold -1), at 128
# and by default (512); CUPTI timelines of 2 x 1M (default and forced) and one GPU at 1M.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
xz -dc $C/bin/vesica-blocks.xz > $B/vesica; chmod +x $B/vesica
for a in 512 -1 128 512 -1; do
  echo "== VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=$a" >> $OUT/bench.txt
  VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=$a timeout 40 bash scaling/bench/gpu_multi_bench.sh $B/vesica "1 2" 1000000 2000000 400 peer >> $OUT/bench.txt 2>&1
done
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
L=69.336127; BX=138.672254
for a in 512 -1; do
timeout 100 mpiexec -n 2 -x VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=$a -x CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so -x CUPTI_TRACE_OUT=/tmp/p2-$a -x LD_LIBRARY_PATH \
  $B/vesica run scaling/bench/gpu-fluid.cfg --set "box=[$BX, $L, $L]" --set particles=2000000 --set comm.transport=peer \
  --set "decomposition=[2, 1, 1]" --set integrator.steps=400 --set output.thermo_interval=400 --set output.dir=/tmp/t2$a > $OUT/p2-$a.log 2>&1
python3 scaling/tools/cupti_timeline.py 'slab_pack' /tmp/p2-$a.0.csv /tmp/p2-$a.1.csv > $OUT/timeline1m-p2-above$a.txt 2>&1
done
CUDA_VISIBLE_DEVICES=0 timeout 60 env CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/p1 $B/vesica run scaling/bench/gpu-fluid.cfg \
  --set "box=[$L, $L, $L]" --set particles=1000000 --set integrator.steps=400 --set output.thermo_interval=400 --set output.dir=/tmp/t1 > $OUT/p1.log 2>&1
python3 scaling/tools/cupti_timeline.py newton /tmp/p1.*.csv > $OUT/timeline1m-p1.txt 2>&1
