#!/usr/bin/env bash
# Multi-GPU throughput of the Groot-Warren fluid, weak and strong (a benchmark, not a test).
#
# Usage: scaling/bench/gpu_multi_bench.sh VESICA "RANKS..." PER_GPU TOTAL STEPS "TRANSPORTS..." [--set k=v]...
#   e.g. scaling/bench/gpu_multi_bench.sh build/vesica "1 2" 16000000 16000000 200 "peer host"
# Weak: PER_GPU particles per rank, the box stretched along x (P x 1 x 1 bricks of the same
# shape). Strong: TOTAL particles in a cube on every rank count. One rank per GPU. The figures
# are the run's perf.json (the step loop only: set-up and the first build excluded).
# Efficiency: weak T(1)/T(P) per step; strong T(1)/(P T(P)).
# GMB_REPEATS=K runs every case K times, interleaved (a row each, efficiencies against the
# first 1-rank run), then prints the median time per step of each case and the efficiencies
# of the medians: two runs of 300 steps of the same binary differ by a few per cent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1; ranks=$2; per_gpu=$3; total=$4; steps=$5; transports=${6:-auto}; shift 6
extra=("$@") # further --set overrides for every run
repeats=${GMB_REPEATS:-1}
out=$(mktemp -d)
printf "%6s %3s %11s %10s %6s %9s %14s %9s %9s %9s %9s %9s %10s %6s %7s\n" series P particles \
  transport steps wall_s particle-steps/s ms/step pair_ms comm_ms hidden_ms neigh_ms \
  halo_MB/st builds eff
run() { # series P N box_x side transport
  local series=$1 p=$2 n=$3 bx=$4 side=$5 tr=$6
  echo "+ mpiexec -n $p $bin run gpu-fluid.cfg box=[$bx, $side, $side] particles=$n transport=$tr" >&2
  local common=(--set "box=[$bx, $side, $side]" --set "particles=$n" --set "comm.transport=$tr"
                --set "decomposition=[$p, 1, 1]" --set "output.dir=$out/run"
                --set output.checkpoint_keep=0 "${extra[@]}")
  mpiexec --oversubscribe -n "$p" "$bin" run "$here/gpu-fluid.cfg" "${common[@]}" \
    --set "integrator.steps=$steps" --set "output.thermo_interval=$steps" > "$out/log"
  grep -h "slab exchange, host" "$out/log" >&2 || true # rank 0's parts (VESICA_GPU_SLAB_TIMES=1)
  python3 - "$out/run/perf.json" "$series" "$tr" "$out/t1_$series" "$out/rows" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1])); series, tr, ref, rows = sys.argv[2:6]
p, P = d["phases_s"], d["ranks"]
t = d["wall_s"] / d["steps"]
if P == 1 and not os.path.exists(ref + tr):
    open(ref + tr, "w").write(repr(t))
t1 = float(open(ref + tr).read()) if os.path.exists(ref + tr) else float("nan")
eff = t1 / t if series == "weak" else t1 / (P * t)
ms = lambda k: 1e3 * p[k] / d["steps"]
print(f'{series:>6s} {P:3d} {d["particles"]:11d} {tr:>10s} {d["steps"]:6d} {d["wall_s"]:9.3f} '
      f'{d["particle_steps_per_s"]:14.4e} {1e3 * t:9.3f} {ms("pair"):9.3f} {ms("comm"):9.3f} '
      f'{1e3 * d["comm_hidden_s"] / d["steps"]:9.3f} {ms("neighbor"):9.3f} '
      f'{d["halo_bytes_per_step"] / 1e6:10.3f} {d["neighbor_builds"]:6d} {eff:7.3f}')
open(rows, "a").write(f'{series} {P} {tr} {d["particles"]} {t!r}\n')
PY
}
side_weak=$(python3 -c "print(f'{($per_gpu / 3.0) ** (1 / 3):.6f}')")
side_strong=$(python3 -c "print(f'{($total / 3.0) ** (1 / 3):.6f}')")
for tr in $transports; do
  for rep in $(seq "$repeats"); do
    for p in $ranks; do
      bx=$(python3 -c "print(f'{$p * $side_weak:.6f}')")
      run weak "$p" $((p * per_gpu)) "$bx" "$side_weak" "$tr"
    done
    for p in $ranks; do
      run strong "$p" "$total" "$side_strong" "$side_strong" "$tr"
    done
  done
done
if [ "$repeats" -gt 1 ]; then
  python3 - "$out/rows" "$repeats" <<'PY'
import statistics, sys
cases = {}
for line in open(sys.argv[1]):
    series, P, tr, n, t = line.split()
    cases.setdefault((tr, series), {}).setdefault(int(P), (int(n), []))[1].append(float(t))
print(f"medians of {sys.argv[2]} runs each:")
print(f'{"series":>6s} {"P":>3s} {"particles":>11s} {"transport":>10s} {"ms/step":>9s} '
      f'{"min":>9s} {"max":>9s} {"eff":>7s}')
for (tr, series), by_p in cases.items():
    t1 = statistics.median(by_p[1][1]) if 1 in by_p else float("nan")
    for P, (n, ts) in sorted(by_p.items()):
        t = statistics.median(ts)
        eff = t1 / t if series == "weak" else t1 / (P * t)
        print(f'{series:>6s} {P:3d} {n:11d} {tr:>10s} {1e3 * t:9.3f} {1e3 * min(ts):9.3f} '
              f'{1e3 * max(ts):9.3f} {eff:7.3f}')
PY
fi
rm -rf "$out"
