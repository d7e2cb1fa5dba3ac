#!/usr/bin/env bash
# aniso_sa_run.sh: the state points of issue 49's self-assembly comparisons (docs/validation.md,
# "Soft anisotropic particles"): the soft disk study (configs/aniso-sa-disk.cfg varied in mu,
# alpha, nu) and the soft Janus study (configs/aniso-sa-janus.cfg varied in beta, density,
# kT), all runs at once, each stopped cleanly by run.walltime if it has not finished; the
# final state of each run is kept as OUT/frames/NAME.npz (scaling/tools/aniso_sa_classify.py
# frame) with its thermo.csv and log, and the runs' folders are removed (they hold the
# trajectories and checkpoints).
#
#   aniso_sa_run.sh VESICA OUT [--tiny] [--backend cpu|gpu] [--walltime HOURS] [--jobs N]
#                   [--gpus N] [--aligned] [--dense] [--wide] [--only PATTERN]
#
# --tiny: a few hundred particles and 200 steps per state point on the CPU (a dry run of the
# whole driver); --walltime: run.walltime of each run (default 0.03 h); --jobs: runs at
# once (default all); --gpus: spread the runs over N GPUs of the host, round robin
# (CUDA_VISIBLE_DEVICES; default: leave it as it is); --aligned: add the disk runs from an
# aligned start (ALIGNED_POINTS); --dense: add the Janus runs at densities 2 and 3
# (DENSE_POINTS); --wide: add the Janus runs with beta above 90 (WIDE_POINTS); --only: the state points whose names match a shell pattern
# (e.g. 'disk-*'). Classify and draw the returned frames with
#   aniso_sa_classify.py disk OUT/frames/disk-*.npz
#   aniso_sa_classify.py janus OUT/frames/janus-*.npz --beta ... (one per frame)
# (the printed table of state points, STATE_POINTS below, names each frame's parameters).
# The frames are written by $PYTHON (default python3), which needs numpy and h5py.
set -u
if [ $# -lt 2 ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
VESICA=$1
OUT=$2
shift 2
TINY=0
BACKEND=gpu
WALL=0.03
JOBS=0
GPUS=0
ALIGNED=0
DENSE=0
WIDE=0
ONLY=
while [ $# -gt 0 ]; do
    case $1 in
        --tiny) TINY=1; BACKEND=cpu ;;
        --backend) BACKEND=$2; shift ;;
        --walltime) WALL=$2; shift ;;
        --jobs) JOBS=$2; shift ;;
        --gpus) GPUS=$2; shift ;;
        --aligned) ALIGNED=1 ;;
        --dense) DENSE=1 ;;
        --wide) WIDE=1 ;;
        --only) ONLY=$2; shift ;;
        *) echo "aniso_sa_run.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=${PYTHON:-python3}
mkdir -p "$OUT/frames"

# name config key=value ... (the overrides of the config's base state point)
STATE_POINTS=(
    "disk-mu0.60 aniso-sa-disk.cfg aniso.coeff.J.J.mu=0.6"
    "disk-mu0.80 aniso-sa-disk.cfg aniso.coeff.J.J.mu=0.8"
    "disk-mu0.90 aniso-sa-disk.cfg aniso.coeff.J.J.mu=0.9"
    "disk-mu0.95 aniso-sa-disk.cfg"
    "disk-mu0.95-alpha50 aniso-sa-disk.cfg aniso.coeff.J.J.alpha=50.0"
    "disk-mu0.95-nu4 aniso-sa-disk.cfg aniso.coeff.J.J.nu=4.0"
    "janus-b45-rho0.5-T0.3 aniso-sa-janus.cfg aniso.coeff.J.J.beta=45.0"
    "janus-b60-rho0.5-T0.3 aniso-sa-janus.cfg aniso.coeff.J.J.beta=60.0"
    "janus-b75-rho0.5-T0.3 aniso-sa-janus.cfg aniso.coeff.J.J.beta=75.0"
    "janus-b90-rho0.5-T0.3 aniso-sa-janus.cfg"
    "janus-b90-rho1.0-T0.3 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0]"
    "janus-b90-rho1.4-T0.3 aniso-sa-janus.cfg density=1.4 box=[22.0,22.0,22.0]"
    "janus-b90-rho1.0-T0.6 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] dpd.kT=0.6"
    "janus-b90-rho1.0-T1.0 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] dpd.kT=1.0"
)
# --aligned: the disk state points again from random positions with every normal along z
# (start=aligned), whether the columns order into one hexagonal domain when the directions
# need not anneal first
ALIGNED_POINTS=(
    "disk-mu0.60-aligned aniso-sa-disk.cfg start=aligned aniso.coeff.J.J.mu=0.6"
    "disk-mu0.95-aligned aniso-sa-disk.cfg start=aligned"
)
# --dense: the Janus particles at the densities of GALAMOST's benchmark (2 and 3) and colder,
# where micelles have no room
DENSE_POINTS=(
    "janus-b90-rho2.0-T0.3 aniso-sa-janus.cfg density=2.0 box=[20.0,20.0,20.0]"
    "janus-b90-rho3.0-T0.3 aniso-sa-janus.cfg density=3.0 box=[17.0,17.0,17.0]"
    "janus-b90-rho2.0-T0.15 aniso-sa-janus.cfg density=2.0 box=[20.0,20.0,20.0] dpd.kT=0.15"
    "janus-b90-rho3.0-T0.15 aniso-sa-janus.cfg density=3.0 box=[17.0,17.0,17.0] dpd.kT=0.15"
    "janus-b75-rho2.0-T0.3 aniso-sa-janus.cfg density=2.0 box=[20.0,20.0,20.0] aniso.coeff.J.J.beta=75.0"
    "janus-b75-rho3.0-T0.3 aniso-sa-janus.cfg density=3.0 box=[17.0,17.0,17.0] aniso.coeff.J.J.beta=75.0"
)
# --wide: Janus patches larger than a hemisphere (beta above 90), where two particles side by
# side in a leaflet attract
WIDE_POINTS=(
    "janus-b105-rho1.0-T0.3 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] aniso.coeff.J.J.beta=105.0"
    "janus-b120-rho1.0-T0.3 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] aniso.coeff.J.J.beta=120.0"
    "janus-b135-rho1.0-T0.3 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] aniso.coeff.J.J.beta=135.0"
    "janus-b150-rho1.0-T0.3 aniso-sa-janus.cfg density=1.0 box=[24.0,24.0,24.0] aniso.coeff.J.J.beta=150.0"
    "janus-b120-rho0.5-T0.3 aniso-sa-janus.cfg aniso.coeff.J.J.beta=120.0"
    "janus-b135-rho0.5-T0.3 aniso-sa-janus.cfg aniso.coeff.J.J.beta=135.0"
)

