#!/usr/bin/env bash
# Throughput of the particle-field term (MD-SCF) on one device (a benchmark, not a test).
#
# Usage: scaling/bench/field_bench.sh VESICA WHAT [SIZE] [STEPS] [INTERVAL]   (melt)
#        scaling/bench/field_bench.sh VESICA WHAT [STEPS] [INTERVAL]          (lw1, lw2)
#   WHAT melt: the diblock melt of scaling/bench/field-melt.cfg (field-only species, an inert
#              DPD term, Langevin; GALAMOST's time step, friction, update interval and
#              compressibility in the melt's units) at SIZE particles (default 16000000) in a
#              cube of whole grid cells;
#        lw1, lw2: GALAMOST's lipid + water systems LW1 (307,200 beads) and LW2 (1,048,576),
#              its figure 7: configs/field-dppc.cfg on a bilayer built by
#              scaling/tools/dppc_bilayer.py (88^2 and 163^2 lipids per leaflet, water to the
#              total, grid cells of 0.704 nm, GALAMOST's l = 1.5 sigma = 0.705 nm);
#   STEPS: the measured steps of each run (default 600);
#   INTERVAL: field.interval of the middle row (default 300, GALAMOST's).
# The runs: field.interval 1 (a field update every step); INTERVAL; and a plain step: an
# interval longer than the run (one update, at step 0, before the timed loop), over
# min(STEPS, INTERVAL) steps (the fields are never kept longer than in the INTERVAL row).
# FIELD_BENCH_ROWS="1 300 plain" names the rows instead. The figures are perf.json's (the
# step loop only, set-up excluded; the kernels loaded eagerly, so no first launch pays for
# its module). Columns: the phases of perf.json in seconds; after the rows, the plain step's
# and a field update's cost in ms (update = the step at interval 1 less the plain step) and
# the particle-steps/s they give at intervals 10, 100 and 300.
# FIELD_BENCH_DATA=DIR keeps the lipid systems' data files in DIR (made where missing);
# VESICA "-" only makes them. FIELD_BENCH_SET="key=value ..." adds --set options to every run.
set -euo pipefail
export CUDA_MODULE_LOADING=EAGER
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$1
what=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--set "output.dir=\"$out/run\"" --set output.checkpoint_keep=0)
case $what in
  melt)
    n=${3:-16000000}
    steps=${4:-600}
    middle=${5:-300}
    cfg=$here/field-melt.cfg
    # a cube of whole cells of spacing 1 at density 3, whole chains of 20 beads
    side=$(python3 -c "print(max(8, round(($n / 3.0) ** (1 / 3))))")
    parts=$(python3 -c "print(20 * ((3 * $side ** 3) // 20))")
    common+=(--set "box=[$side.0, $side.0, $side.0]" --set "particles=$parts")
    ;;
  lw1|lw2)
    steps=${3:-600}
    middle=${4:-300}
    cfg=$root/configs/field-dppc.cfg
    if [ "$what" = lw1 ]; then nx=88 total=307200 cells=100; else nx=163 total=1048576 cells=185; fi
    wpl=$(python3 -c "print(($total - 24 * $nx * $nx) / (2 * $nx * $nx))")
    data=${FIELD_BENCH_DATA:-$out}/$what.data
    if [ ! -s "$data" ]; then
      python3 "$root/scaling/tools/dppc_bilayer.py" "$data.tmp" --nx "$nx" \
        --water-per-lipid "$wpl" --cells-x "$cells" > /dev/null
      mv "$data.tmp" "$data"
    fi
    [ "$bin" = - ] && exit 0
    spacing=$(python3 -c "print(repr($nx * 0.8 / $cells))")
    common+=(--set "input.file=\"$data\"" --set "field.spacing=$spacing"
             --set output.trajectory_interval=0 --set output.field_interval=0)
    ;;
  *) echo "field_bench.sh: WHAT is melt, lw1 or lw2" >&2; exit 2 ;;
esac
for kv in ${FIELD_BENCH_SET:-}; do common+=(--set "$kv"); done
intervals=${FIELD_BENCH_ROWS:-"1 $middle plain"}
plain_steps=$((middle < steps ? middle : steps))
printf "%-5s %10s %9s %6s %9s %9s %14s %9s %9s %9s %9s %9s %9s %6s\n" system particles interval \
  steps wall_s steps/s particle-steps/s ms/step pair_s neigh_s comm_s integ_s output_s builds
for row in $intervals; do
  sets=(--set "field.interval=$row")
  n_steps=$steps
  if [ "$row" = plain ]; then
    sets=(--set field.interval=1000000000)
    n_steps=$plain_steps
  fi
  "$bin" run "$cfg" "${common[@]}" --set "integrator.steps=$n_steps" "${sets[@]}" \
    --set "output.thermo_interval=$n_steps" > "$out/log"
  python3 - "$out/run/perf.json" "$what" "$row" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["phases_s"]
print(f'{sys.argv[2]:<5s} {d["particles"]:10d} {sys.argv[3]:>9s} {d["steps"]:6d} {d["wall_s"]:9.4f} '
      f'{d["steps"] / d["wall_s"]:9.1f} {d["particle_steps_per_s"]:14.4e} '
      f'{1e3 * d["wall_s"] / d["steps"]:9.4f} {p["pair"]:9.4f} {p["neighbor"]:9.4f} '
      f'{p["comm"]:9.4f} {p["integrate"]:9.4f} {p["output"]:9.4f} {d["neighbor_builds"]:6d}')
PY
  cp "$out/run/perf.json" "$out/perf-$row.json"
done | tee "$out/rows"
python3 - "$out/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
ms = {r[2]: float(r[7]) for r in rows}
n = int(rows[0][1])
if "1" in ms and "plain" in ms:
    plain = ms["plain"]
    update = ms["1"] - plain
    proj = ", ".join(f"{n / (1e-3 * (plain + update / k)):.3e} at interval {k}"
                     for k in (10, 100, 300))
    print(f"plain step {plain:.4f} ms; a field update {update:.4f} ms (interval 1 less the "
          f"plain step); particle-steps/s {proj}")
PY
first=${intervals%% *}
grep -h '"device"' "$out/perf-$first.json" || true
