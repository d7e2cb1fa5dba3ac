#!/usr/bin/python3
"""The example commands of docs/examples.md as a newcomer runs them (issue 46 item 8).

Usage: check_examples.py SOURCE_DIR   (exit 0: clean, 1: each problem listed on stderr)

For every indented command line of docs/examples.md (and its continuation lines):
- a script it runs directly (scaling/tools/X.sh or .py first on the line) is executable in
  git (mode 100755) and starts with #!;
- Python is /usr/bin/python3 (the one with numpy and h5py), never a bare `python3`;
- no --png, --json or output path points into the tracked docs/ or scaling/results/ trees
  (the examples write to out/; updating a shipped figure is a deliberate FIGURE=... run).
And the example drivers the page runs (scaling/tools/*.sh): no default write into docs/ or
scaling/results/ (only behind FIGURE or an argument), and a script that starts mpiexec lets
Open MPI run as root (the quick start runs as root in containers).
"""
import os
import re
import subprocess
import sys


def commands(md):
    """The indented command lines of a Markdown page, continuations joined."""
    out, cur = [], ""
    for line in md.splitlines():
        if line.startswith("    ") and line.strip():
            cur += " " + line.strip().rstrip("\\")
            if not line.rstrip().endswith("\\"):
                out.append(cur.strip())
                cur = ""
        elif cur:
            out.append(cur.strip())
            cur = ""
    return out


def main():
    root = sys.argv[1]
    problems = []
    md = open(os.path.join(root, "docs", "examples.md")).read()
    modes = {}
    ls = subprocess.run(["git", "-C", root, "ls-files", "-s", "scaling/tools"],
                        capture_output=True, text=True)
    for row in ls.stdout.splitlines():
        mode, _, _, path = row.split(None, 3)
        modes[path] = mode
    drivers = set()
    for cmd in commands(md):
        words = cmd.split()
        if not words:
            continue
        first = words[0]
        if re.match(r"scaling/tools/\S+\.(sh|py)$", first):
            if modes and modes.get(first) != "100755":
                problems.append("%s: run directly by docs/examples.md but not executable" % first)
            with open(os.path.join(root, first)) as f:
                if not f.readline().startswith("#!"):
                    problems.append("%s: run directly but has no #! line" % first)
            if first.endswith(".sh"):
                drivers.add(first)
        if re.search(r"(^|\s)python3\s", cmd):
            problems.append("docs/examples.md: bare python3 (use /usr/bin/python3): %s" % cmd)
        for w in words:
            if re.match(r"(docs|scaling/results)/", w) and not w.endswith(".cfg"):
                problems.append("docs/examples.md: a command writes into the tracked %s: %s"
                                % (w, cmd))
    for d in sorted(drivers):
        text = open(os.path.join(root, d)).read()
        for m in re.finditer(r"\s(docs|scaling/results)/\S+", text):
            line = text[:m.start()].count("\n") + 1
            src = text.splitlines()[line - 1]
            if src.lstrip().startswith("#") or "${FIGURE" in src or "${RESULTS" in src:
                continue
            problems.append("%s:%d: writes into the tracked %s by default" % (d, line, m.group(1)))
        if "mpiexec" in text and "OMPI_ALLOW_RUN_AS_ROOT" not in text:
            problems.append("%s: starts mpiexec but Open MPI refuses root (the quick start "
                            "runs as root)" % d)
    for p in problems:
        print(p, file=sys.stderr)
    print("check_examples: %d command(s), %d driver(s), %d problem(s)"
          % (len(commands(md)), len(drivers), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
