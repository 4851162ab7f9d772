#!/usr/bin/env python3
"""Independent figures for judge-human alignment, to check `ragnosis alignment`.

Pairs the scores of a Ragnosis JSON export (`eval ... --format json`) with a labels file
(CSV `item,metric,score` or JSONL `{"item", "metric", "score"}`; scores 0-1 or pass /
fail) by item id, and prints scipy's Spearman rho and Kendall tau-b, the Bonett-Wright
standard error sqrt((1 + rho^2/2) / (n - 3)), the mean absolute error and, for pass/fail
labels, the best balanced accuracy over thresholds on the score. The pinned numbers in
src-tauri/cli/tests/cli.rs (mod alignment) come from this script.

usage: python3 scripts/alignment-reference.py EXPORT.json LABELS METRIC   (needs scipy)
"""
import csv
import json
import math
import sys

from scipy.stats import kendalltau, spearmanr


def score(value):
    words = {"pass": 1.0, "fail": 0.0, "true": 1.0, "false": 0.0}
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, str) and value.strip().lower() in words:
        return words[value.strip().lower()]
    return float(value)


def labels(path, metric):
    if path.endswith(".jsonl"):
        rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    else:
        rows = list(csv.DictReader(open(path, encoding="utf-8")))
    out = {}
    names = {metric, metric.split(".")[-1]}
    for row in rows:
        if row.get("metric") not in names:
            continue
        try:
            value = score(row.get("score", row.get("label")))
        except ValueError:
            continue
        if 0.0 <= value <= 1.0:
            out[str(row["item"])] = value  # the last row wins, as in Ragnosis
    return out


def main(export_path, labels_path, metric):
    export = json.load(open(export_path, encoding="utf-8"))
    human = labels(labels_path, metric)
    pairs = []
    for item in export["items"]:
        result = item["results"].get(metric)
        if result and result["status"] == "ok" and str(item.get("id")) in human:
            pairs.append((result["score"], human[str(item["id"])]))
    judge = [p[0] for p in pairs]
    people = [p[1] for p in pairs]
    rho = spearmanr(judge, people).statistic
    print(f"n            {len(pairs)}")
    print(f"spearman     {rho!r}")
    print(f"spearman_se  {math.sqrt((1 + rho * rho / 2) / (len(pairs) - 3))!r}")
    print(f"kendall_tau  {kendalltau(judge, people).statistic!r}")
    print(f"mae          {sum(abs(j - h) for j, h in pairs) / len(pairs)!r}")
    if set(people) <= {0.0, 1.0}:
        pos = people.count(1.0)
        neg = len(people) - pos
        best = None
        for t in sorted(set(judge)):
            tp = sum(1 for j, h in pairs if j >= t and h == 1.0)
            tn = sum(1 for j, h in pairs if j < t and h == 0.0)
            ba = (tp / pos + tn / neg) / 2
            if best is None or ba > best[0]:
                best = (ba, t)
        print(f"balanced     {best[0]!r} at threshold {best[1]!r}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
