#!/usr/bin/env bash
# A production campaign on one machine without Slurm, as a chain of checkpointed legs: the
# single-machine sibling of jobscripts/campaign.sbatch.
#
# Usage: scaling/campaign/campaign.sh CONFIG OUTDIR NRANKS LEG_HOURS TOTAL_HOURS [VESICA ARGS...]
#   e.g. four GPUs, one-hour legs, six hours of this machine:
#     setsid nohup bash scaling/campaign/campaign.sh configs/vesicle-walls.cfg runs/vw 4 1 6 \
#         > runs/vw.driver.log 2>&1 < /dev/null &
# Each leg runs `vesica run CONFIG --set output.dir=OUTDIR --set run.walltime=H VESICA ARGS...`
# (NRANKS ranks through mpirun, one per GPU; NRANKS = 1 runs vesica directly), with
# `--restart latest` and CAMPAIGN_RESUME_ARGS when OUTDIR holds a checkpoint. H is LEG_HOURS,
# or what is left of TOTAL_HOURS when that is less: vesica writes a checkpoint before H and
# exits 3, and the next leg resumes from it. The campaign ends when vesica exits 0 (the
# configured integrator.steps reached: exit 0), when less than CAMPAIGN_MIN_LEG_S of the budget
# is left (exit 3), on TERM or INT to the driver (passed on to vesica as USR1: it writes a
# checkpoint and stops; exit 3), or when a leg fails (vesica's exit status, no further leg).
# Stop it with `kill -TERM $(cat OUTDIR/campaign.pid)`: the driver, not its process group (a
# TERM that reaches mpirun itself ends the leg with status 1). TOTAL_HOURS counts from this
# start, so running the same command again resumes the campaign with a fresh budget; a second
# driver on the same OUTDIR is refused (a lock on OUTDIR/campaign.lock). A campaign already
# finished exits 0 at once (vesica's "already finished").
#
# Files in OUTDIR besides vesica's own (thermo.csv, traj.h5md, checkpoints/, perf.json):
#   legs.csv      one row a leg: leg,started,ranks,start_step,end_step,steps,particles,wall_s,
#                 particle_steps_per_s,loop_particle_steps_per_s,checkpoint_s,trajectory_s,status
#                 wall_s is the leg's whole time (start-up, restart read, steps, checkpoints and
#                 frames), particle_steps_per_s = particles * steps / wall_s; the loop figure is
#                 perf.json's (the step loop, its checkpoints and frames included);
#   legs/leg-NNN.log  vesica's console output of leg NNN;
#   campaign.log  the driver's own lines (also on its stdout).
#
# Environment:
#   VESICA               the binary (default build/vesica)
#   LAUNCHER             the whole launch command instead of mpirun (e.g. "srun -n 4")
#   MPIRUN               mpirun's name (default mpirun); MPIRUN_ARGS its options
#                        (default "--bind-to none"; --allow-run-as-root is added for root)
#   CAMPAIGN_RESUME_ARGS extra vesica arguments of the legs that resume from a checkpoint at
#                        or after step CAMPAIGN_RESUME_FROM (default 0), word-split: e.g.
#                        "--set bonded.reach=1.5" with CAMPAIGN_RESUME_FROM=1000 for a molecular
#                        run past its violent start (configs/vesicle-walls.cfg)
#   CAMPAIGN_FIRST_HOURS the length of a fresh start's leg, when it should differ from
#                        LEG_HOURS (e.g. a few minutes that take a molecular run past its
#                        violent start, so that CAMPAIGN_RESUME_ARGS apply from the second leg)
#   CAMPAIGN_MIN_LEG_S   the shortest leg worth starting, seconds (default 120)
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p' >&2; exit 2; }
[ $# -ge 5 ] || usage
cfg=$1 outdir=$2 nranks=$3 leg_h=$4 total_h=$5
shift 5
[ -f "$cfg" ] || { echo "campaign: no configuration file $cfg" >&2; exit 2; }
[[ $nranks =~ ^[1-9][0-9]*$ ]] || { echo "campaign: NRANKS must be a positive integer (got $nranks)" >&2; exit 2; }
for h in "$leg_h" "$total_h"; do
  awk -v h="$h" 'BEGIN { exit !(h + 0 > 0 && h ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) }' ||
    { echo "campaign: LEG_HOURS and TOTAL_HOURS must be positive numbers (got $h)" >&2; exit 2; }
done
bin=${VESICA:-build/vesica}
[ -x "$bin" ] || { echo "campaign: no vesica binary at $bin (set VESICA)" >&2; exit 2; }
min_leg=${CAMPAIGN_MIN_LEG_S:-120}

mkdir -p "$outdir/legs"
exec 9>> "$outdir/campaign.lock"
flock -n 9 || { echo "campaign: another driver is running on $outdir" >&2; exit 2; }
echo $$ > "$outdir/campaign.pid"

log() { echo "campaign: $*" | tee -a "$outdir/campaign.log"; }
now() { date +%s.%N; }
# The newest checkpoint's step, or -1.
newest_step() {
  local f s best=-1
  for f in "$outdir"/checkpoints/ckpt_*.h5; do
    [ -e "$f" ] || continue
    s=${f##*/ckpt_}; s=${s%.h5}
    [[ $s =~ ^[0-9]+$ ]] && [ "$s" -gt "$best" ] && best=$s
  done
  echo "$best"
}
# A number from perf.json (empty when absent).
perf() { sed -n "s/^ *\"$1\": *\([-+0-9.eE]*\),\{0,1\}$/\1/p" "$outdir/perf.json" 2>/dev/null | head -1; }

if [ -n "${LAUNCHER:-}" ]; then
  read -r -a launcher <<< "$LAUNCHER"
elif [ "$nranks" -eq 1 ]; then
  launcher=()
else
  read -r -a launcher <<< "${MPIRUN:-mpirun} ${MPIRUN_ARGS:---bind-to none}"
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  launcher+=(-n "$nranks")
fi
read -r -a resume_args <<< "${CAMPAIGN_RESUME_ARGS:-}"

[ -s "$outdir/legs.csv" ] || echo "leg,started,ranks,start_step,end_step,steps,particles,wall_s,particle_steps_per_s,loop_particle_steps_per_s,checkpoint_s,trajectory_s,status" > "$outdir/legs.csv"

t_start=$(now)
deadline=$(awk -v t="$t_start" -v h="$total_h" 'BEGIN { printf "%.3f", t + 3600 * h }')
stop=0 pid=""
# USR1, not TERM, goes on to vesica: mpirun hands USR1 to the ranks and returns their exit
# status, while a TERM to mpirun ends it with status 1 whatever the ranks did.
on_signal() {
  stop=1
  log "$1 received at $(date -Is): stopping vesica (it checkpoints), no further leg"
  [ -z "$pid" ] || kill -USR1 "$pid" 2>/dev/null || true
}
trap 'on_signal TERM' TERM
trap 'on_signal INT' INT
log "start $(date -Is): $cfg -> $outdir, $nranks rank(s), legs of $leg_h h, budget $total_h h"

while :; do
  left=$(awk -v d="$deadline" -v t="$(now)" 'BEGIN { printf "%.1f", d - t }')
  start_step=$(newest_step)
  this_h=$leg_h
  [ "$start_step" -ge 0 ] || this_h=${CAMPAIGN_FIRST_HOURS:-$leg_h}
  leg_s=$(awk -v l="$this_h" -v left="$left" 'BEGIN { s = 3600 * l; if (left < s) s = left; printf "%.1f", s }')
  if awk -v s="$left" -v m="$min_leg" 'BEGIN { exit !(s < m) }'; then
    log "budget spent ($left s left, a leg needs $min_leg s); run the same command to go on"
    exit 3
  fi
  leg=$(( $(wc -l < "$outdir/legs.csv") ))
  restart=()
  if [ "$start_step" -ge 0 ]; then
    restart=(--restart latest)
    [ "$start_step" -lt "${CAMPAIGN_RESUME_FROM:-0}" ] || restart+=("${resume_args[@]}")
  fi
  hours=$(awk -v s="$leg_s" 'BEGIN { printf "%.6f", s / 3600 }')
  legname=$(printf "leg-%03d" "$leg")
  log "$legname $(date -Is): from step $([ "$start_step" -ge 0 ] && echo "$start_step" || echo "0 (fresh)"), run.walltime $hours h"
  rm -f "$outdir/perf.json" # vesica writes it at the end of a leg that ran
  t0=$(now)
  rc=0
  "${launcher[@]}" "$bin" run "$cfg" --set "output.dir=$outdir" --set "run.walltime=$hours" \
      "$@" "${restart[@]}" > "$outdir/legs/$legname.log" 2>&1 &
  pid=$!
  # A signal interrupts `wait`; wait again until vesica has really ended.
  while :; do
    rc=0
    wait "$pid" || rc=$?
    kill -0 "$pid" 2>/dev/null || break
  done
  pid=""
  t1=$(now)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  end_step=$(newest_step)
  steps="" particles="" loop_rate="" ckpt_s="" traj_s=""
  if [ -f "$outdir/perf.json" ]; then
    steps=$(perf steps); particles=$(perf particles); loop_rate=$(perf particle_steps_per_s)
    ckpt_s=$(perf checkpoint_s); traj_s=$(perf trajectory_s)
  fi
  [ "$start_step" -ge 0 ] || start_step=0
  [ -n "$steps" ] || steps=$(( end_step > start_step ? end_step - start_step : 0 ))
  if [ "$rc" -eq 0 ] && [ "$steps" = 0 ]; then
    log "$legname: nothing to run (already finished at step $end_step)"
    exit 0
  fi
  [ "$end_step" -ge 0 ] && start_step=$(( end_step - steps ))
  rate=$(awk -v n="${particles:-0}" -v s="$steps" -v w="$wall" 'BEGIN { printf "%.6e", (w > 0 ? n * s / w : 0) }')
  echo "$leg,$(date -Is -d "@${t0%.*}"),$nranks,$start_step,$end_step,$steps,${particles:-},$wall,$rate,${loop_rate:-},${ckpt_s:-},${traj_s:-},$rc" >> "$outdir/legs.csv"
  log "$legname ended with status $rc after $wall s: steps $start_step -> $end_step, $rate particle-steps/s"
  case $rc in
    0) log "finished: the configured step count is reached"; exit 0 ;;
    3) [ "$stop" -eq 0 ] || { log "stopped by a signal; run the same command to go on"; exit 3; }
       [ "$steps" -gt 0 ] || { log "the leg ran no step: legs of $leg_h h are too short for this run's start-up and checkpoint"; exit 1; } ;;
    *) log "vesica exited with status $rc (see $outdir/legs/$legname.log); no further leg"; exit "$rc" ;;
  esac
done
