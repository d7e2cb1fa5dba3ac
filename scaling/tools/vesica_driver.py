"""Shared by the MD validation scripts (lj_eos.py, lj_precision.py): run Vesica on a
configuration text, read thermo.csv, say why a run cannot happen here (exit 77), and write
the results as JSON with the command, machine and date."""
import json
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "support"))
from vesica_env import gpu_visible  # noqa: E402


def run_config(binary, work, name, text):
    """Write work/name.cfg, run it in work, keep its output in work/name.log; stop the
    script with the output's tail if Vesica fails. Returns the wall seconds."""
    cfg = os.path.join(work, name + ".cfg")
    with open(cfg, "w") as c:
        c.write(text)
    t0 = time.time()
    r = subprocess.run([binary, "run", cfg], cwd=work, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(work, name + ".log"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-3000:])
        raise SystemExit("%s: vesica exited %d" % (os.path.join(work, name), r.returncode))
    return time.time() - t0


def read_thermo(path):
    """thermo.csv as {column: numpy array}."""
    import numpy as np
    with open(path) as t:
        head = t.readline().strip().split(",")
        rows = np.array([list(map(float, l.split(","))) for l in t if l.strip()])
    return {h: rows[:, k] for k, h in enumerate(head)}


def skip_reason(binary, backend):
    """Why the measurement cannot run here (numpy/h5py missing, no usable GPU), or None."""
    try:
        import numpy  # noqa: F401
        import h5py  # noqa: F401
    except ImportError:
        return "numpy or h5py missing"
    if backend == "gpu":
        if not gpu_visible(binary):
            return "no usable GPU"
    return None


def write_results(path, results):
    """{"meta": command, machine, date; "results": results} into path."""
    meta = {"command": " ".join(sys.argv), "machine": platform.node(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with open(path, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
