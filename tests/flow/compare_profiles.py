#!/usr/bin/python3
"""compare_profiles.py A.h5 B.h5 [--rtol R]: every window dataset of two profiles.h5 files
equal (bitwise with --rtol 0, else to R relative to the largest value of the dataset);
prints the worst difference. Exit 0 when they agree."""
import sys

import h5py
import numpy as np


def datasets(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) and not n.startswith("pending") else None)
    return sorted(names)


def main():
    a, b = sys.argv[1], sys.argv[2]
    rtol = float(sys.argv[sys.argv.index("--rtol") + 1]) if "--rtol" in sys.argv else 0.0
    fa, fb = h5py.File(a, "r"), h5py.File(b, "r")
    na, nb = datasets(fa), datasets(fb)
    if na != nb:
        print(f"FAIL datasets differ: {set(na) ^ set(nb)}")
        return 1
    bad = 0
    for n in na:
        x, y = np.array(fa[n]), np.array(fb[n])
        if x.shape != y.shape:
            print(f"FAIL {n}: shapes {x.shape} and {y.shape}")
            bad += 1
            continue
        scale = max(float(np.max(np.abs(y))) if y.size else 0.0, 1e-300)
        worst = float(np.max(np.abs(x - y))) / scale if x.size else 0.0
        ok = worst <= rtol if rtol > 0 else np.array_equal(x, y)
        print(f"{'ok  ' if ok else 'FAIL'} {n} {x.shape}: worst relative difference {worst:.3e}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
