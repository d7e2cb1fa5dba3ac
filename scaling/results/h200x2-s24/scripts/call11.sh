#!/bin/bash
# Session 24, device call 11: where the 16M two-GPU step's time goes (CUPTI timelines: the slab
# path forced on, the default path, one GPU), and ncu on the one-GPU 1M step's passes.
set -u
C=$PWD/.carry-s24
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/vesica-gate.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
S=174.716093; SX=349.432186
for v in slab:1000000000 image:2097152; do
  tag=${v%%:*}; above=${v##*:}
  timeout 120 mpiexec -n 2 -x VESICA_GPU_SLAB_ABOVE=$above -x CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so -x CUPTI_TRACE_OUT=/tmp/$tag-p2 -x LD_LIBRARY_PATH \
    $B/vesica-gate run scaling/bench/gpu-fluid.cfg --set "box=[$SX, $S, $S]" --set particles=32000000 --set comm.transport=peer \
    --set "decomposition=[2, 1, 1]" --set integrator.steps=60 --set output.thermo_interval=60 --set output.dir=/tmp/t2$tag > $OUT/$tag-p2.log 2>&1
  anchor=slab_pack_fill; [ $tag = image ] && anchor=first_half
  python3 scaling/tools/cupti_timeline.py $anchor /tmp/$tag-p2.0.csv /tmp/$tag-p2.1.csv > $OUT/timeline16-$tag-p2.txt 2>&1
  xz -T4 -c /tmp/$tag-p2.0.csv > $OUT/$tag-p2.0.csv.xz
done
CUDA_VISIBLE_DEVICES=0 timeout 60 env CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/one-p1 $B/vesica-gate run scaling/bench/gpu-fluid.cfg \
  --set "box=[$S, $S, $S]" --set particles=16000000 --set integrator.steps=60 --set output.thermo_interval=60 --set output.dir=/tmp/t1 > $OUT/one-p1.log 2>&1
python3 scaling/tools/cupti_timeline.py first_half /tmp/one-p1.*.csv > $OUT/timeline16-one-p1.txt 2>&1
L=69.336127
CUDA_VISIBLE_DEVICES=0 VESICA_GPU_GRAPHS=0 timeout 150 $CUDA/bin/ncu --clock-control none -k regex:"image_write_unordered|cell_bin|cell_scatter|signature|first_half" \
  --launch-skip 100 --launch-count 5 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
  $B/vesica-gate run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 --set integrator.steps=150 \
  --set output.thermo_interval=150 --set output.dir=/tmp/n1 > $OUT/ncu-1m.txt 2>&1
echo "ncu rc=$?" >> $OUT/ncu-1m.txt
