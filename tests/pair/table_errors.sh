#!/usr/bin/env bash
# table_errors.sh VESICA OUTDIR [RANKS]: a malformed table file stops the run before it starts
# with exit status 2 and one line naming the file and its line (on RANKS ranks: one line,
# from rank 0, which alone reads the file); nothing is written to the output directory.
set -u
BIN=$1; OUT=$2; RANKS=${3:-1}
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > t.cfg <<'CFG'
box = [8.0, 8.0, 8.0];
density = 0.5;
seed = 1;
species = ( { name = "A"; } );
dpd = { a = { A = { A = 0.0; }; }; gamma = 1.0; kT = 1.0; };
pair = ( { style = "table"; file = "bad.table"; coeff = { A = { A = { table = "AA"; }; }; }; } );
integrator = { dt = 0.001; steps = 1; };
output = { dir = "never"; };
CFG
check() { # TABLE_TEXT EXPECTED_LINE
    printf '%b' "$1" > bad.table
    mpiexec --oversubscribe -n "$RANKS" "$BIN" run t.cfg > log 2>&1
    local rc=$?
    [ "$rc" -eq 2 ] || { cat log >&2; fail "exit status $rc, expected 2"; }
    [ "$(grep -c 'error' log)" -eq 1 ] || { cat log >&2; fail "expected one error line"; }
    grep -qF "$2" log || { cat log >&2; fail "expected: $2"; }
    [ ! -e never ] || fail "the output directory was created"
    echo "ok: $(grep "vesica: error" log)"
}
check "AA\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 oops 1.0\n3 2.0 0 0\n" \
    "vesica: error: bad.table:5: pair table AA: expected row '2 r energy force' of finite numbers (got '2 1.5 oops 1.0')"
check "AA\nN 3\n\n1 1.0 1.0 1.0\n2 1.5 1.0 1.0\n3 2.7 0 0\n" \
    "vesica: error: bad.table:6: pair table AA: expected r on a uniform increasing grid, r = 2 here (got 2.7)"
check "BB\nN 2\n\n1 1.0 1.0 1.0\n2 1.5 1.0 1.0\n" \
    "vesica: error: bad.table: pair table AA: expected a section of that keyword (none in the file)"
check "AA\nN 3 RSQ 1 2\n\n1 1.0 1.0 1.0\n" \
    "vesica: error: bad.table:2: pair table AA: expected the line 'N n [R rlo rhi] [FP fplo fphi]' after the keyword, 2 <= n <= 1024 (got 'N 3 RSQ 1 2')"
rm -f bad.table
mpiexec --oversubscribe -n "$RANKS" "$BIN" run t.cfg > log 2>&1
[ $? -eq 2 ] && grep -q "bad.table" log || { cat log >&2; fail "a missing file: expected exit 2 naming it"; }
echo "ok: $(grep "vesica: error" log)"
