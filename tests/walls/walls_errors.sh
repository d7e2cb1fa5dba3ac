#!/usr/bin/env bash
# walls_errors.sh VESICA OUTDIR: bad wall input exits 2 with one line, before anything runs
# (a wall velocity on a free-slip wall, a velocity across the wall, a wall force range longer
# than a brick or than half the box, npt against a wall, a frozen species under a thermostat
# that moves particles, an input file with a particle outside the walls), a particle that
# leaves through a wall in one step stops the run with exit 1 naming its tag, and a
# trajectory writes H5MD's box boundary "none" along the wall axes.
set -u
BIN=$1; OUT=$2
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
CFG=$HERE/walls.cfg
PY=${VESICA_PYTHON:-/usr/bin/python3} # the build's analysis Python where CTest gives it
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # status pattern ranks [--set ...]: the run exits with status and its log has pattern
    local want=$1 pat=$2 n=$3
    shift 3
    local mpi=()
    [ "$n" -gt 1 ] && mpi=(mpiexec --oversubscribe -n "$n")
    "${mpi[@]}" "$BIN" run "$CFG" --set backend=cpu --set output.dir=bad "$@" >log 2>&1
    local rc=$?
    [ "$rc" = "$want" ] || { cat log >&2; fail "$*: exit $rc, expected $want"; }
    grep -q -- "$pat" log || { cat log >&2; fail "$*: no '$pat' in the log"; }
}
expect 2 "boundary.x.velocity_lo: expected \[0.0, 0.0, 0.0\]: only a bounce_back" 1 \
    --set 'boundary.x.velocity_lo=[0.0, 1.0, 0.0]'
expect 2 "boundary.z.velocity_hi: expected a velocity along the wall" 1 \
    --set 'boundary.z.velocity_hi=[0.0, 0.0, 1.0]'
expect 2 "boundary.z.force.d: expected at most the brick's width" 4 \
    --set 'decomposition=[1, 1, 4]' --set neighbor.skin=0.0 --set boundary.z.force.d=1.6
expect 2 "boundary.z.force.d: expected at most half the box edge" 1 --set boundary.z.force.d=3.0
expect 2 "boundary.y.force.kind: expected \"none\" on a periodic axis" 1 \
    --set boundary.y.force.kind='"dpd"' --set boundary.y.force.d=0.5
expect 2 "decomposition: bricks along z are" 8 --set 'decomposition=[1, 1, 8]'
expect 2 "integrator.kind: expected a kind other than \"npt\" with walls" 1 \
    --set integrator.kind='"npt"' --set integrator.tau=1.0 --set integrator.pressure=23.0 \
    --set integrator.tau_p=5.0 --set dpd.gamma=0.0
expect 2 "species.\[1\].frozen: expected integrator.kind" 1 --set 'species.[1].frozen="on"' \
    --set integrator.kind='"langevin"' --set integrator.gamma=1.0
expect 1 "left the box through a wall" 1 --set 'species.[0].body_force=[0.0, 0.0, 1e5]' \
    --set run.temperature_tolerance=0.0
# an input file with a particle outside the walls: a LAMMPS data file with one atom at z = 7
cat >outside.data <<'DATA'
LAMMPS data file: one atom outside the z walls

2 atoms
1 atom types

0.0 6.0 xlo xhi
0.0 6.0 ylo yhi
0.0 6.0 zlo zhi

Atoms # full

1 1 1 0.0 1.0 1.0 1.0
2 1 1 0.0 2.0 2.0 7.0
DATA
cat >input.cfg <<CFGEOF
input = { format = "lammps-data"; file = "outside.data"; };
species = ( { name = "A"; } );
dpd = { a = { A = { A = 25.0; }; }; gamma = 4.5; kT = 1.0; };
boundary = { z = { kind = "bounce_back"; }; };
integrator = { dt = 0.02; steps = 10; };
backend = "cpu";
output = { dir = "in"; };
CFGEOF
"$BIN" run input.cfg >log 2>&1
rc=$?
[ "$rc" = 2 ] || { cat log >&2; fail "input outside the walls: exit $rc, expected 2"; }
grep -q "atom 2 lies outside the walls along z" log || { cat log >&2; fail "input: no line"; }
# H5MD: the box boundary of a trajectory
"$BIN" run "$CFG" --set backend=cpu --set output.dir=traj --set integrator.steps=20 \
    --set output.trajectory_interval=10 >log 2>&1 || { cat log >&2; fail "trajectory run"; }
got=$("$PY" -c "import h5py,sys; b=h5py.File('traj/traj.h5md','r')['particles/all/box'].attrs['boundary']; print(' '.join(x.decode() if isinstance(x, bytes) else x for x in b))") ||
    fail "cannot read the H5MD box boundary"
[ "$got" = "none periodic none" ] || fail "H5MD box boundary is '$got', expected 'none periodic none'"
echo "ok: bad wall input exits 2 with its line, an escape exits 1 with its tag, H5MD boundary none"
