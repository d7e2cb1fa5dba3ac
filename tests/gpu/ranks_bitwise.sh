#!/usr/bin/env bash
# ranks_bitwise.sh CASE VESICA OUTDIR: mixed-precision GPU runs are the same bits on any rank
# count. Every position, box edge and brick centre lies on one grid of the whole box
# (src/core/position_grid.h) and the force, energy and virial sums are fixed point, so no step
# depends on how the box is split. CASE:
#   fluid_skin0, fluid_skin0.3  a Groot-Warren fluid, 651 particles in a 6.1 x 6 x 5.93 box
#                               (off any grid: the engine rounds it), neighbor.skin 0 or 0.3
#   chains_skin0, chains_skin0.3
#                               tests/molecules/chains.cfg (harmonic and FENE bonds, both angle
#                               styles) in a 6.9 x 6.8 x 6.7 box: 2 x 2 x 2 bricks of >= 3.3
#   lj_skin0.3                  the LJ liquid's pair style alone (configs/lj-liquid.cfg:
#                               r_c = 2.5, NVE) from an fcc lattice of 500 at rho 0.8442 (box
#                               8.40: 2 x 2 x 2 bricks of 4.2), the Newton walk's longest reach
#   any of these + _half        with neighbor.gpu_builder = "half" (the Newton kernel's half
#                               list; the default builder otherwise)
# 200 steps on 1, 2, 4 and 8 ranks (fluid_skin0 on the GPU: 2 ranks also without the slab
# exchange, 3 x 1 x 1 slabs, and 2-rank slabs along y and z): thermo.csv (every column is
# physics, none is a timing) the same bytes and the final checkpoint's /particles, rows sorted
# by tag, the same bits as on 1 rank; on the GPU, 200 steps on 1 rank with no checkpoint on
# the way (the canonical state a checkpoint leaves the run in changes no bit) and with the
# ghosts' number read back on every step, left on the device under the smallest grids, or
# without CUDA graphs; and 100 steps on 2 ranks continued with --restart latest on 4 ranks to
# step 200: the same thermo.csv and final /particles. Prints one "ok:" line, or each
# comparison's first difference and exits 1.
# VS_BITWISE_BACKEND=cpu runs it all on the CPU backend (always double, no position grid, but
# exact sums: the same bits on any rank count there too, tests/io/io_test.sh ranks).
set -u
CASE=$1; BIN=$2; OUT=$3
BACKEND=${VS_BITWISE_BACKEND:-gpu}
case $BIN in /*) ;; */*) BIN=$PWD/$BIN ;; esac # the runs are made in OUTDIR
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

BUILDER=auto
case $CASE in *_half) BUILDER=half; CASE=${CASE%_half} ;; esac
case $CASE in
fluid_skin*)
    SKIN=${CASE#fluid_skin}
    CFG=$PWD/fluid.cfg
    cat >"$CFG" <<'EOF'
# Groot-Warren DPD fluid (configs/dpd-fluid.cfg) in a small box, two edges of which (6.1 and
# 5.93) lie on no power-of-two grid.
box = [6.1, 6.0, 5.93];
density = 3.0;
seed = 11;
species = ( { name = "W"; fraction = 1.0; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; rc = 1.0; };
integrator = { dt = 0.02; lambda = 0.65; steps = 200; };
EOF
    ;;
chains_skin*)
    SKIN=${CASE#chains_skin}
    CFG=$HERE/molecules/chains.cfg
    BOX="[6.9, 6.8, 6.7]"
    ;;
lj_skin*)
    SKIN=${CASE#lj_skin}
    CFG=$PWD/lj.cfg
    # 5 x 5 x 5 fcc cells of edge (4 / 0.8442)^(1/3), a LAMMPS data file written by awk
    awk 'BEGIN { n = 5; a = (4 / 0.8442) ^ (1 / 3); L = n * a
        printf "fcc lattice of the LJ liquid\n\n%d atoms\n1 atom types\n\n", 4 * n ^ 3
        for (d = 1; d <= 3; ++d)
            printf "0.0 %.12f %slo %shi\n", L, substr("xyz", d, 1), substr("xyz", d, 1)
        printf "\nMasses\n\n1 1.0\n\nAtoms # molecular\n\n"
        split("0 0 0 0.5 0.5 0 0.5 0 0.5 0 0.5 0.5", b, " "); id = 0
        for (i = 0; i < n; ++i) for (j = 0; j < n; ++j)
          for (k = 0; k < n; ++k) for (s = 0; s < 4; ++s)
            printf "%d 0 1 %.12f %.12f %.12f\n", ++id, (i + b[3 * s + 1] + 0.25) * a,
                (j + b[3 * s + 2] + 0.25) * a, (k + b[3 * s + 3] + 0.25) * a }' >lj.data
    cat >"$CFG" <<'EOF'
# the LJ liquid (configs/lj-liquid.cfg) as NVE velocity Verlet: the lj style alone
input = { format = "lammps-data"; file = "lj.data"; };
seed = 7;
species = ( { name = "A"; mass = 1.0; } );
dpd = { a = { A = { A = 0.0; }; }; gamma = 0.0; kT = 0.72; rc = 2.5; };
pair = ( { style = "lj"; rc = 2.5; shift = "off"; tail = "on";
           coeff = { A = { A = { epsilon = 1.0; sigma = 1.0; }; }; }; } );
integrator = { dt = 0.005; lambda = 0.5; steps = 200; };
EOF
    ;;
*) fail "unknown case '$CASE' (fluid_skin0, fluid_skin0.3, chains_skin0, chains_skin0.3, lj_skin0.3)" ;;
esac
sets=(--set "backend=$BACKEND" --set precision=mixed --set "neighbor.skin=$SKIN"
      --set "neighbor.gpu_builder=$BUILDER"
      --set output.thermo_interval=10 --set output.trajectory_interval=0
      --set output.checkpoint_interval=50 --set output.checkpoint_keep=8)
