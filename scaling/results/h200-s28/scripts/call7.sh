#!/bin/bash
# Session 28 call 7 (one H200): exp/s28-queue-entry, the Newton walk's queue holding the
# cell-list entry so that the round reads the partner's position from the cell-order copy
# (one species: timing and bits of the plain fluid only), against main (55bec2e): the same
# thermo.csv at 1M (skin 0, 200 steps), then 16M alternated.
set -u
C=$PWD/.carry-s27e; D=$PWD/.carry-s28
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
for v in m q; do xz -dc $D/bin/vesica-$v.xz > /tmp/v$v; chmod +x /tmp/v$v; done
L1=69.336127
for v in m q; do
  timeout 60 /tmp/v$v run scaling/bench/gpu-fluid.cfg --set "box=[$L1, $L1, $L1]" --set particles=1000000 \
    --set integrator.steps=200 --set output.thermo_interval=20 --set output.dir=/tmp/f-$v > $OUT/f-$v.log 2>&1
done
cmp /tmp/f-m/thermo.csv /tmp/f-q/thermo.csv > $OUT/bits.txt 2>&1 && echo "1M skin 0: same thermo.csv" >> $OUT/bits.txt
for v in m q q m; do
  echo "== $v" >> $OUT/entry16M.txt
  timeout 60 bash scaling/bench/gpu_bench.sh /tmp/v$v 16000000 mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/entry16M.txt
done
cat $OUT/bits.txt $OUT/entry16M.txt
