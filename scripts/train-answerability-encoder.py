#!/usr/bin/env python3
"""Fine-tunes the shipped sentence model (all-MiniLM-L6-v2) as a bi-encoder that tells
whether a passage answers a question, and writes its encoder layers, int8, for the
offline judge (`assets/offline-judge/answerability-encoder.safetensors`).

Why a bi-encoder and not a cross-encoder: cross-encoders fine-tuned on the few thousand
pairs that can be had here rank at chance on claims, while the model we already ship,
tuned on answerability pairs, gains about 0.05 AUROC (issue 29). Only the six encoder
layers are tuned; the embeddings stay the shipped ones, so the file holds the layers
alone (11 MB) and the runtime reads the rest from the shipped model.

Data (from the repository's `shared/data`, never the judge check's cases):
- train: SQuAD 2.0 train articles 1-10 and dev articles 1-6;
- held out: dev articles 7-8 (Packet_switching, Harvard_University), never trained on.
Pairs: every question against its own paragraph (answerable = not is_impossible), and
for answerable questions one synthetic negative, alternately the paragraph with the
sentences holding the answer removed and another paragraph of the same article that
does not hold the answer text.

Reproducible: seeded, one thread, pinned versions (torch 2.5.1, numpy < 2, tokenizers
0.20.3): the same torch build gives the same bytes.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch==2.5.1 'numpy<2' tokenizers==0.20.3
    /tmp/venv/bin/python scripts/train-answerability-encoder.py [--shared ../shared/data]
"""

import argparse
import json
import math
import random
import re
import struct
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tokenizers import Tokenizer

SEED = 20261125
MAX_TOKENS = 256
EPOCHS = 1
BATCH = 16
LR = 2e-5
DEV_TRAIN_ARTICLES = 6


def parse_args():
    here = Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", default=str(here.parent / "shared" / "data"))
    p.add_argument("--model", default=str(here / "assets" / "models" / "all-minilm-l6-v2"))
    p.add_argument("--out", default=str(here / "assets" / "offline-judge" / "answerability-encoder.safetensors"))
    p.add_argument("--limit", type=int, default=0, help="train on this many pairs only (a quick try)")
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--lr", type=float, default=LR)
    return p.parse_args()