[ -n "${BOX:-}" ] && sets+=(--set "box=$BOX")

# run LOG DIR RANKS STEPS [ARGS...]: vesica on RANKS ranks to step STEPS, output in DIR
run() {
    local log=$1 dir=$2 ranks=$3 steps=$4; shift 4
    mpiexec --oversubscribe -n "$ranks" "$BIN" run "$CFG" "${sets[@]}" --set "output.dir=$dir" \
        --set "integrator.steps=$steps" "$@" >"$log.log" 2>&1 ||
        { rc=$?; cat "$log.log" >&2; fail "$log: $ranks ranks: exit $rc"; }
    grep -q "^Ranks: $ranks as" "$log.log" || fail "$log: the log does not say $ranks ranks"
    grep -q "^Ranks: .*; backend $BACKEND " "$log.log" || fail "$log: not on the $BACKEND backend"
}

# same_thermo A B LABEL: the same bytes, else the first differing row's differing columns
same_thermo() {
    cmp -s "$1" "$2" && return 0
    awk -F, -v label="$3" 'NR == FNR { a[FNR] = $0; n = FNR; next }
        FNR == 1 { split($0, col, ",") }
        !(FNR in a) { print label ": thermo.csv has extra rows from step " $1; bad = 1; exit }
        a[FNR] != $0 { m = split(a[FNR], v, ","); s = label ": thermo.csv differs at step " v[1]
            for (k = 1; k <= (NF > m ? NF : m); ++k)
                if ((v[k] "") != ($k "")) s = s "; " col[k] " " v[k] " vs " $k
            print s; bad = 1; exit }
        END { if (!bad && FNR < n) print label ": thermo.csv ends after row " FNR " of " n }' \
        "$1" "$2" >&2
    return 1
}

