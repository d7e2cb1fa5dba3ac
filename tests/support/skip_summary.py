#!/usr/bin/python3
"""skip_summary.py JUNIT_XML: what a ctest run skipped, and why (issue 46 item 10).

ctest counts a skipped test (exit 77: no GPU, no LAMMPS reference, no Slurm, an analysis
Python without numpy) as passed in its "100% tests passed" line. Run ctest with
`--output-junit ctest-junit.xml` (written into the build directory) and give this the file:
it prints one line per reason (the first output line that says "skip", else the last) with
the count and the first tests. Exit 0 always: a summary, not a verdict.
"""
import collections
import sys
import xml.etree.ElementTree as ET


def reason(out):
    lines = [x.strip() for x in (out or "").splitlines() if x.strip()]
    for line in lines:
        if "skip" in line.lower():
            return line
    return lines[-1] if lines else "(no reason printed)"


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError, IndexError) as e:
        print("skip_summary: cannot read the ctest JUnit file (%s)" % e)
        return 0
    why = collections.defaultdict(list)
    cases = root.iter("testcase")
    total = 0
    for case in cases:
        total += 1
        if case.find("skipped") is not None:
            why[reason(case.findtext("system-out"))].append(case.get("name"))
    n = sum(len(v) for v in why.values())
    print("skip_summary: %d of %d tests skipped%s" % (n, total, ":" if n else ""))
    for r, names in sorted(why.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        shown = " ".join(names[:4]) + (" ..." if len(names) > 4 else "")
        print("  %4d  %s  [%s]" % (len(names), r, shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
