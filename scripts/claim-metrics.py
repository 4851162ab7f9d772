#!/usr/bin/env python3
"""Measures the grounding metrics users read against human labels, end to end through the CLI.

The offline judge's claim decision has its own cross-validated figures
(`examples/fit_offline_judge.rs`); this script asks what reaches a user: each labelled
text becomes one item of a JSONL (the text as the answer and as the ground truth, each
evidence passage as one retrieved context, a neutral question), the file is evaluated with
`ragnosis eval` and exported as JSON, and each metric's score is set against the label
(AUROC, ties counting half; for metrics where lower is better the score is negated).

    python3 scripts/claim-metrics.py [--bin PATH] [--limit N] [--set wice|begin|expertqa ...]

- WiCE dev: a Wikipedia claim and the sentences of the article it cites, one context each;
  positive = `supported`.
- BEGIN dev: a dialogue response and the knowledge paragraph; positive = "Fully
  attributable".
- ExpertQA val: one claim of an expert answer and its evidence passages; positive =
  support "Complete".
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRICS = [
    ("ragvue.strict_faithfulness", 1),
    ("ragchecker.faithfulness", 1),
]
QUESTION = "What do the sources say?"


def shared():
    return Path(os.environ.get("RAGNOSIS_SHARED_DATA", ROOT.parent / "shared" / "data"))


def wice():
    for line in (shared() / "wice-dev" / "claims_dev.jsonl").read_text().splitlines():
        if line.strip():
            v = json.loads(line)
            yield v["claim"], v["evidence"], v["label"] == "supported"


def begin():
    for name in ["cmu-dog/begin_dev_cmu.tsv", "topicalchat/begin_dev_tc.tsv"]:
        with open(shared() / "begin-dev" / name, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                yield row["response"], [row["knowledge"]], row["begin_label"] == "Fully attributable"


def expertqa():
    for line in (shared() / "expertqa-val" / "domain_val.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        v = json.loads(line)
        for answer in v["answers"].values():
            for claim in answer.get("claims") or []:
                support = claim.get("support")
                evidence = [e for e in claim.get("evidence") or [] if e and e.strip()]
                if support not in ("Complete", "Missing", "Incomplete", "Partial") or not evidence:
                    continue
                yield claim["claim_string"], evidence, support == "Complete"


SETS = {"wice": wice, "begin": begin, "expertqa": expertqa}


def auroc(pairs):
    pos = [s for s, y in pairs if y]
    neg = [s for s, y in pairs if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def run(binary, name, rows, work):
    labels, lines = {}, []
    for i, (text, evidence, positive) in enumerate(rows):
        item_id = f"{name}-{i:04}"
        labels[item_id] = positive
        lines.append(json.dumps({"id": item_id, "question": QUESTION, "answer": text,
                                 "contexts": evidence, "ground_truth": text}))
    path = work / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = work / name
    cmd = [binary, "--home", str(work / f"home-{name}"), "-q", "eval", str(path),
           "--metrics", ",".join(m for m, _ in METRICS), "--out-base", str(out),
           "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return labels, json.loads(Path(f"{out}.json").read_text())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    parser.add_argument("--bin", default=str(Path(target) / "debug" / "ragnosis"))
    parser.add_argument("--limit", type=int, default=0, help="first N texts of each set")
    parser.add_argument("--set", action="append", choices=sorted(SETS))
    args = parser.parse_args()
    print(f"{'set':<9} {'n':>5} {'pos':>5}  " + "  ".join(f"{m:>28}" for m, _ in METRICS))
    with tempfile.TemporaryDirectory() as work:
        for name in args.set or ["wice", "begin", "expertqa"]:
            rows = list(SETS[name]())
            if args.limit:
                rows = rows[: args.limit]
            labels, export = run(args.bin, name, rows, Path(work))
            cells = []
            for metric, sign in METRICS:
                pairs = []
                for item in export["items"]:
                    r = item["results"].get(metric) or {}
                    if r.get("status") == "ok" and r.get("score") is not None:
                        pairs.append((sign * r["score"], labels[item["id"]]))
                a = auroc(pairs)
                cells.append(f"{'-' if a is None else f'{a:.3f}'} ({len(pairs)})".rjust(28))
            print(f"{name:<9} {len(rows):>5} {sum(labels.values()):>5}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
