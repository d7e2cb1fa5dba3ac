#!/usr/bin/env bash
# skip_without_gpu.sh VESICA COMMAND...: exit 77 (CTest: skipped) unless `vesica info` sees a
# GPU, else run COMMAND.
set -euo pipefail
bin=$1; shift
if ! "$bin" info 2>/dev/null | grep -q '^GPUs visible: [1-9]'; then
  echo "no usable GPU: skipped"
  exit 77
fi
exec "$@"
