#!/usr/bin/env bash
# io_test.sh CASE VESICA OUTDIR [RANKS [BACKEND]]: the checkpoint-restart and trajectory tests.
# Every case runs tiny.cfg (648 particles; backend cpu unless BACKEND is given) in OUTDIR and
# exits 0 (pass), 1 (fail) or 77 (skip).
#
#   exact P        200 steps straight vs 100 + restart + 100 on P ranks: final checkpoints
#                  bit-identical (h5diff), thermo.csv and trajectory identical
#   ranks P        100 steps on 2 ranks, restart on P ranks: finishes, every tag once, and
#                  (exact sums, src/core/fixed_sum.h) thermo.csv, trajectory and the final
#                  checkpoint's particles bit-identical to a straight run on 2 ranks (on 1
#                  rank the frames are written from the particle arrays, on 2 from records)
#   mdanalysis P   traj.h5md read by MDAnalysis's H5MDReader: N, frames, box, positions
#   kill9          kill -9 during a checkpoint write: --restart latest uses the previous one
#   corrupt        bit flip, truncation, missing completion record: one clear line each
#   physics        changed physics refused (and --force-restart), run length accepted,
#                  no checkpoint, already finished
#   baddir         unwritable output directory, full disk: one line at start, exit 2, nothing
#                  created; checkpoints off (checkpoint_keep 0): no checkpoints/ folder
#   diskfull       (tmpfs, needs mount: else skipped) the disk fills during a checkpoint write:
#                  that write finishes in the room it reserved, the next one is refused: exit
#                  1, one line, no crash, the checkpoint restarts; frames or
#                  checkpoints that fill it: the message says whether a checkpoint exists
#   writefail      a checkpoint write that fails (file size limit, no root needed): exit 1,
#                  one line that does not blame the disk, no crash, earlier checkpoint intact
#   bigconfig      a configuration over 64 KiB: checkpoints store it whole, restart works
#   damaged        one flipped byte in a stored physics parameter (dt, gamma, s) or a changed
#                  time: --restart PATH refuses it, --restart latest falls back
#   earlystop      SIGTERM while the configuration is still being read: exit 3 after the first
#                  step that builds the neighbour lists (src/app/run_stop.h) with a
#                  checkpoint, and the restart finishes
#   progress       thermo rows far apart: progress lines between them
#   signal P       SIGUSR1 to mpiexec, SIGTERM to a single process, run.walltime: exit 3
#                  with a checkpoint; the restarts finish with the rows and frames of a
#                  straight run, none repeated or missing
set -u
case_name=$1; BIN=$2; OUT=$3; P=${4:-1}; BACKEND=${5:-cpu}
HERE=$(cd "$(dirname "$0")" && pwd)
CFG=$HERE/tiny.cfg
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
# run DIR RANKS ARGS...: vesica on RANKS ranks with output.dir=DIR (and IO_TEST_SET, one
# key=value for every run of a case, if set); stdout+stderr to DIR.log
run() {
    local dir=$1 ranks=$2; shift 2
    mpiexec --oversubscribe -n "$ranks" "$BIN" run "$CFG" --set "output.dir=$dir" \
        --set "backend=$BACKEND" ${IO_TEST_SET:+--set "$IO_TEST_SET"} "$@" >"$dir.log" 2>&1
}
steps_of() { awk -F, 'NR > 1 { printf "%s ", $1 }' "$1/thermo.csv"; }
frames_of() {
    "$PY" -c 'import sys, h5py; print(" ".join(str(s) for s in h5py.File(sys.argv[1], "r")["particles/all/position/step"][:]))' "$1/traj.h5md"
}
# the steps a straight 200-step run writes: thermo and frames every 20, step 0 included
want_rows="0 20 40 60 80 100 120 140 160 180 200 "
want_frames="0 20 40 60 80 100 120 140 160 180 200"
# one_error LOG: exactly one 'vesica: error' line, printed
one_error() {
    local n
    n=$(grep -c '^vesica: error' "$1")
    [ "$n" -eq 1 ] || { cat "$1" >&2; fail "$1: expected one error line, got $n"; }
    grep '^vesica: error' "$1"
}

