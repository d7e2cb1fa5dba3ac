#!/usr/bin/env bash
# Run Vesica with mpirun on a machine without Slurm: one rank per GPU when GPUs are present,
# otherwise one rank per physical core.
#
# Usage: jobscripts/mpirun.sh CONFIG [RANKS] [-- extra vesica arguments, e.g. --set ...]
#   RANKS defaults to the number of GPUs nvidia-smi lists, or the number of cores.
# Environment: VESICA (path to the binary, default build/vesica), MPIRUN (default mpirun).
# Exit status is vesica's: 0 finished, 1 runtime fault, 2 bad input, 3 stopped for restart (a
# checkpoint was written: run the same command again with `-- --restart latest`). On Slurm,
# use jobscripts/slurm-run.sbatch, and jobscripts/campaign.sbatch for multi-job campaigns.
set -euo pipefail
cfg=${1:?usage: jobscripts/mpirun.sh CONFIG [RANKS] [-- vesica args]}
shift
ranks=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then ranks=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
if [ -z "$ranks" ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    ranks=$(nvidia-smi -L | wc -l)
  else
    ranks=$(nproc)
  fi
fi
root_flags=()
[ "$(id -u)" -eq 0 ] && root_flags=(--allow-run-as-root)
exec "${MPIRUN:-mpirun}" "${root_flags[@]}" -n "$ranks" --bind-to none \
  "${VESICA:-build/vesica}" run "$cfg" "$@"
