#!/bin/bash
# Session 28 call 6 (one H200). (1) What one gather of the partner costs the Newton kernel:
# exp/s28-atomics-cost with VS_EXP_GATHER 1 (the partner's signature not loaded: a hash of its
# index instead, a random force as random) and 2 (its velocity not loaded either: timing only),
# the 16M run's first force launches under Nsight Compute, then 16M runs alternated. (2) main
# with wip/s27-reach-loops and wip/s27-z-first merged (55bec2e): the same thermo.csv as
# VS_EXP_GATHER 0's build (main before the merges but for the reach loops), and GPU tests.
set -u
C=$PWD/.carry-s27e; D=$PWD/.carry-s28
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=/usr/local/cuda/bin:$PATH
for v in a0 g1 g2 m; do xz -dc $D/bin/vesica-$v.xz > /tmp/v$v; chmod +x /tmp/v$v; done
L=$(python3 -c "print(f'{(16000000 / 3.0) ** (1 / 3):.6f}')")
for v in a0 g1 g2; do
  timeout 100 ncu --kernel-name regex:vs_newton_kernel --launch-count 3 --csv \
    --metrics gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    /tmp/v$v run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=16000000 --set precision=mixed \
    --set neighbor.skin=0 --set integrator.steps=3 --set output.thermo_interval=3 --set output.dir=/tmp/n$v > $OUT/ncu-$v.csv 2> $OUT/ncu-$v.err
  echo "== $v"; grep -E "duration|throughput|inst_executed|wavefronts|requests" $OUT/ncu-$v.csv | awk -F'","' '{print $1 " " $(NF-2) " " $NF}' | cut -c1-200
done
for v in a0 g1 g2 g2 g1 a0; do
  echo "== $v" >> $OUT/gather.txt
  timeout 60 bash scaling/bench/gpu_bench.sh /tmp/v$v 16000000 mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/gather.txt
done
cat $OUT/gather.txt
L1=69.336127; L2=138.672254
for v in a0 m; do
  for skin in 0 0.3; do
    timeout 60 /tmp/v$v run scaling/bench/gpu-fluid.cfg --set "box=[$L1, $L1, $L1]" --set particles=1000000 --set neighbor.skin=$skin \
      --set integrator.steps=200 --set output.thermo_interval=20 --set output.dir=/tmp/f$skin-$v > $OUT/f$skin-$v.log 2>&1
  done
  timeout 60 mpiexec -n 2 /tmp/v$v run scaling/bench/gpu-fluid.cfg --set "box=[$L1, $L1, $L2]" --set particles=2000000 \
    --set "decomposition=[1, 1, 2]" --set integrator.steps=200 --set output.thermo_interval=20 --set output.dir=/tmp/z-$v > $OUT/z-$v.log 2>&1
  timeout 60 mpiexec -n 2 /tmp/v$v run scaling/bench/gpu-fluid.cfg --set "box=[$L2, $L1, $L1]" --set particles=2000000 \
    --set "decomposition=[2, 1, 1]" --set neighbor.gpu_builder=cells --set neighbor.skin=0.3 --set integrator.steps=200 \
    --set output.thermo_interval=20 --set output.dir=/tmp/apart-$v > $OUT/apart-$v.log 2>&1
done
for s in f0 f0.3 z apart; do cmp /tmp/$s-a0/thermo.csv /tmp/$s-m/thermo.csv >> $OUT/main-bits.txt 2>&1 && echo "$s: same thermo.csv" >> $OUT/main-bits.txt; done
mkdir -p /tmp/tm && cp /tmp/vm /tmp/tm/vesica
timeout 300 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tm \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_lj_skin0.3|gpu_stress_corners_np4_2_2_1_peer_skin0_cells|gpu_stress_corners_np2_2_1_1_peer_cells|reactions_gpu_device_mixed|gpu_aniso_agree_double|gpu_walls_double|gpu_pair_styles_double' \
  --jobs 8 --timeout 290 --scratch /tmp/s6 --logs $OUT/logs-main > $OUT/main-suite.txt 2>&1
echo "rc=$?" >> $OUT/main-suite.txt
cat $OUT/main-bits.txt $OUT/main-suite.txt