case $case_name in
exact)
    run straight "$P" || fail "straight run exited $?"
    run legs "$P" --set integrator.steps=100 || fail "first leg exited $?"
    run legs2 "$P" --set output.dir=legs --restart latest || fail "restart exited $?"
    grep -q "Restart from legs/checkpoints/ckpt_100.h5" legs2.log || fail "restart not from step 100"
    grep -q "^Trajectory: every 20 steps; checkpoints: every 100 steps and at the end, keep 2$" straight.log ||
        fail "the header does not give the intervals"
    h5diff straight/checkpoints/ckpt_200.h5 legs/checkpoints/ckpt_200.h5 /particles /particles ||
        fail "final states differ"
    h5diff straight/traj.h5md legs/traj.h5md /particles /particles || fail "trajectories differ"
    cmp straight/thermo.csv legs/thermo.csv || fail "thermo.csv differs"
    # the test can fail: the state does change between checkpoints
    ! h5diff -q straight/checkpoints/ckpt_100.h5 straight/checkpoints/ckpt_200.h5 /particles/position /particles/position ||
        fail "positions did not change"
    echo "ok: 200 steps straight and 100 + restart + 100 bit-identical on $P rank(s)"
    ;;
ranks)
    run straight 2 || fail "straight run exited $?"
    run legs 2 --set integrator.steps=100 || fail "first leg exited $?"
    run legs2 "$P" --set output.dir=legs --restart latest || fail "restart on $P ranks exited $?"
    [ "$(steps_of legs)" = "$want_rows" ] || fail "rows: $(steps_of legs)"
    "$PY" - straight legs <<'PY' || exit 1
import sys, h5py, numpy as np
a, b = sys.argv[1:3]
with h5py.File(b + "/checkpoints/ckpt_200.h5", "r") as f:
    tags = f["particles/tag"][:]
    assert (tags == np.arange(648)).all(), "tags are not 0..N-1 in order"
    assert np.isfinite(f["particles/position"][:]).all()
def means(d):
    t = np.genfromtxt(d + "/thermo.csv", delimiter=",", names=True)
    sel = t["step"] > 100
    return t["temperature"][sel].mean(), t["pressure"][sel].mean()
(ta, pa), (tb, pb) = means(a), means(b)
print(f"after step 100: T {ta:.4f} vs {tb:.4f}, p {pa:.4f} vs {pb:.4f}")
assert abs(tb - ta) < 0.1 * ta and abs(pb - pa) < 0.03 * pa, "physics drifted"
PY
    # the CPU backend's guarantee: the rank count after a restart changes no bit
    cmp straight/thermo.csv legs/thermo.csv || fail "thermo.csv differs after the restart on $P ranks"
    h5diff straight/traj.h5md legs/traj.h5md /particles /particles ||
        fail "trajectories differ after the restart on $P ranks"
    h5diff straight/checkpoints/ckpt_200.h5 legs/checkpoints/ckpt_200.h5 /particles /particles ||
        fail "final states differ after the restart on $P ranks"
    echo "ok: restart from 2 ranks on $P ranks continues the run bit for bit"
    ;;
mdanalysis)
    "$PY" -c 'import MDAnalysis' 2>/dev/null || { echo "skip: MDAnalysis not installed"; exit 77; }
    run traj "$P" || fail "run exited $?"
    "$PY" - traj <<'PY' || exit 1
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, h5py
from MDAnalysis.coordinates.H5MD import H5MDReader
d = sys.argv[1]
r = H5MDReader(d + "/traj.h5md", convert_units=False)
assert r.n_atoms == 648, r.n_atoms
assert r.n_frames == 11, r.n_frames
thermo = np.genfromtxt(d + "/thermo.csv", delimiter=",", names=True)
for ts in r:
    assert np.allclose(ts.dimensions, [6, 6, 6, 90, 90, 90]), ts.dimensions
    assert ts.data["step"] == 20 * ts.frame
    assert abs(ts.time - 0.4 * ts.frame) < 1e-12
    row = thermo[thermo["step"] == ts.data["step"]][0]
    assert ts.data["temperature"] == row["temperature"]
    assert (ts.positions >= 0).all() and (ts.positions <= 6).all()
