#!/usr/bin/env python3
"""Fail when a source file includes a header of a higher layer (docs/architecture.md).

The layers, bottom to top, and the layers each may include (a layer's subfolders belong to
it):
    core   src/core    -
    comm   comm/       core
    io     io/         core, comm
    cpu    src/cpu     core, comm
    gpu    gpu/        core, comm
    engine src/engine  core, comm, io, cpu, gpu
    app    src/app     everything below
CMake gives each layer's library only the include directories of the layers it links, so an
upward include does not compile either; this check also sees files a build skips (the GPU
sources on a machine without CUDA) and says which rule was broken. Every quoted include must
name a header of exactly one layer (or the generated version.h, part of core).

Usage: check_layers.py SOURCE_DIR   (exit 0: clean, 1: violations listed on stderr)
"""
import os
import re
import sys

LAYERS = {  # folder (relative to the source root) -> layer
    "src/core": "core",
    "comm": "comm",
    "io": "io",
    "src/cpu": "cpu",
    "gpu": "gpu",
    "src/engine": "engine",
    "src/app": "app",
}
ALLOWED = {
    "core": {"core"},
    "comm": {"core", "comm"},
    "io": {"core", "comm", "io"},
    "cpu": {"core", "comm", "cpu"},
    "gpu": {"core", "comm", "gpu"},
    "engine": {"core", "comm", "io", "cpu", "gpu", "engine"},
    "app": {"core", "comm", "io", "cpu", "gpu", "engine", "app"},
}
GENERATED = {"version.h": "core"}
SOURCE_EXT = (".c", ".h", ".cu", ".cuh", ".h.in")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main(root):
    problems = []
    header_layer = dict(GENERATED)
    files = []
    for folder, layer in LAYERS.items():
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            problems.append(f"{folder}: layer folder missing")
            continue
        # a layer's subfolders (src/engine/ensembles) belong to it
        for sub, dirs, names in sorted(os.walk(path)):
            dirs.sort()
            rel_dir = os.path.relpath(sub, root)
            for name in sorted(names):
                full = os.path.join(sub, name)
                if not name.endswith(SOURCE_EXT):
                    continue
                files.append((f"{rel_dir}/{name}", full, layer))
                if name.endswith((".h", ".cuh")):
                    if name in header_layer:
                        problems.append(f"{rel_dir}/{name}: header name also used in layer "
                                        f"{header_layer[name]} (names must be unique)")
                    header_layer[name] = layer
    # folders under src/ that are not a layer would escape the check
    src = os.path.join(root, "src")
    for name in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, name)) and f"src/{name}" not in LAYERS:
            problems.append(f"src/{name}: folder is not a layer")
        elif name.endswith(SOURCE_EXT):
            problems.append(f"src/{name}: source outside a layer folder")
    for rel, full, layer in files:
        with open(full, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = os.path.basename(m.group(1))
                target = header_layer.get(header)
                if target is None:
                    problems.append(f"{rel}:{lineno}: includes \"{m.group(1)}\", "
                                    "a header of no layer")
                elif target not in ALLOWED[layer]:
                    problems.append(f"{rel}:{lineno}: layer {layer} includes \"{header}\" of "
                                    f"layer {target} (allowed: "
                                    f"{', '.join(sorted(ALLOWED[layer]))})")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_layers: {len(files)} files, {len(problems)} violation(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
