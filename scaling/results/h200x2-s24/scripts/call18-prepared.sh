#!/bin/bash
# PREPARED, NOT RUN (session 24 had no device time left): wip/s24-pack-blocks
# (branches/wip-s24-pack-blocks.patch, `git am` on 2f35e42 or later main) as bin/vesica-blocks.xz
# against main as bin/vesica-main.xz, both built with -DCMAKE_CUDA_ARCHITECTURES=90, stripped
# and xz'd into .carry-s25/bin, common/ as in session 24 (.devbundle, h5py wheel, tests.json).
# About 4 minutes on nvidia-h200-x2.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
R=/tmp/r; mkdir -p $R
L=69.336127; BX=138.672254; S=174.716093; SX=349.432186
sb() { # tag bin ranks box n [env...]
  local tag=$1 bin=$2 np=$3 box=$4 n=$5; shift 5
  env "$@" timeout 60 mpiexec -n $np $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=$box" --set particles=$n \
    --set "decomposition=[$np, 1, 1]" --set comm.transport=peer --set integrator.steps=120 --set output.thermo_interval=20 \
    --set output.dir=$R/sb-$tag > $R/sb-$tag.log 2>&1 || echo "run $tag failed rc=$?" >> $OUT/samebits.txt
}
sb m2 vesica-main 2 "[$BX, $L, $L]" 2000000
sb b2 vesica-blocks 2 "[$BX, $L, $L]" 2000000 VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=-1
sb m16 vesica-main 2 "[$SX, $S, $S]" 32000000
sb b16 vesica-blocks 2 "[$SX, $S, $S]" 32000000
for p in "m2 b2" "m16 b16"; do set -- $p
  cmp -s $R/sb-$1/thermo.csv $R/sb-$2/thermo.csv && echo "same thermo.csv: $1 $2" >> $OUT/samebits.txt || echo "DIFFERENT thermo.csv: $1 $2" >> $OUT/samebits.txt
done
mkdir -p /tmp/tb && cp $B/vesica-blocks /tmp/tb/vesica
timeout 150 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'gpu_ranks_bitwise_fluid_skin0$|gpu_thermo_ranks_exact_mixed_np2|gpu_slab_bound|gpu_halo_bytes_np2|gpu_io_restart_exact_np2|gpu_stress_corners_np2_2_1_1_peer_skin0' \
  --jobs 6 --timeout 140 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
for v in main blocks; do
  echo "== $v" >> $OUT/bench.txt
  timeout 60 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 16000000 16000000 100 peer >> $OUT/bench.txt 2>&1
  timeout 40 bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench.txt 2>&1
done
