#!/bin/bash
# Session 27 call 3: exp/s27-newton-yz (the Newton walk's half stencil over rows of cells half
# r_c wide along y and z too: 12 rows and the own row instead of 4 and the own row) against
# main (330b234). Carry .carry-s27b: bin/vesica-main.xz (330b234 + the slab pack helper, committed after this call),
# bin/vesica-nyz.xz (exp/s27-newton-yz on 330b234), common/.
# 1. same thermo.csv (fixed-point sums: the same pairs give the same bits in any order): DPD
#    1M at skin 0 (cell walk) and skin 0.3 (half list), 400 steps
# 2. 16M and 3M plain fluid, skin 0, A/B alternated twice
# 3. GPU tests of the Newton walk with the new binary
# 4. (below) the slab tests with main + the slab pack helper
set -u
C=$PWD/.carry-s27b
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for b in vesica-main vesica-nyz; do xz -dc $C/bin/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
L=69.336127
for skin in 0 0.3; do for v in main nyz; do
  timeout 60 /tmp/vesica-$v run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 \
    --set neighbor.skin=$skin --set neighbor.gpu_builder=auto \
    --set integrator.steps=400 --set output.thermo_interval=20 --set output.dir=/tmp/dpd-$v-$skin > $OUT/dpd-$v-$skin.log 2>&1
  grep -i "plan\|builder" $OUT/dpd-$v-$skin.log | head -3 >> $OUT/plans.txt
done
cmp /tmp/dpd-main-$skin/thermo.csv /tmp/dpd-nyz-$skin/thermo.csv >> $OUT/bits.txt 2>&1 && echo "skin $skin: same thermo.csv" >> $OUT/bits.txt
done
for rep in 1 2; do for v in main nyz; do
  echo "== $v rep $rep" >> $OUT/bench.txt
  timeout 100 bash scaling/bench/gpu_bench.sh /tmp/vesica-$v "16000000 3000000" mixed 0 100 auto 2>&1 | grep -v particles >> $OUT/bench.txt
done; done
mkdir -p /tmp/tn && cp /tmp/vesica-nyz /tmp/tn/vesica
timeout 330 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tn \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_ranks_bitwise_fluid_skin0.3_half|gpu_ranks_bitwise_chains_skin0$|gpu_stress_corners_np4_2_2_1_peer_skin0_cells|gpu_stress_corners_np8_2_2_2_peer_cells|gpu_stress_corners_np8_2_2_2_peer_half|gpu_thermo_ranks_exact_mixed_np4|gpu_walls_ranks_skin0_np2|gpu_special_mixed_np2|gpu_ptensor_mixed|gpu_io_restart_exact_np2|gpu_pair_styles_mixed|gpu_slab_bound_np2|reactions_gpu_device_mixed|gpu_molecules_mixed_np4' \
  --jobs 8 --timeout 300 --scratch /tmp/s3 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
# 4. main with the slab pack's leaver placement in one helper (both pack kernels): the slab tests
mkdir -p /tmp/tm && cp /tmp/vesica-main /tmp/tm/vesica
timeout 200 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tm \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_slab_bound_np2|gpu_halo_bytes_np2|gpu_multi_np2_skin0$|gpu_io_restart_exact_np4|gpu_stress_corners_np2_2_1_1_peer_skin0_cells' \
  --jobs 6 --timeout 190 --scratch /tmp/s4 --logs $OUT/logs-main > $OUT/suite-main.txt 2>&1
echo "rc=$?" >> $OUT/suite-main.txt
