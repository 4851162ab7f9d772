#!/usr/bin/env python3
"""File-level import circles inside each crate of src-tauri/: files that import each other
through any path.

A circle between two files is a type in the wrong file: each side needs the other, so
neither can be read, tested or moved alone. `module-graph.py` keeps core's top-level
modules in layers; this keeps the files inside a module from tying themselves in loops.

Every path a file names is resolved to the file that defines the module it reaches:
`use super::stats::quantile` in `analysis/compare/bootstrap.rs` reaches
`analysis/stats.rs`; `crate::judge::offline::claims::support::Claim` reaches `support.rs`; a child
module named from its parent (`actions::plan(..)` in `diagnosis/mod.rs`) reaches
`diagnosis/actions.rs`. A name taken from an ancestor (`super::Notes`, `crate::Error`) is no
tie: a child module leans on the module that declares it, as Rust modules are built. A
name taken from another module's re-export (`super::diagnosis::FailurePattern`,
re-exported by `diagnosis/mod.rs`) reaches that module's file: import it from the file
that defines it. Declaring a module (`mod actions;`) is no import. Test code (`tests.rs`,
`*_tests.rs`, `#[cfg(test)]` items) is left out. Comments and strings are ignored.

Exit status 1 when any crate has a circle.

    python3 scripts/file-circles.py [src-tauri]
"""

import os
import re
import sys

from rust_source import code_only

# `blank_test_blocks` lives with the module graph; both read Rust the same way.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
module_graph = __import__("module-graph")

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
INLINE_PATH = re.compile(rf"(?<![A-Za-z0-9_:])({IDENT}(?:::{IDENT})+)")
USE = re.compile(r"\buse\s+")


def module_path(rel):
    """`judge/offline/mod.rs` -> ('judge', 'offline'); `lib.rs` -> ()."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def use_paths(tree):
    """The full paths of a `use` tree: `a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def expand(prefix, text):
        depth, start, parts = 0, 0, []
        for i, c in enumerate(text):
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0 and part.endswith("}"):
                expand(prefix + part[:brace], part[brace + 1:-1])
            else:
                out.append(prefix + part.split(" as ")[0])

    expand("", tree)
    return [p.rstrip(":") for p in out]


def crate_files(src):
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            if name == "tests.rs" or name.endswith("_tests.rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            files[rel] = module_path(rel)
    return files


def resolve(path, here, modules):
    """The module (a key of `modules`) a path from module `here` lands in, or None."""
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                if not base:
                    return None
                base = base[:-1]
            segs = segs[1:]
    elif here + (segs[0],) in modules:
        base = here  # a child module named from its parent
    else:
        return None
    cur = base
    for s in segs:
        if cur + (s,) in modules:
            cur = cur + (s,)
        else:
            break
    return cur if cur in modules else None


def edges_of(src):
    files = crate_files(src)
    modules = {m: rel for rel, m in files.items()}
    edges = {rel: {} for rel in files}
    for rel, here in files.items():
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = module_graph.blank_test_blocks(code_only(f.read()))
        paths = []
        for m in USE.finditer(text):
            end = text.find(";", m.end())
            if end > 0:
                paths += use_paths(text[m.end():end])
        paths += [m.group(1) for m in INLINE_PATH.finditer(text)]
        for path in paths:
            target = resolve(path, here, modules)
            # A module reading its own ancestors (`super::Notes` from a dialect, `crate::Error`)
            # is how Rust modules are built: the parent declares the child, which may lean
            # on it. A circle is a loop between files neither of which contains the other.
            if target is None or target == here or here[: len(target)] == target:
                continue
            name = path.split("::")[-1]
            edges[rel].setdefault(modules[target], set()).add(name)
    return edges


def circles(edges):
    """Strongly connected groups of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src-tauri"
    )
    total = 0
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        edges = edges_of(src)
        found = circles(edges)
        total += len(found)
        for group in found:
            print(f"{crate}: circle of {len(group)} files")
            for f in group:
                for t, names in sorted(edges[f].items()):
                    if t in group:
                        print(f"  {f} -> {t}: {', '.join(sorted(names))}")
    print(f"file-level circles: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