ts = r[10]
with h5py.File(d + "/checkpoints/ckpt_200.h5", "r") as f:
    x = f["particles/position"][:]
    v = f["particles/velocity"][:]
assert np.allclose(ts.positions, x, atol=1e-5, rtol=0), "positions differ from the run's"
assert np.allclose(ts.velocities, v, atol=1e-5, rtol=0), "velocities differ from the run's"
with h5py.File(d + "/traj.h5md", "r") as f:
    assert list(f["h5md"].attrs["version"]) == [1, 1]
    assert f["h5md/creator"].attrs["name"] == b"Vesica"
    assert (f["particles/all/id"][:] == np.arange(648)).all()
    assert list(f["particles/all/box"].attrs["boundary"]) == [b"periodic"] * 3
print("MDAnalysis H5MDReader: 648 atoms, 11 frames, box and positions agree")
PY
    echo "ok: MDAnalysis reads traj.h5md written on $P rank(s)"
    ;;
kill9)
    VESICA_TEST_CHECKPOINT_PAUSE=100:60 "$BIN" run "$CFG" --set output.dir=k \
        --set output.checkpoint_interval=50 >k.log 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do [ -e k/checkpoints/ckpt_100.h5.tmp ] && break; sleep 0.1; done
    [ -e k/checkpoints/ckpt_100.h5.tmp ] || { kill -9 $pid; fail "no temporary checkpoint appeared"; }
    kill -9 $pid
    wait $pid 2>/dev/null
    [ -e k/checkpoints/ckpt_50.h5 ] || fail "previous checkpoint missing"
    [ ! -e k/checkpoints/ckpt_100.h5 ] || fail "a half-written checkpoint has the final name"
    "$BIN" run "$CFG" --set output.dir=k --set output.checkpoint_interval=50 \
        --restart latest >k2.log 2>&1 || { cat k2.log >&2; fail "restart exited $?"; }
    grep -q "Restart from k/checkpoints/ckpt_50.h5" k2.log || fail "not restarted from step 50"
    [ ! -e k/checkpoints/ckpt_100.h5.tmp ] || fail "temporary file left behind"
    [ "$(steps_of k)" = "$want_rows" ] || fail "rows: $(steps_of k)"
    [ "$(frames_of k)" = "$want_frames" ] || fail "frames: $(frames_of k)"
    echo "ok: kill -9 during a checkpoint write; restart from the previous one"
    ;;
corrupt)
    run c 1 || fail "run exited $?"
    cp c/checkpoints/ckpt_200.h5 flipped.h5
    "$PY" - <<'PY' || fail "could not flip a bit"
import h5py
with h5py.File("flipped.h5", "r") as f:
    off = f["particles/velocity"].id.get_chunk_info(0).byte_offset
b = bytearray(open("flipped.h5", "rb").read())
b[off + 100] ^= 0x10
open("flipped.h5", "wb").write(b)
PY
    "$BIN" run "$CFG" --set output.dir=c --set integrator.steps=300 --restart flipped.h5 >f.log 2>&1
    [ $? -eq 2 ] || fail "bit flip: expected exit 2"
    one_error f.log | grep -q "flipped.h5: dataset particles/velocity: checksum mismatch (file corrupt)" ||
        fail "bit flip: unclear message"
    cp flipped.h5 c/checkpoints/ckpt_200.h5
    "$BIN" run "$CFG" --set output.dir=c --set integrator.steps=300 --restart latest >l.log 2>&1 ||
        fail "latest with a corrupt newest: exit $?"
    grep -q "checksum mismatch.*falling back to the previous checkpoint c/checkpoints/ckpt_100.h5" l.log ||
        fail "no fallback message"
    grep -q "Restart from c/checkpoints/ckpt_100.h5" l.log || fail "did not restart from 100"
    head -c 20000 c/checkpoints/ckpt_300.h5 >truncated.h5
    "$BIN" run "$CFG" --set output.dir=c --set integrator.steps=400 --restart truncated.h5 >t.log 2>&1
    [ $? -eq 2 ] || fail "truncated: expected exit 2"
    one_error t.log | grep -q "truncated.h5: not a readable HDF5 file, truncated or corrupt" ||
        fail "truncated: unclear message"
    cp c/checkpoints/ckpt_300.h5 incomplete.h5
    "$PY" -c 'import h5py; f = h5py.File("incomplete.h5", "a"); del f["complete"]'
    "$BIN" run "$CFG" --set output.dir=c --set integrator.steps=400 --restart incomplete.h5 >i.log 2>&1
    [ $? -eq 2 ] || fail "incomplete: expected exit 2"
    one_error i.log | grep -q "incomplete.h5: no completion record" || fail "incomplete: unclear message"
    echo "ok: bit flip, truncation and missing completion record detected"
    ;;
