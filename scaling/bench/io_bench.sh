#!/usr/bin/env bash
# Checkpoint and trajectory-frame write bandwidth (a benchmark, not a test).
#
# Usage: scaling/bench/io_bench.sh [VESICA] [PARTICLES] [OUTDIR] [RANKS...]
#   defaults: build/vesica, 1048576 particles (about; box from density 3), a temporary
#   directory, ranks 1 2. On a GPU machine: scaling/bench/io_bench.sh build/vesica 16777216 /scratch/x 1
#   (backend auto picks the GPU on one rank; several GPUs need the multi-GPU backend).
# Runs 4 steps with a frame and a checkpoint at every step (steps 1..4; the frame of step 0
# too) and prints, from each run's perf.json, the mean time and bandwidth (bytes / s) of a
# checkpoint and of a frame. A checkpoint's time covers the redistribution by particle id
# (not the canonical re-start before it, which perf.json counts as output), the HDF5 write
# with Fletcher32 checksums, the fsync and the rename; bytes are the file size. A frame's time covers the redistribution and the HDF5
# write, whose flush parallel HDF5 turns into an fsync; bytes are 60 per particle.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/vesica}; n=${2:-1048576}; out=${3:-}
shift $(( $# >= 3 ? 3 : $# )) || true
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(1 2)
keep=1
if [ -z "$out" ]; then out=$(mktemp -d); keep=0; fi
mkdir -p "$out"
edge=$(awk -v n="$n" 'BEGIN { printf "%.6f", (n / 3.0) ^ (1.0 / 3.0) }')
cat > "$out/io.cfg" <<CFG
box = [$edge, $edge, $edge];
particles = $n;
seed = 11;
species = ( { name = "W"; } );
dpd = { a = { W = { W = 25.0; }; }; gamma = 4.5; kT = 1.0; };
integrator = { dt = 0.01; steps = 4; };
output = { dir = "$out/run"; thermo_interval = 4; trajectory_interval = 1;
           checkpoint_interval = 1; checkpoint_keep = 2; };
CFG
printf "%6s %10s %8s %12s %10s %10s %12s %10s %10s\n" ranks particles backend \
  ckpt_MB ckpt_s ckpt_GB/s frame_MB frame_s frame_GB/s
for p in "${ranks[@]}"; do
  mpiexec --oversubscribe -n "$p" "$bin" run "$out/io.cfg" --set "output.dir=$out/np$p" \
    > "$out/np$p.log"
  /usr/bin/env python3 - "$out/np$p/perf.json" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, f = max(d["checkpoints"], 1), max(d["frames"], 1)
cb, cs = d["checkpoint_bytes"] / c, d["checkpoint_s"] / c
fb, fs = d["trajectory_bytes"] / f, d["trajectory_s"] / f
print("%6s %10d %8s %12.1f %10.4f %10.3f %12.1f %10.4f %10.3f" % (sys.argv[2], d["particles"],
      d["backend"], cb / 1e6, cs, cb / cs / 1e9, fb / 1e6, fs, fb / fs / 1e9))
PY
done
[ $keep -eq 1 ] || rm -rf "$out"
