#!/bin/bash
# PREPARED FOR SESSION 28; parts 2-5 ran there (scaling/results/h200-s28, calls 1-2), part 1
# moved to that session's next-prepared.sh. Carry .carry-s27e (ignored, in /work/main): bin/vesica-main.xz
# (7768f06's GPU code, the same as main's at the end of session 27), common/ = the device
# bundle, the h5py wheel and tests.json. `next-prepared.sh "1 2 3 4 5"`: part 1 needs two
# GPUs (nvidia-h200-x2), parts 2-5 one (about 3, 1, 3, 4 and 5 minutes); bin/vesica-loops.xz
# is wip/s27-reach-loops (part 4), bin/vesica-zfirst.xz wip/s27-z-first (part 5).
# 1. Item 2's first measurement of the overlap plan (docs/performance.md, "Session 25"): 2 x 1M
#    on slabs along z against slabs along x, alternated (the z slabs' border layers are
#    contiguous ranges of cells); then the weak and strong series at 1M / 2M, three repeats.
# 2. The LJ liquid's skin sweep again with every step's phases timed (output.timing_every = 1):
#    whether the neighbour phase's 0.83 against 1.13 ms a build (skin 0.3 against 0.2 and 0.25,
#    session 27 call 7) was the one-in-ten sampling.
# 3. The DPD fluid's pairs from both sides (the thread-built list: each pair evaluated twice, no
#    shared atomics) against the Newton walk (auto), 16M and 3M, skins 0 and 0.3: session 27's
#    roofline has the Newton kernel bound by its L1/TEX pipe, about 20 operations a pair (12 of
#    them shared atomics), where the walk from both sides spends about 3 a pair side.
# 4. wip/s27-reach-loops (the cell walks of gpu_partners.cuh and the remote-ghost Newton kernel
#    over the grid's reach, not a fixed 3 x 3 rows): the same thermo.csv as main where those
#    walks run (double precision on the cell list; 2 ranks with a skin, the remote ghosts
#    apart), and the GPU tests of those walks; if they pass, merge it.
# 5. wip/s27-z-first (the overlap plan's step 1: the cell index with the z layers below
#    z_first stored last; the tests' switch VESICA_GPU_Z_FIRST): with the switch at 1 and 3,
#    the same thermo.csv as main for the DPD fluid at skins 0 and 0.3, the LJ liquid (the
#    thread builder), the warp builder, double precision on the cell list and 2 ranks on z
#    slabs; then the GPU tests of the grid's users with the switch at 1.
set -u
PARTS=" ${1:-1 2 3 4 5} "
want() { [[ "$PARTS" == *" $1 "* ]]; }
C=$PWD/.carry-s27e
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
xz -dc $C/bin/vesica-main.xz > /tmp/vesica; chmod +x /tmp/vesica
# part 1 never ran (session 28 had one GPU only): it moved to
# scaling/results/h200-s28/scripts/next-prepared.sh part 1, with session 28's main
if want 1; then
  echo "part 1: run scaling/results/h200-s28/scripts/next-prepared.sh 1 instead" >&2
fi
if want 2; then
  timeout 100 python3 scaling/bench/md_bench.py --vesica /tmp/vesica --system lj --sizes 1000000 --precisions mixed \
    --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
  for skin in 0.2 0.25 0.3 0.4; do
    timeout 60 /tmp/vesica run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md \
      --set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set neighbor.skin=$skin --set precision=mixed \
      --set output.dir=/tmp/lj-$skin --set output.thermo_interval=500 --set output.trajectory_interval=0 \
      --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=500 \
      --set output.timing_every=1 > $OUT/lj-$skin.log 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('skin', sys.argv[2], d['particle_steps_per_s'], d['neighbor_builds'], d['phases_s'])" \
      /tmp/lj-$skin/perf.json $skin >> $OUT/skins.txt 2>&1
  done
fi
if want 3; then
  for rep in 1 2; do for b in auto thread; do
    echo "== builder $b rep $rep" >> $OUT/sides.txt
    timeout 150 bash scaling/bench/gpu_bench.sh /tmp/vesica "16000000 3000000" mixed "0 0.3" 100 $b 2>&1 | grep -v "particles\|device" >> $OUT/sides.txt
  done; done
