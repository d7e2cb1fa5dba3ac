#!/bin/bash
# Session 31 (one H200): build main on the device (unless a warm machine kept build-gpu) and run
# some of the five 10,000-step stress corners, few at once so that the ranks sharing the one GPU
# and 16 cores finish inside the test's time. $1: np4 (three corners at once) or np8 (two).
set -u
source .devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ ! -x build-gpu/vesica ]; then
  { time (cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          > /tmp/cmake.txt 2>&1 && cmake --build build-gpu -j 16 --target vesica > /tmp/build.txt 2>&1); } \
    2> "$OUT"/build-time.txt || { tail -n 30 /tmp/cmake.txt /tmp/build.txt; exit 1; }
  grep -c warning /tmp/build.txt > "$OUT"/build-warnings.txt
  git rev-parse HEAD > "$OUT"/commit.txt 2>/dev/null || true
fi
mode=${1:-np4}
case "$mode" in
  np4) R='^gpu_stress_corners_np4_(1_4_1_host_cells|2_2_1_peer_skin0_cells|2_2_1_peer_thread)$'; J=12 ;;
  np8) R='^gpu_stress_corners_np8_2_2_2_(host_thread|peer_cells)$'; J=16 ;;
  *) echo "usage: corners.sh np4|np8" >&2; exit 2 ;;
esac
timeout 560 ctest --test-dir build-gpu -R "$R" -j "$J" --timeout 540 --output-on-failure \
  > "$OUT"/tests-"$mode".txt 2>&1
echo "rc=$?" >> "$OUT"/tests-"$mode".txt
cat "$OUT"/build-time.txt 2>/dev/null; tail -n 20 "$OUT"/tests-"$mode".txt
