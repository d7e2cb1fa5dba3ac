#!/bin/bash
# PREPARED FOR THE NEXT SESSION, NOT RUN. `next-prepared.sh "1 2 3 4"`. Carry .carry-s28e
# (ignored, in /work/main): bin/vesica-main.xz (55bec2e's GPU code, main's at the end of session
# 28), bin/vesica_dpd_cellwarp.xz (exp/s28-cellwarp at 4d90a3b), bin/vesica-unpackbin.xz
# (wip/s28-unpack-bin), common/ = the device bundle,
# the h5py wheel and tests.json.
# 1. (two GPUs, nvidia-h200-x2; about 3 minutes) Item 2's first measurement of the overlap plan
#    (docs/performance.md, "Session 25" and the plan at the code level): 2 x 1M on slabs along
#    z against slabs along x, alternated (the z slabs' border layers are contiguous ranges of
#    cells); then the weak and strong series at 1M / 2M, three repeats. Session 27's
#    next-prepared.sh part 1, with session 28's main.
# 2. (one GPU, about 1 minute) vesica_dpd_cellwarp's version 2 (nothing staged: the particles
#    in the bricks' cell order, a round's partners from nearby entries) at 3M and 16M, with the
#    staged version and the reference again; its sums must equal the reference's (0 differing).
# 3. (one GPU, about 2 minutes) gpu_ranks_bitwise_fluid_skin0 and _skin0.3 with the one-rank
#    mode that ranks_bitwise.sh gained in session 28 (zfirst: VESICA_GPU_Z_FIRST=1 against the
#    default), never run yet.
# 4. (one GPU for the bits and tests, about 4 minutes; with two GPUs also the timing) the
#    overlap plan's step 2 on main, branch wip/s28-unpack-bin (bin/vesica-unpackbin.xz): the
#    same thermo.csv as main for 2 ranks on x slabs and on z slabs (2 x 1M, 200 steps), the
#    slab tests; with two GPUs, 2 x 1M weak against main, alternated.
set -u
PARTS=" ${1:-1 2 3 4} "
want() { [[ "$PARTS" == *" $1 "* ]]; }
C=$PWD/.carry-s28e
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
xz -dc $C/bin/vesica-main.xz > /tmp/vesica; chmod +x /tmp/vesica
if want 1 && [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  L=69.336127; L2=138.672254
  for rep in 1 2; do
    for v in "x [$L2, $L, $L] [2, 1, 1]" "z [$L, $L, $L2] [1, 1, 2]"; do
      tag=$(echo "$v" | cut -d' ' -f1); box=$(echo "$v" | cut -d' ' -f2-4); dec=$(echo "$v" | cut -d' ' -f5-7)
      timeout 60 mpiexec -n 2 /tmp/vesica run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=2000000 \
        --set "decomposition=$dec" --set comm.transport=peer --set integrator.steps=1000 --set output.thermo_interval=1000 \
        --set output.dir=/tmp/sl-$tag-$rep > /tmp/sl-$tag-$rep.log 2>&1
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['wall_s']/d['steps']*1e3, 'ms/step', d['phases_s'])" \
        /tmp/sl-$tag-$rep/perf.json "$tag slabs $dec rep $rep" >> $OUT/slabs.txt 2>&1
    done
  done
  GMB_REPEATS=3 timeout 200 bash scaling/bench/gpu_multi_bench.sh /tmp/vesica "1 2" 1000000 2000000 400 peer > $OUT/multi.txt 2>&1
  cat $OUT/slabs.txt $OUT/multi.txt
fi
if want 2; then
  xz -dc $C/bin/vesica_dpd_cellwarp.xz > /tmp/cw; chmod +x /tmp/cw
  for n in 3000000 16000000; do timeout 150 /tmp/cw $n 20 >> $OUT/cellwarp2.txt 2>&1; done
  cat $OUT/cellwarp2.txt
fi
if want 3; then
  mkdir -p /tmp/tm && cp /tmp/vesica /tmp/tm/vesica
  timeout 200 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tm \
    'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_fluid_skin0.3$' --jobs 2 --timeout 190 \
    --scratch /tmp/s3 --logs $OUT/logs-zfirst > $OUT/zfirst-test.txt 2>&1
  echo "rc=$?" >> $OUT/zfirst-test.txt
  cat $OUT/zfirst-test.txt
fi
if want 4; then
  xz -dc $C/bin/vesica-unpackbin.xz > /tmp/vub; chmod +x /tmp/vub
  L=69.336127; L2=138.672254
  for v in main ub; do
    b=/tmp/vesica; [ $v = ub ] && b=/tmp/vub
    for dec in "x [$L2, $L, $L] [2, 1, 1]" "z [$L, $L, $L2] [1, 1, 2]"; do
      tag=$(echo "$dec" | cut -d' ' -f1); box=$(echo "$dec" | cut -d' ' -f2-4); dd=$(echo "$dec" | cut -d' ' -f5-7)
      timeout 90 mpiexec -n 2 $b run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=2000000 \
        --set "decomposition=$dd" --set integrator.steps=200 --set output.thermo_interval=20 \
        --set output.dir=/tmp/ub-$tag-$v > $OUT/ub-$tag-$v.log 2>&1
    done
  done
  for tag in x z; do cmp /tmp/ub-$tag-main/thermo.csv /tmp/ub-$tag-ub/thermo.csv >> $OUT/ub-bits.txt 2>&1 &&
    echo "$tag slabs: same thermo.csv" >> $OUT/ub-bits.txt; done
  mkdir -p /tmp/tu && cp /tmp/vub /tmp/tu/vesica
  timeout 280 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tu \
    'gpu_ranks_bitwise_fluid_skin0$|gpu_slab_bound|gpu_halo_bytes_np2|gpu_io_restart_exact_np2|gpu_io_restart_exact_np4|gpu_stress_corners_np2_2_1_1_peer_skin0|gpu_thermo_ranks_exact_mixed' \
    --jobs 7 --timeout 270 --scratch /tmp/s4 --logs $OUT/logs-ub > $OUT/ub-suite.txt 2>&1
  echo "rc=$?" >> $OUT/ub-suite.txt
  if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
    for v in main ub ub main; do
      b=/tmp/vesica; [ $v = ub ] && b=/tmp/vub
      echo "== $v" >> $OUT/ub-multi.txt
      timeout 100 bash scaling/bench/gpu_multi_bench.sh $b "1 2" 1000000 2000000 400 peer >> $OUT/ub-multi.txt 2>&1
    done
  fi
  cat $OUT/ub-bits.txt $OUT/ub-suite.txt $OUT/ub-multi.txt 2>/dev/null
fi
