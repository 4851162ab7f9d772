#!/usr/bin/env python3
"""Files over 800 lines and functions over 80 lines in src-tauri/ and tests/, each without a reason.

A file or a function may be longer when the line right above it (for a file: its first
line) is a comment starting `// long:` (or `//! long:` / `/// long:`) that says why, e.g.
`// long: one match arm per ErrorCode; splitting it hides the mapping`. A function's
length is its lines from the `fn` line to its closing brace, found by brace matching with
strings, chars and comments skipped. Exit status 1 when anything is over without a reason.
The last line printed counts what is over without a reason and the `// long:` exemptions
accepted (a `// long:` comment above something within the limits is not counted).

    python3 scripts/size-check.py [--all] [root …]    (default: src-tauri tests)

`--all` also lists what is over with a reason.
"""

import os
import re
import sys

from rust_source import code_only

FILE_LIMIT = 800
FN_LIMIT = 80
REASON = re.compile(r"^\s*//[/!]?\s*long:\s*\S")
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?"
                r"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def has_reason(lines, index):
    """A `// long:` comment on the lines right above `index` (attributes skipped)."""
    j = index - 1
    while j >= 0 and lines[j].strip().startswith(("#[", "///", "//")):
        if REASON.match(lines[j]):
            return True
        j -= 1
    return False


def functions(text):
    """(name, first line index, length in lines) of every fn with a body."""
    code = code_only(text)
    lines = code.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []
    for index, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        # the body opens at the first `{` after the signature, unless a `;` comes first
        pos = starts[index] + m.end()
        depth_paren = 0
        while pos < len(code):
            c = code[pos]
            if c in "([":
                depth_paren += 1
            elif c in ")]":
                depth_paren -= 1
            elif c == ";" and depth_paren == 0:
                pos = -1
                break
            elif c == "{" and depth_paren == 0:
                break
            pos += 1
        if pos < 0 or pos >= len(code):
            continue
        depth = 0
        end = pos
        while end < len(code):
            if code[end] == "{":
                depth += 1
            elif code[end] == "}":
                depth -= 1
                if depth == 0:
                    break
            end += 1
        last = code.count("\n", 0, end)
        found.append((m.group(1), index, last - index + 1))
    return found


def main():
    show_all = "--all" in sys.argv
    roots = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not roots:
        here = os.path.dirname(os.path.abspath(__file__))
        roots = [os.path.join(here, "..", d) for d in ("src-tauri", "tests")]
    long_files, long_fns = [], []
    for root in roots:
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in ("target", "gen", "node_modules"))
            for name in sorted(files):
                if not name.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, os.path.join(root, ".."))
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                lines = text.split("\n")
                count = len(lines) - (1 if text.endswith("\n") else 0)
                if count > FILE_LIMIT:
                    reason = any(REASON.match(l) for l in lines[:3])
                    long_files.append((count, rel, reason))
                for fn, index, length in functions(text):
                    if length > FN_LIMIT:
                        long_fns.append((length, f"{rel}:{index + 1}", fn,
                                         has_reason(lines, index)))

    def report(title, rows, fmt):
        without = [r for r in rows if not r[-1]]
        print(f"{title}: {len(without)} without a reason, {len(rows) - len(without)} with one")
        for row in sorted(rows, reverse=True):
            if show_all or not row[-1]:
                print("  " + fmt(row) + ("  (reason given)" if row[-1] else ""))
        return len(without)

    bad = report(f"files over {FILE_LIMIT} lines", long_files, lambda r: f"{r[0]:5} {r[1]}")
    bad += report(f"functions over {FN_LIMIT} lines", long_fns,
                  lambda r: f"{r[0]:5} {r[1]} {r[2]}")
    exempt = sum(1 for r in long_files + long_fns if r[-1])
    print(f"size-check: {bad} over without a reason, {exempt} `// long:` exemptions")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
