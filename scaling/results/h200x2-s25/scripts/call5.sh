#!/bin/bash
# Session 25, device call 5: one rank keeps its bonded tag map across ghost builds on every
# ghost path (bin/vesica-bmap) against main (bin/vesica-blocks). GPU 1: the molecule, special,
# dihedral, wide-bond, reaction, field and restart tests of the new build. GPU 0 at the same
# time: the relaxed vesicle system at 16M (1000 steps, then 500 measured from that checkpoint),
# main and the new build alternated, and the plain rho 5 fluid (vesicle_bench.sh's settings).
set -u
C=$PWD/.carry-s25
source $C/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=/tmp/bin; mkdir -p $B /tmp/tb
for f in $C/bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $B/$n; chmod +x $B/$n; done
for f in $C/tbin/*.xz; do n=$(basename $f .xz); xz -dc $f > /tmp/tb/$n; chmod +x /tmp/tb/$n; done
cp $B/vesica-bmap /tmp/tb/vesica
( export CUDA_VISIBLE_DEVICES=1
  timeout 400 python3 scaling/tools/ctest_carry.py run $C/common/tests.json /tmp/tb \
  '^gpu_(molecules|special|dihedrals|wide_bonds)_(mixed|double)_np1$|^gpu_(molecules|special|dihedrals)_restart_exact_(mixed|double)_np1$|^gpu_molecules_(repro|error|xu_dihedral|kg_melt|pe_lammps|pe_boltzmann)_(mixed|double)$|^reactions_gpu_(cpu|device|restart|rules|special)_(mixed|double)$|^field_gpu_(fused|agree)_(mixed|double)$|^gpu_pair_lammps_special_mixed$' \
  --jobs 6 --timeout 300 --scratch /tmp/s1 --logs $OUT/logs > $OUT/suite.txt 2>&1; echo "rc=$?" >> $OUT/suite.txt ) &
export CUDA_VISIBLE_DEVICES=0
side=$(python3 -c "print(f'{(16000000 / 5.0) ** (1 / 3):.6f}')")
rate() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); p=d['phases_s']; print(f\"{d['particle_steps_per_s']:.4e} pair {p['pair']:.4f} neigh {p['neighbor']:.4f} comm {p['comm']:.4f} builds {d['neighbor_builds']}\")" $1; }
for sys in vesicle plain; do
  cfg=configs/vesicle.cfg; [ $sys = plain ] && cfg=scaling/bench/plain-rho5.cfg
  common=(--set "box=[$side, $side, $side]" --set backend=gpu --set precision=mixed --set "output.dir=/tmp/v-$sys"
          --set output.checkpoint_interval=0 --set output.trajectory_interval=0)
  timeout 60 $B/vesica-blocks run $cfg "${common[@]}" --set output.checkpoint_keep=1 --set integrator.steps=1000 > /dev/null 2>&1
  relaxed=(); [ $sys = vesicle ] && relaxed=(--set bonded.reach=1.5)
  bins="blocks bmap blocks bmap"; [ $sys = plain ] && bins="bmap"
  for v in $bins; do
    timeout 60 $B/vesica-$v run $cfg "${common[@]}" "${relaxed[@]}" --set output.checkpoint_keep=0 --set integrator.steps=1500 \
      --set output.thermo_interval=500 --set output.dir=/tmp/m-$sys-$v --restart /tmp/v-$sys/checkpoints/ckpt_1000.h5 > /tmp/m-$sys-$v.log 2>&1
    echo "$sys $v $(rate /tmp/m-$sys-$v/perf.json)" >> $OUT/vesicle.txt
    cp /tmp/m-$sys-$v/thermo.csv $OUT/thermo-$sys-$v.csv 2>/dev/null
  done
done
cmp $OUT/thermo-vesicle-blocks.csv $OUT/thermo-vesicle-bmap.csv && echo "vesicle 500 steps: the same thermo.csv" >> $OUT/vesicle.txt
wait
