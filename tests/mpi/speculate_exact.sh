#!/usr/bin/env bash
# speculate_exact.sh BACKEND PRECISION P VESICA OUTDIR [CONFIG]: with a Verlet skin, a step may queue its
# ghost update and forces before its displacement check comes back, and recompute them from
# rebuilt lists when the check asks for a rebuild after all (vs_sim_step). The guess must not
# change the run: VESICA_SPECULATE=always (a guess on every step, so many are wrong) and =0
# (never) give the same thermo.csv and final particles, to the bit, on P ranks; and the
# always-run did recompute (perf.json's speculated_rebuilds > 0), so the recompute path ran.
set -u
BACKEND=$1; PREC=$2; P=$3; BIN=$4; OUT=$5
CFG=${6:-$(cd "$(dirname "$0")/../io" && pwd)/tiny.cfg}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
for mode in 0 always; do
    VESICA_SPECULATE=$mode mpiexec --oversubscribe -n "$P" "$BIN" run "$CFG" \
        --set backend="$BACKEND" --set precision="$PREC" --set output.dir=$mode --set neighbor.skin=0.3 \
        --set integrator.steps=300 --set output.thermo_interval=10 \
        --set output.trajectory_interval=0 --set output.checkpoint_interval=0 >$mode.log 2>&1 ||
        { rc=$?; cat $mode.log >&2; fail "VESICA_SPECULATE=$mode: exit $rc"; }
done
read -r spec0 <<<"$(/usr/bin/python3 -c "import json; print(json.load(open('0/perf.json'))['speculated_steps'])")"
read -r steps rebuilt <<<"$(/usr/bin/python3 -c "import json; d = json.load(open('always/perf.json')); print(d['speculated_steps'], d['speculated_rebuilds'])")"
[ "$spec0" = 0 ] || fail "VESICA_SPECULATE=0 speculated on $spec0 steps"
[ "$steps" = 300 ] || fail "VESICA_SPECULATE=always speculated on $steps of 300 steps"
[ "$rebuilt" -gt 0 ] || fail "no speculated step was rebuilt: the recompute path did not run"
cmp 0/thermo.csv always/thermo.csv || {
    diff 0/thermo.csv always/thermo.csv | head -4 >&2
    fail "thermo.csv differs between VESICA_SPECULATE=0 and always"
}
h5diff 0/checkpoints/ckpt_300.h5 always/checkpoints/ckpt_300.h5 /particles /particles ||
    fail "the final particles differ between VESICA_SPECULATE=0 and always"
echo "ok: $BACKEND ($PREC) on $P ranks, $steps speculated steps ($rebuilt rebuilt after all) bit-identical to none"
