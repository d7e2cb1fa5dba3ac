#!/bin/bash
# Session 27 call 4: exp/s27-x-reach (VESICA_EXP_X_REACH=k: cells 1/k of r_c wide along x for
# every walk but the warp builder's; main's k = 2). One binary, bin/vesica-xr.xz (330b234 +
# the knob), carry .carry-s27c. stencil_candidates.c: the Newton half stencil's candidates a
# particle 31.0 (k 1), 24.9 (2), 22.8 (3), about 22 (4), the rows as many.
# 1. the same thermo.csv for k = 2 and 3 (DPD 1M, skin 0, 400 steps: order-free sums)
# 2. 16M and 3M plain fluid, skin 0, k = 2, 3, 4, 1 alternated, twice
set -u
C=$PWD/.carry-s27c
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
xz -dc $C/bin/vesica-xr.xz > /tmp/vesica-xr; chmod +x /tmp/vesica-xr
L=69.336127
for k in 2 3; do
  VESICA_EXP_X_REACH=$k timeout 60 /tmp/vesica-xr run scaling/bench/gpu-fluid.cfg --set "box=[$L, $L, $L]" \
    --set particles=1000000 --set integrator.steps=400 --set output.thermo_interval=20 \
    --set output.dir=/tmp/dpd-$k > $OUT/dpd-$k.log 2>&1
  grep "Plan" $OUT/dpd-$k.log >> $OUT/plans.txt
done
cmp /tmp/dpd-2/thermo.csv /tmp/dpd-3/thermo.csv >> $OUT/bits.txt 2>&1 && echo "x reach 2 and 3: same thermo.csv" >> $OUT/bits.txt
for rep in 1 2; do for k in 2 3 4 1; do
  echo "== x reach $k rep $rep" >> $OUT/bench.txt
  VESICA_EXP_X_REACH=$k timeout 100 bash scaling/bench/gpu_bench.sh /tmp/vesica-xr "16000000 3000000" mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/bench.txt
done; done
