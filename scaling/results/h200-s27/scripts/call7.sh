#!/bin/bash
# Session 27 call 7: the LJ liquid's skin (issue 53 item 3 measures it at skin 0.3, LAMMPS's
# benchmark setting): skins 0.2, 0.25, 0.3, 0.4 at 1M and 4M, twice in opposite orders, with
# main's GPU code (7768f06; bin/vesica-main.xz of .carry-s27e).
set -u
C=$PWD/.carry-s27e
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
xz -dc $C/bin/vesica-main.xz > /tmp/vesica; chmod +x /tmp/vesica
timeout 100 python3 scaling/bench/md_bench.py --vesica /tmp/vesica --system lj --sizes 1000000 4000000 --precisions mixed \
  --skins 0.3 --builders thread --steps 20 --prep-only --work /tmp/md > $OUT/prep.txt 2>&1
for order in "0.2 0.25 0.3 0.4" "0.4 0.3 0.25 0.2"; do
  echo "== skins $order" >> $OUT/skins.txt
  timeout 90 python3 scaling/bench/md_bench.py --vesica /tmp/vesica --system lj --sizes 1000000 4000000 --precisions mixed \
    --skins $order --builders thread --steps 500 --work /tmp/md 2>&1 | grep "^lj\|^system" | cut -c1-130 >> $OUT/skins.txt
done
