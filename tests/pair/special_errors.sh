#!/usr/bin/env bash
# special_errors.sh VESICA OUTDIR [RANKS]: a system read from a LAMMPS data file whose bead has
# more special neighbours than a list holds (a branch point of 4 bonds whose partners have 3
# more each: 16 beads within two bonds, VS_MAX_SPECIAL = 15) stops the run before it starts
# with exit status 2 and one line naming the file and the bead; nothing is written to the
# output directory. The same file with 1-2 factors only (4 partners) runs.
set -u
BIN=$1; OUT=$2; RANKS=${3:-1}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
{
  printf 'branched\n\n17 atoms\n16 bonds\n1 atom types\n1 bond types\n\n'
  printf '0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # molecular\n\n'
  # the centre, its four partners 0.5 away, and three leaves 0.45 from each partner
  cat <<'ATOMS'
1 1 1 4.0 4.0 4.0
2 1 1 4.0 4.5 4.0
3 1 1 4.0 3.5 4.0
4 1 1 4.5 4.0 4.0
5 1 1 3.5 4.0 4.0
6 1 1 4.0 4.5 4.45
7 1 1 4.0 4.5 3.55
8 1 1 4.0 4.95 4.0
9 1 1 4.0 3.5 4.45
10 1 1 4.0 3.5 3.55
11 1 1 4.0 3.05 4.0
12 1 1 4.5 4.0 4.45
13 1 1 4.5 4.0 3.55
14 1 1 4.95 4.0 4.0
15 1 1 3.5 4.0 4.45
16 1 1 3.5 4.0 3.55
17 1 1 3.05 4.0 4.0
ATOMS
  printf '\nBonds\n\n'
  n=1
  for k in 0 1 2 3; do
    printf '%d 1 1 %d\n' $n $((2 + k)); n=$((n + 1))
    for q in 0 1 2; do
      printf '%d 1 %d %d\n' $n $((2 + k)) $((6 + 3 * k + q)); n=$((n + 1))
    done
  done
} > branched.data
cfg() { # SPECIAL
cat <<CFG
input = { format = "lammps-data"; file = "branched.data"; };
seed = 1;
species = ( { name = "A"; } );
dpd = { a = { A = { A = 0.0; }; }; gamma = 1.0; kT = 1.0; };
pair = ( { style = "soft"; rc = 1.0; special = $1;
           coeff = { A = { A = { alpha = 1.0; }; }; }; } );
bonded = { bonds = ( { style = "harmonic"; K = 10.0; r0 = 0.5; } ); };
integrator = { dt = 0.001; steps = 1; };
output = { dir = "never"; };
CFG
}
cfg "[0.0, 0.5, 1.0]" > bad.cfg
mpiexec --oversubscribe -n "$RANKS" "$BIN" run bad.cfg > log 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat log >&2; fail "exit status $rc, expected 2"; }
[ "$(grep -c 'error' log)" -eq 1 ] || { cat log >&2; fail "expected one error line"; }
want="vesica: error: branched.data: bead 1 has more than 15 special neighbours (1-2 to 1-3; VS_MAX_SPECIAL, src/core/special.h)"
grep -qF "$want" log || { cat log >&2; fail "expected: $want"; }
[ ! -e never ] || fail "the output directory was created"
echo "ok: $(grep "vesica: error" log)"
cfg "[0.0, 1.0, 1.0]" > good.cfg
mpiexec --oversubscribe -n "$RANKS" "$BIN" run good.cfg > log 2>&1 || { cat log >&2; fail "1-2 only: the run failed"; }
echo "ok: with 1-2 factors only the same file runs"
