#!/bin/bash
# Session 29 call 2 (one H200): the GPU tests call 1 did not reach (call2-tests.txt: all of the
# suite's GPU tests but the ten-thousand-step stress corners and those call 1 ran), with the
# working tree's build (the z_first switch read once at state creation).
set -u
C=$PWD/.carry-s29
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/tm /tmp/wheel
for b in vesica test_gpu_backend test_gpu_flow test_gpu_molecules; do
  xz -dc $C/bin/$b.xz > /tmp/tm/$b; chmod +x /tmp/tm/$b
done
(cd /tmp/wheel && python3 -m zipfile -e $C/common/h5py-*.whl .)
export PYTHONPATH=/tmp/wheel
R="^($(sed 's/\./\\./g' scaling/results/h200-s29/scripts/call2-tests.txt | paste -sd'|'))\$"
timeout 530 python3 -u scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tm "$R" \
  --jobs 10 --timeout 300 --scratch /tmp/s2 --logs $OUT/logs > $OUT/tests2.txt 2>&1
echo "rc=$?" >> $OUT/tests2.txt
grep -v "^ok" $OUT/tests2.txt | tail -n 60
