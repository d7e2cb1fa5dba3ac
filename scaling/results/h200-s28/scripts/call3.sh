#!/bin/bash
# Session 28 call 3 (one H200): what the Newton kernel's shared atomics cost at 16M and 3M
# (exp/s28-atomics-cost: VS_EXP_ATOMICS 0 = main, 1 = no high-word atomic, 2 = no finder
# adds, 3 = no shared force adds at all; 1-3 give wrong forces, timing only), alternated; then
# wip/s27-z-first (z_first 0, the default) against VS_EXP_ATOMICS 0 (main, whose one-rank
# path is 7768f06's) at 16M, alternated.
# Carry .carry-s28 (bin/vesica-a{0..3}.xz) and .carry-s27e (common/, bin/vesica-zfirst.xz).
set -u
C=$PWD/.carry-s27e; D=$PWD/.carry-s28
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
for m in 0 1 2 3; do xz -dc $D/bin/vesica-a$m.xz > /tmp/va$m; chmod +x /tmp/va$m; done
ln -sf /tmp/va0 /tmp/vmain; xz -dc $C/bin/vesica-zfirst.xz > /tmp/vzf; chmod +x /tmp/vzf
for m in 0 1 2 3 3 2 1 0; do
  echo "== VS_EXP_ATOMICS $m" >> $OUT/atomics.txt
  timeout 100 bash scaling/bench/gpu_bench.sh /tmp/va$m "16000000 3000000" mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/atomics.txt
done
for v in main zf zf main; do
  echo "== $v" >> $OUT/zfirst16M.txt
  timeout 60 bash scaling/bench/gpu_bench.sh /tmp/v$v 16000000 mixed 0 100 auto 2>&1 | grep -v "particles\|device" >> $OUT/zfirst16M.txt
done
cat $OUT/atomics.txt $OUT/zfirst16M.txt
