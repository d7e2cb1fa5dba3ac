#!/usr/bin/env bash
# slab_bound.sh VESICA OUTDIR: the slab exchange (gpu/gpu_slab.cu) keeps the step's numbers on
# the device and sizes its buffers by bounds made from the last step's numbers; a number past
# its bound would lose particles, so the next step's start finds it and the run stops with one
# line. A small fluid on 2 ranks in slabs, mixed, skin 0: with the bounds' usual margin it
# runs to the end on the slab path; with VESICA_GPU_SLAB_MARGIN=0 (bounds of 1.5 times the
# last step's numbers, so a step with more leavers than that overflows) it stops with the
# line, before the end, and exits non-zero.
set -u
BIN=$1; OUT=$2
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac # the runs are made in OUT
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >fluid.cfg <<'CFG'
box = [8.0, 6.0, 6.0];
density = 3.0;
seed = 7;
species = ( { name = "W"; fraction = 1.0; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.04; lambda = 0.65; steps = 400; };
backend = "gpu";
precision = "mixed";
neighbor = { skin = 0.0; };
comm = { transport = "peer"; };
decomposition = [2, 1, 1];
output = { dir = "out"; thermo_interval = 100; trajectory_interval = 0; checkpoint_interval = 0; };
CFG
run() { # name, then the environment's assignments
    local name=$1; shift
    env "$@" mpiexec --oversubscribe -n 2 "$BIN" run fluid.cfg --set "output.dir=$name" \
        >"$name.log" 2>&1
}
run usual || { cat usual.log >&2; fail "the usual bounds: exit $?"; }
grep -q "slab exchange, no read-back" usual.log ||
    fail "2 ranks did not take the slab exchange: $(grep '^GPU halo' usual.log)"
grep -q "passed its bound" usual.log && fail "the usual bounds overflowed"
if run tight VESICA_GPU_SLAB_MARGIN=0; then
    cat tight.log >&2
    fail "VESICA_GPU_SLAB_MARGIN=0: the run did not stop"
fi
grep -q "slab exchange: a number passed its bound" tight.log || {
    cat tight.log >&2
    fail "VESICA_GPU_SLAB_MARGIN=0: no line naming the bound"
}
step=$(grep -c "" tight/thermo.csv 2>/dev/null || echo 0)
echo "ok: the usual bounds ran 400 steps on the slab path; margin 0 stopped with: $(grep -m1 -o 'slab exchange: a number passed its bound[^;]*' tight.log) (thermo rows $step)"
