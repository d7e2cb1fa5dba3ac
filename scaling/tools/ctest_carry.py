#!/usr/bin/env python3
"""Run a build's tests on a machine that has the binaries but not the build tree.

The GPU machine lends minutes, and a CUDA build there takes two of them per tree. Binaries
built here (the same CUDA version, sm_90) can travel instead, a few MB each compressed; this
script carries the tests with them: `export` writes the commands that ctest would run, `run`
runs them there with the carried binaries. Python standard library only.

  ctest_carry.py export BUILD_DIR OUT.json
      the tests of BUILD_DIR (ctest --show-only=json-v1): name, environment, timeout and
      command, the build directory written as @BUILD@ and the source tree as @SRC@.
  ctest_carry.py run TESTS.json BIN_DIR REGEX [--jobs J] [--timeout S] [--scratch DIR]
                    [--logs DIR]
      the tests whose names match REGEX, J at a time. A command's @BUILD@/path whose file
      name is in BIN_DIR (vesica, test_gpu_multi, ...) runs BIN_DIR's file; any other
      @BUILD@ path lies under the scratch directory (made fresh); @SRC@ is this checkout.
      /usr/bin/python3 runs as the python3 first on PATH where only that one has numpy (the
      device's; h5py can come from its wheel, unzipped onto PYTHONPATH). Prints
      one line per test (ok, SKIP, FAIL, TIMEOUT; under each that did not pass, the log's
      first lines that name a failure and its tail) and exits 1 if any failed or timed out.
      --logs DIR: the whole log of each test that did not pass, copied there (the device's
      $OUT, whose scratch folder does not come back).
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def export(build, out):
    build = os.path.abspath(build)
    js = json.loads(subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                                   check=True, capture_output=True, text=True).stdout)
    src = None
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                src = line.split("=", 1)[1].strip()
    if not src:
        sys.exit("ctest_carry: no CMAKE_HOME_DIRECTORY in %s/CMakeCache.txt" % build)
    tests = []
    for t in js["tests"]:
        if not t.get("command"):
            continue
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        words = [w.replace(build, "@BUILD@").replace(src, "@SRC@") for w in t["command"]]
        tests.append({"name": t["name"], "command": words,
                      "environment": props.get("ENVIRONMENT", []),
                      "timeout": props.get("TIMEOUT", 1500)})
    with open(out, "w") as f:
        json.dump({"tests": tests}, f, indent=0)
    print("ctest_carry: %d tests from %s into %s" % (len(tests), build, out))


def python_with_numpy():
    """The interpreter for the tests' /usr/bin/python3: itself, or python3 on PATH."""
    for py in ("/usr/bin/python3", "python3"):
        if subprocess.run([py, "-c", "import numpy"], capture_output=True).returncode == 0:
            return py
    return "/usr/bin/python3"


# the lines of a log that name what failed (cmocka's, the scripts' and the code's own)
FAILURE = re.compile(r"FAILED|FAIL:|[Ff]atal|[Ee]rror|[Aa]ssert")


def run_one(test, bin_dir, scratch, limit, python, logs):
    names = set(os.listdir(bin_dir))
    words = []
    for w in test["command"]:
        if w.startswith("@BUILD@/") and os.path.basename(w) in names:
            w = os.path.join(bin_dir, os.path.basename(w))
        w = w.replace("@BUILD@", scratch).replace("@SRC@", ROOT)
        words.append(python if w == "/usr/bin/python3" else w)
    for w in words: # the output folders a test names lie under the scratch directory
        if w.startswith(scratch + "/"):
            os.makedirs(os.path.dirname(w), exist_ok=True)
    env = dict(os.environ)
    for e in test["environment"]:
        k, _, v = e.partition("=")
        env[k] = python if v == "/usr/bin/python3" else v  # VESICA_PYTHON, as in the command
    log = os.path.join(scratch, "log-%s.txt" % test["name"])
    t0 = time.time()
    with open(log, "w") as f:
        p = subprocess.Popen(words, cwd=scratch, env=env, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=min(float(test["timeout"]), limit))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL) # the whole group: mpiexec and its ranks
            p.wait()
            rc = None
    state = "TIMEOUT" if rc is None else "ok" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
    line = "%s %s rc %s %.0f s" % (state, test["name"], rc, time.time() - t0)
    if state != "ok":
        with open(log, errors="replace") as f:
            lines = f.readlines()
        tail = lines[-6:]
        named = [l for l in lines[:-6] if FAILURE.search(l)][:6]
        line += "".join("\n    " + l.rstrip() for l in named + tail)
        if logs:
            shutil.copy(log, logs)
    return state, line


def run(tests_json, bin_dir, regex, jobs, limit, scratch, logs=None):
    with open(tests_json) as f:
        tests = [t for t in json.load(f)["tests"] if re.search(regex, t["name"])]
    scratch = os.path.abspath(scratch or tempfile.mkdtemp(prefix="ctest-carry-"))
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    bin_dir = os.path.abspath(bin_dir)
    python = python_with_numpy()
    if logs:
        logs = os.path.abspath(logs)
        os.makedirs(logs, exist_ok=True)
    states = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for state, line in pool.map(
                lambda t: run_one(t, bin_dir, scratch, limit, python, logs), tests):
            print(line, flush=True)
            states.append(state)
    print("ctest_carry: %d ok, %d skipped, %d failed, %d timed out of %d" % (
        states.count("ok"), states.count("SKIP"), states.count("FAIL"),
        states.count("TIMEOUT"), len(states)))
    return 1 if "FAIL" in states or "TIMEOUT" in states else 0


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "export":
        export(a[1], a[2])
        return 0
    if len(a) >= 4 and a[0] == "run":
        opts = {"--jobs": "4", "--timeout": "600", "--scratch": "", "--logs": ""}
        rest = a[4:]
        while rest:
            if rest[0] not in opts or len(rest) < 2:
                sys.exit("ctest_carry: unknown option %s" % rest[0])
            opts[rest[0]] = rest[1]
            rest = rest[2:]
        return run(a[1], a[2], a[3], int(opts["--jobs"]), float(opts["--timeout"]),
                   opts["--scratch"] or None, opts["--logs"] or None)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