# same_particles A.h5 B.h5 LABEL: every /particles dataset the same bits, rows sorted by tag
same_particles() {
    if ! "$PY" -c 'import h5py' 2>/dev/null; then
        # no h5py (the GPU machine): h5diff, rows in file order (= tag order in checkpoints),
        # the first difference of each dataset that differs
        local out
        out=$(h5diff -r -n 1 "$1" "$2" /particles /particles 2>&1) && return 0
        echo "$out" | awk '/^(dataset|group) *:/ { head = $0; next }
            /^0 differences found/ { head = ""; next }
            { if (head != "") print head; head = ""; print }' >&2
        echo "$3: /particles differ (h5diff above)" >&2
        return 1
    fi
    "$PY" - "$@" <<'PY'
import sys
import h5py, numpy as np
a, b, label = sys.argv[1:4]
np.set_printoptions(precision=17)
with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
    ga, gb = fa["particles"], fb["particles"]
    if sorted(ga) != sorted(gb):
        sys.exit(f"{label}: /particles holds {sorted(ga)} vs {sorted(gb)}")
    ta, tb = ga["tag"][:], gb["tag"][:]
    oa, ob = np.argsort(ta, kind="stable"), np.argsort(tb, kind="stable")
    first = ["position", "velocity", "predicted_velocity", "force", "image"]
    names = [n for n in first if n in ga] + sorted(n for n in ga if n not in first)
    bad = []
    for name in names:
        x, y = ga[name][:][oa], gb[name][:][ob]
        if x.shape != y.shape or x.dtype != y.dtype:
            sys.exit(f"{label}: /particles/{name}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
        # bits, not values: -0.0 and 0.0 differ, NaN equals itself
        xb = np.ascontiguousarray(x).view(np.uint8).reshape(len(x), -1)
        yb = np.ascontiguousarray(y).view(np.uint8).reshape(len(y), -1)
        rows = np.flatnonzero((xb != yb).any(axis=1))
        if len(rows) and not bad:
            r = rows[0]
            msg = (f"{label}: /particles/{name} differs in {len(rows)} of {len(x)} rows, "
                   f"first at tag {ta[oa][r]}: {x[r]!r} vs {y[r]!r}")
        if len(rows):
            bad.append(name)
    if bad:
        sys.exit(msg + f" (differing: {', '.join(bad)})")
PY
}

# 200 steps on 1 rank: the reference
run np1 np1 1 200
want=$(seq -s ' ' 0 10 200)
got=$(awk -F, 'NR > 1 { printf "%s%s", sep, $1; sep = " " }' np1/thermo.csv)
[ "$got" = "$want" ] || fail "np1/thermo.csv rows at steps '$got', expected '$want'"
ref=np1/checkpoints/ckpt_200.h5
[ -e "$ref" ] || fail "no $ref"
# the comparisons can fail: the state does change between checkpoints
! h5diff -q np1/checkpoints/ckpt_150.h5 "$ref" /particles/position /particles/position ||
    fail "the positions did not change between steps 150 and 200"

bad=0
# 200 steps on 1 rank with no checkpoint on the way (one at the end). Not on the CPU backend:
# its positions are doubles off any grid, kept unwrapped between list builds, and the
# canonical state of a checkpoint wraps those that crossed a face since the last build, so
# the next drift rounds differently ((x - L) + dx against (x + dx) - L; README, Restarts)
if [ "$BACKEND" = gpu ]; then
    run nock nock 1 200 --set output.checkpoint_interval=0
    [ ! -e nock/checkpoints/ckpt_100.h5 ] || fail "nock wrote a checkpoint on the way"
    same_thermo np1/thermo.csv nock/thermo.csv "no checkpoints on the way" || bad=1
    [ -e nock/checkpoints/ckpt_200.h5 ] || fail "no nock/checkpoints/ckpt_200.h5"
    same_particles "$ref" nock/checkpoints/ckpt_200.h5 "no checkpoints on the way, step 200" ||
        bad=1
    # one rank keeps the ghosts' number on the device (a small brick at skin 0, with or
    # without bonds) and runs such steps as CUDA graphs: the same bits with the count read
    # back on every step, with grids that cover the owned particles only (the kernels stride
    # over the ghosts), and with every step launched call by call
    # (select: a brick above the near-face select's threshold still keeps its ghosts on the
    # device; select_host: and with the count read back, the near-face select's own path;
    # candidates: the on-device pass lists its candidates by the face flags first, as from
    # 2^19 particles; zfirst: the cell index stores the lowest z layer last, the slab
    # overlap's order)
    for mode in "host VESICA_GPU_GHOSTS_ON_DEVICE=0" "strided VESICA_GPU_GHOST_ESTIMATE=0" \
        "eager VESICA_GPU_GRAPHS=0" "select VESICA_GPU_IMAGE_SELECT_ABOVE=0" \
        "candidates VESICA_GPU_IMAGE_CANDIDATES_FROM=0" "zfirst VESICA_GPU_Z_FIRST=1" \
        "select_host VESICA_GPU_IMAGE_SELECT_ABOVE=0 VESICA_GPU_GHOSTS_ON_DEVICE=0"; do
        name=${mode%% *}
        # shellcheck disable=SC2086 # the mode's assignments, one word each
        (export ${mode#* }; run "$name" "$name" 1 200 --set output.checkpoint_interval=0) ||
            exit 1
        same_thermo np1/thermo.csv "$name/thermo.csv" "1 rank, $name" || bad=1
        same_particles "$ref" "$name/checkpoints/ckpt_200.h5" "1 rank, $name" || bad=1
    done
    case $CASE in *_skin0)
        for name in np1 select; do
            grep -q "^GPU graphs: [1-9]" $name.log ||
                fail "$name ran no step as a graph (one rank at skin 0 should)"
        done ;;
    esac
fi

for p in 2 4 8; do
    run np$p np$p "$p" 200
    same_thermo np1/thermo.csv np$p/thermo.csv "$p ranks" || bad=1
    [ -e np$p/checkpoints/ckpt_200.h5 ] || fail "no np$p/checkpoints/ckpt_200.h5"
    same_particles "$ref" np$p/checkpoints/ckpt_200.h5 "$p ranks, step 200" || bad=1
done

# the slab exchange (gpu/gpu_slab.cu: bricks in slabs over the peer transport, no skin, no
# read-back in the step) against the staged image path, and on a ring of three slabs (the lower
# and upper neighbours differ)
if [ "$BACKEND" = gpu ] && [ "$CASE" = fluid_skin0 ]; then
    grep -q "slab exchange" np2.log || fail "np2 did not take the slab exchange: $(grep '^GPU halo' np2.log)"
    (export VESICA_GPU_SLAB_ABOVE=0; run noslab noslab 2 200) || exit 1
    ! grep -q "slab exchange" noslab.log || fail "VESICA_GPU_SLAB_ABOVE=0 did not turn it off"
    same_thermo np1/thermo.csv noslab/thermo.csv "2 ranks without the slab exchange" || bad=1
    same_particles "$ref" noslab/checkpoints/ckpt_200.h5 "2 ranks without the slab exchange" ||
        bad=1
    # the pack and fill spread over blocks (as with more leavers than one block's round)
    (export VESICA_GPU_SLAB_PACK_BLOCKS_ABOVE=-1; run packblocks packblocks 2 200) || exit 1
    same_thermo np1/thermo.csv packblocks/thermo.csv "2 ranks, the pack over blocks" || bad=1
    same_particles "$ref" packblocks/checkpoints/ckpt_200.h5 "2 ranks, the pack over blocks" ||
        bad=1
    run slab3 slab3 3 200 --set "decomposition=[3, 1, 1]"
    grep -q "slab exchange" slab3.log || fail "slab3 did not take the slab exchange"
    same_thermo np1/thermo.csv slab3/thermo.csv "3 x 1 x 1 slabs" || bad=1
    same_particles "$ref" slab3/checkpoints/ckpt_200.h5 "3 x 1 x 1 slabs" || bad=1
    # slabs along y and z: the slab path takes any one split dimension
    for dec in "slaby 1, 2, 1" "slabz 1, 1, 2"; do
        name=${dec%% *}
        run "$name" "$name" 2 200 --set "decomposition=[${dec#* }]"
        grep -q "slab exchange" "$name.log" || fail "$name did not take the slab exchange"
        same_thermo np1/thermo.csv "$name/thermo.csv" "slabs [${dec#* }]" || bad=1
        same_particles "$ref" "$name/checkpoints/ckpt_200.h5" "slabs [${dec#* }]" || bad=1
    done
fi

# 100 steps on 2 ranks, then to step 200 on 4 from the checkpoint of step 100
run legs legs 2 100
[ -e legs/checkpoints/ckpt_100.h5 ] || fail "the first leg wrote no checkpoint at step 100"
run legs2 legs 4 200 --restart latest
grep -q "^Restart from legs/checkpoints/ckpt_100.h5" legs2.log ||
    fail "the restart is not from legs/checkpoints/ckpt_100.h5: $(grep '^Restart' legs2.log)"
same_thermo np1/thermo.csv legs/thermo.csv "2 ranks to step 100, 4 from there" || bad=1
[ -e legs/checkpoints/ckpt_200.h5 ] || fail "no legs/checkpoints/ckpt_200.h5"
same_particles "$ref" legs/checkpoints/ckpt_200.h5 "2 ranks to step 100, 4 from there" || bad=1

[ "$bad" -eq 0 ] || fail "$CASE (backend $BACKEND, precision=mixed): the runs differ (above)"
echo "ok: $CASE (backend $BACKEND, precision=mixed): thermo.csv (every 10 steps) and the" \
    "step-200 checkpoint's /particles bit-identical on 1, 2, 4 and 8 ranks, through a restart" \
    "from 2 on 4 ranks$([ "$BACKEND" = gpu ] && echo ", and without checkpoints on the way")"
