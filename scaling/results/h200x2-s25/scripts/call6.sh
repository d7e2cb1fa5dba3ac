#!/bin/bash
# Session 25, device call 6: the Kremer-Grest melt at 16M (a 2M preparation tiled 2 x 2 x 2,
# mixed, skin 0.4, the auto builder), main (bin/vesica-blocks) and one rank's kept tag map
# (bin/vesica-bmap) alternated from the same prepared melt.
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
B=/tmp/bin; mkdir -p $B
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
export CUDA_VISIBLE_DEVICES=0
args=(--system kg --sizes 16000000 --tile 2 --precisions mixed --skins 0.4 --builders auto --steps 300 --work /tmp/md)
timeout 200 python3 scaling/bench/md_bench.py --vesica $B/vesica-bmap "${args[@]}" --prep-only > $OUT/prep.txt 2>&1
for v in blocks bmap blocks bmap; do
  echo "== $v" >> $OUT/kg16m.txt
  timeout 90 python3 scaling/bench/md_bench.py --vesica $B/vesica-$v "${args[@]}" >> $OUT/kg16m.txt 2>&1
done
