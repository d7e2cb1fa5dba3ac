#!/usr/bin/env bash
# frozen.sh VESICA OUTDIR [BACKEND]: frozen wall particles (species.[].frozen) read from a
# LAMMPS data file (tests/walls/frozen.py writes it: two dense frozen layers inside
# bounce-back walls along z, a fluid between them, velocities for all) run 200 steps on 1 and
# on 2 ranks cut along z: the same thermo.csv bytes (CPU), and frozen.py check: the frozen
# particles stand where the file put them with velocity 0, the fluid moved and stayed inside,
# and the profiles' set of all particles is the fluid's (density: frozen ones left out),
# while the frozen species' own set holds the layers; a restart from step 100 (2 ranks, then 1)
# gives the same thermo.csv as the run straight through.
set -u
BIN=$1; OUT=$2; BACKEND=${3:-cpu}
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
# the analysis Python (VESICA_PYTHON: the build's VESICA_ANALYSIS_PYTHON), else Debian's
PY=${VESICA_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
"$PY" -c "import numpy" 2>/dev/null || { echo "SKIP: $PY has no numpy (frozen.py writes the data file with it)"; exit 77; }
"$PY" "$HERE/frozen.py" write frozen.data || fail "cannot write the data file"
cat >frozen.cfg <<CFG
input = { format = "lammps-data"; file = "frozen.data"; };
species = ( { name = "F"; }, { name = "W"; frozen = "on"; } );
dpd = { a = { F = { F = 25.0; W = 40.0; }; W = { F = 40.0; W = 0.0; }; };
        gamma = 4.5; kT = 1.0; };
boundary = { z = { kind = "bounce_back"; }; };
integrator = { dt = 0.01; steps = 200; };
profiles = { axis = "z"; bins = 16; every = 10; window = 200; per_species = "on"; };
backend = "$BACKEND";
output = { dir = "one"; thermo_interval = 20; };
CFG
"$BIN" run frozen.cfg >one.log 2>&1 || { tail -5 one.log >&2; fail "1 rank"; }
mpiexec --oversubscribe -n 2 "$BIN" run frozen.cfg --set output.dir=two \
    --set 'decomposition=[1, 1, 2]' >two.log 2>&1 || { tail -5 two.log >&2; fail "2 ranks"; }
[ "$BACKEND" = cpu ] && { cmp one/thermo.csv two/thermo.csv || fail "thermo differs on 2 ranks"; }
# a restart at step 100 (written on 2 ranks, continued on 1): the frozen flags of every
# species come back from the checkpoint (species 1 frozen, species 0 not), and the run goes on
# as the one straight through
mpiexec --oversubscribe -n 2 "$BIN" run frozen.cfg --set output.dir=half --set integrator.steps=100 --set profiles.window=100 \
    --set output.checkpoint_interval=100 --set 'decomposition=[1, 1, 2]' >half.log 2>&1 ||
    { tail -5 half.log >&2; fail "the first 100 steps"; }
"$BIN" run frozen.cfg --set output.dir=half --set profiles.window=100 --restart latest >>half.log 2>&1 ||
    { tail -5 half.log >&2; fail "the restart at step 100"; }
cmp one/thermo.csv half/thermo.csv || fail "thermo differs after the restart at step 100"
"$PY" -c "import h5py" 2>/dev/null || { echo "ok: ran on 1 and 2 ranks (no h5py here: the particles not checked)"; exit 0; }
"$PY" "$HERE/frozen.py" check frozen.data one/checkpoints/ckpt_200.h5 one/profiles.h5 ||
    fail "frozen particles"
"$PY" "$HERE/frozen.py" check frozen.data two/checkpoints/ckpt_200.h5 two/profiles.h5 ||
    fail "frozen, 2 ranks"
echo "ok: frozen wall particles stand still, on 1 and 2 ranks"
