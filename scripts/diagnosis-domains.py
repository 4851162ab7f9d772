#!/usr/bin/env python3
"""Measures the diagnosis on hand-labelled help-desk logs, end to end through the CLI.

Each set is a JSONL whose items carry a label in `metadata` (the shared diagnosis domains:
`shape`, `expect`, `accept`; the repository's own sets in `tests/diagnosis/`:
`shape`, `expected_patterns`, `named_by`, `also_ok`). The label is stripped before import,
as a user's file would be, the set is evaluated with `ragnosis agentic` (offline judge)
and exported as JSON, and the per-item patterns are scored as the shared README says:

- false alarm: a correct item (good, correct abstention) with a letter outside `accept`;
- named: a failure with at least one `expect` letter;
- extra: a letter outside `expect` + `accept` on a failure;
- unsure: an item the diagnosis says needs a look (counted apart: not a false alarm);
- a correct item shown as an example under a pattern or an action.

    python3 scripts/diagnosis-domains.py [--bin PATH] [--dump FILE.jsonl] [SET ...]

SET is a domain folder (holding items.jsonl) or a JSONL file; default: the five shared
domains, the two sets of tests/diagnosis and the bundled example. `--dump` writes one line
per item with its label, letters and every ok score and decision fact, which
`cargo run -p ragnosis-core --example diagnosis_lodo -- DUMP` reads to choose the
diagnosis's thresholds leave-one-domain-out.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LETTER = {
    "retrieval_miss": "A", "context_ignored": "B", "hallucination": "C",
    "over_confidence": "D", "multi_hop_failure": "E", "subtle_distortion": "F",
    "generation_quality": "G", "incomplete": "H", "wrong_refusal": "I",
    "citation_failure": "J",
}
CORRECT = {"good", "correct_abstention"}


def default_sets():
    shared = Path(os.environ.get("RAGNOSIS_SHARED_DATA", ROOT.parent / "shared" / "data"))
    domains = sorted(p for p in (shared / "diagnosis-domains").iterdir() if p.is_dir())
    own = sorted((ROOT / "tests" / "diagnosis").glob("*.jsonl"))
    return domains + own + [ROOT / "assets" / "examples" / "ragnosis-example.jsonl"]


# The bundled example labels only a shape: the letters that name it, and those tolerable.
EXAMPLE_SHAPES = {
    "good": ([], []),
    "correct_abstention": ([], ["A"]),
    "very_short": ([], ["G"]),
    "retrieval_miss": (["A"], ["C", "D", "J"]),
    "retrieval_miss_gold_below_k": (["A"], ["C", "D", "F", "J"]),
    "retrieval_miss_irrelevant_chunks": (["A"], ["C", "D", "F", "J"]),
    "hallucination_date": (["C", "F"], []),
    "hallucination_place": (["C", "F"], []),
    "contradiction": (["F"], ["C"]),
    "wrong_citation": (["J"], []),
    "multi_citation": (["J"], []),
    "no_citation": (["J"], []),
    "over_confident": (["D"], ["A", "C"]),
    "incomplete": (["H"], []),
    "verbose_repetitive": (["G"], ["H"]),
}


def default_bin():
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    return str(Path(target) / "debug" / "ragnosis")


def label_of(meta):
    """(shape, expect, accept) in letters, for either labelling scheme."""
    shape = meta["shape"]
    if shape in EXAMPLE_SHAPES and "expect" not in meta and "expected_patterns" not in meta:
        expect, accept = EXAMPLE_SHAPES[shape]
        return ("good" if not expect and shape != "correct_abstention" else shape), set(expect), set(accept)
    if "expect" in meta:
        return shape, set(meta["expect"]), set(meta.get("accept", []))
    named = meta.get("named_by") or meta.get("expected_patterns", [])
    expect = {LETTER[n] for n in named}
    accept = {LETTER[n] for n in meta.get("also_ok", [])}
    accept |= {LETTER[n] for n in meta.get("expected_patterns", [])}
    if shape in CORRECT:
        # A correct abstention's "expected" retrieval miss is tolerable, not required.
        return shape, set(), accept | expect
    return shape, expect, accept - expect


def run_set(binary, source, work):
    path = source / "items.jsonl" if source.is_dir() else source
    name = source.name if source.is_dir() else source.stem
    labels, lines = {}, []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        labels[item["id"]] = label_of(item.pop("metadata"))
        lines.append(json.dumps(item))
    stripped = work / f"{name}.jsonl"
    stripped.write_text("\n".join(lines) + "\n")
    home = work / f"home-{name}"
    out = work / name
    cmd = [binary, "--home", str(home), "agentic", str(stripped), "--label", name,
           "--out-base", str(out), "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return name, labels, json.loads(Path(f"{out}.json").read_text())


def example_ids(export):
    """Item ids (stored ids) shown as examples under a pattern or an action."""
    ids = set()
    diagnosis = export["summary"].get("diagnosis") or {}
    for pattern in diagnosis.get("patterns", []):
        ids |= {e["item_id"] for e in pattern.get("examples", [])}
    actions = list(diagnosis.get("actions", []))
    actions += (export.get("insights") or {}).get("actions", [])
    for action in actions:
        example = action.get("example") or {}
        if "item_id" in example:
            ids.add(example["item_id"])
    return ids


def score(name, labels, export, dump):
    shown = example_ids(export)
    figures = {"correct": 0, "false_alarms": 0, "failures": 0, "named": 0, "extras": 0,
               "unsure": 0, "correct_examples": 0}
    wrong = []
    for item in export["items"]:
        shape, expect, accept = labels[item["id"]]
        letters = {p["pattern"] for p in item.get("patterns", [])}
        unsure = bool(item.get("needs_a_look"))
        figures["unsure"] += unsure
        if shape in CORRECT:
            figures["correct"] += 1
            alarm = bool(letters - accept)
            figures["false_alarms"] += alarm
            if item["item_id"] in shown:
                figures["correct_examples"] += 1
                wrong.append(f"{item['id']} ({shape}) shown as an example")
            if alarm:
                wrong.append(f"{item['id']} ({shape}) false alarm {''.join(sorted(letters))}")
        else:
            figures["failures"] += 1
            named = bool(letters & expect)
            extra = bool(letters - expect - accept)
            figures["named"] += named
            figures["extras"] += extra
            if not named or extra:
                wrong.append(f"{item['id']} ({shape}) expected {''.join(sorted(expect))}, "
                             f"got {''.join(sorted(letters)) or '-'}")
        if dump is not None:
            scores = {m: r["score"] for m, r in item["results"].items()
                      if r["status"] == "ok" and r["score"] is not None}
            nr = item["results"].get("ragvue.negative_rejection", {}).get("details") or {}
            correctness = item["results"].get("ragalyst.answer_correctness", {})
            facts = {
                "ragvue.negative_rejection/answer_declined": nr.get("answer_abstains"),
                "ragvue.negative_rejection/passages_held_answer": nr.get("contexts_sufficient"),
                "ragalyst.answer_correctness/reference_declines": (
                    (correctness.get("details") or {}).get("reference_declines")
                    if correctness.get("status") == "ok" else None),
            }
            scores.update({k: float(v) for k, v in facts.items() if isinstance(v, bool)})
            dump.write(json.dumps({
                "set": name, "id": item["id"], "shape": shape, "expect": sorted(expect),
                "accept": sorted(accept), "letters": sorted(letters), "unsure": unsure,
                "has_ground_truth": bool(item.get("ground_truth")),
                "declined": nr.get("answer_abstains"),
                "passages_held_answer": nr.get("contexts_sufficient"),
                "scores": scores}) + "\n")
    return figures, wrong


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=default_bin())
    parser.add_argument("--dump")
    parser.add_argument("--quiet", action="store_true", help="figures only, no item lines")
    parser.add_argument("sets", nargs="*", type=Path)
    args = parser.parse_args()
    dump = open(args.dump, "w") if args.dump else None
    total = {}
    print(f"{'set':<18} {'false alarms':>13} {'named':>9} {'extras':>7} {'unsure':>7} {'examples':>9}")
    with tempfile.TemporaryDirectory() as work:
        for source in args.sets or default_sets():
            name, labels, export = run_set(args.bin, source, Path(work))
            figures, wrong = score(name, labels, export, dump)
            for key, value in figures.items():
                total[key] = total.get(key, 0) + value
            print_row(name, figures)
            if not args.quiet:
                for line in wrong:
                    print(f"    {line}")
    print_row("total", total)


def print_row(name, f):
    print(f"{name:<18} {f['false_alarms']:>6} of {f['correct']:<4} {f['named']:>3} of {f['failures']:<3} "
          f"{f['extras']:>7} {f['unsure']:>7} {f['correct_examples']:>9}")


if __name__ == "__main__":
    main()
