#!/usr/bin/env python3
"""Fail when a source file or a function is too long to hold in the head.

Limits (docs/architecture.md): a source file of src/, comm/, io/, gpu/ or tests/ at most
MAX_FILE lines, a function at most MAX_FUNCTION lines from its opening to its closing brace
(kernels and host functions alike). A function is a top-level brace block whose opening line
follows a parameter list; struct, enum, union, array and extern "C" blocks are not functions.

Usage: check_sizes.py SOURCE_DIR   (exit 0: within limits, 1: each excess listed on stderr)
"""
import os
import re
import sys

MAX_FILE = 1000
MAX_FUNCTION = 120
FOLDERS = ("src", "comm", "io", "gpu", "tests")
EXT = (".c", ".h", ".cu", ".cuh")
NOT_FUNCTION = re.compile(r'\b(struct|enum|union|extern\s+"C")\b[^;(]*$|=\s*$|=\s*\{')


def strip(text):
    """Remove comments, strings and character literals, keeping the line structure."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def name_of(head):
    """The identifier before the parameter list that ends `head`."""
    depth = 0
    for k in range(len(head) - 1, -1, -1):
        if head[k] == ")":
            depth += 1
        elif head[k] == "(":
            depth -= 1
            if depth == 0:
                m = re.search(r"(\w+)\s*$", head[:k])
                return m.group(1) if m else "?"
    return "?"


def functions(text):
    """(name, first line, line count) of each top-level function body."""
    lines = strip(text).split("\n")
    depth, found, start, head = 0, [], None, ""
    for lineno, line in enumerate(lines, 1):
        if line.lstrip().startswith("#"):
            continue
        for k, ch in enumerate(line):
            if ch == "{":
                if depth == 0:
                    before = (head + " " + line[:k]).strip()
                    if before.endswith(")") or re.search(r"\)\s*(const)?\s*$", before):
                        if not NOT_FUNCTION.search(before):
                            start = (name_of(before), lineno)
                    head = ""
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and start:
                    found.append((start[0], start[1], lineno - start[1] + 1))
                    start = None
            elif ch == ";" and depth == 0:
                head = ""
        if depth == 0:
            head = (head + " " + line).strip()[-3000:]
    return found


def main(root):
    problems = []
    count = 0
    for folder in FOLDERS:
        for base, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(EXT):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8").read()
                count += 1
                n_lines = text.count("\n")
                if n_lines > MAX_FILE:
                    problems.append(f"{rel}: {n_lines} lines (at most {MAX_FILE})")
                for fname, first, length in functions(text):
                    if length > MAX_FUNCTION:
                        problems.append(f"{rel}:{first}: {fname} has {length} lines "
                                        f"(at most {MAX_FUNCTION})")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_sizes: {count} files, {len(problems)} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
