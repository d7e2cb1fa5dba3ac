#!/bin/bash
# Session 29 call 4 (one H200): three of the five 10,000-step stress corners that call 1 cut off
# at 300 s under load, alone (three at once), with d70c526's build.
set -u
C=$PWD/.carry-s29
source "$C"/common/.devbundle/setup.sh > /tmp/setup.txt 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /tmp/t4
xz -dc "$C"/bin/vesica.xz > /tmp/t4/vesica; chmod +x /tmp/t4/vesica
timeout 440 python3 -u scaling/tools/ctest_carry.py run "$C"/common/tests.json /tmp/t4 \
  '^gpu_stress_corners_np4_(1_4_1_host_cells|2_2_1_peer_skin0_cells|2_2_1_peer_thread)$' \
  --jobs 3 --timeout 430 --scratch /tmp/s4 --logs "$OUT"/logs > "$OUT"/tests4.txt 2>&1
echo "rc=$?" >> "$OUT"/tests4.txt
cut -c1-200 "$OUT"/tests4.txt | tail -n 30
