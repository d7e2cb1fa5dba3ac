#!/bin/bash
# Session 26, device call 2 (one H200): the thread builder's flat walk with its candidates'
# loads in flight together (VS_BUILD_UNROLL 2, 3, 4) against main (one at a time): the LJ
# liquid at 1M and 4M (md_bench.py, alternated), the same thermo.csv (400 steps, thermo every
# 20), Nsight Compute on the builder (main, u4) and the LJ walk (main).
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/bin; mkdir -p $B
for v in main u2 u3 u4; do xz -dc $C/bin/vesica-$v.xz > $B/vesica-$v; chmod +x $B/vesica-$v; done
LJ="--set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set precision=mixed --set neighbor.skin=0.3 --set neighbor.gpu_builder=thread"
timeout 100 python3 scaling/bench/md_bench.py --vesica $B/vesica-main --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
for rep in 1 2; do
  for v in main u2 u3 u4; do
    echo "== $v rep $rep" >> $OUT/md.txt
    timeout 60 python3 scaling/bench/md_bench.py --vesica $B/vesica-$v --system lj --sizes 1000000 4000000 --precisions mixed \
      --skins 0.3 --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj" >> $OUT/md.txt
  done
done
for v in main u4; do
  timeout 60 $B/vesica-$v run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ \
    --set output.dir=/tmp/bits-$v --set output.thermo_interval=20 --set output.trajectory_interval=0 \
    --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=400 > $OUT/bits-$v.log 2>&1
done
cmp /tmp/bits-main/thermo.csv /tmp/bits-u4/thermo.csv > $OUT/bits.txt 2>&1 && echo "same thermo.csv" >> $OUT/bits.txt
wc -l /tmp/bits-main/thermo.csv >> $OUT/bits.txt
NCU="ncu --print-units base --launch-skip 1 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats"
for v in main u4; do
  timeout 90 $NCU -k regex:neighbor_thread_kernel $B/vesica-$v run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ \
    --set output.dir=/tmp/ncu-$v --set integrator.steps=20 > $OUT/ncu-build-$v.txt 2>&1
done
timeout 90 $NCU -k regex:vs_both_sides_kernel --metrics "regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active$" $B/vesica-main run configs/lj-liquid.cfg \
  --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ --set output.dir=/tmp/ncu-w --set integrator.steps=20 > $OUT/ncu-walk-main.txt 2>&1
