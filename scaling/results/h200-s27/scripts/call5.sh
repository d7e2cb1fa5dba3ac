#!/bin/bash
# Session 27 call 5: the 16M step's roofline on the H200 (issue 53 item 1 asks for the table
# redone; the last one is the H100's at 924f336). Main 7768f06's GPU code (bin/vesica-main.xz),
# vesica_copy_bandwidth; carry .carry-s27d. Nsight Compute over 6 steps, 4 kept.
set -u
C=$PWD/.carry-s27d
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export PATH=/usr/local/cuda/bin:$PATH
xz -dc $C/bin/vesica-main.xz > /tmp/vesica; chmod +x /tmp/vesica
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $OUT/gpu.txt 2>&1
timeout 470 bash scaling/bench/gpu_roofline.sh /tmp/vesica $C/bin/vesica_copy_bandwidth 16000000 4 > $OUT/roofline-16M.txt 2> $OUT/roofline-16M.err
echo "rc=$?" >> $OUT/roofline-16M.txt
