#!/bin/bash
# PREPARED, NOT RUN (session 26 had no device time left). Needs .carry-s27 carried:
# bin/vesica_lj_cluster.xz (exp/s26-lj-cluster's scaling/bench/lj_cluster.cu, nvcc -O3
# -arch=sm_90, stripped), bin/vesica-main.xz (18371b0's GPU code, the same as main's since),
# bin/vesica-grid.xz (wip/s26-grid-header), bin/vesica-yz.xz (wip/s26-yz-reach), common/ =
# the device bundle, the h5py wheel and tests.json. `next-prepared.sh "1 2"` then `"3 4"`: about 6
# and 8 minutes (a call is at most 10).
# 1. The LJ pair stage studies: cluster pairs, and the Newton walk with its j-shares in a
#    thread-block cluster's distributed shared memory, against the walk from both sides
#    (docs/performance.md, "Session 26"); every variant checked against fp64 and the fixed-sum
#    variants against each other's bits.
# 2. wip/s26-grid-header (bin/vesica-grid.xz: the cell grid's code in its own header, the
#    same PTX as main's): the same thermo.csv as main for the DPD fluid at 1M and the LJ
#    liquid at 1M, and the slab, LJ and reaction GPU tests with it; then it can be merged.
# 3. wip/s26-yz-reach (bin/vesica-yz.xz; on wip/s26-grid-header): the thread builder over
#    rows of cells half as wide along y and z (a third fewer candidates): LJ 1M and 4M against
#    main, alternated, the 16M plain fluid (which builds no thread list), and the GPU tests of
#    the thread-built list (its list order differs from main's, so no thermo.csv comparison).
# 4. With two GPUs: 2 x 1M on slabs along z against slabs along x, alternated (the first
#    measurement of the overlap plan, "Session 25").
set -u
PARTS=" ${1:-1 2 3 4} "
want() { [[ "$PARTS" == *" $1 "* ]]; }
C=$PWD/.carry-s27
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for b in vesica_lj_cluster vesica-main vesica-grid vesica-yz; do xz -dc $C/bin/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
if want 1; then
timeout 200 /tmp/vesica_lj_cluster 1000000 50 > $OUT/lj_cluster-1m.txt 2>&1
echo "rc=$?" >> $OUT/lj_cluster-1m.txt
fi
timeout 100 python3 scaling/bench/md_bench.py --vesica /tmp/vesica-main --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
if want 2; then
L=69.336127
for v in main grid; do
  timeout 60 /tmp/vesica-$v run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 \
    --set integrator.steps=400 --set output.thermo_interval=20 --set output.dir=/tmp/dpd-$v > $OUT/dpd-$v.log 2>&1
done
for v in main grid; do
  timeout 60 /tmp/vesica-$v run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md \
    --set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set neighbor.skin=0.3 --set precision=mixed \
    --set output.dir=/tmp/lj-$v --set output.thermo_interval=20 --set output.trajectory_interval=0 \
    --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=400 > $OUT/lj-$v.log 2>&1
done
for s in dpd lj; do cmp /tmp/$s-main/thermo.csv /tmp/$s-grid/thermo.csv >> $OUT/grid-bits.txt 2>&1 && echo "$s: same thermo.csv" >> $OUT/grid-bits.txt; done
mkdir -p /tmp/tg && cp /tmp/vesica-grid /tmp/tg/vesica
timeout 300 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tg \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_lj_skin0.3|gpu_ranks_bitwise_fluid_skin0.3_half|reactions_gpu_device_mixed|gpu_pair_styles_mixed|gpu_slab_bound_np2|gpu_io_restart_exact_np2' \
  --jobs 6 --timeout 280 --scratch /tmp/s1 --logs $OUT/logs > $OUT/grid-suite.txt 2>&1
echo "rc=$?" >> $OUT/grid-suite.txt
fi
if want 3; then
for rep in 1 2; do for v in main yz; do
  echo "== $v rep $rep" >> $OUT/yz-md.txt
  timeout 60 python3 scaling/bench/md_bench.py --vesica /tmp/vesica-$v --system lj --sizes 1000000 4000000 --precisions mixed \
    --skins 0.3 --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj" | cut -c1-120 >> $OUT/yz-md.txt
done; done
for v in main yz main yz; do
  echo "== $v" >> $OUT/yz-16m.txt
  timeout 60 bash scaling/bench/gpu_bench.sh /tmp/vesica-$v "16000000" mixed 0 100 auto 2>&1 | grep "^ *16000000" >> $OUT/yz-16m.txt
done
mkdir -p /tmp/ty && cp /tmp/vesica-yz /tmp/ty/vesica
timeout 300 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/ty \
  'gpu_ranks_bitwise_lj_skin0.3|gpu_pair_(styles|lj_nve)_(mixed|double)|gpu_molecules_kg_melt_mixed|gpu_stress_corners_np4_2_2_1_peer_thread|reactions_gpu_special_mixed|gpu_npt_lj_mixed|gpu_md_lj_eos_mixed' \
  --jobs 8 --timeout 280 --scratch /tmp/s2 --logs $OUT/logs-yz > $OUT/yz-suite.txt 2>&1
echo "rc=$?" >> $OUT/yz-suite.txt
fi
want 4 || exit 0
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] || exit 0
L=69.336127; L2=138.672254
for rep in 1 2; do
  for v in "x [$L2, $L, $L] [2, 1, 1]" "z [$L, $L, $L2] [1, 1, 2]"; do
    set -- $v; tag=$1; box=$(echo "$v" | cut -d' ' -f2-4); dec=$(echo "$v" | cut -d' ' -f5-7)
    timeout 60 mpiexec -n 2 /tmp/vesica-main run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=2000000 \
      --set "decomposition=$dec" --set comm.transport=peer --set integrator.steps=1000 --set output.thermo_interval=1000 \
      --set output.dir=/tmp/sl-$tag-$rep > /tmp/sl-$tag-$rep.log 2>&1
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], d['wall_s']/d['steps']*1e3, 'ms/step', d['phases_s'])" \
      /tmp/sl-$tag-$rep/perf.json "$tag slabs $dec rep $rep" >> $OUT/slabs.txt 2>&1
  done
done
timeout 40 bash scaling/bench/gpu_multi_bench.sh /tmp/vesica-main "1" 1000000 1000000 1000 peer >> $OUT/slabs.txt 2>&1
