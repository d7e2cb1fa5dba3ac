#!/usr/bin/env bash
# overlap_start.sh VESICA OUTDIR: an LJ fluid started from random positions (overlapping
# particles, forces beyond the fixed-point range of the CPU force sums) stops at step 0 with
# exit 1 and a line that names the closest pair (two tags and their distance) and the likely
# causes, instead of a bare "blown up".
set -u
BIN=$1; OUT=$2
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > random-lj.cfg <<'CFG'
box = [8.0, 8.0, 8.0];
particles = 2000;
seed = 3;
species = ( { name = "A"; mass = 1.0; } );
dpd = { a = { A = { A = 0.0; }; }; gamma = 1.0; kT = 1.0; rc = 1.0; };
pair = ( { style = "lj"; rc = 2.5;
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
integrator = { dt = 0.005; steps = 20; };
backend = "cpu";
output = { dir = "run"; thermo_interval = 1; trajectory_interval = 0; checkpoint_interval = 0; };
CFG
"$BIN" run random-lj.cfg >run.log 2>&1
rc=$?
[ $rc -eq 1 ] || { cat run.log >&2; fail "expected exit 1, got $rc"; }
line=$(grep "step 0: a particle's force left the fixed-point range" run.log) ||
    { cat run.log >&2; fail "no message at step 0"; }
r=$(sed -n 's/.*closest pair on this rank is tags [0-9]* and [0-9]* at r = \([0-9.e+-]*\):.*/\1/p' <<<"$line")
[ -n "$r" ] || fail "the message names no pair: $line"
awk -v r="$r" 'BEGIN { exit !(r > 0 && r < 0.5) }' || fail "the named pair is not overlapping: r = $r"
grep -q "overlapping particles" <<<"$line" || fail "no cause given: $line"

# One pair at r = 0.35 (LJ force 2.2e7 > the 2^21 bound on one contribution), the rest far
# apart: the particle and its partner are named.
cat > pair.data <<'DATA'
LAMMPS data file: one overlapping pair

4 atoms
1 atom types

0.0 8.0 xlo xhi
0.0 8.0 ylo yhi
0.0 8.0 zlo zhi

Masses

1 1.0

Atoms # molecular

1 1 1 1.0 1.0 1.0
2 2 1 1.35 1.0 1.0
3 3 1 4.0 4.0 4.0
4 4 1 6.0 6.0 6.0
DATA
sed -e '/^box\|^particles/d' -e 's/^seed = 3;/input = { format = "lammps-data"; file = "pair.data"; };\nseed = 3;/' \
    random-lj.cfg > pair.cfg
"$BIN" run pair.cfg >pair.log 2>&1
rc=$?
[ $rc -eq 1 ] || { cat pair.log >&2; fail "one pair: expected exit 1, got $rc"; }
grep -q "step 0: a force contribution on particle [01] is not finite or beyond .* its closest neighbour is tag [01] at r = 0.35: overlapping particles" pair.log ||
    { cat pair.log >&2; fail "one pair: the pair at r = 0.35 is not named"; }
echo "ok: stopped at step 0 naming a pair at r = $r; a single close pair named at r = 0.35"