physics)
    "$BIN" run "$CFG" --set output.dir=p --restart latest >none.log 2>&1
    [ $? -eq 2 ] || fail "no checkpoint: expected exit 2"
    one_error none.log | grep -q "no checkpoint in p/checkpoints" || fail "no checkpoint: message"
    [ ! -e p ] || fail "no checkpoint: output.dir p was created"
    run p 1 --set integrator.steps=100 || fail "first leg exited $?"
    "$BIN" run "$CFG" --set output.dir=p --set dpd.gamma=4.0 --restart latest >g.log 2>&1
    [ $? -eq 2 ] || fail "changed gamma: expected exit 2"
    one_error g.log | grep -q "dpd.gamma (configuration 4.0, checkpoint 4.5) differs" ||
        fail "changed gamma: message"
    "$BIN" run "$CFG" --set output.dir=p --set 'dpd.a.A.B=31' --set 'dpd.a.B.A=31' --restart latest >a.log 2>&1
    [ $? -eq 2 ] || fail "changed a_ij: expected exit 2"
    one_error a.log | grep -q "dpd.a.A.B" || fail "changed a_ij: message"
    [ ! -e p/checkpoints/ckpt_200.h5 ] || fail "a refused restart wrote a checkpoint"
    "$BIN" run "$CFG" --set output.dir=p --set integrator.steps=150 --set output.thermo_interval=10 \
        --set neighbor.skin=0.4 --restart latest >ok.log 2>&1 || fail "run length change refused"
    "$BIN" run "$CFG" --set output.dir=p --set integrator.steps=200 --set dpd.gamma=4.0 \
        --restart latest --force-restart >force.log 2>&1 || fail "--force-restart refused"
    grep -q "force-restart: dpd.gamma" force.log || fail "--force-restart: no warning"
    "$BIN" run "$CFG" --set output.dir=p --set dpd.gamma=4.0 --restart latest >done.log 2>&1 ||
        fail "already finished: exit $?"
    grep -q "already finished" done.log || fail "already finished: message"
    echo "ok: physics changes refused, run length and output changes accepted"
    ;;
baddir)
    # checkpoints off: no checkpoints/ folder (issue 46 item 10)
    "$BIN" run "$CFG" --set output.dir=off --set output.checkpoint_keep=0 --set integrator.steps=20 \
        >off.log 2>&1 || fail "checkpoints off: exit $?"
    [ ! -e off/checkpoints ] || fail "checkpoints off: an empty checkpoints/ folder was created"
    touch afile
    "$BIN" run "$CFG" --set output.dir=afile/out >b.log 2>&1
    [ $? -eq 2 ] || fail "unwritable: expected exit 2"
    one_error b.log | grep -q "output.dir: afile/out: cannot create directory" || fail "unwritable: message"
    mkdir small
    if mount -t tmpfs -o size=400k tmpfs small 2>/dev/null; then
        "$BIN" run "$CFG" --set output.dir=small/out >full.log 2>&1
        rc=$?
        created=$(ls -A small)
        # without checkpoints or frames only the small logs are written: no room is asked for
        "$BIN" run "$CFG" --set output.dir=small/bench --set output.checkpoint_keep=0 \
            --set output.trajectory_interval=0 --set integrator.steps=10 >bench.log 2>&1
        rc_bench=$?
        umount small
        [ $rc -eq 2 ] || fail "full disk: expected exit 2, got $rc"
        one_error full.log | grep -q "not enough free space" || fail "full disk: message"
        [ -z "$created" ] || fail "full disk: the refused run left '$created' behind"
        [ $rc_bench -eq 0 ] || fail "no checkpoints or frames: expected exit 0, got $rc_bench"
        echo "ok: full disk reported at start; a run that writes neither checkpoints nor frames is let through"
    else
        echo "note: cannot mount a small tmpfs here; full-disk case not run"
    fi
    echo "ok: unwritable output directory reported at start"
    ;;
