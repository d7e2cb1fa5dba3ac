#!/usr/bin/env bash
# profiles_test.sh MODE VESICA WORKDIR [P] [--set ...]: tests of the binned profiles (issue 26).
#   ranks P  : the same run on 1 and P ranks gives the same profiles.h5 to 1e-6 relative
#              (the sums are exact integers; the trajectories part by round-off, which the
#              chaos of the fluid amplifies to ~1e-9 over the 200 steps)
#   restart  : a run stopped at step 75 (the middle of a window) and restarted writes the
#              same profiles.h5, bit for bit, as a run that goes straight through; both
#              checkpoint at steps 75 and 150, since with a skin (0.3 here) a checkpoint's
#              wrap of the positions into the box changes their round-off (docs/io.md,
#              "Restarts"; tests/io/schedule_exact.sh checks any schedule at skin 0)
#   rest     : a fluid at rest (no flow) has flat profiles: every bin's mean velocity within
#              4.5 standard errors of 0, density and temperature within 4.5 of their means
#              over the bins. The standard errors are those of independent samples, so the
#              samples must decorrelate: the slowest velocity mode along the bins decays in
#              L^2 / (4 pi^2 nu), 5.8 time units at L = 8 (nu ~ 0.28), so the box is 4 long
#              there (1.5 time units) and samples are 5 time units (250 steps) apart; 1 time
#              unit apart in the box of 8, the worst of the 72 values reached 6.7. The density
#              of each species alone is not held to it: A and B repel (a_AB = 30), so their
#              concentration fluctuates on times far beyond the run (the ranks and restart
#              cases check the species' sums exactly)
set -euo pipefail
mode=$1; bin=$2; work=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
cfg=$here/small-poiseuille.cfg
py=
for cand in /usr/bin/python3 python3; do  # Debian's, or the first on PATH (the GPU machines')
    if "$cand" -c 'import h5py, numpy' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with h5py and numpy"; exit 77; }
rm -rf "$work"; mkdir -p "$work"; cd "$work"
MPIEXEC=${MPIEXEC:-mpiexec --oversubscribe}
case $mode in
ranks)
    P=$1; shift
    $MPIEXEC -n 1 "$bin" run "$cfg" --set output.dir=one "$@" >one.log
    $MPIEXEC -n "$P" "$bin" run "$cfg" --set output.dir=many "$@" >many.log
    $py "$here/compare_profiles.py" one/profiles.h5 many/profiles.h5 --rtol 1e-6 ;;
restart)
    "$bin" run "$cfg" --set output.dir=straight --set output.checkpoint_interval=75 "$@" \
        >straight.log
    "$bin" run "$cfg" --set output.dir=split --set integrator.steps=75 "$@" >split1.log
    "$bin" run "$cfg" --set output.dir=split --set output.checkpoint_interval=75 \
        --restart latest "$@" >split2.log
    $py "$here/compare_profiles.py" straight/profiles.h5 split/profiles.h5 ;;
rest)
    "$bin" run "$cfg" --set output.dir=rest --set flow.kind=none --set "box=[4.0, 6.0, 6.0]" --set integrator.steps=10000 \
        --set profiles.every=250 --set profiles.window=10000 "$@" >rest.log
    $py - <<'PY'
import h5py, numpy as np, sys
f = h5py.File("rest/profiles.h5", "r")
bad = 0
for s in ("all", "A", "B"):
    v, e = np.array(f[s + "/velocity"])[-1], np.array(f[s + "/velocity_stderr"])[-1]
    z = np.abs(v) / e
    d, de = np.array(f[s + "/density"])[-1], np.array(f[s + "/density_stderr"])[-1]
    t, te = np.array(f[s + "/temperature"])[-1], np.array(f[s + "/temperature_stderr"])[-1]
    zd = np.abs(d - d.mean()) / de
    zt = np.abs(t - t.mean()) / te
    print(f"{s}: velocity worst {z.max():.2f} stderr, density {zd.max():.2f}, "
          f"temperature {zt.max():.2f} (mean {t.mean():.4f})")
    bad += z.max() > 4.5 or (s == "all" and zd.max() > 4.5) or zt.max() > 4.5
sys.exit(1 if bad else 0)
PY
    ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
