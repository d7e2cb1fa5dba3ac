#!/bin/bash
# Session 29 call 3 (one H200): the 16M plain fluid again, main before (910d360) and after the
# z_first change, alternated three times each (call 1 had them 0.4 % apart, in the one-rank
# path's comm phase); then call 2's 17 tests that skipped for want of numpy (ctest_carry now
# gives VESICA_PYTHON the Python that has it).
set -u
C=$PWD/.carry-s29
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/t3 /tmp/wheel
xz -dc $C/bin/vesica.xz > /tmp/t3/vesica; chmod +x /tmp/t3/vesica
xz -dc $C/bin/vesica-head.xz > /tmp/vhead3; chmod +x /tmp/vhead3
[ -e /tmp/wheel/h5py ] || (cd /tmp/wheel && python3 -m zipfile -e $C/common/h5py-*.whl .)
export PYTHONPATH=/tmp/wheel
for v in new head new head head new; do
  b=/tmp/vhead3; [ $v = new ] && b=/tmp/t3/vesica
  echo "== $v" >> $OUT/fluid16m.txt
  timeout 80 bash scaling/bench/gpu_bench.sh $b 16000000 mixed 0 100 auto 2>&1 | grep -v "^ *particles\|device" >> $OUT/fluid16m.txt
done
cat $OUT/fluid16m.txt
timeout 200 python3 -u scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/t3 \
  '^(gpu_ensembles_|gpu_walls_frozen$)' --jobs 10 --timeout 190 --scratch /tmp/s3 --logs $OUT/logs > $OUT/tests3.txt 2>&1
echo "rc=$?" >> $OUT/tests3.txt
cat $OUT/tests3.txt | tail -n 30
