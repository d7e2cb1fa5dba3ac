"""The Vesica binary under test, for the Python tests and tools: what it can do here (those
that must skip, exit 77, rather than fail where it cannot) and how a test runs one case."""
import os
import re
import shutil
import subprocess
import sys

MPI = ["mpiexec", "--allow-run-as-root", "--oversubscribe"]


def gpu_visible(binary):
    """Whether `binary info` reports at least one usable GPU."""
    info = subprocess.run([binary, "info"], stdout=subprocess.PIPE, text=True).stdout
    return re.search(r"^GPUs visible: [1-9]", info, re.M) is not None


def run_case(vesica, out, name, text, ranks=1, sets=(), restart=False, expect=0, *,
             backend=None, base_sets=(), cwd=None, singleton=True, quote_dir=False,
             tail=2000, show_stdout=False, prefix=""):
    """Run config `text` as case `name` of a test: `vesica run` on `ranks` ranks in the folder
    out/name (emptied first, unless `restart`: then it goes on from its latest checkpoint),
    each of `sets` a --set KEY=VALUE. Exits the test, with the end of the log, unless the exit
    status is `expect`. Returns the folder and the subprocess.CompletedProcess.

    What the tests do differently, as options:
      backend     --set backend=BACKEND before `sets` (None: the config's backend)
      base_sets   more --set options before `sets` (the test's own command-line ones)
      cwd         the working directory (None: the case's folder)
      singleton   one rank runs without mpiexec, which starts faster (False: under
                  `mpiexec -n 1`)
      quote_dir   output.dir given as a quoted string
      tail        the characters of stderr the failure message ends with (and of stdout
                  before them, with show_stdout); prefix: the message's first word(s)
    """
    d = os.path.join(out, name)
    if not restart:
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "run.cfg")
    with open(cfg, "w") as f:
        f.write(text)
    where = f'"{d}"' if quote_dir else d
    cmd = [] if singleton and ranks == 1 else MPI + ["-n", str(ranks)]
    cmd += [vesica, "run", cfg, "--set", f"output.dir={where}"]
    if backend:
        cmd += ["--set", f"backend={backend}"]
    for s in list(base_sets) + list(sets):
        cmd += ["--set", s]
    if restart:
        cmd += ["--restart", "latest"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd or d)
    if p.returncode != expect:
        log = (p.stdout[-tail:] + "\n" if show_stdout else "") + p.stderr[-tail:]
        sys.exit(f"{prefix}{name}: exit {p.returncode}, expected {expect}\n{log}")
    return d, p
