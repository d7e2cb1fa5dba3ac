#!/bin/bash
# Session 22, device call 1: wip/s21-marks-wait's checks, the graph-update / marks experiment
# (exp/s21-graph-frozen), what the marks cost across ranks, the vesicle ratio, the sip balls.
set -u
C=$PWD/.carry-s22
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
mkdir -p /tmp/pyx && (cd /tmp/pyx && python3 -m zipfile -e $C/common/h5py-*.whl . ) ; export PYTHONPATH=/tmp/pyx
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
R=/tmp/r; mkdir -p $R
side() { python3 -c "print(f'{($1 / 3.0) ** (1 / 3):.6f}')"; }
# 1. the same bits: main and marks-wait, 1M 300 steps
L=$(side 1000000)
for bin in vesica-main vesica-mw; do
  CUDA_VISIBLE_DEVICES=0 $B/$bin run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=1000000 \
    --set integrator.steps=300 --set output.thermo_interval=20 --set output.dir=$R/sb-$bin > $R/sb-$bin.log 2>&1
done
cmp $R/sb-vesica-main/thermo.csv $R/sb-vesica-mw/thermo.csv && echo "1M 300 steps: the same thermo.csv" > $OUT/samebits.txt
# 2. 64k: main, marks-wait, the experiment plain / nomarks / frozen, alternated twice
for rep in 1 2; do for v in main mw fz fz:nomarks fz:frozen; do
  bin=vesica-${v%%:*}; exp=${v#*:}; [ "$exp" = "$v" ] && exp=
  echo "== $v rep $rep" >> $OUT/bench64k.txt
  VESICA_GPU_EXPERIMENT=$exp CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/$bin "64000" mixed 0 4000 auto >> $OUT/bench64k.txt 2>&1
done; done
# 3. 1M and 16M: main, marks-wait, nomarks
for rep in 1 2; do for v in main mw fz:nomarks; do
  bin=vesica-${v%%:*}; exp=${v#*:}; [ "$exp" = "$v" ] && exp=
  echo "== $v rep $rep" >> $OUT/bench1m16m.txt
  VESICA_GPU_EXPERIMENT=$exp CUDA_VISIBLE_DEVICES=0 bash scaling/bench/gpu_bench.sh $B/$bin "16000000 1000000" mixed 0 500 auto >> $OUT/bench1m16m.txt 2>&1
done; done
# 4. two GPUs: what the event marks cost across ranks
for rep in 1 2; do for v in main fz:nomarks; do
  bin=vesica-${v%%:*}; exp=${v#*:}; [ "$exp" = "$v" ] && exp=
  echo "== $v rep $rep" >> $OUT/bench2.txt
  VESICA_GPU_EXPERIMENT=$exp bash scaling/bench/gpu_multi_bench.sh $B/$bin "1 2" 1000000 2000000 400 peer >> $OUT/bench2.txt 2>&1
done; done
# 5. marks-wait's tests
mkdir -p /tmp/tb && cp $B/vesica-mw /tmp/tb/vesica; cp $B/test_gpu_backend-mw /tmp/tb/test_gpu_backend
python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  'test_gpu_backend|gpu_ranks_bitwise_fluid_skin0$|gpu_io_restart_exact_np1' \
  --jobs 8 --timeout 300 --scratch /tmp/s1 > $OUT/suite-mw.txt 2>&1
echo "rc=$?" >> $OUT/suite-mw.txt
# 6. the vesicle ratio (main), the sip balls now on the graph path (main)
CUDA_VISIBLE_DEVICES=0 bash scaling/bench/vesicle_bench.sh $B/vesica-main 16000000 500 mixed 1.5 > $OUT/vesicle.txt 2>&1
CUDA_VISIBLE_DEVICES=0 bash scaling/bench/sip_bench.sh $B/vesica-main "15 25 45" 1000 --set neighbor.skin=0 > $OUT/sip.txt 2>&1
echo done >> $OUT/sip.txt
