#!/bin/bash
# Session 22, device call 4: the slab image pass clears the cell counts (wip/s22-slab-counts)
# against main (298fbc3).
set -u
C=$PWD/.carry-s22
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
mkdir -p /tmp/pyx && (cd /tmp/pyx && python3 -m zipfile -e $C/common/h5py-*.whl . ) ; export PYTHONPATH=/tmp/pyx
# 1. two GPUs, alternated twice
for rep in 1 2; do for v in main slab; do
  echo "== $v rep $rep" >> $OUT/bench2.txt
  bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done; done
# 2. one GPU, once each
for v in main slab; do
  echo "== $v" >> $OUT/bench1.txt
  CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/vesica-$v "16000000 1000000 64000" mixed 0 1000 auto >> $OUT/bench1.txt 2>&1
done
# 3. the slab tests
mkdir -p /tmp/tb && cp $B/vesica-slab /tmp/tb/vesica && cp $B/test_gpu_multi-slab /tmp/tb/test_gpu_multi
python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_thermo_ranks_exact_mixed_np[24]|gpu_slab_bound_np2|gpu_io_restart_exact_np[24]|gpu_halo_bytes_np[24]|gpu_stress_corners_np[248]_.*peer.*skin0|gpu_stress_corners_np4_4_1_1_peer_thread|gpu_multi_np2_skin0$' \
  --jobs 8 --timeout 300 --scratch /tmp/s1 > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
