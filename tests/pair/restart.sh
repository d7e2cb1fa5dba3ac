#!/usr/bin/env bash
# restart.sh VESICA OUTDIR: every pair style with the DPD thermostat (pair-mix.cfg, CPU):
#   - 100 steps, then a restart to 300, ends with the same particles (bit for bit) as 300
#     steps straight (skin 0.3, checkpoints every 100 steps in both);
#   - a restart with one lj coefficient or one table value changed is refused (exit 2, the
#     pair styles named), since their hash is a physics key of the checkpoint.
set -u
BIN=$1; OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${VESICA_ANALYSIS_PYTHON:-/usr/bin/python3}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" "$HERE/../../scaling/tools/lattice_h5md.py" lattice.h5 --cells 6 --density 0.8442 \
    --species 2 --jitter 0.05 --seed 2 >/dev/null || { echo "skip: no numpy/h5py"; exit 77; }
"$PY" -c "import sys; sys.path.insert(0, '$HERE'); import pair_cases; pair_cases.write_table('pair.table')" ||
    fail "cannot write the table"
CFG=$HERE/pair-mix.cfg
# both runs write a checkpoint at step 100 (the canonical state a restart starts from: with a
# skin the particles are wrapped and sorted there, vs_sim_canonicalize)
CKPT="--set output.checkpoint_interval=100 --set output.checkpoint_keep=3"
"$BIN" run "$CFG" $CKPT --set output.dir=straight >straight.log 2>&1 || fail "the straight run"
"$BIN" run "$CFG" $CKPT --set output.dir=split --set integrator.steps=100 >split1.log 2>&1 ||
    fail "the first leg"
"$BIN" run "$CFG" $CKPT --set output.dir=split --restart latest >split2.log 2>&1 ||
    { cat split2.log >&2; fail "the restart"; }
h5diff straight/checkpoints/ckpt_300.h5 split/checkpoints/ckpt_300.h5 /particles /particles ||
    fail "the restarted run ends elsewhere"
echo "ok: 100 + 200 steps bit-identical to 300"
"$BIN" run "$CFG" $CKPT --set output.dir=split --set pair.[0].coeff.A.A.epsilon=1.1 \
    --set integrator.steps=400 --restart split/checkpoints/ckpt_300.h5 >changed.log 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "pair (the pair styles' coefficients, cut-offs or tables) differs" changed.log ||
    { cat changed.log >&2; fail "a changed lj epsilon: exit $rc"; }
echo "ok: a changed coefficient is refused: $(grep error changed.log)"
sed -i '0,/^100 /s/^100 \([^ ]*\) \([^ ]*\)/100 \1 1\2/' pair.table # AA's row 100: U gains a digit
"$BIN" run "$CFG" $CKPT --set output.dir=split --set integrator.steps=400 --restart split/checkpoints/ckpt_300.h5 >table.log 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "pair (the pair styles" table.log ||
    { cat table.log >&2; fail "a changed table: exit $rc"; }
echo "ok: a changed table is refused"
