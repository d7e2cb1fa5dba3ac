#!/bin/bash
# Session 27 call 6: exp/s27-own-pairs (the Newton kernel's forces-only variants sum the pairs a
# thread evaluates for its own particle in a per-thread shared row, without atomics: in the
# rounds of depths every lane reaches each lane takes its own pairs) against main (7768f06's
# GPU code). Carry .carry-s27e: bin/vesica-main.xz, bin/vesica-own.xz, common/.
# 1. same thermo.csv (DPD 1M, skin 0 and 0.3, 400 steps: integer sums, any order)
# 2. 16M and 3M plain fluid, skin 0, alternated twice
# 3. GPU tests of the Newton walk with the new binary (if the bits match)
set -u
C=$PWD/.carry-s27e
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for b in vesica-main vesica-own; do xz -dc $C/bin/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
L=69.336127
same=1
for skin in 0 0.3; do for v in main own; do
  timeout 60 /tmp/vesica-$v run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 \
    --set neighbor.skin=$skin --set integrator.steps=400 --set output.thermo_interval=20 \
    --set output.dir=/tmp/dpd-$v-$skin > $OUT/dpd-$v-$skin.log 2>&1
done
if cmp /tmp/dpd-main-$skin/thermo.csv /tmp/dpd-own-$skin/thermo.csv >> $OUT/bits.txt 2>&1; then
  echo "skin $skin: same thermo.csv" >> $OUT/bits.txt; else same=0; fi
done
for rep in 1 2; do for v in main own; do
  echo "== $v rep $rep" >> $OUT/bench.txt
  timeout 100 bash scaling/bench/gpu_bench.sh /tmp/vesica-$v "16000000 3000000" mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/bench.txt
done; done
[ $same = 1 ] || exit 0
mkdir -p /tmp/to && cp /tmp/vesica-own /tmp/to/vesica
timeout 200 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/to \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_fluid_skin0.3_half|gpu_ranks_bitwise_chains_skin0$|gpu_stress_corners_np2_2_1_1_peer_skin0_cells|gpu_pair_styles_mixed|gpu_walls_ranks_skin0_np2|reactions_gpu_device_mixed|gpu_slab_bound_np2' \
  --jobs 4 --timeout 190 --scratch /tmp/s6 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
