#!/usr/bin/env bash
# input_checks.sh CASE VESICA OUTDIR: input files (input.format) whose values or counts no
# run can use. Each refused file must exit 2 with one 'vesica: error' line naming the problem,
# quickly, and leave no output directory; a control file of the same shape runs (exit 0), so
# "no output directory" is a meaningful check. Exits 0 (pass), 1 (fail) or 77 (skip).
#
#   nonfinite   an H5MD file with a NaN or an infinite position or velocity, or an infinite
#               box edge
#   far         coordinates 1e12 to 1e308 (LAMMPS and H5MD), or image flags near the int32
#               limit: refused before they overflow the image counts; one 100 boxes out is
#               accepted
#   counts      LAMMPS headers declaring 4e9 or 1e8 atom types, 1e8 bond types, 1e15 atoms or
#               1e12 bonds in a small file, an H5MD position dataset of 1e13 rows (none
#               written): refused before anything is allocated, in seconds
set -u
case_name=$1; BIN=$2; OUT=$3
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }

# config NAME FORMAT FILE: a configuration reading FILE, output in out-NAME
config() {
    cat >"$1.cfg" <<EOF
input = { format = "$2"; file = "$3"; };
seed = 3;
species = ( { name = "A"; }, { name = "B"; } );
dpd = { a = { A = { A = 25.0; B = 30.0; }; B = { A = 30.0; B = 25.0; }; };
        gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.02; steps = 0; };
backend = "cpu";
output = { dir = "out-$1"; };
EOF
}
# lammps NAME [SED]: a data file of 50 atoms in a box of 6, edited by the sed script SED
lammps() {
    {
        printf 'input_checks\n\n50 atoms\n2 atom types\n\n0 6 xlo xhi\n0 6 ylo yhi\n0 6 zlo zhi\n\nAtoms # molecular\n\n'
        for i in $(seq 1 50); do
            echo "$i 0 $(( 1 + i % 2 )) $(( i % 6 )).25 $(( i / 6 % 6 )).5 $(( i / 36 )).75"
        done
    } | sed -e "${2:-}" >"$1.data"
    config "$1" lammps-data "$1.data"
}
# h5md NAME [PYTHON]: an H5MD file of 50 particles in a box of 6; PYTHON edits x, v, box,
# image (numpy arrays) before they are written (x = None: no particle datasets)
h5md() {
    "$PY" - "$1.h5" "${2:-}" <<'PY' || fail "cannot write $1.h5"
import sys
import h5py, numpy as np
n = 50
x = np.random.default_rng(1).uniform(0, 6, (n, 3))
v = np.zeros((n, 3))
box = np.array([6.0, 6.0, 6.0])
image = np.zeros((n, 3), dtype=np.int32)
exec(sys.argv[2])
with h5py.File(sys.argv[1], "w") as f:
    g = f.create_group("particles/all")
    g.create_group("box")["edges"] = box
    if x is None:
        sys.exit(0)
    g["position"] = x
    g["velocity"] = v
    g["image"] = image
    g["species"] = (np.arange(n) % 2).astype(np.int32)
PY
    config "$1" h5md "$1.h5"
}
# refused NAME REGEX: exit 2, one error line matching REGEX, within 10 s, out-NAME absent
refused() {
    local t0=$SECONDS rc n
    timeout 60 "$BIN" run "$1.cfg" >"$1.log" 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat "$1.log" >&2; fail "$1: expected exit 2, got $rc"; }
    [ $((SECONDS - t0)) -le 10 ] || fail "$1: took $((SECONDS - t0)) s"
    n=$(grep -c '^vesica: error' "$1.log")
    [ "$n" -eq 1 ] || { cat "$1.log" >&2; fail "$1: expected one error line, got $n"; }
    grep '^vesica: error' "$1.log"
    grep -q "^vesica: error: .*$2" "$1.log" || fail "$1: message does not match '$2'"
    [ ! -e "out-$1" ] || fail "$1: the output directory was created"
}
accepted() {
    "$BIN" run "$1.cfg" >"$1.log" 2>&1 || { cat "$1.log" >&2; fail "$1: exit $?"; }
    [ -e "out-$1/thermo.csv" ] || fail "$1: no thermo.csv"
}

