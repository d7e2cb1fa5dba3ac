#!/usr/bin/env bash
# ranks_exact.sh P SKIN VESICA OUTDIR [CONFIG]: a plain DPD fluid (tests/io/tiny.cfg, CPU
# backend; or CONFIG, e.g. one with molecules) runs the same on 1 and on P ranks, to the bit:
# thermo.csv every 10 steps and the final checkpoint's particles after 400 steps. It holds
# because every sum is exact (forces in fixed point, energies, virial and the thermo
# reductions as 128-bit integers, src/core/fixed_sum.h, and the initial velocities' scaling
# too), and because a pair's separation is computed from
# the same two doubles on any layout: a ghost is its owner's position plus the same
# periodic shift whichever rank holds it, and a pair split between two ranks is the exact
# negative seen from each side. (With double sums the rows differed from step 0 on.) Bonds,
# angles and dihedrals take each partner's copy nearest to the bead before it and use raw
# differences (src/cpu/bonded_cpu.c); with a minimum-image wrap of whichever copy a rank held,
# molecule runs differed between 1 and 2 ranks from the first thermo row after step 0.
set -u
P=$1; SKIN=$2; BIN=$3; OUT=$4
CFG=${5:-$(cd "$(dirname "$0")/../io" && pwd)/tiny.cfg}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
for n in 1 "$P"; do
    mpiexec --oversubscribe -n "$n" "$BIN" run "$CFG" --set backend=cpu --set output.dir=np$n \
        --set neighbor.skin="$SKIN" --set integrator.steps=400 --set output.thermo_interval=10 \
        --set output.trajectory_interval=0 --set output.checkpoint_interval=0 >np$n.log 2>&1 ||
        { rc=$?; cat np$n.log >&2; fail "$n ranks: exit $rc"; }
done
grep -q "^Ranks: $P as" np$P.log || fail "the second run is not on $P ranks"
cmp np1/thermo.csv np$P/thermo.csv || {
    diff np1/thermo.csv np$P/thermo.csv | head -4 >&2
    fail "thermo.csv differs between 1 and $P ranks"
}
h5diff np1/checkpoints/ckpt_400.h5 np$P/checkpoints/ckpt_400.h5 /particles /particles ||
    fail "the final particles differ between 1 and $P ranks"
echo "ok: 400 steps at skin $SKIN bit-identical on 1 and $P ranks"
