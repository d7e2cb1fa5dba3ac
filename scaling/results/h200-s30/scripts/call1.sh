#!/bin/bash
# Session 30 call 1 (one H200): build main (ebcc17a's tree) on the device and run the five
# 10,000-step stress corners that session 29's call 1 cut off at 300 s under load and whose
# call 4 outputs (all five passed) were lost when that session was cut off.
set -u
source .devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ time (cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        > /tmp/cmake.txt 2>&1 && cmake --build build-gpu -j 16 --target vesica > /tmp/build.txt 2>&1); } \
  2> "$OUT"/build-time.txt || { tail -n 30 /tmp/cmake.txt /tmp/build.txt; exit 1; }
grep -c warning /tmp/build.txt > "$OUT"/build-warnings.txt
R='^gpu_stress_corners_(np4_(1_4_1_host_cells|2_2_1_peer_skin0_cells|2_2_1_peer_thread)|np8_2_2_2_(host_thread|peer_cells))$'
timeout 450 ctest --test-dir build-gpu -R "$R" -j 28 --timeout 440 --output-on-failure \
  > "$OUT"/tests1.txt 2>&1
echo "rc=$?" >> "$OUT"/tests1.txt
cat "$OUT"/build-time.txt; tail -n 20 "$OUT"/tests1.txt