signal)
    long=(--set integrator.steps=1000000000 --set output.checkpoint_interval=100)
    mpiexec --oversubscribe -n "$P" "$BIN" run "$CFG" --set output.dir=s "${long[@]}" >s.log 2>&1 &
    pid=$!
    # any checkpoint will do: older ones are deleted (checkpoint_keep), so polling for one
    # file name can miss it on a loaded machine
    first_ckpt() { compgen -G "$1/checkpoints/ckpt_*.h5" >/dev/null; }
    for _ in $(seq 1 300); do first_ckpt s && break; sleep 0.1; done
    kill -USR1 $pid
    wait $pid
    rc=$?
    [ $rc -eq 3 ] || { tail s.log >&2; fail "SIGUSR1: expected exit 3, got $rc"; }
    stopped=$(sed -n 's/.*Stopped for restart at step \([0-9]*\).*/\1/p' s.log | head -1)
    [ -n "$stopped" ] || fail "SIGUSR1: no message"
    # resubmitted with the campaign's real length (2000 steps, or 1000 past the stop on a
    # slow machine), it finishes
    end=$(( stopped < 1000 ? 2000 : (stopped / 20 + 50) * 20 ))
    run s2 "$P" --set output.dir=s --set integrator.steps=$end --restart latest || fail "restart exited $?"
    want=$(seq 0 20 $end | tr '\n' ' ')
    [ "$(steps_of s)" = "$want" ] || fail "rows after signal + restart: $(steps_of s)"
    [ "$(frames_of s) " = "$want" ] || fail "frames after signal + restart: $(frames_of s)"
    # SIGTERM to the process itself (what srun and batch systems send)
    "$BIN" run "$CFG" --set output.dir=t "${long[@]}" >t.log 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do first_ckpt t && break; sleep 0.1; done
    kill -TERM $pid
    wait $pid
    [ $? -eq 3 ] || fail "SIGTERM: expected exit 3"
    # run.walltime: 2 seconds
    run w "$P" --set run.walltime=0.00056 "${long[@]}"
    rc=$?
    [ $rc -eq 3 ] || fail "walltime: expected exit 3, got $rc"
    grep -q "Stopped for restart.*run.walltime" w.log || fail "walltime: no message"
    echo "ok: SIGUSR1, SIGTERM and run.walltime stop with a checkpoint and exit 3"
    ;;
diskfull)
    mkdir small
    mount -t tmpfs -o size=4m tmpfs small 2>/dev/null ||
        { echo "skip: cannot mount a tmpfs here (needs root)"; exit 77; }
    trap 'umount "$OUT/small" 2>/dev/null' EXIT
    # the disk fills while the checkpoint of step 100 is being written: the room it reserved
    # first (io/checkpoint_space.h) lets it finish; the next one is refused
    VESICA_TEST_CHECKPOINT_PAUSE=100:2 "$BIN" run "$CFG" --set output.dir=small/d \
        --set output.trajectory_interval=0 --set output.checkpoint_interval=50 >d.log 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do [ -e small/d/checkpoints/ckpt_100.h5.tmp ] && break; sleep 0.05; done
    dd if=/dev/zero of=small/fill bs=64k 2>/dev/null
    wait $pid
    rc=$?
    [ $rc -eq 1 ] || { cat d.log >&2; fail "disk full during a write: expected exit 1, got $rc"; }
    one_error d.log | grep -q "checkpoint of step 150 needs .*not written (the previous checkpoints are kept)" ||
        fail "disk full during a write: message"
    [ ! -e small/d/checkpoints/ckpt_100.h5.tmp ] || fail "temporary file left behind"
    rm small/fill
    "$BIN" run "$CFG" --set output.dir=small/d --set output.trajectory_interval=0 \
        --set output.checkpoint_interval=50 --restart latest >d2.log 2>&1 ||
        { cat d2.log >&2; fail "restart after the full disk exited $?"; }
    grep -q "Restart from small/d/checkpoints/ckpt_100.h5" d2.log || fail "not restarted from step 100"
    rm -rf small/d
    # frames fill it before any checkpoint, then with checkpoints
    "$BIN" run "$CFG" --set output.dir=small/f --set output.trajectory_interval=1 \
        --set output.checkpoint_interval=1000 --set integrator.steps=1000 >f.log 2>&1
    [ $? -eq 1 ] || fail "frames fill the disk: expected exit 1"
    one_error f.log | grep -q "disk full: .*trajectory frame.*(no checkpoint of this run was written before)" ||
        fail "frames fill the disk: message"
    rm -rf small/f
    "$BIN" run "$CFG" --set output.dir=small/c --set output.trajectory_interval=1 \
        --set output.checkpoint_interval=10 --set integrator.steps=1000 >c.log 2>&1
    [ $? -eq 1 ] || fail "checkpoints fill the disk: expected exit 1"
    one_error c.log | grep -q "disk full: .*(the previous checkpoints are kept)" ||
        fail "checkpoints fill the disk: message"
    echo "ok: a disk that fills during a write, or between writes, stops the run with one line"
    ;;
