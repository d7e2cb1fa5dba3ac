#!/usr/bin/env bash
# The static machine code of one kernel, without a GPU (a profiling aid, not a benchmark):
# compiles one CUDA source of the tree for sm_90 with a configured CUDA build's flags, then
# prints, for each kernel whose mangled name matches PATTERN, its registers, stack and spills
# (ptxas), its SASS instruction count and its most frequent opcodes (cuobjdump). With
# LOOP=PATTERN (grep -E, an instruction at a loop body's end) it also counts the loop's body:
# from the target of the first backward branch after that instruction (the loop's head) to it.
# Usage: scaling/bench/gpu_sass.sh BUILD_DIR SOURCE PATTERN
#   BUILD_DIR: a CMake build with CUDA (its includes); SOURCE: e.g. gpu/gpu_forces.cu.
#   cuobjdump must be on PATH (CUDA's bin; `pip download nvidia-cuda-cuobjdump` has it too).
# Example, the plain DPD fluid's Newton kernel (forces only, fresh cell list) and its walk:
# (the queue-full test, queued > VS_NEWTON_QUEUE - VS_NEWTON_UNROLL, ends an iteration):
#   LOOP='ISETP.GE.AND P[0-9], PT, R[0-9]+, 0x16' bash scaling/bench/gpu_sass.sh \
#     build-gpu gpu/gpu_forces.cu 'vs_newton_kernelI13vs_eval_dpd_tILb0ELb0EELb0ELb1ELb0ELb0ELb0EE'
set -euo pipefail
build=$(cd "$1" && pwd); src=$2; pattern=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
rsp=$build/CMakeFiles/vesica_gpu.dir/includes_CUDA.rsp
[ -f "$rsp" ] || { echo "gpu_sass: $rsp missing: configure $1 with CUDA first" >&2; exit 1; }
command -v cuobjdump > /dev/null || { echo "gpu_sass: cuobjdump is not on PATH" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
nvcc -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr -std=c++17 --options-file "$rsp" \
    -cubin -o "$out/k.cubin" "$root/$src" -Xptxas -v > "$out/ptxas.txt" 2>&1 ||
    { cat "$out/ptxas.txt" >&2; exit 1; }
cuobjdump -sass "$out/k.cubin" > "$out/k.sass"
for name in $(grep -o "Function : [^ ]*" "$out/k.sass" | awk '{print $3}' | grep -E "$pattern"); do
    echo "== $name"
    awk -v n="'$name'" '$0 ~ "Compiling entry function " n {p = 1; next}
        p && /(registers|spill)/ {print} p && /Used/ {exit}' "$out/ptxas.txt" |
        sed 's/ptxas info *: //; s/^ *//'
    awk -v n="$name" '$0 ~ "Function : " n "$" {p = 1; next} p && /Function :/ {exit} p' \
        "$out/k.sass" | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
        sed -E 's/^\s+\/\*([0-9a-f]+)\*\/\s+/\1 /; s/ *\/\*.*//' > "$out/k.lst"
    echo "instructions: $(wc -l < "$out/k.lst")"
    echo "opcodes: $(awk '{o = ($2 ~ /^@/) ? $3 : $2; sub(/\..*/, "", o); sub(/;/, "", o); c[o]++}
        END {for (k in c) print c[k], k}' "$out/k.lst" | sort -rn | head -12 | tr '\n' ' ')"
    if [ -n "${LOOP:-}" ]; then
        python3 - "$LOOP" "$out/k.lst" <<'PY'
import re, sys
pattern, path = sys.argv[1], sys.argv[2]
lines = [l.rstrip("\n") for l in open(path)]
addr = [int(l.split()[0], 16) for l in lines]
end = next((k for k, l in enumerate(lines) if re.search(pattern, l)), None)
if end is None:
    sys.exit(print(f"loop body: no instruction matches {pattern}"))
for l in lines[end + 1:]:
    m = re.search(r"BRA (0x[0-9a-f]+)", l)
    if m and int(m.group(1), 16) < addr[end]:
        head = next(k for k, a in enumerate(addr) if a >= int(m.group(1), 16))
        print(f"loop body: {end - head + 1} instructions ({addr[head]:#x} .. {addr[end]:#x})")
        break
else:
    print(f"loop body: no backward branch after {pattern}")
PY
    fi
done
