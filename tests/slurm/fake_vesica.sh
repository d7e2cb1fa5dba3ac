#!/usr/bin/env bash
# TEST-ONLY stand-in for `vesica run`, used by tests/slurm/plumbing_test.sh to test the Slurm
# plumbing of jobscripts/campaign.sbatch (signal, stop, resubmit, resume) without the physics.
# It is never installed and never used for science.
#
# Usage: fake_vesica.sh run CONFIG [--set key=value]... [--restart latest|PATH]
# It honours the checkpoint/restart contract of the real binary:
#   - reads output.dir, the final step (integrator.steps),
#     output.trajectory_interval and output.checkpoint_interval from --set (CONFIG is only
#     checked to exist);
#   - "runs" one step every FAKE_STEP_SECONDS (default 0.1 s), records a trajectory frame
#     (one line "STEP" in OUTDIR/traj.steps) at step 0 and every trajectory interval, and a
#     checkpoint marker OUTDIR/checkpoints/ckpt_<step>.h5 every checkpoint interval;
#   - on SIGUSR1 or SIGTERM: writes a checkpoint at the current step and exits 3;
#   - --restart latest resumes from the highest ckpt_<step>.h5 (exit 2 if there is none) and
#     drops trajectory frames written after that step, so frames are never repeated;
#   - exits 0 when the final step is reached. Appends "start end exit" to OUTDIR/legs.log.
set -euo pipefail
# First: Slurm may signal a leg as soon as it starts, and an untrapped USR1 kills bash.
stop=0
trap 'stop=1' USR1 TERM
[ "${1:-}" = run ] || { echo "fake_vesica: usage: run CONFIG [...]" >&2; exit 2; }
cfg=${2:-}; shift 2 || true
[ -f "$cfg" ] || { echo "fake_vesica: error: $cfg: cannot read" >&2; exit 2; }
out="" steps="" tint=1 cint=0 restart=""
while [ $# -gt 0 ]; do
  case "$1" in
    --set) kv=$2; shift 2
      case "$kv" in
        output.dir=*) out=${kv#*=} ;;
        integrator.steps=*) steps=${kv#*=} ;;
        output.trajectory_interval=*) tint=${kv#*=} ;;
        output.checkpoint_interval=*) cint=${kv#*=} ;;
      esac ;;
    --restart) restart=$2; shift 2 ;;
    *) echo "fake_vesica: error: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$steps" ] || { echo "fake_vesica: error: need output.dir and steps" >&2; exit 2; }

latest_ckpt() { ls "$out"/checkpoints/ckpt_*.h5 2>/dev/null | sed 's/.*ckpt_\([0-9]*\)\.h5/\1/' | sort -n | tail -1; }

step=0
if [ -n "$restart" ]; then
  if [ "$restart" = latest ]; then step=$(latest_ckpt); else step=$(sed 's/.*ckpt_\([0-9]*\)\.h5/\1/' <<<"$restart"); fi
  [ -n "$step" ] || { echo "fake_vesica: error: --restart latest: no checkpoint in $out/checkpoints" >&2; exit 2; }
  # Frames after the checkpoint belong to the lost part of the previous leg: drop them.
  awk -v s="$step" '$1 <= s' "$out/traj.steps" > "$out/traj.tmp" && mv "$out/traj.tmp" "$out/traj.steps"
else
  mkdir -p "$out/checkpoints"; : > "$out/traj.steps"; echo 0 >> "$out/traj.steps"
fi
start=$step
checkpoint() { echo "step $step" > "$out/checkpoints/ckpt_$step.h5"; }

while [ "$step" -lt "$steps" ]; do
  # Slurm signals every process of the task, sleep included: its death is no error here.
  sleep "${FAKE_STEP_SECONDS:-0.1}" || true
  step=$((step + 1))
  [ $((step % tint)) -eq 0 ] && echo "$step" >> "$out/traj.steps"
  [ "$cint" -gt 0 ] && [ $((step % cint)) -eq 0 ] && checkpoint
  if [ "$stop" = 1 ] && [ "$step" -lt "$steps" ]; then
    checkpoint
    echo "$start $step 3" >> "$out/legs.log"
    echo "fake_vesica: signal received: checkpoint at step $step, exit 3"
    exit 3
  fi
done
echo "$start $step 0" >> "$out/legs.log"
echo "fake_vesica: finished at step $step"
