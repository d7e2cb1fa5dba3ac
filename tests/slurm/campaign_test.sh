#!/usr/bin/env bash
# Runs jobscripts/campaign.sbatch on a real Slurm controller and checks the whole cycle: each
# leg is stopped by Slurm's USR1 before its 1-minute time limit, writes a checkpoint, exits 3
# and resubmits the next leg, which resumes from the checkpoint; the last leg finishes with
# the configured step count, and the trajectory has every frame exactly once.
#
# Usage: campaign_test.sh real VESICA SOURCE_DIR   (the real binary; tiny CPU fluid, 2 ranks)
#        campaign_test.sh fake FAKE SOURCE_DIR     (tests/slurm/fake_vesica.sh: the plumbing)
# Exit 77 (CTest: skipped) when no Slurm controller answers (`sinfo` fails); start one with
# .ci/slurm-up.sh. Takes 1 to 3 minutes: legs get --time=1 --signal=B:USR1@50, and Slurm
# checks time limits every ~30 s, so the signal comes 10 to 40 s into a leg (on a busy
# controller later, or as a leg starts: campaign.sbatch then forwards it after a 10-s
# grace). The run is made long enough (over a minute of work) that it needs two legs.
# The work directory (kept on failure) is printed; PYTHON (default /usr/bin/python3, with
# h5py) reads the trajectory.
set -euo pipefail
mode=${1:?usage: campaign_test.sh real|fake BINARY SOURCE_DIR}
bin=$(readlink -f "${2:?binary}")
src=$(readlink -f "${3:?source dir}")
py=${PYTHON:-/usr/bin/python3}

if ! sinfo -h -o %T >/dev/null 2>&1; then
  echo "campaign_test: no Slurm controller (sinfo failed): skipped; see .ci/slurm-up.sh"
  exit 77
fi
work=$(mktemp -d /tmp/vesica-campaign-test.XXXXXX)
out=$work/out
name=vesica-ctest-$mode-$$
fail() {
  echo "campaign_test: FAIL: $*" >&2
  echo "--- $work/campaign.out" >&2; cat "$work/campaign.out" >&2 2>/dev/null || true
  echo "--- $out/campaign.log" >&2; cat "$out/campaign.log" >&2 2>/dev/null || true
  scancel -n "$name" 2>/dev/null || true
  echo "campaign_test: work directory kept: $work" >&2
  exit 1
}

if [ "$mode" = fake ]; then
  cfg=$work/fake.cfg; echo "# fake" > "$cfg"
  steps=600 tint=10 cint=100 ranks=1      # 0.1 s per step: 60 s of work
  steps_key=integrator.steps
  srun_args=""
else
  cfg=$src/tests/physics/groot-warren.cfg   # 3000 particles, rho = 3, dt = 0.01
  # Calibrate on one rank so the campaign has about 150 s of single-rank work (75-90 s on
  # two ranks: more than the 40 s a leg can last before its signal).
  steps_key=integrator.steps
  calib=(--set backend=cpu --set output.trajectory_interval=100 --set output.checkpoint_interval=100
         --set output.dir="$work/calib")
  "$bin" run "$cfg" --set "$steps_key=300" "${calib[@]}" > "$work/calib.log" 2>&1 ||
    fail "calibration run failed: $(tail -n 3 "$work/calib.log")"
  rate=$("$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['steps']/d['wall_s'])" "$work/calib/perf.json")
  tint=100
  steps=$("$py" -c "import sys; r=float(sys.argv[1]); print(max(2000, int(r * 150) // 100 * 100))" "$rate")
  cint=$((steps / 10 / tint * tint)); [ "$cint" -ge "$tint" ] || cint=$tint
  ranks=2
  srun_args=""
  srun --mpi=list 2>&1 | grep -q pmix && srun_args="--mpi=pmix"
fi
echo "campaign_test: $mode, $steps steps ($steps_key), frames every $tint, checkpoints every $cint, $ranks rank(s), work $work"

