#!/usr/bin/env bash
# bonded_change.sh VESICA OUTDIR: changed bond, angle or dihedral parameters (or a changed
# table) are physics keys on restart (issue 46 item 1): tests/molecules/tables.cfg runs 20
# steps, then each restart with one bonded value changed exits 2 with one line naming the
# bonded parameters and writes nothing; the unchanged restart and --force-restart finish.
set -u
BIN=$1; OUT=$2
CFG=$(cd "$(dirname "$0")" && pwd)/tables.cfg
TABLES=$(cd "$(dirname "$0")" && pwd)/tables
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
common=(--set output.dir=o --set output.thermo_interval=10 --set output.trajectory_interval=0)
"$BIN" run "$CFG" "${common[@]}" --set integrator.steps=20 >first.log 2>&1 ||
    { cat first.log >&2; fail "first leg exited $?"; }
# the bond table with one energy changed in its last digits
awk '!/^#/ && NR == 10 { $2 = $2 + 1e-9 } { print }' "$TABLES/bond.table" >bond.table
cmp -s bond.table "$TABLES/bond.table" && fail "the changed table is not changed"
i=0
for change in "molecules.[1].bond.K=100.5" "molecules.[2].bond.R0=1.6" \
              "molecules.[1].angle.theta0=116.0" \
              "molecules.[1].dihedral.A=[1.0, -1.5, 0.4, 2.0, -0.2]" \
              "molecules.[0].bond.file=\"$OUT/bond.table\""; do
    i=$((i + 1))
    "$BIN" run "$CFG" "${common[@]}" --set integrator.steps=40 --set "$change" \
        --restart latest >c$i.log 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat c$i.log >&2; fail "$change: expected exit 2, got $rc"; }
    n=$(grep -c '^vesica: error' c$i.log)
    [ "$n" -eq 1 ] || { cat c$i.log >&2; fail "$change: expected one error line, got $n"; }
    grep -q "^vesica: error: --restart: bonded (a bond, angle or dihedral type's style, coefficients or table) differs from checkpoint" c$i.log ||
        { cat c$i.log >&2; fail "$change: message"; }
    [ ! -e o/checkpoints/ckpt_40.h5 ] || fail "$change: a refused restart wrote a checkpoint"
done
"$BIN" run "$CFG" "${common[@]}" --set integrator.steps=40 --set "molecules.[1].bond.K=100.5" \
    --restart latest --force-restart >force.log 2>&1 || fail "--force-restart refused"
grep -q "force-restart: bonded" force.log || fail "--force-restart: no warning"
"$BIN" run "$CFG" "${common[@]}" --set integrator.steps=60 --restart o/checkpoints/ckpt_20.h5 \
    >same.log 2>&1 || { cat same.log >&2; fail "the unchanged restart exited $?"; }
echo "ok: $i bonded changes refused on restart, --force-restart and the unchanged restart run"