fi
if want 4; then
  xz -dc $C/bin/vesica-loops.xz > /tmp/vesica-loops; chmod +x /tmp/vesica-loops
  L=69.336127; L2=138.672254
  for v in main loops; do
    b=/tmp/vesica; [ $v = loops ] && b=/tmp/vesica-loops
    timeout 90 $b run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 --set precision=double \
      --set neighbor.gpu_builder=cells --set neighbor.skin=0.3 --set integrator.steps=200 --set output.thermo_interval=20 \
      --set output.dir=/tmp/dbl-$v > $OUT/dbl-$v.log 2>&1
    timeout 90 mpiexec -n 2 $b run scaling/bench/gpu-fluid.cfg --set "box=[$L2, $L, $L]" --set particles=2000000 \
      --set "decomposition=[2, 1, 1]" --set neighbor.gpu_builder=cells --set neighbor.skin=0.3 --set integrator.steps=200 \
      --set output.thermo_interval=20 --set output.dir=/tmp/apart-$v > $OUT/apart-$v.log 2>&1
  done
  grep -h "Plan" $OUT/dbl-main.log $OUT/apart-main.log > $OUT/loops-plans.txt 2>&1
  for s in dbl apart; do cmp /tmp/$s-main/thermo.csv /tmp/$s-loops/thermo.csv >> $OUT/loops-bits.txt 2>&1 && echo "$s: same thermo.csv" >> $OUT/loops-bits.txt; done
  mkdir -p /tmp/tl && cp /tmp/vesica-loops /tmp/tl/vesica
  timeout 280 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tl \
    'gpu_pair_styles_double|gpu_stress_corners_np2_2_1_1_peer_cells|gpu_stress_corners_np8_2_2_2_peer_cells|gpu_ranks_bitwise_fluid_skin0.3$|gpu_aniso_agree_double|gpu_gamma_pairs_double|gpu_walls_double' \
    --jobs 6 --timeout 270 --scratch /tmp/s4 --logs $OUT/logs-loops > $OUT/loops-suite.txt 2>&1
  echo "rc=$?" >> $OUT/loops-suite.txt
fi
if want 5; then
  xz -dc $C/bin/vesica-zfirst.xz > /tmp/vesica-zf; chmod +x /tmp/vesica-zf
  L=69.336127; L2=138.672254
  [ -f /tmp/md/lj-1000000/stage3/traj.h5md ] || timeout 100 python3 scaling/bench/md_bench.py --vesica /tmp/vesica \
    --system lj --sizes 1000000 --precisions mixed --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep5.txt 2>&1
  fluid=(run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 --set integrator.steps=200
         --set output.thermo_interval=20)
  lj=(run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md --set dpd.gamma=0.0
      --set integrator.kind=nve --set backend=gpu --set neighbor.skin=0.3 --set precision=mixed --set output.thermo_interval=20
      --set output.trajectory_interval=0 --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=200)
  for cfg in "skin0" "skin0.3" "warp" "double"; do
    extra=(); case $cfg in skin0.3) extra=(--set neighbor.skin=0.3);; warp) extra=(--set neighbor.skin=0.3 --set neighbor.gpu_builder=warp --set precision=double);;
      double) extra=(--set neighbor.skin=0.3 --set neighbor.gpu_builder=cells --set precision=double);; esac
    for v in main zf0 zf1 zf3; do
      b=/tmp/vesica-zf; z=${v#zf}; [ $v = main ] && { b=/tmp/vesica; z=0; }
      VESICA_GPU_Z_FIRST=$z timeout 90 $b "${fluid[@]}" "${extra[@]}" --set output.dir=/tmp/z-$cfg-$v > $OUT/z-$cfg-$v.log 2>&1
      [ $v = main ] || { cmp /tmp/z-$cfg-main/thermo.csv /tmp/z-$cfg-$v/thermo.csv >> $OUT/zfirst-bits.txt 2>&1 &&
        echo "$cfg $v: same thermo.csv as main" >> $OUT/zfirst-bits.txt; }
    done
  done
  for v in main zf0 zf1 zf3; do
    b=/tmp/vesica-zf; z=${v#zf}; [ $v = main ] && { b=/tmp/vesica; z=0; }
    VESICA_GPU_Z_FIRST=$z timeout 90 $b "${lj[@]}" --set output.dir=/tmp/z-lj-$v > $OUT/z-lj-$v.log 2>&1
    VESICA_GPU_Z_FIRST=$z timeout 90 mpiexec -n 2 -x VESICA_GPU_Z_FIRST $b run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L2]" \
      --set particles=2000000 --set "decomposition=[1, 1, 2]" --set integrator.steps=200 --set output.thermo_interval=20 \
      --set output.dir=/tmp/z-zslab-$v > $OUT/z-zslab-$v.log 2>&1
    for tag in lj zslab; do
      [ $v = main ] || { cmp /tmp/z-$tag-main/thermo.csv /tmp/z-$tag-$v/thermo.csv >> $OUT/zfirst-bits.txt 2>&1 &&
        echo "$tag $v: same thermo.csv as main" >> $OUT/zfirst-bits.txt; }
    done
  done
  mkdir -p /tmp/tz && cp /tmp/vesica-zf /tmp/tz/vesica
  VESICA_GPU_Z_FIRST=1 timeout 300 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tz \
    'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_lj_skin0.3|gpu_stress_corners_np4_2_2_1_peer_skin0_cells|gpu_stress_corners_np2_2_1_1_peer_cells|reactions_gpu_device_mixed|gpu_aniso_agree_mixed|gpu_walls_mixed' \
    --jobs 7 --timeout 290 --scratch /tmp/s5 --logs $OUT/logs-zfirst > $OUT/zfirst-suite.txt 2>&1
  echo "rc=$?" >> $OUT/zfirst-suite.txt
fi
