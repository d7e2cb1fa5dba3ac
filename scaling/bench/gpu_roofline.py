#!/usr/bin/env python3
"""Per-step kernel table from Nsight Compute's CSV (scaling/bench/gpu_roofline.sh).

Usage: gpu_roofline.py NCU_CSV STEPS COPY_GBPS SMS PARTICLES

Keeps the launches of the STEPS whole steps that end before the last first half-step (a step
begins with its first-half kernel), sums each kernel's metrics over them and prints, per step:
time, DRAM bytes and rate, warp instructions, issue-slot use, the busiest unit, and the
kernel's floor: its bytes at the copy bandwidth or its instructions at the peak issue rate
(4 warp instructions per SM per clock), whichever is longer. The sum of the floors bounds
the step of this design from below.
"""
import csv
import sys
from collections import OrderedDict


def read(path):
    """{launch id: (kernel name, {metric: value})} in launch order."""
    launches = OrderedDict()
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own messages are unquoted
    for row in csv.DictReader(lines):
        lid = int(row["ID"])
        name = row["Kernel Name"]
        value = row["Metric Value"].replace(",", "")
        try:
            v = float(value)
        except ValueError:
            continue
        launches.setdefault(lid, (name, {}))[1][row["Metric Name"]] = v
    return launches


def main():
    path, steps, copy_gbps, sms, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \
        int(sys.argv[4]), int(sys.argv[5])
    launches = read(path)
    ids = list(launches)
    starts = [k for k, lid in enumerate(ids) if "first_half" in launches[lid][0]]
    if len(starts) < steps + 1:
        sys.exit(f"gpu_roofline.py: {len(starts)} first half-steps, need {steps + 1}")
    window = ids[starts[-1 - steps]:starts[-1]]
    kernels = OrderedDict()
    for lid in window:
        name, m = launches[lid]
        k = kernels.setdefault(name, {"launches": 0})
        k["launches"] += 1
        for key, v in m.items():
            if key.endswith(".sum"):
                k[key] = k.get(key, 0.0) + v
            else:  # percentages and clocks: time-weighted means
                t = m.get("gpu__time_duration.sum", 0.0)
                k[key] = k.get(key, 0.0) + v * t
    rows, total_t, total_floor = [], 0.0, 0.0
    for name, k in kernels.items():
        t = k.get("gpu__time_duration.sum", 0.0)
        mean = {key: v / t for key, v in k.items() if not key.endswith(".sum") and
                key != "launches" and t > 0}
        per = lambda key: k.get(key, 0.0) / steps
        t_ms = per("gpu__time_duration.sum") * 1e-6
        dram = per("dram__bytes_read.sum") + per("dram__bytes_write.sum")
        inst = per("smsp__inst_executed.sum")
        clock = mean.get("sm__cycles_elapsed.avg.per_second", 0.0)
        bytes_ms = dram / (copy_gbps * 1e9) * 1e3
        issue_ms = inst / (4.0 * sms * clock) * 1e3 if clock > 0 else 0.0
        floor = max(bytes_ms, issue_ms)
        units = {"issue": mean.get("smsp__issue_active.avg.pct_of_peak_sustained_active"),
                 "SM": mean.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                 "L1/TEX": mean.get("l1tex__throughput.avg.pct_of_peak_sustained_active"),
                 "L2": mean.get("lts__throughput.avg.pct_of_peak_sustained_elapsed")}
        busiest = max(((v, u) for u, v in units.items() if v is not None), default=(0.0, "-"))
        rows.append((t_ms, name, k["launches"] / steps, dram, inst, units["issue"], busiest,
                     bytes_ms, issue_ms, floor,
                     per("smsp__inst_executed_op_shared_atom.sum")))
        total_t += t_ms
        total_floor += floor
    print(f"{n} particles, {steps} steps; copy bandwidth {copy_gbps:.0f} GB/s, {sms} SMs; "
          "per step:")
    print("| kernel | launches | ms | DRAM MB | TB/s | warp inst (M) | issue % | busiest unit % "
          "| floor: bytes ms | floor: issue ms | shared atomics (M warp inst) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (t_ms, name, launches, dram, inst, issue, busiest, bytes_ms, issue_ms, floor,
         atom) in sorted(rows, reverse=True):
        rate = dram / (t_ms * 1e-3) / 1e12 if t_ms > 0 else 0.0
        print(f"| {name} | {launches:.3g} | {t_ms:.3f} | {dram / 1e6:.0f} | {rate:.2f} | "
              f"{inst / 1e6:.1f} | {issue or 0:.0f} | {busiest[1]} {busiest[0]:.0f} | "
              f"{bytes_ms:.3f} | {issue_ms:.3f} | {atom / 1e6:.1f} |")
    print(f"| all kernels | | {total_t:.3f} | | | | | | floor {total_floor:.3f} ms | | |")
    bound = f"at most {n / (total_floor * 1e-3):.3e}" if total_floor > 0 else "no bound (no metrics)"
    print(f"kernel time per step {total_t:.3f} ms: {n / (total_t * 1e-3):.3e} particle-steps/s; "
          f"the floors' sum {total_floor:.3f} ms: {bound}")


if __name__ == "__main__":
    main()
