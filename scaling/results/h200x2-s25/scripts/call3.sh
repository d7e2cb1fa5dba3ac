#!/bin/bash
# Session 25, device call 3: main after the merge of wip/s24-pack-blocks (bin/vesica-blocks, the
# same GPU code). The vesicle system against the plain rho 5 fluid at 16M (vesicle_bench.sh,
# relaxed, reach 1.5), then CUPTI timelines of both relaxed systems (100 steps after 1000);
# 250k per GPU weak / 500k strong on two GPUs.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B
xz -dc $C/bin/vesica-blocks.xz > $B/vesica; chmod +x $B/vesica
export CUDA_VISIBLE_DEVICES=0
timeout 150 bash scaling/bench/vesicle_bench.sh $B/vesica 16000000 500 mixed 1.5 > $OUT/vesicle-bench.txt 2>&1
CUDA=/usr/local/cuda
gcc -O2 -shared -fPIC -I$CUDA/include scaling/tools/cupti_trace.c -o /tmp/libcupti_trace.so -L$CUDA/lib64 -L$CUDA/lib -lcupti || exit 1
side=$(python3 -c "print(f'{(16000000 / 5.0) ** (1 / 3):.6f}')")
for sys in vesicle plain; do
  cfg=configs/vesicle.cfg; [ $sys = plain ] && cfg=scaling/bench/plain-rho5.cfg
  common=(--set "box=[$side, $side, $side]" --set backend=gpu --set precision=mixed --set "output.dir=/tmp/v-$sys"
          --set output.checkpoint_interval=0 --set output.trajectory_interval=0)
  relaxed=(); [ $sys = vesicle ] && relaxed=(--set bonded.reach=1.5)
  timeout 60 $B/vesica run $cfg "${common[@]}" --set output.checkpoint_keep=1 --set integrator.steps=1000 > /dev/null 2>&1
  LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-} CUDA_INJECTION64_PATH=/tmp/libcupti_trace.so CUPTI_TRACE_OUT=/tmp/tr-$sys \
    timeout 60 $B/vesica run $cfg "${common[@]}" "${relaxed[@]}" --set output.checkpoint_keep=0 --set integrator.steps=1100 \
    --set output.thermo_interval=100 --restart latest > $OUT/trace-$sys.log 2>&1
  python3 scaling/tools/cupti_timeline.py first_half /tmp/tr-$sys.*.csv > $OUT/timeline16-$sys.txt 2>&1
done
unset CUDA_VISIBLE_DEVICES
timeout 60 bash scaling/bench/gpu_multi_bench.sh $B/vesica "1 2" 250000 500000 800 peer > $OUT/bench-250k.txt 2>&1
