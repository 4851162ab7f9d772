#!/usr/bin/env python3
"""The import graph between ragnosis-core's top-level modules: cycles and upward imports.

Reads every `.rs` file under src-tauri/core/src, finds the paths it names through
`crate::…` (and `super::…` chains that climb to the crate root), and maps each to the
top-level module it lands in. Prints the edges, every cycle of the graph, and every import
from a lower layer into a higher one, against LAYERS below (the order ARCHITECTURE.md
writes down). Test code (`tests.rs`, `*_tests.rs`, inline `#[cfg(test)] mod … { }`) may
reach anywhere and is left out unless `--tests` is given. Comments are ignored.

Exit status 1 when there is a cycle, an upward import, or a module missing from LAYERS;
no dependencies beyond Python 3.

    python3 scripts/module-graph.py [--tests] [--edges] [src-tauri/core/src]
"""

import os
import re
import sys

from rust_source import code_only

# Lowest first. A module may import its own layer's modules and any lower layer's,
# never a higher one; within a layer the graph must still have no cycle.
LAYERS = [
    # leaves: vocabulary every stage shares (error_code, progress, text, item, catalogue
    # and judge_profile are the ragnosis-types crate's, named by the core as its own)
    ["error", "error_code", "paths", "progress", "secrets", "text", "item", "output_file",
     "catalogue", "pipeline", "judge_profile"],
    # reading the world: files, traces, documents, the embedded model (ragnosis-judge's
    # `semantic`); what a user's criterion says
    ["semantic", "dataset", "criteria"],
    # persistence (the only SQL)
    ["store"],
    # the judge: the ragnosis-judge crate (below every core module; cargo keeps it from
    # naming the core) with the core's adapters that open it from the store
    ["judge"],
    ["metrics", "measurable"],
    # statistics and analysis of stored results
    ["analysis"],
    # doing things: runs, the judge's check, trust, generation, retrieval
    ["run", "judge_check", "trust", "retrieval", "generate", "cases", "import"],
    # one run as every reader sees it (read-only)
    ["view"],
    # every output written as data; the advisor, which answers from the read model
    ["export", "advisor"],
]

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def blank_test_blocks(text):
    """Blank out `#[cfg(test)]` items (an inline module or a single item), keeping lines."""
    out = list(text)
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        i = m.end()
        # the item runs to its matching close brace, or to a `;` for `mod x;` / `use …;`
        depth = 0
        j = i
        while j < len(text):
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif text[j] == ";" and depth == 0:
                j += 1
                break
            j += 1
        for k in range(m.start(), j):
            if out[k] != "\n":
                out[k] = " "
    return "".join(out)


def module_path(rel):
    """`judge/offline/mod.rs` -> ['judge', 'offline']; `text.rs` -> ['text']."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def braced_names(text, i):
    """The first identifiers of each path in a `{a::b, c, d::{e}}` group starting at i."""
    depth, j, names, expect = 0, i, [], True
    while j < len(text):
        c = text[j]
        if c == "{":
            depth += 1
            expect = depth == 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            expect = True
        elif expect and depth == 1:
            m = IDENT.match(text, j)
            if m:
                names.append(m.group(0))
                expect = False
                j = m.end()
                continue
        j += 1
    return names


def references(text, here):
    """(top-level module, line) for each path into the crate from a file at `here`."""
    found = []
    for m in re.finditer(r"\b(crate|(?:super::)+super)::", text):
        line = text.count("\n", 0, m.start()) + 1
        head = m.group(1)
        if head == "crate":
            depth = 0
        else:
            # `super` from module a::b::c climbs to a::b; climbing len(here) times is the root
            depth = len(here) - head.count("super")
            if depth > 0:
                continue  # still inside the top-level module
            if depth < 0:
                continue  # not a module path we can resolve (e.g. a test-local module)
        rest = m.end()
        if text.startswith("{", rest):
            names = braced_names(text, rest)
        else:
            ident = IDENT.match(text, rest)
            names = [ident.group(0)] if ident else []
        for name in names:
            found.append((name, line))
    return found


def scan(root, with_tests):
    """{module: {target: [(file, line), …]}} over the crate's sources."""
    tops = set()
    for entry in os.listdir(root):
        if entry.endswith(".rs") and entry != "lib.rs":
            tops.add(entry[:-3])
        elif os.path.isdir(os.path.join(root, entry)):
            tops.add(entry)
    graph = {top: {} for top in tops}
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if rel == "lib.rs":
                continue
            is_test = name == "tests.rs" or name.endswith("_tests.rs")
            if is_test and not with_tests:
                continue
            here = module_path(rel)
            with open(path, encoding="utf-8") as f:
                text = code_only(f.read())
            if not with_tests:
                text = blank_test_blocks(text)
            for target, line in references(text, here):
                if target == here[0] or target not in tops:
                    continue
                graph[here[0]].setdefault(target, []).append((rel, line))
    return graph


def cycles(graph):
    """Every elementary cycle, each once, starting from its smallest module name."""
    found = []

    def walk(start, node, path, seen):
        for nxt in sorted(graph[node]):
            if nxt == start:
                found.append(path + [start])
            elif nxt > start and nxt not in seen:
                seen.add(nxt)
                walk(start, nxt, path + [nxt], seen)
                seen.discard(nxt)

    for start in sorted(graph):
        walk(start, start, [start], {start})
    return found


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    with_tests = "--tests" in sys.argv
    root = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "src-tauri", "core", "src"
    )
    graph = scan(root, with_tests)
    layer = {m: i for i, names in enumerate(LAYERS) for m in names}

    bad = 0
    unplaced = sorted(m for m in graph if m not in layer)
    if unplaced:
        bad += len(unplaced)
        print(f"modules not in LAYERS: {', '.join(unplaced)}")

    edges = sum(len(v) for v in graph.values())
    print(f"{len(graph)} top-level modules, {edges} edges"
          + (" (tests included)" if with_tests else " (tests left out)"))
    if "--edges" in sys.argv:
        for m in sorted(graph):
            print(f"  {m} -> {', '.join(sorted(graph[m])) or '-'}")

    found = cycles(graph)
    print(f"cycles: {len(found)}")
    for c in found:
        print("  " + " -> ".join(c))
    bad += len(found)

    upward = []
    for m in sorted(graph):
        for t in sorted(graph[m]):
            if m in layer and t in layer and layer[t] > layer[m]:
                upward.append((m, t, graph[m][t]))
    print(f"upward imports: {len(upward)}")
    for m, t, places in upward:
        where = ", ".join(f"{f}:{l}" for f, l in places[:4])
        more = f" (+{len(places) - 4})" if len(places) > 4 else ""
        print(f"  {m} (layer {layer[m]}) -> {t} (layer {layer[t]}): {where}{more}")
    bad += len(upward)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