# Start the campaign exactly as a user would, with short legs.
unset LAUNCHER
export VESICA=$bin SRUN_ARGS=$srun_args CAMPAIGN_MAX_LEGS=12
(cd "$work" && bash "$src/jobscripts/campaign.sbatch" --job-name="$name" --time=1 \
   --signal=B:USR1@50 -n "$ranks" --output="$work/campaign.out" -- "$cfg" "$out" \
   --set "$steps_key=$steps" --set output.trajectory_interval=$tint \
   --set output.checkpoint_interval=$cint --set output.checkpoint_keep=2 \
   --set output.thermo_interval=$tint $([ "$mode" = real ] && echo --set backend=cpu)) ||
  fail "submission failed"

# Wait until the chain ends: no job of this name queued or running, and a final leg logged.
deadline=$((SECONDS + ${CAMPAIGN_TEST_TIMEOUT:-780}))
while :; do
  sleep 3
  [ $SECONDS -lt $deadline ] || fail "campaign not finished after ${CAMPAIGN_TEST_TIMEOUT:-780} s"
  [ -z "$(squeue -h -n "$name" -o %i 2>/dev/null)" ] || continue
  last=$(tail -n 1 "$out/campaign.log" 2>/dev/null | awk '{print $4}')
  [ -n "$last" ] && [ "$last" != 3 ] && break
  # A resubmitted leg may take a moment to appear in squeue.
  sleep 3
  [ -z "$(squeue -h -n "$name" -o %i 2>/dev/null)" ] || continue
  last=$(tail -n 1 "$out/campaign.log" 2>/dev/null | awk '{print $4}')
  [ -n "$last" ] && [ "$last" != 3 ] && break
  fail "the chain ended without a final leg"
done
cat "$work/campaign.out"

# Legs: first fresh, later ones restarts; every leg but the last stopped for restart (3).
"$py" - "$out/campaign.log" <<'PY' || fail "leg sequence"
import sys
legs = [ln.split() for ln in open(sys.argv[1]) if ln.strip()]
codes = [int(l[3]) for l in legs]
modes = [l[2] for l in legs]
print(f"campaign_test: {len(legs)} legs, exit codes {codes}, modes {modes}")
assert len(legs) >= 2, "one leg only: the signal did not stop the run"
assert codes[-1] == 0 and all(c == 3 for c in codes[:-1]), codes
assert modes[0] == "fresh" and all(m == "restart" for m in modes[1:]), modes
PY

# Step count and frames.
if [ "$mode" = fake ]; then
  "$py" - "$out" "$steps" "$tint" <<'PY' || fail "frames or final step"
import sys
out, steps, tint = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frames = [int(x) for x in open(f"{out}/traj.steps")]
assert frames == list(range(0, steps + 1, tint)), f"frames {frames}"
end = int(open(f"{out}/legs.log").read().split("\n")[-2].split()[1])
assert end == steps, end
print(f"campaign_test: final step {end}, {len(frames)} frames, none missing or repeated")
PY
else
  ls "$out"/checkpoints/ckpt_*.h5 > /dev/null || fail "no checkpoint files"
  "$py" - "$out" "$steps" "$tint" <<'PY' || fail "trajectory or final step"
import csv, sys
import h5py
out, steps, tint = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with h5py.File(f"{out}/traj.h5md", "r") as f:
    frames = [int(s) for s in f["/particles/all/position/step"][()]]
    npos = f["/particles/all/position/value"].shape[0]
expect = list(range(0, steps + 1, tint))
missing = sorted(set(expect) - set(frames))
repeated = sorted({s for s in frames if frames.count(s) > 1})
assert not missing and not repeated and frames == expect, \
    f"missing {missing[:10]}, repeated {repeated[:10]}, first {frames[:5]}, last {frames[-5:]}"
assert npos == len(frames), f"{npos} position frames for {len(frames)} steps"
rows = list(csv.DictReader(open(f"{out}/thermo.csv")))
assert int(rows[-1]["step"]) == steps, f"thermo ends at {rows[-1]['step']}"
print(f"campaign_test: final step {steps}, {len(frames)} frames, none missing or repeated")
PY
fi
echo "campaign_test: PASS ($mode)"
rm -rf "$work"
