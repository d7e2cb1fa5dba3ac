#!/bin/bash
# Session 22, device call 5: main's merged tree (298fbc3's code) over more of the GPU suite,
# and its 3M and long-run 64k figures.
set -u
C=$PWD/.carry-s22
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/tb; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
mkdir -p /tmp/pyx && (cd /tmp/pyx && python3 -m zipfile -e $C/common/h5py-*.whl . ) ; export PYTHONPATH=/tmp/pyx
CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/vesica "3000000" mixed 0 500 auto > $OUT/bench1.txt 2>&1
CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/vesica "64000" mixed 0 20000 auto >> $OUT/bench1.txt 2>&1
python3 scaling/tools/ctest_carry.py run $C/common/tests.json $B \
  'physics_groot_warren_gpu_mixed|test_gpu_flow|gpu_aniso_agree_mixed|gpu_aniso_ranks|aniso_nve_disk_gpu|field_gpu_agree_mixed|field_gpu_fused_mixed|field_gpu_ranks|mc_gpu_exact|gpu_walls_mixed|gpu_walls_ranks_restart|gpu_wide_bonds_mixed_np1|gpu_wide_bonds_mixed_np2_select|gpu_dihedrals_mixed_np1|gpu_tables_mixed_np1|gpu_ensembles_langevin_mixed|gpu_ensembles_restart_exact_langevin|gpu_ensembles_npt_mixed$|gpu_flow_profiles_restart|gpu_ptensor_mixed|reactions_gpu_restart_mixed|reactions_gpu_ranks_mixed|gpu_multi_np2_skin0_select|gpu_ranks_bitwise_chains_skin0.3$|gpu_molecules_restart_exact_mixed_np2|gpu_gamma_pairs_mixed|gpu_pair_styles_mixed' \
  --jobs 12 --timeout 240 --scratch /tmp/s1 > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
