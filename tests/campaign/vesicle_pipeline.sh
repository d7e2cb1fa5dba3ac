#!/usr/bin/env bash
# The walled vesicle campaign's whole pipeline, CPU-sized (issue 48): configs/vesicle-walls.cfg
# in a 12^3 box for 3000 steps, run straight and as a campaign of legs through
# scaling/campaign/campaign.sh on 2 ranks (a leg cut by the budget, one stopped by TERM, a
# refused second driver, the rest, and a re-run of the finished campaign), then
# scaling/campaign/campaign_bench.sh and scaling/campaign/vesicle_report.sh on the legged
# run. Checks that the legs' thermo.csv and trajectory equal the straight run's bit for bit,
# that legs.csv chains its legs, that no particle left the closed box, that every core bead
# is in exactly one aggregate and the class counts add up, and that the chains aggregate
# (fewer aggregates at the end than at the start).
#
# Usage: vesicle_pipeline.sh VESICA SRC WORKDIR      (exit 77: no Python with the modules)
set -uo pipefail
bin=$1 src=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
cfg=$src/configs/vesicle-walls.cfg
# 3000 steps: the run must outlast the first leg (2.9 s) on a fast idle machine (600 steps did
# not: one leg ran them all)
common=(--set backend=cpu --set "box=[12.0, 12.0, 12.0]" --set integrator.steps=3000
        --set output.thermo_interval=50 --set output.trajectory_interval=500
        --set output.checkpoint_interval=0)
drv=(bash "$src/scaling/campaign/campaign.sh" "$cfg" "$work/legs" 2)
export VESICA=$bin CAMPAIGN_MIN_LEG_S=1 CAMPAIGN_RESUME_ARGS="--set bonded.reach=1.5" CAMPAIGN_RESUME_FROM=300
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

py=""
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  "$cand" -c "import numpy, scipy, h5py, matplotlib" 2> /dev/null && { py=$cand; break; }
done
[ -n "$py" ] || { echo "skip: no Python with numpy, scipy, h5py and matplotlib"; exit 77; }

"$bin" run "$cfg" "${common[@]}" --set "output.dir=$work/straight" > "$work/straight.log" 2>&1
check "straight run exits 0" '[ $? -eq 0 ]'

# 1. one leg of CAMPAIGN_FIRST_HOURS, then the budget (3.6 s) is spent: exit 3
CAMPAIGN_FIRST_HOURS=0.0008 "${drv[@]}" 0.001 0.001 "${common[@]}" > "$work/drv1.log" 2>&1; rc=$?
check "budget spent after one leg: exit 3 (got $rc)" '[ $rc -eq 3 ]'
check "the fresh start's leg is CAMPAIGN_FIRST_HOURS long" \
  'grep -q "leg-001 .*run.walltime 0.0008[0-9]* h" "$work/drv1.log" && [ "$(grep -c "leg-0" "$work/drv1.log")" -eq 2 ]'
# 2. a new budget; while its first leg runs, a second driver is refused, then TERM stops it
"${drv[@]}" 0.001 1 "${common[@]}" > "$work/drv2.log" 2>&1 &
pid=$!
# the driver holds the lock once it has written its pid
for _ in $(seq 200); do [ "$(cat "$work/legs/campaign.pid" 2> /dev/null)" = "$pid" ] && break; sleep 0.05; done
"${drv[@]}" 0.001 1 "${common[@]}" > "$work/drv_twice.log" 2>&1; rc2=$?
check "a second driver on the same folder is refused (exit $rc2)" \
  '[ $rc2 -eq 2 ] && grep -q "another driver" "$work/drv_twice.log"'
# TERM as soon as the leg steps (a fast machine ends a short leg within 2 s)
for _ in $(seq 400); do grep -q "Step" "$work/legs/legs/leg-002.log" 2> /dev/null && break; sleep 0.05; done
kill -TERM "$pid"; wait "$pid"; rc=$?
check "TERM: vesica checkpoints, the driver exits 3 (got $rc)" '[ $rc -eq 3 ]'
# 3. the rest, and 4. the finished campaign run again
"${drv[@]}" 0.003 1 "${common[@]}" > "$work/drv3.log" 2>&1; rc=$?
check "the campaign finishes: exit 0 (got $rc)" '[ $rc -eq 0 ]'
rows=$(wc -l < "$work/legs/legs.csv")
"${drv[@]}" 0.003 1 "${common[@]}" > "$work/drv4.log" 2>&1; rc=$?
check "run again when finished: exit 0, no new leg" \
  '[ $rc -eq 0 ] && [ "$(wc -l < "$work/legs/legs.csv")" -eq "$rows" ]'
cat "$work/legs/legs.csv"

check "thermo.csv of the legs equals the straight run's" \
  'cmp "$work/straight/thermo.csv" "$work/legs/thermo.csv"'

# legs after the first of 10 steps or more count: how many steps the TERMed leg and the last
# one ran depends on the machine's speed
bash "$src/scaling/campaign/campaign_bench.sh" "$cfg" "$work/legs" 2 10 "${common[@]}" \
  --set bonded.reach=1.5 > "$work/bench.log" 2>&1; rc=$?
cat "$work/bench.log"
check "campaign_bench.sh: a ratio in bench.json (exit $rc)" \
  '[ $rc -eq 0 ] && grep -Eq "\"ratio\": [0-9]+\.[0-9]+" "$work/legs/bench.json"'

