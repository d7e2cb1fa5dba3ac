#!/bin/bash
# Session 26, device call 3 (one H200): the warp-rows list builder (neighbor_rows_kernel;
# bin/vesica-rows, VESICA_GPU_ROWS_BUILDER=0 gives the thread kernel with call 2's unroll of
# 4) against main: the same thermo.csv (LJ 1M, 400 steps, thermo every 20; double 64k),
# md_bench.py LJ 1M and 4M alternated, Nsight Compute on the new kernel, then the GPU tests
# that take the thread-built list.
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/bin; mkdir -p $B /tmp/tb
for v in main rows; do xz -dc $C/bin/vesica-$v.xz > $B/vesica-$v; chmod +x $B/vesica-$v; done
cp $B/vesica-rows /tmp/tb/vesica; xz -dc $C/bin/test_gpu_molecules.xz > /tmp/tb/test_gpu_molecules; chmod +x /tmp/tb/*
LJ="--set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set neighbor.skin=0.3 --set neighbor.gpu_builder=thread"
timeout 100 python3 scaling/bench/md_bench.py --vesica $B/vesica-main --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
bits() { # tag bin env precision
  timeout 60 env $3 $2 run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ --set precision=$4 \
    --set output.dir=/tmp/bits-$1 --set output.thermo_interval=20 --set output.trajectory_interval=0 \
    --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=400 > $OUT/bits-$1.log 2>&1
}
bits main $B/vesica-main X=1 mixed; bits rows $B/vesica-rows X=1 mixed; bits u4 $B/vesica-rows VESICA_GPU_ROWS_BUILDER=0 mixed
bits maind $B/vesica-main X=1 double; bits rowsd $B/vesica-rows X=1 double
for t in rows u4; do cmp /tmp/bits-main/thermo.csv /tmp/bits-$t/thermo.csv > $OUT/bits-$t.txt 2>&1 && echo "same thermo.csv" >> $OUT/bits-$t.txt; done
cmp /tmp/bits-maind/thermo.csv /tmp/bits-rowsd/thermo.csv > $OUT/bits-double.txt 2>&1 && echo "same thermo.csv" >> $OUT/bits-double.txt
grep -h "builds" $OUT/bits-*.log >> $OUT/bits-rows.txt
for rep in 1 2; do
  for v in main rows u4; do
    bin=$B/vesica-rows; e=X=1; [ $v = main ] && bin=$B/vesica-main; [ $v = u4 ] && e=VESICA_GPU_ROWS_BUILDER=0
    echo "== $v rep $rep" >> $OUT/md.txt
    env $e timeout 60 python3 scaling/bench/md_bench.py --vesica $bin --system lj --sizes 1000000 4000000 --precisions mixed \
      --skins 0.3 --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj" | cut -c1-120 >> $OUT/md.txt
  done
done
NCU="ncu --print-units base --launch-skip 1 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats"
timeout 90 $NCU -k regex:neighbor_rows_kernel $B/vesica-rows run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ \
  --set precision=mixed --set output.dir=/tmp/ncu-r --set integrator.steps=20 > $OUT/ncu-rows.txt 2>&1
timeout 300 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_pair_(styles|lj_nve|mie|galamost)|gpu_md_lj_eos|gpu_npt_lj|gpu_ensembles_npt_mixed$|gpu_molecules_kg_melt|gpu_ranks_bitwise_lj|gpu_stress_corners_np4_2_2_1_peer_thread|gpu_stress_corners_np4_4_1_1_peer_thread|gpu_special_mixed_np2|gpu_special_double_np1|reactions_gpu_special_mixed|gpu_gamma_pairs_mixed' \
  --jobs 6 --timeout 280 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
