#!/usr/bin/env bash
# npt_lj.sh VESICA WORKDIR [STEPS] [RANKS] [--set KEY=VALUE]...: the long measurement behind
# docs/validation.md "NPT": tests/ensembles/npt_lj.py (the NIST LJ point T* = 0.85,
# P* = 1.2660 -> rho* = 0.86; the volume fluctuations against kappa_T of Johnson et al. 1993)
# over STEPS steps of dt = 0.004 (default 500000: 2000 tau, about 20 minutes on one core of
# the CPU backend; --set backend=gpu for the device). Prints the means, their block errors and
# the checks; the CTest ensembles_npt_lj runs the same for 160 tau.
set -euo pipefail
BIN=$1; OUT=$2; STEPS=${3:-500000}; RANKS=${4:-1}
shift $(( $# < 4 ? $# : 4 ))
HERE=$(cd "$(dirname "$0")" && pwd)
exec "${VESICA_PYTHON:-/usr/bin/python3}" "$HERE/../../tests/ensembles/npt_lj.py" "$BIN" "$OUT" \
    --steps "$STEPS" --ranks "$RANKS" --skip-time 20 "$@"
