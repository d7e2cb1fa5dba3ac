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
echo "ok: stopped at step 0 naming a pair at r = $r"
