#!/bin/bash
# Session 25, device call 4: CUPTI timelines of the relaxed vesicle system and the plain rho 5
# fluid at 16M on one GPU (300 steps after 1000), every activity's time per step averaged over
# all steps (build steps included) and the three commonest step sequences.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
B=/tmp/bin; mkdir -p $B
xz -dc $C/bin/vesica-blocks.xz > $B/vesica; chmod +x $B/vesica
export CUDA_VISIBLE_DEVICES=0
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
    timeout 60 $B/vesica run $cfg "${common[@]}" "${relaxed[@]}" --set output.checkpoint_keep=0 --set integrator.steps=1300 \
    --set output.thermo_interval=300 --restart latest > $OUT/trace-$sys.log 2>&1
  echo "rc=$?" >> $OUT/trace-$sys.log
  python3 scaling/tools/cupti_timeline.py --sequences 3 --totals first_half /tmp/tr-$sys.*.csv > $OUT/timeline16-$sys.txt 2>&1
done
