#!/bin/bash
# Session 26, device call 4 (one H200): the warp-rows builder with the per-particle set-up
# spread over the lanes (8 or 16 particles a warp: bin/vesica-p8, -p16) against main and
# against the thread kernel with call 2's unroll (VESICA_GPU_ROWS_BUILDER=0 in vesica-p8):
# the same thermo.csv (LJ 1M, 400 steps, thermo every 20), md_bench.py LJ 1M and 4M
# alternated, Nsight Compute on the p8 kernel.
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/bin; mkdir -p $B
for v in main p8 p16; do xz -dc $C/bin/vesica-$v.xz > $B/vesica-$v; chmod +x $B/vesica-$v; done
LJ="--set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set neighbor.skin=0.3 --set neighbor.gpu_builder=thread"
timeout 100 python3 scaling/bench/md_bench.py --vesica $B/vesica-main --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
bits() { # tag bin
  timeout 60 $2 run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ --set precision=mixed \
    --set output.dir=/tmp/bits-$1 --set output.thermo_interval=20 --set output.trajectory_interval=0 \
    --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=400 > $OUT/bits-$1.log 2>&1
}
for v in main p8 p16; do bits $v $B/vesica-$v; done
for t in p8 p16; do cmp /tmp/bits-main/thermo.csv /tmp/bits-$t/thermo.csv >> $OUT/bits.txt 2>&1 && echo "$t: same thermo.csv" >> $OUT/bits.txt; done
for rep in 1 2; do
  for v in main p8 p16 u4; do
    bin=$B/vesica-$v; e=X=1; [ $v = u4 ] && bin=$B/vesica-p8 && e=VESICA_GPU_ROWS_BUILDER=0
    echo "== $v rep $rep" >> $OUT/md.txt
    env $e timeout 60 python3 scaling/bench/md_bench.py --vesica $bin --system lj --sizes 1000000 4000000 --precisions mixed \
      --skins 0.3 --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj" | cut -c1-120 >> $OUT/md.txt
  done
done
NCU="ncu --print-units base --launch-skip 1 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats"
timeout 90 $NCU -k regex:neighbor_rows_kernel $B/vesica-p8 run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ \
  --set precision=mixed --set output.dir=/tmp/ncu-r --set integrator.steps=20 > $OUT/ncu-p8.txt 2>&1
