#!/usr/bin/env bash
# `vesica info`, and a GPU run, say why no GPU can be used (issue 46 item 6). What the machine
# has is found here without Vesica: the NVIDIA user-space driver (libcuda.so.1 in the loader's
# cache, or the kernel driver's /proc/driver/nvidia) and nvidia-smi's GPU list.
# - A build without CUDA says so in `info`, and `backend = "gpu"` exits 2 naming the build.
# - A CUDA build on a machine without the driver (the CPU machines of CI): `info` prints
#   "driver none" and the documented "no NVIDIA driver on this machine" reason (not CUDA's
#   "CUDA driver version is insufficient"); `backend = "gpu"` exits 2 with the same reason,
#   one line, and creates no output folder.
# - A CUDA build with a driver: `info` lists as many GPUs as nvidia-smi, each with its line.
# Usage: info_driver.sh VESICA CONFIG WORKDIR
set -uo pipefail
bin=$1 cfg=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

"$bin" info > "$work/info.txt" 2> "$work/info.err"; rc=$?
cat "$work/info.txt" "$work/info.err"
check "info exits 0" '[ $rc -eq 0 ]'
check "info names the version, MPI and HDF5" \
  'grep -q "^vesica " "$work/info.txt" && grep -q "^MPI: " "$work/info.txt" && grep -q "^HDF5: " "$work/info.txt"'
check "no raw CUDA error text" '! grep -qi "insufficient" "$work/info.txt" "$work/info.err"'

"$bin" run "$cfg" --set backend=gpu --set integrator.steps=10 --set "output.dir=$work/gpu_run" \
  > "$work/run.out" 2> "$work/run.err"; run_rc=$?

driver=0
if ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 ' || [ -e /proc/driver/nvidia/version ]; then
  driver=1
fi
if grep -q "^backends: cpu (built without CUDA)" "$work/info.txt"; then
  echo "a build without CUDA"
  check "info: no GPUs, built without CUDA" 'grep -qx "GPUs visible: none (built without CUDA)" "$work/info.txt"'
  check "backend gpu: exit 2, one line naming the build (got $run_rc)" \
    '[ $run_rc -eq 2 ] && [ "$(wc -l < "$work/run.err")" -eq 1 ] && grep -q "this build has no CUDA support" "$work/run.err"'
elif [ $driver -eq 0 ]; then
  echo "a CUDA build on a machine without the NVIDIA driver"
  reason="no NVIDIA driver on this machine: no GPU, or its driver is not installed; the cpu backend runs without one"
  check "info: the CUDA line says driver none" 'grep -Eq "^CUDA: runtime [0-9]+\.[0-9]+, driver none$" "$work/info.txt"'
  check "info: no GPU visible, with the reason" 'grep -qxF "GPUs visible: 0 ($reason)" "$work/info.txt"'
  check "backend gpu: exit 2, one line with the reason (got $run_rc)" \
    '[ $run_rc -eq 2 ] && [ "$(wc -l < "$work/run.err")" -eq 1 ] && grep -qF "($reason)" "$work/run.err"'
  check "backend gpu: no output folder" '[ ! -e "$work/gpu_run" ]'
else
  echo "a CUDA build on a machine with the NVIDIA driver"
  check "info: the driver's version" 'grep -Eq "^CUDA: runtime [0-9.]+, driver [0-9]+\.[0-9]+$" "$work/info.txt"'
  if command -v nvidia-smi > /dev/null && [ -z "${CUDA_VISIBLE_DEVICES+x}" ]; then
    n=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU ")
    check "info: as many GPUs as nvidia-smi ($n), a line each" \
      'grep -qx "GPUs visible: $n" "$work/info.txt" && [ "$(grep -c "^  GPU [0-9]*: " "$work/info.txt")" -eq "$n" ]'
  fi
fi
[ $fail -eq 0 ] && echo "all passed" || echo "FAILED"
exit $fail
