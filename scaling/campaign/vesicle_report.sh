#!/usr/bin/env bash
# The analysis and pictures of a vesicle run (issue 48 items 3-4), packed small.
#
# Usage: scaling/campaign/vesicle_report.sh RUN [REPORT] [vesicle_classify.py options...]
#   RUN     the run folder (traj.h5md, thermo.csv; legs.csv from scaling/campaign/campaign.sh)
#   REPORT  the folder of the outputs (default RUN/report)
# Runs scaling/tools/vesicle_classify.py (classes.csv, aggregates.csv, classify.json,
# labels.npz) and scaling/tools/vesicle_pictures.py (strip.png, tem.png, fusion.png,
# fusion.csv) into REPORT, copies thermo.csv, legs.csv, perf.json and bench.json (those of
# them that exist) there, and packs REPORT without labels.npz into RUN/report.tgz (a few MB:
# the one file to take home from a machine that keeps the trajectory).
# Environment: PYTHON, a Python with numpy, scipy, h5py and matplotlib (default: the first of
# python3 and /usr/bin/python3 that has them); JOBS, the classifier's workers (default: all
# cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/../tools" && pwd)
run=${1:?usage: vesicle_report.sh RUN [REPORT] [vesicle_classify.py options...]}
shift
report=$run/report
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then report=$1; shift; fi
[ -f "$run/traj.h5md" ] || { echo "vesicle_report: no trajectory $run/traj.h5md" >&2; exit 2; }

py=""
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$cand" > /dev/null 2>&1 &&
     "$cand" -c "import numpy, scipy, h5py, matplotlib" 2> /dev/null; then
    py=$cand; break
  fi
done
[ -n "$py" ] || { echo "vesicle_report: no Python with numpy, scipy, h5py and matplotlib (set PYTHON)" >&2; exit 77; }

mkdir -p "$report"
"$py" "$tools/vesicle_classify.py" "$run/traj.h5md" --out "$report" --jobs "${JOBS:-$(nproc)}" "$@" \
  > "$report/classify.log"
tail -n 3 "$report/classify.log"
"$py" "$tools/vesicle_pictures.py" "$run" --out "$report"
for f in thermo.csv legs.csv perf.json bench.json; do
  if [ -f "$run/$f" ]; then cp "$run/$f" "$report/"; fi
done
tar -czf "$run/report.tgz" -C "$(dirname "$report")" --exclude labels.npz "$(basename "$report")"
echo "vesicle_report: $run/report.tgz ($(du -h "$run/report.tgz" | cut -f1))"
