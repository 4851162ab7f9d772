#!/usr/bin/env python3
"""Independent BM25 figures for `ragnosis retrieval-eval` on the SQuAD 2.0 sample.

usage: python3 scripts/bm25-reference.py ../shared/data/squad2-sample/dev-v2.0-articles-1-8.json
needs: pip install rank_bm25
The pinned numbers in src-tauri/cli/tests/cli.rs (mod retrieval) come from this script.
"""
# Independent BM25 Recall@10 / MRR@10 on the SQuAD 2.0 sample with rank_bm25 (BM25Okapi,
# k1 1.5, b 0.75, epsilon 0.25), the same tokens as Ragnosis (lower-cased \w+ runs) and
# ties broken by corpus order.
import json, re, sys
from rank_bm25 import BM25Okapi
d = json.load(open(sys.argv[1]))
corpus, queries = [], []
for a, art in enumerate(d["data"]):
    for p, par in enumerate(art["paragraphs"]):
        pid = len(corpus)
        corpus.append(par["context"])
        for q in par["qas"]:
            if not q.get("is_impossible"):
                queries.append((q["question"], pid))
tok = lambda t: re.findall(r"\w+", t.lower())
bm = BM25Okapi([tok(c) for c in corpus])
hits = rr = 0.0
for q, gold in queries:
    s = bm.get_scores(tok(q))
    order = sorted(range(len(corpus)), key=lambda i: (-s[i], i))[:10]
    if gold in order:
        hits += 1
        rr += 1 / (order.index(gold) + 1)
print(len(corpus), len(queries), repr(hits / len(queries)), repr(rr / len(queries)))
