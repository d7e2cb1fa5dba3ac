#!/usr/bin/env bash
# ranks_exact.sh P VESICA OUTDIR: every pair style at once with the DPD thermostat
# (pair-mix.cfg, CPU backend) runs the same on 1 and on P ranks, to the bit: thermo.csv
# every 10 steps and the final checkpoint's particles after 300 steps. The pair styles sum
# forces, energies and virials in fixed point as the DPD term does (src/core/fixed_sum.h),
# so no sum depends on the order or the layout of the particles.
set -u
P=$1; BIN=$2; OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${VESICA_ANALYSIS_PYTHON:-/usr/bin/python3}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" "$HERE/../../scaling/tools/lattice_h5md.py" lattice.h5 --cells 6 --density 0.8442 \
    --species 2 --jitter 0.05 --seed 2 >/dev/null || { echo "skip: no numpy/h5py"; exit 77; }
"$PY" -c "import sys; sys.path.insert(0, '$HERE'); import pair_cases; pair_cases.write_table('pair.table')" ||
    fail "cannot write the table"
for n in 1 "$P"; do
    mpiexec --oversubscribe -n "$n" "$BIN" run "$HERE/pair-mix.cfg" --set output.dir=np$n \
        >np$n.log 2>&1 || { cat np$n.log >&2; fail "$n ranks: exit $?"; }
done
grep -q "^Ranks: $P as" np$P.log || fail "the second run is not on $P ranks"
grep -q "dpd + lj + soft + gaussian + table" np1.log || fail "not every pair style is active"
cmp np1/thermo.csv np$P/thermo.csv || {
    diff np1/thermo.csv np$P/thermo.csv | head -4 >&2
    fail "thermo.csv differs between 1 and $P ranks"
}
h5diff np1/checkpoints/ckpt_300.h5 np$P/checkpoints/ckpt_300.h5 /particles /particles ||
    fail "the final particles differ between 1 and $P ranks"
echo "ok: 300 steps of every pair style bit-identical on 1 and $P ranks"
