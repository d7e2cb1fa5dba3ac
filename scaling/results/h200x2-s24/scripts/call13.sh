#!/bin/bash
# Session 24, device call 13: CUPTI timelines of the gate build: 16M per GPU with the slab path
# forced on, and one GPU at 1M (the image pass and the binning against session 23's trace).
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/vesica-*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
S=174.716093; SX=349.432186; L=69.336127
timeout 100 mpiexec -n 2 -x VESICA_GPU_SLAB_ABOVE=1000000000 -x CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so -x CUPTI_TRACE_OUT=/tmp/slab-p2 -x LD_LIBRARY_PATH \
  $B/vesica-gate run scaling/bench/gpu-fluid.cfg --set "box=[$SX, $S, $S]" --set particles=32000000 --set comm.transport=peer \
  --set "decomposition=[2, 1, 1]" --set integrator.steps=60 --set output.thermo_interval=60 --set output.dir=/tmp/t2 > $OUT/slab-p2.log 2>&1
python3 scaling/tools/cupti_timeline.py slab_pack_fill /tmp/slab-p2.0.csv /tmp/slab-p2.1.csv > $OUT/timeline16-slab-gate.txt 2>&1
for v in gate merged; do
CUDA_VISIBLE_DEVICES=0 timeout 60 env CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/$v-p1 $B/vesica-$v run scaling/bench/gpu-fluid.cfg \
  --set "box=[$L, $L, $L]" --set particles=1000000 --set integrator.steps=400 --set output.thermo_interval=400 --set output.dir=/tmp/t1$v > $OUT/$v-p1.log 2>&1
python3 scaling/tools/cupti_timeline.py newton /tmp/$v-p1.*.csv > $OUT/timeline1m-$v.txt 2>&1
done
