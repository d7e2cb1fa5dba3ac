#!/usr/bin/env bash
# transient_test.sh MODE [VESICA]: tests of scaling/tools/transient.py (test_transient.py says
# what each mode checks); exit 77 (skip) without a python3 that has numpy, h5py and matplotlib.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=
for cand in /usr/bin/python3 python3; do  # Debian's, or the first on PATH (the GPU machines')
    if "$cand" -c 'import h5py, numpy, matplotlib' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "skip: no python3 with numpy, h5py and matplotlib"; exit 77; }
exec "$py" "$here/test_transient.py" "$@"
