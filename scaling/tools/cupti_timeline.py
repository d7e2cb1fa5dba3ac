#!/usr/bin/env python3
"""The device's time in one step, read from scaling/tools/cupti_trace.c's files.

Usage: cupti_timeline.py [--sequences N] [--totals] ANCHOR TRACE.0.csv [TRACE.1.csv ...]
ANCHOR: a regular expression matching one kernel a step (the slab path's
`slab_pack_fill_kernel`, one rank's `newton`). A step is the work from one anchor to the next;
the steps with the commonest sequence of activities (most of them: thermo steps differ) are
averaged. Per rank it prints each activity's mean start after the anchor, its mean length and
the idle time before it, then the step's length, busy and idle time. With two ranks it also
prints, step by step, how much later rank 1's anchor starts than rank 0's (CUPTI's
timestamps share the host's clock), and for each activity that follows an idle gap on one
rank, the end of the other rank's activity that came last before that gap closed: what the
gap waited for.
--sequences N prints the N commonest sequences, not only the first (a run with a neighbour
list has build steps and plain ones). --totals adds, per rank, every activity's time summed
over all steps and divided by their number, whatever the sequence: what each costs a step on
average, builds included.
"""
import bisect
import collections
import re
import statistics
import sys


def short(name):
    m = re.match(r"_Z(\d+)", name)  # a plain mangled name; others (namespaces) as they are
    if m:
        n = int(m.group(1))
        start = m.end()
        return name[start:start + n]
    return name[:48]


def load(path):
    """The device's activities (start, end, kind, name, the host's time of queueing it or
    None), in order; the host's calls (kind runtime) give the queueing times."""
    rows, queued = [], {}
    with open(path) as f:
        next(f)
        for line in f:
            kind, start, end, dev, stream, corr, name = line.rstrip("\n").split(",", 6)
            if kind in ("runtime", "driver"):
                queued[corr] = int(end)
                continue
            rows.append((int(start), int(end), kind, short(name) if kind == "kernel" else
                         kind + ":" + name, corr))
    rows = [(a, b, k, n, queued.get(c)) for a, b, k, n, c in rows]
    rows.sort(key=lambda r: r[:2])
    return rows


def steps_of(rows, anchor):
    at = [i for i, r in enumerate(rows) if r[2] == "kernel" and re.search(anchor, r[3])]
    return [rows[a:b] for a, b in zip(at, at[1:])]


def summary(rank, steps, nth=0):
    sig = collections.Counter(tuple(r[3] for r in s) for s in steps)
    ranked = sig.most_common()
    if nth >= len(ranked):
        return None
    common, count = ranked[nth]
    chosen = [s for s in steps if tuple(r[3] for r in s) == common]
    which = "the commonest sequence" if nth == 0 else f"sequence {nth + 1} by count"
    print(f"rank {rank}: {len(steps)} steps, {count} with {which} "
          f"({len(common)} activities); us per step:")
    print(f"  {'activity':40s} {'start':>8s} {'length':>8s} {'idle before':>12s} "
          f"{'queued ahead':>13s}")
    for k, name in enumerate(common):
        start = statistics.mean((s[k][0] - s[0][0]) / 1e3 for s in chosen)
        length = statistics.mean((s[k][1] - s[k][0]) / 1e3 for s in chosen)
        idle = statistics.mean(max(0, s[k][0] - max(r[1] for r in s[:k])) / 1e3
                               for s in chosen) if k else 0.0
        # how long before it started the host had queued it (small: the host was late)
        ahead = [(s[k][0] - s[k][4]) / 1e3 for s in chosen if s[k][4] is not None]
        ahead_s = f"{statistics.median(ahead):13.1f}" if ahead else f"{'-':>13s}"
        print(f"  {name[:40]:40s} {start:8.1f} {length:8.1f} {idle:12.1f} {ahead_s}")
    return chosen


def totals(steps):
    """Each activity's time summed over all steps, per step, longest first."""
    spent = collections.Counter()
    for s in steps:
        for r in s:
            spent[r[3]] += r[1] - r[0]
    print(f"  every activity over all {len(steps)} steps, us per step:")
    for name, t in spent.most_common():
        print(f"  {name[:40]:40s} {t / 1e3 / len(steps):10.1f}")
    lengths = (steps[-1][-1][1] - steps[0][0][0]) / 1e3 / len(steps)
    print(f"  step (first anchor to the last step's end, per step): {lengths:.1f} us")


def main():
    args = sys.argv[1:]
    n_seq, want_totals = 1, False
    while args and args[0].startswith("--"):
        if args[0] == "--sequences":
            n_seq = int(args[1])
            args = args[2:]
        elif args[0] == "--totals":
            want_totals = True
            args = args[1:]
        else:
            sys.exit(f"cupti_timeline.py: unknown option {args[0]}")
    anchor, paths = args[0], args[1:]
    per_rank = []
    for rank, path in enumerate(paths):
        steps = steps_of(load(path), anchor)
        if len(steps) < 2:  # a helper process the library was injected into (MPI's, say)
            print(f"{path}: fewer than three '{anchor}' kernels, skipped")
            continue
        for nth in range(1, n_seq):
            summary(len(per_rank), steps, nth)
        if want_totals:
            totals(steps)
        chosen = summary(len(per_rank), steps)
        lengths = [(b[0][0] - a[0][0]) / 1e3 for a, b in zip(steps, steps[1:])]
        busy = [sum((r[1] - r[0]) for r in s) / 1e3 for s in chosen]
        print(f"  step (anchor to anchor): median {statistics.median(lengths):.1f} us; "
              f"busy {statistics.mean(busy):.1f} us (activities' lengths summed)")
        per_rank.append(steps)
    if len(per_rank) == 2:
        a1 = [s[0][0] for s in per_rank[1]]
        # each of rank 0's anchors against rank 1's nearest (both in time order)
        skew = []
        for t in (s[0][0] for s in per_rank[0]):
            i = bisect.bisect_left(a1, t)
            j = min((k for k in (i - 1, i) if 0 <= k < len(a1)), key=lambda k: abs(a1[k] - t))
            skew.append((a1[j] - t) / 1e3)
        print(f"rank 1's anchor after rank 0's: median {statistics.median(skew):.1f} us "
              f"(min {min(skew):.1f}, max {max(skew):.1f})")
        # the waits: for each gap on rank r, which of the other rank's activities ended last
        # before the gap closed
        for r in (0, 1):
            mine, other = per_rank[r], per_rank[1 - r]
            by_end = sorted((x for s in other for x in s), key=lambda x: x[1])
            ends = [x[1] for x in by_end]
            waits = collections.defaultdict(list)
            for s in mine:
                for k in range(1, len(s)):
                    prev_end = max(x[1] for x in s[:k])
                    gap = s[k][0] - prev_end
                    if gap < 3000:
                        continue
                    i = bisect.bisect_right(ends, s[k][0]) - 1
                    if i < 0:
                        continue
                    last = by_end[i]
                    waits[(s[k][3], last[3])].append(((s[k][0] - last[1]) / 1e3, gap / 1e3))
            print(f"rank {r}'s idle gaps over 3 us: the activity after the gap <- the other "
                  f"rank's last to end before it; count, mean gap, mean time from that end:")
            for (name, theirs), v in sorted(waits.items(), key=lambda kv: -len(kv[1]))[:12]:
                print(f"  {name[:32]:32s} <- {theirs[:32]:32s} {len(v):5d} "
                      f"{statistics.mean(g for _, g in v):8.1f} "
                      f"{statistics.mean(d for d, _ in v):8.1f}")


if __name__ == "__main__":
    main()
