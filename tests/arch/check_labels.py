#!/usr/bin/env python3
"""Every test carries exactly one of the labels quick and validation (tests/CMakeLists.txt).

Usage: check_labels.py BUILD_DIR [CTEST]. Reads the tests' properties from
`ctest --show-only=json-v1` in BUILD_DIR and names each test that has neither label or both:
a test folder whose CMakeLists.txt lacks the deferred vs_classify_tests() call leaves its
tests unlabelled, and `ctest -L quick` would then miss them without a word.
"""
import json
import subprocess
import sys


def main():
    build = sys.argv[1]
    ctest = sys.argv[2] if len(sys.argv) > 2 else "ctest"
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    bad = []
    for t in tests:
        labels = []
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = p["value"]
        classes = [c for c in ("quick", "validation") if c in labels]
        if len(classes) != 1:
            bad.append("%s: %s" % (t["name"], ", ".join(classes) or "neither quick nor validation"))
    if not tests:
        print("no tests found in %s" % build)
        return 1
    for b in bad:
        print(b)
    print("%d tests, %d without exactly one of quick and validation" % (len(tests), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