one() {
    local name=$1 cfg=$2
    shift 2
    local sets=(--set "backend=$BACKEND" --set "run.walltime=$WALL" --set "output.dir=$OUT/$name")
    local kv aligned=0 cfg_path="$ROOT/configs/$cfg"
    for kv in "$@"; do
        if [ "$kv" = start=aligned ]; then aligned=1; else sets+=(--set "$kv"); fi
    done
    local size=()
    if [ "$TINY" = 1 ]; then
        sets+=(--set integrator.steps=200
               --set output.trajectory_interval=100 --set output.thermo_interval=50)
        size=(--set "box=[6.0,6.0,6.0]")
    fi
    if [ "$aligned" = 1 ]; then # step 0 of the same run, every direction set to z
        "$VESICA" run "$ROOT/configs/$cfg" "${sets[@]}" "${size[@]}" --set integrator.steps=0 \
            --set "output.dir=$OUT/$name-start" > "$OUT/$name.log" 2>&1
        "$PY" -c 'import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    n = f["particles/all/orientation/value"]
    n[...] = [0.0, 0.0, 1.0]' "$OUT/$name-start/traj.h5md" >> "$OUT/$name.log" 2>&1
        sets+=(--set input.format=h5md --set "input.file=$OUT/$name-start/traj.h5md")
        # the file gives the box and the particles
        sed -e '/^box *=/d' -e '/^density *=/d' "$ROOT/configs/$cfg" > "$OUT/$name-start/run.cfg"
        cfg_path="$OUT/$name-start/run.cfg"
        size=()
    fi
    "$VESICA" run "$cfg_path" "${sets[@]}" "${size[@]}" >> "$OUT/$name.log" 2>&1
    local rc=$?
    local step=none
    if "$PY" "$HERE/aniso_sa_classify.py" frame "$OUT/$name" "$OUT/frames/$name.npz" \
        >> "$OUT/$name.log" 2>&1; then
        step=$(tail -n 1 "$OUT/$name.log" | sed 's/.*step //')
        cp "$OUT/$name/thermo.csv" "$OUT/frames/$name.thermo.csv"
        cp "$OUT/$name/perf.json" "$OUT/frames/$name.perf.json" 2>/dev/null
        rm -rf "${OUT:?}/$name" "${OUT:?}/$name-start"
    fi
    echo "$name exit $rc final step $step"
}

[ "$ALIGNED" = 1 ] && STATE_POINTS+=("${ALIGNED_POINTS[@]}")
[ "$DENSE" = 1 ] && STATE_POINTS+=("${DENSE_POINTS[@]}")
[ "$WIDE" = 1 ] && STATE_POINTS+=("${WIDE_POINTS[@]}")
if [ -n "$ONLY" ]; then # names matching the pattern
    kept=()
    for sp in "${STATE_POINTS[@]}"; do
        case ${sp%% *} in $ONLY) kept+=("$sp") ;; esac
    done
    STATE_POINTS=("${kept[@]}")
fi
echo "state points (name config overrides):"
printf '  %s\n' "${STATE_POINTS[@]}"
k=0
for sp in "${STATE_POINTS[@]}"; do
    if [ "$GPUS" -gt 0 ]; then
        export CUDA_VISIBLE_DEVICES=$((k % GPUS))
    fi
    k=$((k + 1))
    # shellcheck disable=SC2086
    one $sp > "$OUT/frames/${sp%% *}.status" &
    if [ "$JOBS" -gt 0 ]; then
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
    fi
done
wait
cat "$OUT"/frames/*.status