writefail)
    quiet=(--set output.trajectory_interval=0 --set output.checkpoint_interval=50)
    run w 1 "${quiet[@]}" --set integrator.steps=100 || fail "first leg exited $?"
    cp w/checkpoints/ckpt_100.h5 before.h5
    # files of this process may not grow past 30 kB from the checkpoint of step 150 on
    VESICA_TEST_CHECKPOINT_LIMIT=150:30000 "$BIN" run "$CFG" --set output.dir=w "${quiet[@]}" \
        --restart latest >w2.log 2>&1
    rc=$?
    [ $rc -eq 1 ] || { cat w2.log >&2; fail "failed write: expected exit 1, got $rc"; }
    one_error w2.log | grep -q "checkpoint at step 150 not written: .*write failed (.*File too large).*previous checkpoints are kept" ||
        fail "failed write: message"
    ! grep -q "disk full" w2.log || fail "failed write: blames the disk"
    cmp before.h5 w/checkpoints/ckpt_100.h5 || fail "the earlier checkpoint changed"
    [ ! -e w/checkpoints/ckpt_150.h5.tmp ] || fail "temporary file left behind"
    echo "ok: a failed checkpoint write exits 1 with one line, earlier checkpoint intact"
    ;;
bigconfig)
    { cat "$CFG"; for i in $(seq 1 1500); do echo "# padding line $i: a long comment makes this file larger than 64 KiB"; done; } >big.cfg
    [ "$(stat -c %s big.cfg)" -gt 70000 ] || fail "big.cfg is not over 64 KiB"
    "$BIN" run big.cfg --set output.dir=b --set integrator.steps=100 >b.log 2>&1 ||
        { tail -3 b.log >&2; fail "a configuration over 64 KiB: exit $?"; }
    "$PY" - <<'PY' || fail "config_text differs from the file"
import h5py
with h5py.File("b/checkpoints/ckpt_100.h5", "r") as f:
    assert f.attrs["format_version"] == 3
    assert f["config_text"][:].tobytes() == open("big.cfg", "rb").read()
PY
    "$BIN" run big.cfg --set output.dir=b --restart latest >b2.log 2>&1 || fail "restart exit $?"
    echo "ok: a configuration over 64 KiB is stored whole"
    ;;
