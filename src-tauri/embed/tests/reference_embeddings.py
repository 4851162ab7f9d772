"""Independent reference for the Rust encoder: the same model run with numpy and the
Hugging Face `tokenizers` package (pip install numpy tokenizers). Prints token ids and
the first embedding values that tests/model.rs pins. Run from the repository root:
    python3 src-tauri/embed/tests/reference_embeddings.py
"""
import json
import math
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

DIR = "assets/models/all-minilm-l6-v2"


def load():
    with open(f"{DIR}/model.safetensors", "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        a, b = info["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return out


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-12) * g + b


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def embed(w, ids):
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    for i in range(6):
        p = f"encoder.layer.{i}."
        lin = lambda name, h: h @ w[p + name + ".weight"].T + w[p + name + ".bias"]
        q, k, v = (lin(f"attention.self.{t}", x).reshape(n, 12, 32).transpose(1, 0, 2) for t in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(32)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, 384)
        a = layer_norm(lin("attention.output.dense", ctx) + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        x = layer_norm(lin("output.dense", gelu(lin("intermediate.dense", a))) + a, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    e = x.mean(0)
    return e / np.linalg.norm(e)


if __name__ == "__main__":
    tok = Tokenizer.from_file(f"{DIR}/tokenizer.json")
    tok.no_padding()
    w = load()
    texts = sys.argv[1:] or [
        "The cat sits on the mat.",
        "Ein Café in Zürich — naïve résumé, 12-year-old's $5 voucher!",
        "Do not charge a battery colder than 0 °C.",
    ]
    embs = []
    for t in texts:
        ids = tok.encode(t).ids
        e = embed(w, ids)
        embs.append(e)
        print(json.dumps(t), ids, [round(float(v), 5) for v in e[:4]])
    print("cos(0,2) =", round(float(embs[0] @ embs[2]), 5))
