#!/usr/bin/env bash
# ranks_exact.sh VESICA CONFIG OUTDIR [--set KEY=VALUE]...: an ensemble's run is the same to
# the bit on 1, 2 and 4 ranks (CPU backend): thermo.csv every 10 steps, the final
# checkpoint's particles and its thermostat state (/integrator_state). It holds because the
# per-particle random numbers are keyed by (seed, step, tag), never by rank or order
# (src/core/integrator.h), and the thermostats start from exact sums over ranks
# (src/engine/ensemble_step.c), on top of the exact forces of tests/mpi/ranks_exact.sh.
set -u
BIN=$1; CFG=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); OUT=$3
shift 3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
for n in 1 2 4; do
    mpiexec --oversubscribe -n "$n" "$BIN" run "$CFG" --set backend=cpu --set output.dir=np$n \
        --set integrator.steps=300 --set output.thermo_interval=10 \
        --set output.checkpoint_interval=0 --set output.checkpoint_keep=1 "$@" \
        >np$n.log 2>&1 || { cat np$n.log >&2; fail "$n ranks: exit $?"; }
done
for n in 2 4; do
    grep -q "^Ranks: $n as" np$n.log || fail "the run is not on $n ranks"
    cmp np1/thermo.csv np$n/thermo.csv || {
        diff np1/thermo.csv np$n/thermo.csv | head -4 >&2
        fail "thermo.csv differs between 1 and $n ranks"
    }
    for g in /particles /integrator_state; do
        h5diff np1/checkpoints/ckpt_300.h5 np$n/checkpoints/ckpt_300.h5 $g $g ||
            fail "the final $g differs between 1 and $n ranks"
    done
done
echo "ok: 300 steps bit-identical on 1, 2 and 4 ranks ($*)"
