#!/usr/bin/env bash
# ckpt_damage.sh CASE VESICA OUTDIR: damage that HDF5's Fletcher32 checksums do not see
# (issue 46 item 1). Exits 0 (pass), 1 (fail) or 77 (skip).
#
#   zeroed     a chunk of each particle dataset and of config_text zeroed
#              together with its checksum (which zeros pass): --restart PATH exits 2 naming
#              the dataset; --restart latest falls back to the previous checkpoint with one
#              warning line; a flipped bit in config_text is a checksum error, not ignored;
#              a damaged superblock or root group is damage, not an unfinished write
#   topology   the same for the molecule, bond, angle datasets of a run with molecules; a
#              file of format 2 (no content hash) is read with one warning, and its range and
#              symmetry checks refuse a bond listed by one bead only, a partner out of range
#              and a negative bond type
set -u
case_name=$1; BIN=$2; OUT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
"$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "skip: no h5py/numpy"; exit 77; }
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
one_error() {
    local n
    n=$(grep -c '^vesica: error' "$1")
    [ "$n" -eq 1 ] || { cat "$1" >&2; fail "$1: expected one error line, got $n"; }
    grep '^vesica: error' "$1"
}
# zero_chunk SRC DST DATASET: DST is SRC with the first chunk of DATASET (data and
# checksum) zeroed
zero_chunk() {
    "$PY" - "$1" "$2" "$3" <<'PY' || fail "cannot zero a chunk of $3"
import shutil, sys, h5py
src, dst, name = sys.argv[1:4]
shutil.copy(src, dst)
with h5py.File(dst, "r") as f:
    info = f[name].id.get_chunk_info(0)
with open(dst, "r+b") as f:
    f.seek(info.byte_offset)
    f.write(bytes(info.size))
PY
}
# refused CFG FILE REGEX ARGS...: --restart FILE exits 2 with one error line matching REGEX
refused() {
    local cfg=$1 file=$2 regex=$3 log=${2%.h5}.log
    shift 3
    "$BIN" run "$cfg" "$@" --restart "$file" >"$log" 2>&1
    local rc=$?
    [ $rc -eq 2 ] || { cat "$log" >&2; fail "$file: expected exit 2, got $rc"; }
    one_error "$log" | grep -q -- "$regex" || fail "$file: message does not match '$regex'"
}

case $case_name in
zeroed)
    CFG=$HERE/tiny.cfg
    set_=(--set output.dir=z --set output.trajectory_interval=0)
    "$BIN" run "$CFG" "${set_[@]}" >z.log 2>&1 || fail "run exited $?"
    for ds in tag species position velocity predicted_velocity force image; do
        zero_chunk z/checkpoints/ckpt_200.h5 "$ds.h5" "particles/$ds"
        refused "$CFG" "$ds.h5" "$ds.h5: dataset particles/$ds does not match its content hash (file damaged)" "${set_[@]}"
    done
    for ds in config_text; do
        zero_chunk z/checkpoints/ckpt_200.h5 "$ds.h5" "$ds"
        refused "$CFG" "$ds.h5" "$ds.h5: dataset $ds does not match its content hash (file damaged)" "${set_[@]}"
    done
    # a flipped bit in config_text: a checksum error the restart does not ignore
    "$PY" - <<'PY' || fail "cannot flip a bit of config_text"
import shutil, h5py
shutil.copy("z/checkpoints/ckpt_200.h5", "flip.h5")
with h5py.File("flip.h5", "r") as f:
    off = f["config_text"].id.get_chunk_info(0).byte_offset
b = bytearray(open("flip.h5", "rb").read())
b[off + 10] ^= 0x04
open("flip.h5", "wb").write(b)
PY
    refused "$CFG" flip.h5 "flip.h5: dataset config_text missing or unreadable (checksum mismatch: file corrupt)" "${set_[@]}"
    # the root group's address in the superblock, and the root group's object header
    "$PY" - <<'PY' || fail "cannot damage the superblock"
