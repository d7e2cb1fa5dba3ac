#!/bin/bash
# Session 26, device call 1 (one H200): (1) wip/s25-slab-yz's ranks_bitwise.sh (slabs along y
# and z against one rank) with main's vesica, ranks sharing the GPU; (2) the 16M plain fluid,
# main (1339fd4's GPU code) against f832914 (before 9add68b and 1339fd4), alternated; (3) the
# LJ liquid at 1M (md_bench.py) and a CUPTI timeline of its steps.
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B /tmp/tb
for v in main before; do xz -dc $C/bin/vesica-$v.xz > $B/vesica-$v; chmod +x $B/vesica-$v; done
cp $B/vesica-main /tmp/tb/vesica
cp $C/common/ranks_bitwise-yz.sh tests/gpu/ranks_bitwise.sh
timeout 200 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb 'gpu_ranks_bitwise_fluid_skin0$' \
  --jobs 1 --timeout 190 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
git checkout tests/gpu/ranks_bitwise.sh
for rep in 1 2; do
  for v in main before; do
    echo "== $v rep $rep" >> $OUT/bench16m.txt
    timeout 80 bash scaling/bench/gpu_bench.sh $B/vesica-$v "16000000" mixed 0 100 auto >> $OUT/bench16m.txt 2>&1
  done
done
timeout 200 python3 scaling/bench/md_bench.py --vesica $B/vesica-main --system lj --sizes 1000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 500 --work /tmp/md > $OUT/md_lj1m.txt 2>&1
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
timeout 60 env CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/lj $B/vesica-main run configs/lj-liquid.cfg \
  --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md --set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu \
  --set precision=mixed --set neighbor.skin=0.3 --set neighbor.gpu_builder=thread --set output.dir=/tmp/ljt \
  --set output.thermo_interval=300 --set output.trajectory_interval=0 --set output.checkpoint_interval=0 \
  --set output.checkpoint_keep=0 --set integrator.steps=300 > $OUT/lj-trace.log 2>&1
ls /tmp/lj* >> $OUT/lj-trace.log 2>&1
python3 scaling/tools/cupti_timeline.py --sequences 3 --totals first_half /tmp/lj.*.csv > $OUT/timeline-lj1m.txt 2>&1
xz -c /tmp/lj.0.csv > $OUT/lj-trace.0.csv.xz 2>/dev/null
