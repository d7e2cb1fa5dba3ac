#!/bin/bash
# Session 22, device call 2: marks on one step in ten (output.timing_every) and the image pass
# clearing the cell counts (wip/s22-sampled) against main (b9d6135, "mw").
set -u
C=$PWD/.carry-s22
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
mkdir -p /tmp/pyx && (cd /tmp/pyx && python3 -m zipfile -e $C/common/h5py-*.whl . ) ; export PYTHONPATH=/tmp/pyx
R=/tmp/r; mkdir -p $R
side() { python3 -c "print(f'{($1 / 3.0) ** (1 / 3):.6f}')"; }
# 1. the same bits: 1M and 64k, 300 steps, main and the branch (and the branch marking every step)
for n in 1000000 64000; do
  L=$(side $n)
  for v in mw new new:1; do
    bin=vesica-${v%%:*}; ev=(); [ "$v" = new:1 ] && ev=(--set output.timing_every=1)
    CUDA_VISIBLE_DEVICES=0 $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=$n \
      --set integrator.steps=300 --set output.thermo_interval=20 "${ev[@]}" \
      --set output.dir=$R/sb-$n-${v/:/-} > $R/sb-$n-${v/:/-}.log 2>&1 || echo "run $n $v failed" >> $OUT/samebits.txt
  done
  cmp $R/sb-$n-mw/thermo.csv $R/sb-$n-new/thermo.csv && cmp $R/sb-$n-mw/thermo.csv $R/sb-$n-new-1/thermo.csv && \
    echo "$n 300 steps: the same thermo.csv (main, branch, branch timing every step)" >> $OUT/samebits.txt
  grep -h "GPU graphs" $R/sb-$n-*.log >> $OUT/samebits.txt
  tail -12 $R/sb-$n-new.log >> $OUT/samebits.txt
done
# 2. 64k, 1M and 16M alternated twice; the branch also marking every step
sed 's/thermo_interval = 500;/thermo_interval = 500; timing_every = 1;/' scaling/bench/gpu-fluid.cfg > /tmp/every1.cfg
for rep in 1 2; do for v in mw new new:1; do
  bin=vesica-${v%%:*}; cfg=scaling/bench/gpu-fluid.cfg; [ "$v" = new:1 ] && cfg=/tmp/every1.cfg
  echo "== $v rep $rep" >> $OUT/bench1.txt
  VESICA_BENCH_CONFIG=$cfg CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/$bin "64000" mixed 0 4000 auto >> $OUT/bench1.txt 2>&1
  VESICA_BENCH_CONFIG=$cfg CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/$bin "16000000 1000000" mixed 0 500 auto >> $OUT/bench1.txt 2>&1
done; done
# 3. two GPUs
for rep in 1 2; do for v in mw new; do
  echo "== $v rep $rep" >> $OUT/bench2.txt
  bash scaling/bench/gpu_multi_bench.sh $B/vesica-$v "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done; done
# 4. GPU tests of the branch
mkdir -p /tmp/tb && cp $B/vesica-new /tmp/tb/vesica && cp $B/test_gpu_backend-new /tmp/tb/test_gpu_backend && cp $B/test_gpu_multi-new /tmp/tb/test_gpu_multi
python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'test_gpu_backend|gpu_ranks_bitwise_(fluid|chains)_skin0$|gpu_ranks_bitwise_fluid_skin0.3$|gpu_io_restart_exact_np[12]|gpu_multi_np2_skin0$|gpu_thermo_ranks_exact_mixed_np2|gpu_slab_bound_np2|gpu_molecules_restart_exact_mixed_np1|gpu_special_restart_exact_mixed_np1|gpu_molecules_mixed_np1|reactions_gpu_device_mixed|gpu_walls_ranks_skin0_np2' \
  --jobs 8 --timeout 300 --scratch /tmp/s1 > $OUT/suite.txt 2>&1
echo "rc=$?" >> $OUT/suite.txt