import shutil, h5py
shutil.copy("z/checkpoints/ckpt_200.h5", "super.h5")
b = bytearray(open("super.h5", "rb").read())
assert b[:8] == b"\x89HDF\r\n\x1a\n"
b[8:48] = bytes(40)   # versions, sizes, the group B-tree constants, the base address
open("super.h5", "wb").write(b)
PY
    refused "$CFG" super.h5 "super.h5: not a readable HDF5 file" "${set_[@]}"
    ! grep -q "did not finish" super.log || fail "a damaged superblock reads as an unfinished write"
    # latest: a zeroed newest falls back, with one warning line
    cp velocity.h5 z/checkpoints/ckpt_200.h5
    "$BIN" run "$CFG" "${set_[@]}" --restart latest >latest.log 2>&1 ||
        { cat latest.log >&2; fail "latest with a zeroed newest: exit $?"; }
    [ "$(grep -c 'falling back' latest.log)" -eq 1 ] || fail "expected one fallback warning"
    grep -q "particles/velocity does not match its content hash (file damaged); falling back to the previous checkpoint z/checkpoints/ckpt_100.h5" latest.log ||
        fail "no fallback message"
    grep -q "Restart from z/checkpoints/ckpt_100.h5" latest.log || fail "did not restart from 100"
    echo "ok: zeroed chunks, a flipped bit of config_text and a damaged superblock are refused; latest falls back"
    ;;
topology)
    CFG=$HERE/../molecules/chains.cfg
    set_=(--set output.dir=m --set integrator.steps=20 --set output.checkpoint_interval=10)
    "$BIN" run "$CFG" "${set_[@]}" >m.log 2>&1 || fail "run exited $?"
    for ds in molecule bonds bond_types angles angle_types; do
        zero_chunk m/checkpoints/ckpt_20.h5 "$ds.h5" "particles/$ds"
        refused "$CFG" "$ds.h5" "$ds.h5: dataset particles/$ds does not match its content hash (file damaged)" "${set_[@]}"
    done
    # format 2 (before the content hash): read with one warning
    "$PY" - <<'PY' || fail "cannot make format-2 files"
import shutil, h5py, numpy as np
def old(name, edit=None):
    shutil.copy("m/checkpoints/ckpt_20.h5", name)
    with h5py.File(name, "r+") as f:
        del f["content_hash"]
        f.attrs["format_version"] = np.int64(2)
        if edit:
            edit(f)
def one_sided(f):   # the first bonded bead's first bond now names another partner
    b = f["particles/bonds"][:]
    i = int(np.nonzero(b[:, 0] >= 0)[0][0])
    j = int(b[i, 0])
    k = next(k for k in range(len(b)) if k not in (i, j) and k not in b[i])
    b[i, 0] = k
    f["particles/bonds"][:] = b
def out_of_range(f):
    b = f["particles/bonds"][:]
    b[np.nonzero(b[:, 0] >= 0)[0][0], 0] = len(b) + 5
    f["particles/bonds"][:] = b
def negative_type(f):
    t = f["particles/bond_types"][:]
    b = f["particles/bonds"][:]
    t[np.nonzero(b[:, 0] >= 0)[0][0], 0] = -3
    f["particles/bond_types"][:] = t
old("old.h5")
old("onesided.h5", one_sided)
old("range.h5", out_of_range)
old("negtype.h5", negative_type)
PY
    "$BIN" run "$CFG" "${set_[@]}" --restart old.h5 >old.log 2>&1 || { cat old.log >&2; fail "format 2: exit $?"; }
    [ "$(grep -c 'has no content hash' old.log)" -eq 1 ] || fail "format 2: expected one warning"
    refused "$CFG" onesided.h5 "onesided.h5: a bond is not listed by both its beads (file damaged)" "${set_[@]}"
    refused "$CFG" range.h5 "range.h5: particle [0-9]* has a molecule id, bond, angle or dihedral out of range (file damaged)" "${set_[@]}"
    refused "$CFG" negtype.h5 "negtype.h5: particle [0-9]* has a molecule id, bond, angle or dihedral out of range (file damaged)" "${set_[@]}"
    echo "ok: zeroed topology chunks refused; format 2 read with a warning, its bonds checked"
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