case $case_name in
nonfinite)
    "$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "skip: no h5py/numpy"; exit 77; }
    h5md good
    accepted good
    h5md nan 'x[7, 1] = np.nan'
    refused nan "nan.h5: dataset /particles/all/position: row 7 has a non-finite value (nan along y)"
    h5md inf 'x[0, 2] = -np.inf'
    refused inf "inf.h5: dataset /particles/all/position: row 0 has a non-finite value (-inf along z)"
    h5md vel 'v[3, 0] = np.inf'
    refused vel "vel.h5: dataset /particles/all/velocity: row 3 has a non-finite value (inf along x)"
    h5md box 'box[1] = np.inf'
    refused box "box.h5: dataset /particles/all/box/edges: expected finite edges > 0"
    echo "ok: NaN and infinite values of an H5MD file exit 2 before the output directory"
    ;;
far)
    "$PY" -c 'import h5py, numpy' 2>/dev/null || { echo "skip: no h5py/numpy"; exit 77; }
    lammps near 's/^7 0 2 .*/7 0 2 600.5 -594.25 3.0/'
    accepted near
    lammps far12 's/^7 0 2 .*/7 0 2 1e12 1.0 1.0/'
    refused far12 "far12.data: atom 7 is 1.67e+11 box lengths from the box along x"
    lammps far308 's/^9 0 2 .*/9 0 2 1.0 1.0 -1e308/'
    refused far308 "far308.data: atom 9 is -1.67e+307 box lengths from the box along z"
    lammps flags 's/^5 0 2 .*/5 0 2 1.0 1.0 1.0 0 2147483647 0/'
    refused flags "flags.data: atom 5 is 2.15e+09 box lengths from the box along y"
    h5md h5far 'x[4, 0] = 1e308'
    refused h5far "h5far.h5: atom 5 is 1.67e+307 box lengths from the box along x"
    h5md h5img 'image[2, 2] = -2147483647; x[2, 2] = -7.0'
    refused h5img "h5img.h5: atom 3 is -2.15e+09 box lengths from the box along z"
    echo "ok: coordinates far outside the box exit 2 before they reach the image counts"
    ;;
counts)
    lammps control
    accepted control
    lammps types4e9 's/^2 atom types/4000000000 atom types/'
    refused types4e9 "types4e9.data:4: 4000000000 atom types: more than the 1000000 a data file may declare"
    lammps types1e8 's/^2 atom types/100000000 atom types/'
    refused types1e8 "types1e8.data:4: 100000000 atom types: more than the 1000000"
    lammps btypes 's/^2 atom types/2 atom types\n100000000 bond types/'
    refused btypes "btypes.data:5: 100000000 bond types: more than the 1000000"
    lammps atoms 's/^50 atoms/1000000000000000 atoms/'
    refused atoms "atoms.data:3: the header declares 1000000000000000 atoms, more than the file's [0-9]* bytes can hold"
    lammps bonds 's/^50 atoms/50 atoms\n1000000000000 bonds/'
    refused bonds "bonds.data:4: the header declares 1000000000000 bonds, more than"
    # an H5MD position dataset of 1e13 rows, none written: a file of a few kB
    if "$PY" -c 'import h5py, numpy' 2>/dev/null; then
        h5md huge 'x = None'
        "$PY" -c 'import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["particles/all"].create_dataset("position", shape=(10**13, 3), dtype="f8", chunks=(1024, 3))' huge.h5
        refused huge "huge.h5: 10000000000000 particles need about [0-9.]* GiB to read, more than this machine's"
    fi
    echo "ok: absurd header counts exit 2 at once"
    ;;
*)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
