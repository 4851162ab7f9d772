#!/usr/bin/env python3
"""Builds the labelled sample the judge check runs on: assets/judge-check/sample.jsonl.

Draws a fixed, seeded sample from the human-labelled sets in ../shared/data and writes
a designed set of failure shapes built from real SQuAD 2.0 passages. The output is
committed (the app embeds it), together with each source's licence under
assets/judge-check/licenses/. Re-running with the same data gives the same file.

    python3 scripts/build-judge-check.py [--data ../shared/data]

One JSON object per line, `task` says which:
  attribution    BEGIN-dev: a dialogue response and its knowledge paragraph; supported
                 = "Fully attributable".
  claim_support  WiCE-dev: a Wikipedia claim and the sentences of the page it cites;
                 supported = "supported".
  expert_claims  ExpertQA-val: an expert-labelled claim and its cited passages;
                 supported = "Complete".
  answerability  SQuAD 2.0 dev: a question and its paragraph; answerable = not
                 is_impossible.
  similarity     STS-B train: two sentences and the mean human similarity (0-5).
  diagnosis      designed from SQuAD 2.0 paragraphs: a RAG item with a known failure
                 shape (see SHAPES) and the patterns that name it.
"""

import argparse
import json
import random
import re
import shutil
from pathlib import Path

SEED = 20261123
PER_CLASS = 30  # positives and negatives per binary task
SIMILARITY = 60
PER_SHAPE = 5

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "assets" / "judge-check"

LICENCES = {
    "begin-dev": ["begin-dev/cmu-dog/LICENSE", "begin-dev/cmu-dog/NOTICE", "begin-dev/topicalchat/LICENSE",
                  "begin-dev/topicalchat/NOTICE", "begin-dev/SOURCE", "begin-dev/UPSTREAM_README.md"],
    "wice-dev": ["wice-dev/LICENSE.md", "wice-dev/SOURCE", "wice-dev/UPSTREAM_README_data.md"],
    "expertqa-val": ["expertqa-val/LICENSE", "expertqa-val/SOURCE"],
    "squad2": ["squad2-sample/LICENSE_NOTE.md", "squad2-sample/SOURCE"],
    "stsb-train": ["stsb-train/LICENSE.txt", "stsb-train/readme.txt", "stsb-train/SOURCE"],
}


def balanced(rng, rows, key):
    pos = [r for r in rows if r[key]]
    neg = [r for r in rows if not r[key]]
    return rng.sample(pos, min(PER_CLASS, len(pos))) + rng.sample(neg, min(PER_CLASS, len(neg)))


def begin(data, rng):
    rows = []
    for part in ["cmu-dog/begin_dev_cmu.tsv", "topicalchat/begin_dev_tc.tsv"]:
        lines = (data / "begin-dev" / part).read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t")
        k, r, l = header.index("knowledge"), header.index("response"), header.index("begin_label")
        for line in lines[1:]:
            f = line.split("\t")
            if len(f) > max(k, r, l):
                rows.append({"task": "attribution", "source": "begin-dev", "text": f[r], "passages": [f[k]],
                             "supported": f[l].strip() == "Fully attributable"})
    return balanced(rng, rows, "supported")


def wice(data, rng):
    rows = []
    for line in (data / "wice-dev" / "claims_dev.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        rows.append({"task": "claim_support", "source": "wice-dev", "text": d["claim"], "passages": d["evidence"],
                     "supported": d["label"] == "supported"})
    return balanced(rng, rows, "supported")