# ---------------------------------------------------------------- the model, in torch
def read_safetensors(path):
    raw = Path(path).read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    data = raw[8 + n :]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        a, b = info["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[a:b], dtype="<f4").reshape(info["shape"]).copy())
    return out


class Bert(torch.nn.Module):
    """BERT as all-MiniLM-L6-v2 uses it: post-norm layers, GELU, 12 heads of 32."""

    def __init__(self, w, layers=6, heads=12):
        super().__init__()
        self.heads = heads
        self.layers = layers
        self.p = torch.nn.ParameterDict()
        for name, t in w.items():
            self.p[name.replace(".", "__")] = torch.nn.Parameter(t.clone(), requires_grad=name.startswith("encoder."))

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def forward(self, ids, mask):
        n, t = ids.shape
        x = self.w("embeddings.word_embeddings.weight")[ids]
        x = x + self.w("embeddings.position_embeddings.weight")[:t].unsqueeze(0)
        x = x + self.w("embeddings.token_type_embeddings.weight")[0]
        x = F.layer_norm(x, (x.shape[-1],), self.w("embeddings.LayerNorm.weight"), self.w("embeddings.LayerNorm.bias"), 1e-12)
        bias = (1.0 - mask[:, None, None, :].float()) * -1e9
        d = x.shape[-1] // self.heads
        for i in range(self.layers):
            pre = f"encoder.layer.{i}."
            lin = lambda h, name: F.linear(h, self.w(pre + name + ".weight"), self.w(pre + name + ".bias"))
            split = lambda h: h.view(n, t, self.heads, d).transpose(1, 2)
            q, k, v = (split(lin(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(n, t, -1)
            x = F.layer_norm(lin(ctx, "attention.output.dense") + x, (x.shape[-1],),
                             self.w(pre + "attention.output.LayerNorm.weight"), self.w(pre + "attention.output.LayerNorm.bias"), 1e-12)
            h = F.gelu(lin(x, "intermediate.dense"))
            x = F.layer_norm(lin(h, "output.dense") + x, (x.shape[-1],),
                             self.w(pre + "output.LayerNorm.weight"), self.w(pre + "output.LayerNorm.bias"), 1e-12)
        m = mask.unsqueeze(-1).float()
        pooled = (x * m).sum(1) / m.sum(1)
        return F.normalize(pooled, dim=-1)


# ---------------------------------------------------------------- the pairs
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def sentences_with_spans(text):
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def without_answer(paragraph, answers):
    spans = [(a["answer_start"], a["answer_start"] + len(a["text"])) for a in answers]
    kept = [paragraph[s:e] for s, e in sentences_with_spans(paragraph)
            if not any(a < e and b > s for a, b in spans)]
    return " ".join(kept).strip()


def articles(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))["data"]


def pairs_of(arts, rng, synthetic):
    out = []
    for art in arts:
        paragraphs = [p["context"] for p in art["paragraphs"]]
        for pi, p in enumerate(art["paragraphs"]):
            for qa in p["qas"]:
                q = qa["question"]
                answerable = not qa.get("is_impossible", False)
                out.append((q, p["context"], 1.0 if answerable else 0.0, "own"))
                if not (synthetic and answerable and qa["answers"]):
                    continue
                texts = {a["text"].lower() for a in qa["answers"]}
                if len(out) % 2 == 0:
                    rest = without_answer(p["context"], qa["answers"])
                    if rest and not any(t in rest.lower() for t in texts):
                        out.append((q, rest, 0.0, "removed"))
                        continue
                others = [j for j, o in enumerate(paragraphs)
                          if j != pi and not any(t in o.lower() for t in texts)]
                if others:
                    out.append((q, paragraphs[rng.choice(others)], 0.0, "other"))
    return out


def auroc(scores, labels):
    order = np.argsort(scores, kind="mergesort")
    s = np.asarray(scores)[order]
    ranks = np.empty(len(s))
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    y = np.asarray(labels)
    pos = y.sum()
    neg = len(y) - pos
    return (ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg)


# ---------------------------------------------------------------- int8 export
def quantise(t):
    """Per output row, symmetric: row / scale rounded to [-127, 127]."""
    scale = t.abs().amax(dim=1).clamp(min=1e-12) / 127.0
    q = torch.round(t / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale.to(torch.float32)


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        dtype = {torch.int8: "I8", torch.float32: "F32"}[t.dtype]
        b = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    Path(path).write_bytes(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    args = parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(SEED)
    shared = Path(args.shared)
    dev = articles(shared / "squad2-sample" / "dev-v2.0-articles-1-8.json")
    train_arts = articles(shared / "squad2-train-sample" / "train-v2.0-articles-1-10.json") + dev[:DEV_TRAIN_ARTICLES]
    held_out = dev[DEV_TRAIN_ARTICLES:]
    train = pairs_of(train_arts, rng, synthetic=True)
    rng.shuffle(train)
    if args.limit:
        train = train[: args.limit]
    test = pairs_of(held_out, rng, synthetic=False)
    print(f"train pairs {len(train)} ({sum(p[2] for p in train):.0f} positive), "
          f"held-out questions {len(test)} ({sum(p[2] for p in test):.0f} answerable)", flush=True)

    tok = Tokenizer.from_file(str(Path(args.model) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)

    def batch(texts):
        enc = tok.encode_batch(list(texts))
        t = max(len(e.ids) for e in enc)
        ids = torch.zeros((len(enc), t), dtype=torch.long)
        mask = torch.zeros((len(enc), t), dtype=torch.long)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = torch.tensor(e.ids)
            mask[i, : len(e.ids)] = 1
        return ids, mask

    base = read_safetensors(Path(args.model) / "model.safetensors")
    model = Bert(base)
    # cosine -> logit; starts where a cosine of 0.4 is an even bet.
    scale = torch.nn.Parameter(torch.tensor(10.0))
    shift = torch.nn.Parameter(torch.tensor(-4.0))

    @torch.no_grad()
    def held_out_auroc(m):
        m.eval()
        cos = []
        for i in range(0, len(test), 32):
            chunk = test[i : i + 32]
            qe = m(*batch(p[0] for p in chunk))
            pe = m(*batch(p[1] for p in chunk))
            cos.extend((qe * pe).sum(-1).tolist())
        return auroc(cos, [p[2] for p in test]), cos

    before, _ = held_out_auroc(model)
    print(f"zero-shot cosine, held-out AUROC {before:.4f}", flush=True)

    params = [p for p in model.parameters() if p.requires_grad] + [scale, shift]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    head_opt = torch.optim.SGD([scale, shift], lr=0.05)
    steps = args.epochs * math.ceil(len(train) / BATCH)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, (steps - s) / steps))
    step = 0
    for epoch in range(args.epochs):
        model.train()
        if epoch > 0:
            rng.shuffle(train)
        for i in range(0, len(train), BATCH):
            chunk = train[i : i + BATCH]
            qe = model(*batch(p[0] for p in chunk))
            pe = model(*batch(p[1] for p in chunk))
            logits = scale * (qe * pe).sum(-1) + shift
            y = torch.tensor([p[2] for p in chunk])
            loss = F.binary_cross_entropy_with_logits(logits, y)
            opt.zero_grad()
            head_opt.zero_grad()
            loss.backward()
            opt.step()
            head_opt.step()
            sched.step()
            step += 1
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {loss.item():.4f}", flush=True)

    after, _ = held_out_auroc(model)
    print(f"fine-tuned cosine, held-out AUROC {after:.4f}", flush=True)

    tensors = {}
    with torch.no_grad():
        for name, p in model.p.items():
            name = name.replace("__", ".")
            if not name.startswith("encoder."):
                continue
            if p.dim() == 2:
                q, s = quantise(p.data)
                tensors[name] = q
                tensors[name + ".scale"] = s
                p.data.copy_(q.float() * s[:, None])
            else:
                tensors[name] = p.data.to(torch.float32)
    quantised, _ = held_out_auroc(model)
    print(f"int8 encoder, held-out AUROC {quantised:.4f}", flush=True)
    write_safetensors(args.out, tensors, {
        "format": "ragnosis-overlay",
        "base": "all-MiniLM-L6-v2",
        "what": "encoder layers tuned for answerability (question vs passage cosine)",
        "seed": str(SEED),
        "epochs": str(args.epochs),
        "lr": str(args.lr),
        "torch": torch.__version__,
        "train_pairs": str(len(train)),
        "held_out": "SQuAD 2.0 dev articles 7-8",
        "held_out_auroc_zero_shot": f"{before:.4f}",
        "held_out_auroc_tuned": f"{after:.4f}",
        "held_out_auroc_int8": f"{quantised:.4f}",
        "logit_scale": f"{scale.item():.6f}",
        "logit_shift": f"{shift.item():.6f}",
    })
    print(f"wrote {args.out}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
