#!/usr/bin/env bash
# halo_bytes.sh P DECOMPOSITION VESICA OUTDIR: in mixed precision on the position grid the
# ghosts travel as grid records (gpu/gpu_halo.cuh, vs_ghost_rec_grid): a build's record 32
# bytes instead of 64, an update's 24 instead of 48. The same fluid on P ranks, mixed and
# double, one step: at skin 0 the last exchange is a build, at skin 0.3 an update (the
# particles move 0.02, far less than half the skin). The bytes sent in it (perf.json, all
# ranks), mixed over double, must be the records' ratio, 0.5 for both, within the few
# ghosts by which the two runs' starting positions differ (mixed rounds them onto the
# grid): within 4%.
set -u
P=$1; DEC=$2; BIN=$3; OUT=$4
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac # the runs are made in OUT
CFG=$(cd "$(dirname "$0")/../io" && pwd)/tiny.cfg
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
bytes() { # the halo bytes of a run's perf.json
    sed -n 's/.*"halo_bytes_per_step": *\([0-9.eE+-]*\).*/\1/p' "$1/perf.json"
}
for skin in 0 0.3; do
    for prec in mixed double; do
        dir=${prec}_$skin
        mpiexec --oversubscribe -n "$P" "$BIN" run "$CFG" --set backend=gpu \
            --set precision="$prec" --set neighbor.skin=$skin --set "decomposition=[$DEC]" \
            --set output.dir=$dir --set integrator.steps=1 --set output.thermo_interval=1 \
            --set output.trajectory_interval=0 --set output.checkpoint_interval=0 \
            >$dir.log 2>&1 || { rc=$?; cat $dir.log >&2; fail "$prec, skin $skin: exit $rc"; }
        grep -q "^Ranks: $P as" $dir.log || fail "$prec, skin $skin: not on $P ranks"
    done
    m=$(bytes mixed_$skin); d=$(bytes double_$skin)
    [ -n "$m" ] && [ -n "$d" ] || fail "skin $skin: no halo_bytes_per_step in perf.json"
    want=0.5
    awk -v m="$m" -v d="$d" -v w="$want" 'BEGIN { r = m / d; exit !(d > 0 && r > 0.96 * w && r < 1.04 * w) }' ||
        fail "skin $skin: mixed sent $m bytes, double $d: ratio not within 4% of $want"
    echo "skin $skin: mixed $m bytes, double $d (ratio $(awk -v m="$m" -v d="$d" 'BEGIN { printf "%.4f", m / d }'), records $want)"
done
grep -q "ghost records on the position grid" mixed_0.log || fail "the mixed plan does not name the grid records"
grep -q "ghost records on the position grid" double_0.log && fail "the double plan names the grid records"
echo "ok: on $P ranks ($DEC) mixed sends the grid records' share of double's halo bytes"
