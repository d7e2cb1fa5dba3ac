#!/bin/bash
# Session 28 call 4 (one H200): call 3's modes changed the dynamics (wrong forces), so their
# step rates mix the atomics' cost with a different fluid. Here the Newton kernel's first three
# launches of a 16M run (the first on identical inputs in every mode) under Nsight Compute.
set -u
C=$PWD/.carry-s27e; D=$PWD/.carry-s28
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export PATH=/usr/local/cuda/bin:$PATH
L=$(python3 -c "print(f'{(16000000 / 3.0) ** (1 / 3):.6f}')")
for m in 0 1 2 3; do
  xz -dc $D/bin/vesica-a$m.xz > /tmp/va$m; chmod +x /tmp/va$m
  timeout 120 ncu --kernel-name regex:vs_newton_kernel --launch-count 3 --csv \
    --metrics gpu__time_duration.sum,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,smsp__inst_executed_op_shared_atom.sum \
    /tmp/va$m run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" --set particles=16000000 --set precision=mixed \
    --set neighbor.skin=0 --set integrator.steps=3 --set output.thermo_interval=3 --set output.dir=/tmp/n$m > $OUT/ncu-a$m.csv 2> $OUT/ncu-a$m.err
  echo "== mode $m"; grep -E "duration|throughput|inst_executed" $OUT/ncu-a$m.csv | awk -F'","' '{print $1 " " $(NF-2) " " $NF}' | cut -c1-200
done
