#!/usr/bin/env bash
# ckpt_write_fail.sh CASE VESICA OUTDIR: a checkpoint write that fails on 2 ranks (issue 46
# item 2). Parallel HDF5 hangs when a write fails on some ranks only, so every rank must agree
# that the write failed before any leaves the collective path: exit 1 with one line, no
# temporary file left, the earlier checkpoints intact and restartable; never a hang (each run
# has a 60 s timeout). Exits 0 (pass), 1 (fail) or 77 (skip).
#
#   limit    the file size limit (VESICA_TEST_CHECKPOINT_LIMIT, no root needed) below the
#            checkpoint's size, at several sizes: refused before the first dataset
#   tmpfs    a 16 MB tmpfs as output.dir that a second process fills as soon as a checkpoint's
#            temporary file appears (needs mount: else skipped)
set -u
case_name=$1; BIN=$2; OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
CFG=$HERE/tiny.cfg
MPI=(mpiexec --oversubscribe -n 2)
[ "$(id -u)" -eq 0 ] && MPI=(mpiexec --allow-run-as-root --oversubscribe -n 2)
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
one_error() {
    local n
    n=$(grep -c '^vesica: error' "$1")
    [ "$n" -eq 1 ] || { cat "$1" >&2; fail "$1: expected one error line, got $n"; }
    grep '^vesica: error' "$1"
}
# failed LOG RC DIR: exit 1 (not a hang), one line, no temporary file left
failed() {
    [ "$2" -ne 124 ] || fail "$1: the ranks hung (killed after 60 s)"
    [ "$2" -eq 1 ] || { cat "$1" >&2; fail "$1: expected exit 1, got $2"; }
    one_error "$1" | grep -q "not written.*(the previous checkpoints are kept)" ||
        fail "$1: message"
    ! compgen -G "$3/checkpoints/*.tmp" >/dev/null || fail "$1: a temporary file is left"
}

case $case_name in
limit)
    q=(--set output.trajectory_interval=0 --set output.checkpoint_interval=50)
    timeout 60 "${MPI[@]}" "$BIN" run "$CFG" --set output.dir=w "${q[@]}" --set integrator.steps=100 \
        >w.log 2>&1 || fail "first leg exited $?"
    cp w/checkpoints/ckpt_100.h5 before.h5
    # limits that the first datasets, the data, or the metadata at the close would cross (the
    # 2 ranks hung there before the write checked its room first)
    for lim in 30000 60000 90000 110000; do
        VESICA_TEST_CHECKPOINT_LIMIT=150:$lim timeout 60 "${MPI[@]}" "$BIN" run "$CFG" \
            --set output.dir=w "${q[@]}" --restart latest >"l$lim.log" 2>&1
        failed "l$lim.log" $? w
        grep -q "write failed (.*File too large)" "l$lim.log" || fail "l$lim.log: not the size limit"
        cmp before.h5 w/checkpoints/ckpt_100.h5 || fail "the earlier checkpoint changed"
    done
    timeout 60 "${MPI[@]}" "$BIN" run "$CFG" --set output.dir=w "${q[@]}" --restart latest \
        >r.log 2>&1 || { cat r.log >&2; fail "restart after the failed writes exited $?"; }
    grep -q "Restart from w/checkpoints/ckpt_100.h5" r.log || fail "not restarted from step 100"
    echo "ok: a checkpoint write over the file size limit on 2 ranks exits 1, no hang"
    ;;
tmpfs)
    mkdir small
    mount -t tmpfs -o size=16m tmpfs small 2>/dev/null ||
        { echo "skip: cannot mount a tmpfs here (needs root)"; exit 77; }
    trap 'umount "$OUT/small" 2>/dev/null' EXIT
    big=(--set 'box=[12.0, 12.0, 12.0]' --set output.trajectory_interval=0
         --set output.checkpoint_interval=5)
    for round in 1 2 3; do
        rm -rf small/*
        timeout 60 "${MPI[@]}" "$BIN" run "$CFG" --set output.dir=small/d "${big[@]}" \
            --set integrator.steps=1000000 >"t$round.log" 2>&1 &
        pid=$!
        # the filler waits for the checkpoint after the first, then takes every free byte
        for _ in $(seq 1 600); do
            compgen -G "small/d/checkpoints/ckpt_*.h5" >/dev/null &&
                compgen -G "small/d/checkpoints/*.tmp" >/dev/null && break
            sleep 0.02
        done
        dd if=/dev/zero of=small/fill bs=64k 2>/dev/null
        wait $pid
        failed "t$round.log" $? small/d
        rm small/fill
        last=$(ls small/d/checkpoints | sed -n 's/^ckpt_\([0-9]*\)\.h5$/\1/p' | sort -n | tail -1)
        [ -n "$last" ] || fail "round $round: no checkpoint left"
        timeout 60 "${MPI[@]}" "$BIN" run "$CFG" --set output.dir=small/d "${big[@]}" \
            --set integrator.steps=$((last + 5)) --restart latest >"r$round.log" 2>&1 ||
            { cat "r$round.log" >&2; fail "round $round: restart exited $?"; }
        grep -q "Restart from small/d/checkpoints/ckpt_$last.h5" "r$round.log" ||
            fail "round $round: not restarted from step $last"
    done
    echo "ok: a disk that fills during a checkpoint write on 2 ranks: exit 1, no hang, restartable"
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
