#!/bin/bash
# Session 25, device call 7: session 23's exp/s23-retire-grow on main (9402b8e: the list of
# buffers a captured step gives up grows as needed; the topology's growth drains through
# vs_gpu_drain). GPU tests that capture steps (one rank and the slab path), with molecules,
# reactions and restarts; test_gpu_backend alone first.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/tb
for f in $C/tbin/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/tb/$n; chmod +x /tmp/tb/$n; done
timeout 100 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb '^test_gpu_backend$' \
  --jobs 1 --timeout 90 --scratch /tmp/s0 --logs $OUT/logs > $OUT/suite.txt 2>&1
timeout 180 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  '^gpu_ranks_bitwise_fluid_skin0$|^gpu_io_restart_exact_np[12]$|^gpu_molecules_mixed_np1$|^gpu_molecules_restart_exact_mixed_np1$|^reactions_gpu_(device|rules)_mixed$|^gpu_slab_bound_np2$|^gpu_thermo_ranks_exact_mixed_np2$|^gpu_walls_ranks_skin0_np2$|^field_gpu_fused_mixed$' \
  --jobs 8 --timeout 170 --scratch /tmp/s1 --logs $OUT/logs >> $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