JOBS=2 bash "$src/scaling/campaign/vesicle_report.sh" "$work/legs" > "$work/report.log" 2>&1; rc=$?
tail -n 5 "$work/report.log"
check "vesicle_report.sh exits 0 (got $rc)" '[ $rc -eq 0 ]'
for f in classes.csv aggregates.csv classify.json labels.npz strip.png tem.png fusion.png \
         fusion.csv thermo.csv legs.csv; do
  check "report/$f written" '[ -s "$work/legs/report/$f" ]'
done
tar -tzf "$work/legs/report.tgz" > "$work/tgz.list"
check "report.tgz holds the report without labels.npz" \
  'grep -q "report/tem.png" "$work/tgz.list" && ! grep -q labels.npz "$work/tgz.list"'

"$py" - "$work" <<'EOF' || fail=1
import csv, json, sys
import h5py, numpy as np
work = sys.argv[1]
bad = []
def check(name, cond, detail=""):
    print(f"{'ok  ' if cond else 'FAIL'} {name} {detail}")
    if not cond:
        bad.append(name)

with open(f"{work}/legs/legs.csv") as f:
    legs = list(csv.DictReader(f))
check("at least three legs", len(legs) >= 3, len(legs))
check("each leg starts where the last ended, from 0 to 3000",
      int(legs[0]["start_step"]) == 0 and int(legs[-1]["end_step"]) == 3000
      and all(int(a["end_step"]) == int(b["start_step"]) for a, b in zip(legs, legs[1:])))
check("steps, particles, wall time and rate of every leg",
      all(int(l["steps"]) == int(l["end_step"]) - int(l["start_step"]) and l["particles"] == "8640"
          and float(l["wall_s"]) > 0 and abs(float(l["particle_steps_per_s"])
              - 8640 * int(l["steps"]) / float(l["wall_s"])) <= 1e-3 * float(l["particle_steps_per_s"]) + 1
          for l in legs))
check("status 3 for every leg but the last, 0 for the last",
      [l["status"] for l in legs] == ["3"] * (len(legs) - 1) + ["0"], [l["status"] for l in legs])

with h5py.File(f"{work}/straight/traj.h5md") as a, h5py.File(f"{work}/legs/traj.h5md") as b:
    pa, pb = a["particles/all/position/value"][...], b["particles/all/position/value"][...]
    check("trajectory of the legs equals the straight run's", pa.shape == pb.shape and np.array_equal(pa, pb),
          pa.shape)
    img = b["particles/all/image/value"][...]
    box = np.diag(b["particles/all/box/edges/value"][-1])
    check("no particle left the closed box", bool(np.all((pb >= 0) & (pb <= box)) and not img.any()))
    sp = b["particles/all/species"][...]
    names = [n.decode() for n in b["particles/all/species"].attrs["names"]]
    n_b = int(np.count_nonzero(sp == names.index("B")))

z = np.load(f"{work}/legs/report/labels.npz")
with open(f"{work}/legs/report/classes.csv") as f:
    rows = list(csv.DictReader(f))
classes = [str(c) for c in z["class_names"]]
check("a labels row per analysed frame, one label per core bead",
      z["labels"].shape == (len(rows), n_b), (z["labels"].shape, len(rows), n_b))
for n, r in enumerate(rows):
    lab = z["labels"][n]
    sizes = np.bincount(lab)
    counts = np.bincount(z["classes"][n][:len(sizes)], minlength=len(classes))
    ok = (lab.min() == 0 and len(sizes) == int(r["aggregates"]) and sizes.min() > 0
          and sum(int(r[c]) for c in classes) == int(r["aggregates"])
          and all(counts[k] == int(r[c]) for k, c in enumerate(classes))
          and sum(int(r["beads_" + c]) for c in classes) == n_b
          and int(r["largest_1"]) == sizes.max())
    check(f"step {r['step']}: every core bead in one aggregate, class counts add up", ok)
first, last = rows[0], rows[-1]
check("the chains aggregate: at most 3/4 as many aggregates at the end as at step 0, "
      "more core beads in classified ones",
      int(last["aggregates"]) <= 0.75 * int(first["aggregates"])
      and int(last["beads_free"]) < int(first["beads_free"]),
      f"aggregates {first['aggregates']} -> {last['aggregates']}, "
      f"free core beads {first['beads_free']} -> {last['beads_free']} of {n_b}")
with open(f"{work}/legs/report/classify.json") as f:
    summary = json.load(f)
check("classify.json: the last frame's counts", summary["counts"] == {c: int(last[c]) for c in classes})
with open(f"{work}/legs/report/fusion.csv") as f:
    fus = list(csv.DictReader(f))
check("fusion.csv: the target's chains are all in one aggregate at the end",
      len(fus) == len(rows) and int(fus[-1]["pieces"]) == 1 and float(fus[-1]["in_largest_piece"]) == 1.0)
for p in ("strip.png", "tem.png", "fusion.png"):
    with open(f"{work}/legs/report/{p}", "rb") as f:
        check(f"{p} is a PNG", f.read(8) == b"\x89PNG\r\n\x1a\n")
sys.exit(1 if bad else 0)
EOF
[ $fail -eq 0 ] && echo "all passed" || echo "FAILED"
exit $fail
