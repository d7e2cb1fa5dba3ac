#!/usr/bin/env bash
# scaling/tools/ctest_carry.py: the build's tests exported with placeholders, one of them run
# from a folder of binaries (its output under the scratch folder), and a failing, a skipped
# and an overlong command told apart (exit 1 where one failed or timed out).
# Usage: ctest_carry.sh BUILD_DIR SOURCE_DIR OUT_DIR
set -euo pipefail
build=$1; src=$2; out=$3
tool="python3 $src/scaling/tools/ctest_carry.py"
rm -rf "$out"; mkdir -p "$out/bin"
$tool export "$build" "$out/tests.json"
python3 - "$out/tests.json" <<'PY'
import json, sys
tests = {t["name"]: t for t in json.load(open(sys.argv[1]))["tests"]}
assert "scaling_ctest_carry" in tests and "cli_info_driver" in tests, "tests missing"
words = tests["cli_info_driver"]["command"]
assert "@BUILD@/vesica" in words and any(w.startswith("@SRC@/") for w in words), words
PY
ln -s "$build/vesica" "$out/bin/vesica"
$tool run "$out/tests.json" "$out/bin" '^cli_info_driver$' --scratch "$out/scratch" | tee "$out/run.txt"
grep -q '^ok cli_info_driver ' "$out/run.txt"
grep -q '1 ok, 0 skipped, 0 failed, 0 timed out of 1' "$out/run.txt"
[ -d "$out/scratch/tests/cli/info_driver" ] # the test's folder, under the scratch folder
cat > "$out/made.json" <<'JS'
{"tests": [{"name": "fails", "command": ["sh", "-c", "echo '[  FAILED  ] the case'; seq 1 20; exit 1"], "environment": [], "timeout": 60},
           {"name": "skips", "command": ["sh", "-c", "exit 77"], "environment": [], "timeout": 60},
           {"name": "env", "command": ["sh", "-c", "test \"$CARRY_X\" = 1"], "environment": ["CARRY_X=1"], "timeout": 60},
           {"name": "sleeps", "command": ["sh", "-c", "sleep 30"], "environment": [], "timeout": 60}]}
JS
set +e
$tool run "$out/made.json" "$out/bin" '.' --jobs 4 --timeout 2 --scratch "$out/made" \
  --logs "$out/logs" > "$out/made.txt"
rc=$?
set -e
cat "$out/made.txt"
[ $rc = 1 ]
grep -q '^FAIL fails ' "$out/made.txt"
grep -q '^SKIP skips ' "$out/made.txt"
grep -q '^ok env ' "$out/made.txt"
grep -q '^TIMEOUT sleeps ' "$out/made.txt"
# a failure's naming line is shown though it is far above the tail, and the logs of the tests
# that did not pass are copied whole (the passing one's is not)
grep -q '^    \[  FAILED  \] the case' "$out/made.txt"
grep -q '^    20$' "$out/made.txt"
[ "$(wc -l < "$out/logs/log-fails.txt")" = 21 ]
[ -f "$out/logs/log-sleeps.txt" ] && [ -f "$out/logs/log-skips.txt" ] && [ ! -f "$out/logs/log-env.txt" ]
echo "ctest_carry: ok"