damaged)
    run dmg 1 --set dpd.s=1.25 || fail "run exited $?"
    # flip_param NAME VALUE FILE: flip the lowest byte of the one stored copy of VALUE
    flip_param() {
        "$PY" - "$2" "$3" <<'PY'
import struct, sys
pat = struct.pack("<d", float(sys.argv[1]))
b = bytearray(open(sys.argv[2], "rb").read())
assert b.count(pat) == 1, "value stored %d times" % b.count(pat)
b[b.index(pat)] ^= 0x01
open(sys.argv[2], "wb").write(b)
PY
    }
    for p in dt:0.02 gamma:4.5 s:1.25; do
        cp dmg/checkpoints/ckpt_200.h5 "${p%%:*}.h5"
        flip_param "${p%%:*}" "${p#*:}" "${p%%:*}.h5" || fail "could not flip ${p%%:*}"
        "$BIN" run "$CFG" --set output.dir=dmg --set dpd.s=1.25 --set integrator.steps=300 \
            --restart "${p%%:*}.h5" >"${p%%:*}.log" 2>&1
        [ $? -eq 2 ] || fail "flipped ${p%%:*}: expected exit 2"
        one_error "${p%%:*}.log" | grep -q "${p%%:*}.h5: the stored physics parameters do not match their hash (file damaged)" ||
            fail "flipped ${p%%:*}: message"
    done
    cp dmg/checkpoints/ckpt_200.h5 time.h5
    "$PY" -c 'import h5py; f = h5py.File("time.h5", "a"); f.attrs["time"] = 4.5'
    "$BIN" run "$CFG" --set output.dir=dmg --set dpd.s=1.25 --set integrator.steps=300 \
        --restart time.h5 >time.log 2>&1
    [ $? -eq 2 ] || fail "changed time: expected exit 2"
    one_error time.log | grep -q "time.h5: time 4.5 is not step \* dt" || fail "changed time: message"
    cp dt.h5 dmg/checkpoints/ckpt_200.h5
    "$BIN" run "$CFG" --set output.dir=dmg --set dpd.s=1.25 --set integrator.steps=300 \
        --restart latest >l.log 2>&1 || { cat l.log >&2; fail "latest with a damaged newest: exit $?"; }
    grep -q "do not match their hash (file damaged); falling back to the previous checkpoint dmg/checkpoints/ckpt_100.h5" l.log ||
        fail "no fallback message"
    grep -q "Restart from dmg/checkpoints/ckpt_100.h5" l.log || fail "did not restart from 100"
    echo "ok: flipped physics parameters and a changed time are damage; latest falls back"
    ;;
earlystop)
    # the configuration comes through a FIFO, so the run waits in start-up until it is written
    mkfifo e.cfg
    "$BIN" run e.cfg --set output.dir=e --set integrator.steps=1000000 >e.log 2>&1 &
    pid=$!
    sleep 1
    kill -TERM $pid
    sleep 0.2
    timeout 10 sh -c 'cat "$1" >e.cfg' sh "$CFG" # a run that was killed never reads it
    wait $pid
    rc=$?
    [ $rc -eq 3 ] || { cat e.log >&2; fail "SIGTERM during start-up: expected exit 3, got $rc"; }
    at=$(sed -n 's/.*Stopped for restart at step \([0-9]*\) (SIGTERM or SIGUSR1).*/\1/p' e.log)
    [ -n "$at" ] && [ "$at" -ge 1 ] && [ "$at" -lt 20 ] || fail "SIGTERM during start-up: message"
    [ -e e/checkpoints/ckpt_$at.h5 ] || fail "SIGTERM during start-up: no checkpoint"
    "$BIN" run "$CFG" --set output.dir=e --set integrator.steps=40 --restart latest >e2.log 2>&1 ||
        fail "restart exited $?"
    [ "$(steps_of e)" = "0 20 40 " ] || fail "rows: $(steps_of e)"
    echo "ok: a stop requested during start-up ends at step $at with exit 3"
    ;;
progress)
    # thermo rows sparser than the progress interval: progress lines between them (issue 46
    # item 9; VESICA_PROGRESS_SECONDS shortens the 10 s of a real run)
    VESICA_PROGRESS_SECONDS=0.02 "$BIN" run "$CFG" --set output.dir=g --set integrator.steps=300 \
        --set output.thermo_interval=300 --set output.checkpoint_keep=0 >g.log 2>&1 ||
        fail "exit $?"
    n=$(grep -c '^  \.\.\. step [0-9]* of 300, .* steps/s, ETA ' g.log)
    [ "$n" -ge 2 ] || { cat g.log >&2; fail "expected progress lines between the rows, got $n"; }
    [ "$(steps_of g)" = "0 300 " ] || fail "thermo rows: $(steps_of g)"
    echo "ok: $n progress lines between two thermo rows"
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
