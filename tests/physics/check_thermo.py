#!/usr/bin/env python3
"""Check time averages in a Vesica thermo.csv against published values.

Usage: check_thermo.py THERMO_CSV --skip-time T [--expect COLUMN=VALUE:RELTOL] [--report COLUMN]

Rows with time < T (equilibration) are dropped. Each expected column's mean must lie within
RELTOL * |VALUE| of VALUE. The standard error is estimated by block averaging (10 blocks) and
printed, so a pass that rests on noise is visible. Standard library only.
"""
import argparse
import csv
import math
import sys


def block_error(values, blocks=10):
    n = len(values) // blocks
    if n == 0:
        return float("nan")
    means = [sum(values[b * n:(b + 1) * n]) / n for b in range(blocks)]
    m = sum(means) / blocks
    var = sum((x - m) ** 2 for x in means) / (blocks - 1)
    return math.sqrt(var / blocks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--skip-time", type=float, default=0.0)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--report", action="append", default=[],
                    help="print the mean of COLUMN without checking it")
    args = ap.parse_args()
    with open(args.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if float(r["time"]) >= args.skip_time]
    if len(rows) < 20:
        print(f"FAIL: only {len(rows)} rows after time {args.skip_time}")
        return 1
    failed = 0
    for col in args.report:
        vals = [float(r[col]) for r in rows]
        print(f"     {col}: mean {sum(vals) / len(vals):.5f} +- {block_error(vals):.5f} "
              f"over {len(vals)} samples")
    for spec in args.expect:
        col, rest = spec.split("=")
        value, tol = (float(x) for x in rest.split(":"))
        vals = [float(r[col]) for r in rows]
        mean = sum(vals) / len(vals)
        err = block_error(vals)
        ok = abs(mean - value) <= tol * abs(value)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {col}: mean {mean:.5f} +- {err:.5f} over {len(vals)} "
              f"samples; expected {value} within {100 * tol:.2f}% "
              f"(deviation {100 * (mean - value) / value:+.3f}%)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