def expertqa(data, rng):
    rows = []
    for line in (data / "expertqa-val" / "domain_val.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        for answer in d["answers"].values():
            for claim in answer.get("claims") or []:
                label = claim.get("support")
                evidence = [e for e in claim.get("evidence") or [] if isinstance(e, str) and e.strip()]
                if label not in ("Complete", "Missing", "Incomplete", "Partial") or not evidence:
                    continue
                rows.append({"task": "expert_claims", "source": "expertqa-val", "text": claim["claim_string"],
                             "passages": evidence, "supported": label == "Complete"})
    return balanced(rng, rows, "supported")


def stsb(data, rng):
    rows = []
    for line in (data / "stsb-train" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        f = line.split("\t")
        if len(f) >= 10:
            rows.append({"task": "similarity", "source": "stsb-train", "a": f[7], "b": f[8], "score": float(f[9])})
    # Even over the 0-5 range, so a judge cannot score well by separating only the
    # extremes.
    out = []
    for low in range(5):
        band = [r for r in rows if low <= r["score"] < low + 1 or (low == 4 and r["score"] == 5)]
        out += rng.sample(band, SIMILARITY // 5)
    return out


SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def sentences(text):
    spans, start = [], 0
    for m in SENTENCE.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def sentence_at(text, offset):
    for s, e in sentences(text):
        if s <= offset < e:
            return text[s:e].strip()
    return None


def squad(data):
    raw = json.loads((data / "squad2-sample" / "dev-v2.0-articles-1-8.json").read_text(encoding="utf-8"))
    return raw["data"]


def answerability(articles, rng):
    rows = []
    for art in articles[:4]:
        for para in art["paragraphs"]:
            for qa in para["qas"]:
                rows.append({"task": "answerability", "source": "squad2", "question": qa["question"],
                             "passage": para["context"], "answerable": not qa["is_impossible"]})
    return balanced(rng, rows, "answerable")


REVERSALS = [("first", "last"), ("last", "first"), ("before", "after"), ("after", "before"),
             ("increased", "decreased"), ("decreased", "increased"), ("more", "fewer"), ("larger", "smaller"),
             ("smaller", "larger"), ("north", "south"), ("south", "north"), ("east", "west"), ("west", "east"),
             ("earliest", "latest"), ("higher", "lower"), ("lower", "higher"), ("won", "lost"), ("defeated", "lost to")]

ABSTAIN = "The provided documents do not say; I cannot answer this from them."
REFUSE = "I could not find this in the provided documents, so I cannot answer."


def answered(para):
    """(question, answer text, the passage sentence holding the answer)."""
    out = []
    for qa in para["qas"]:
        if qa["is_impossible"] or not qa["answers"]:
            continue
        a = qa["answers"][0]
        sent = sentence_at(para["context"], a["answer_start"])
        if sent and a["text"] in sent and 40 <= len(sent) <= 400:
            out.append((qa["question"], a["text"], sent))
    return out


def item(question, answer, contexts, shape, expect, note):
    return {"task": "diagnosis", "source": "squad2", "shape": shape, "expect": expect, "note": note,
            "item": {"question": question, "answer": answer, "contexts": contexts}}


def designed(articles, rng):
    """Failure shapes on SQuAD paragraphs of articles the answerability sample does not
    use. `expect` lists the pattern letters that name the failure ([] = none may fire;
    "!X" = X must not fire)."""
    pool = articles[4:]
    paras = [(ai, p) for ai, art in enumerate(pool) for p in art["paragraphs"]]
    rng.shuffle(paras)
    other = lambda ai: [p["context"] for aj, art in enumerate(pool) if aj != ai for p in art["paragraphs"]]
    sibling = lambda ai, para: [p["context"] for p in pool[ai]["paragraphs"] if p is not para]
    shapes = {k: [] for k in ["good", "retrieval_miss", "swapped_entity", "reversed_fact", "correct_abstention",
                              "over_confident", "wrong_refusal", "half_answered", "padded"]}

    def want(shape):
        return len(shapes[shape]) < PER_SHAPE

    for ai, para in paras:
        ctx = para["context"]
        qas = answered(para)
        extra = rng.sample(sibling(ai, para), 1) if sibling(ai, para) else []
        if qas and want("good"):
            q, _, sent = qas[0]
            shapes["good"].append(item(q, sent, [ctx] + extra, "good", [], "The passage sentence that answers it."))
        elif qas and want("retrieval_miss"):
            q, _, sent = qas[0]
            shapes["retrieval_miss"].append(item(q, sent, rng.sample(other(ai), 3), "retrieval_miss", ["A"],
                                                 "Passages from other articles; the answer is not backed by them."))
        elif len(qas) >= 2 and want("swapped_entity"):
            (q, a, sent), swap = qas[0], None
            for _, b, _ in qas[1:]:
                # A name for a name, a number for a number, both short: a swap a reader
                # could not spot from the form of the sentence.
                same_kind = b[:1].isdigit() == a[:1].isdigit() and b[:1].isupper() == a[:1].isupper()
                short = len(a.split()) <= 4 and len(b.split()) <= 4
                if same_kind and short and b.lower() not in a.lower() and a.lower() not in b.lower():
                    swap = b
                    break
            if swap:
                shapes["swapped_entity"].append(item(q, sent.replace(a, swap, 1), [ctx] + extra, "swapped_entity",
                                                     ["C", "F"], f"'{a}' replaced by '{swap}' from the same passage."))
        elif qas and want("reversed_fact"):
            for q, _, sent in qas:
                hit = next((p for p in REVERSALS if re.search(rf"\b{p[0]}\b", sent)), None)
                if hit:
                    flipped = re.sub(rf"\b{hit[0]}\b", hit[1], sent, count=1)
                    shapes["reversed_fact"].append(item(q, flipped, [ctx] + extra, "reversed_fact", ["C", "F"],
                                                        f"'{hit[0]}' turned into '{hit[1]}'."))
                    break
        elif want("correct_abstention") and any(qa["is_impossible"] for qa in para["qas"]):
            qa = next(qa for qa in para["qas"] if qa["is_impossible"])
            shapes["correct_abstention"].append(item(qa["question"], ABSTAIN, [ctx] + extra, "correct_abstention",
                                                     ["!C", "!D", "!H", "!I"], "Unanswerable from the passage; declined."))
        elif want("over_confident"):
            for qa in para["qas"]:
                plausible = qa.get("plausible_answers") or []
                if qa["is_impossible"] and plausible:
                    sent = sentence_at(ctx, plausible[0]["answer_start"])
                    if sent and 40 <= len(sent) <= 400:
                        shapes["over_confident"].append(item(qa["question"], sent, [ctx] + extra, "over_confident",
                                                             ["D"], "Unanswerable, yet answered with a related sentence."))
                        break
        elif qas and want("wrong_refusal"):
            q, _, _ = qas[0]
            shapes["wrong_refusal"].append(item(q, REFUSE, [ctx] + extra, "wrong_refusal", ["I"],
                                                "The passage answers it, yet the answer declines."))
        elif len(qas) >= 2 and want("half_answered"):
            (q1, _, s1), (q2, _, s2) = qas[0], qas[1]
            if s1 != s2:
                q = f"{q1.rstrip('?').strip()}, and {q2[0].lower()}{q2[1:]}"
                shapes["half_answered"].append(item(q, s1, [ctx] + extra, "half_answered", ["H"],
                                                    "Two-part question; only the first part is answered."))
        elif qas and want("padded"):
            q, _, sent = qas[0]
            padded = " ".join([sent, "As already mentioned, " + sent[0].lower() + sent[1:], "To repeat: " + sent,
                               "In other words, " + sent[0].lower() + sent[1:]])
            shapes["padded"].append(item(q, padded, [ctx] + extra, "padded", ["G"],
                                         "Correct, but the same sentence four times."))
    # Shapes added later draw from their own generator over the paragraphs no earlier
    # shape took, so the items above stay exactly as they were.
    later = random.Random(SEED + 1)
    asked = {row["item"]["question"] for rows in shapes.values() for row in rows}
    shapes["context_ignored"], shapes["negated_fact"] = [], []
    for ai, para in paras:
        if not (want("context_ignored") or want("negated_fact")):
            break
        ctx = para["context"]
        qas = answered(para)
        siblings = sibling(ai, para)
        qas = [qa for qa in qas if qa[0] not in asked]
        if not qas or len(siblings) < 2:
            continue
        q, a, sent = qas[0]
        asked.add(q)
        if want("context_ignored"):
            # A sentence of the same article that the retrieved passages do not hold: on
            # the topic, but drawn from outside what the search returned.
            source, extra = later.sample(siblings, 2)
            elsewhere = [source[s:e].strip() for s, e in sentences(source)]
            elsewhere = [t for t in elsewhere if 40 <= len(t) <= 300 and t[0].isupper() and t.endswith(".")
                         and "(" not in t and t not in ctx and t not in extra]
            if elsewhere:
                shapes["context_ignored"].append(item(q, later.choice(elsewhere), [ctx, extra], "context_ignored", ["B"],
                                                      "The passage answers it; the answer comes from another part of the article."))
                continue
        if want("negated_fact"):
            m = re.search(r"\b(is|was|are|were|can|has|had|did)\b", sent)
            if m and not re.search(r"\b(not|never|no)\b", sent):
                negated = sent[: m.end()] + " not" + sent[m.end():]
                extra = later.choice(siblings)
                shapes["negated_fact"].append(item(q, negated, [ctx, extra], "negated_fact", ["F"],
                                                   f"'{m.group(1)}' turned into '{m.group(1)} not'."))
    short = {k: len(v) for k, v in shapes.items() if len(v) < PER_SHAPE}
    if short:
        raise SystemExit(f"not enough passages for shapes: {short}")
    return [row for rows in shapes.values() for row in rows]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    data = Path(parser.parse_args().data)
    rng = random.Random(SEED)
    articles = squad(data)
    rows = begin(data, rng) + wice(data, rng) + expertqa(data, rng) + answerability(articles, rng) + stsb(data, rng)
    rows += designed(articles, rng)
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "sample.jsonl", "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    for source, files in LICENCES.items():
        dest = OUT / "licenses" / source
        dest.mkdir(parents=True, exist_ok=True)
        for rel in files:
            target = dest / rel.replace("/", "_") if rel.count("/") > 1 else dest / Path(rel).name
            shutil.copyfile(data / rel, target)
    counts = {}
    for row in rows:
        counts[row["task"]] = counts.get(row["task"], 0) + 1
    print(f"wrote {len(rows)} items to {OUT / 'sample.jsonl'}: {counts}")


if __name__ == "__main__":
    main()
