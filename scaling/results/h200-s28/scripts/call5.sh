#!/bin/bash
# Session 28 call 5 (one H200): the brick-staged warp-per-cell Newton pair stage
# (scaling/bench/dpd_cellwarp.cu, branch exp/s28-cellwarp) at 64k, 3M and 16M, then main's
# 16M fluid for its pair phase on the same machine.
set -u
C=$PWD/.carry-s27e; D=$PWD/.carry-s28
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
xz -dc $D/bin/vesica_dpd_cellwarp.xz > /tmp/cw; chmod +x /tmp/cw
xz -dc $D/bin/vesica-a0.xz > /tmp/va0; chmod +x /tmp/va0
for n in 64000 3000000 16000000; do timeout 150 /tmp/cw $n 20 >> $OUT/cellwarp.txt 2>&1; done
timeout 60 bash scaling/bench/gpu_bench.sh /tmp/va0 16000000 mixed 0 100 auto >> $OUT/main16M.txt 2>&1
cat $OUT/cellwarp.txt $OUT/main16M.txt
