#!/bin/bash
# Session 26, device call 5 (one H200): the thread builder's flat walk with four candidates'
# loads in flight (bin/vesica-new, the commit's code) against main: the GPU tests that take
# the thread-built list, the same thermo.csv (LJ 1M mixed and double, 400 steps), LJ 1M and
# 4M, the Kremer-Grest melt at 1M, and the 16M plain fluid (which builds no thread list).
set -u
C=$PWD/.carry-s26
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B /tmp/tb
for v in main new; do xz -dc $C/bin/vesica-$v.xz > $B/vesica-$v; chmod +x $B/vesica-$v; done
cp $B/vesica-new /tmp/tb/vesica; xz -dc $C/bin/test_gpu_molecules.xz > /tmp/tb/test_gpu_molecules; chmod +x /tmp/tb/*
timeout 280 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_pair_(styles|lj_nve|mie|galamost)|gpu_md_lj_eos|gpu_npt_lj|gpu_molecules_kg_melt|gpu_ranks_bitwise_lj|gpu_stress_corners_np4_2_2_1_peer_thread|gpu_stress_corners_np4_4_1_1_peer_thread|gpu_stress_corners_np8_2_2_2_host_thread|gpu_special_mixed_np2|gpu_special_double_np1|reactions_gpu_special_mixed|gpu_gamma_pairs_mixed' \
  --jobs 8 --timeout 270 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
LJ="--set dpd.gamma=0.0 --set integrator.kind=nve --set backend=gpu --set neighbor.skin=0.3 --set neighbor.gpu_builder=thread"
timeout 100 python3 scaling/bench/md_bench.py --vesica $B/vesica-main --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
for v in main new; do for prec in mixed double; do
  timeout 60 $B/vesica-$v run configs/lj-liquid.cfg --set input.file=/tmp/md/lj-1000000/stage3/traj.h5md $LJ --set precision=$prec \
    --set output.dir=/tmp/bits-$v-$prec --set output.thermo_interval=20 --set output.trajectory_interval=0 \
    --set output.checkpoint_interval=0 --set output.checkpoint_keep=0 --set integrator.steps=400 > $OUT/bits-$v-$prec.log 2>&1
done; done
for prec in mixed double; do cmp /tmp/bits-main-$prec/thermo.csv /tmp/bits-new-$prec/thermo.csv >> $OUT/bits.txt 2>&1 && echo "$prec: same thermo.csv" >> $OUT/bits.txt; done
for rep in 1 2; do for v in main new; do
  echo "== $v rep $rep" >> $OUT/md.txt
  timeout 60 python3 scaling/bench/md_bench.py --vesica $B/vesica-$v --system lj --sizes 1000000 4000000 --precisions mixed \
    --skins 0.3 --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj" | cut -c1-120 >> $OUT/md.txt
done; done
for v in main new main new; do
  echo "== $v" >> $OUT/bench16m.txt
  timeout 60 bash scaling/bench/gpu_bench.sh $B/vesica-$v "16000000" mixed 0 100 auto 2>&1 | grep "^ *16000000" >> $OUT/bench16m.txt
done
for v in main new main new; do
  echo "== $v" >> $OUT/kg.txt
  timeout 120 python3 scaling/bench/md_bench.py --vesica $B/vesica-$v --system kg --sizes 1000000 --precisions mixed \
    --skins 0.4 --builders auto --steps 300 --work /tmp/md 2>&1 | grep "^kg\|prepared" | cut -c1-120 >> $OUT/kg.txt
done
