#!/usr/bin/env python3
"""Build assets/wordnet/antonyms.tsv from the WordNet database files.

Reads the WordNet data files (data.adj, data.verb, data.adv, data.noun) as
installed by Debian's `wordnet-base` package and extracts the direct antonym
pairs: lexical pointers with symbol `!`. Only single words are kept (entries
containing `_`, i.e. multi-word collocations, or digits are skipped), words
are lower-cased, adjective syntactic markers such as `(a)`, `(p)`, `(ip)` are
stripped, and each unordered pair is written once per part of speech.

Data line format (see `man 5 wndb`):

    synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...]
        p_cnt [ptr...] [frames...] | gloss

where w_cnt is two-digit hex, p_cnt is three-digit decimal and each ptr is
`pointer_symbol synset_offset pos source/target`. source/target is four hex
digits `sstt`: ss is the word number in this synset, tt the word number in the
target synset; `0000` marks a semantic (whole-synset) pointer.

Usage:
    python3 scripts/build-antonyms.py [--wordnet-dir /usr/share/wordnet]
                                      [--out assets/wordnet/antonyms.tsv]

Python 3 standard library only.
"""

import argparse
import os
import re
import sys

# Data file per part of speech, and the pos letter written to the output.
FILES = [("adj", "a"), ("verb", "v"), ("adv", "r"), ("noun", "n")]
# Pointer `pos` field / ss_type -> data file. Satellites ("s") live in data.adj.
POS_FILE = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}

MARKER = re.compile(r"\((?:a|p|ip)\)$")
DIGIT = re.compile(r"[0-9]")


def parse_data_file(path):
    """Return {offset: (words, antonym_pointers)} for one data file.

    words is the list of raw word strings in synset order (word number n is
    words[n-1]); antonym_pointers is a list of (target_offset, target_file,
    source_word_no, target_word_no).
    """
    synsets = {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            # The licence header lines start with two spaces.
            if not line or line.startswith("  "):
                continue
            data = line.split(" | ", 1)[0].split()
            offset = int(data[0])
            # data[1] = lex_filenum, data[2] = ss_type
            w_cnt = int(data[3], 16)
            i = 4
            words = []
            for _ in range(w_cnt):
                words.append(data[i])
                i += 2  # skip lex_id
            p_cnt = int(data[i])
            i += 1
            antonyms = []
            for _ in range(p_cnt):
                symbol, target, tpos, st = data[i : i + 4]
                i += 4
                if symbol != "!":
                    continue
                src, dst = int(st[:2], 16), int(st[2:], 16)
                if src == 0 or dst == 0:
                    continue  # antonymy is lexical; ignore any semantic form
                antonyms.append((int(target), POS_FILE[tpos], src, dst))
            synsets[offset] = (words, antonyms)
    return synsets


def clean(word):
    """Lower-case and strip adjective markers; None if not a single word."""
    word = MARKER.sub("", word).lower()
    if not word or "_" in word or DIGIT.search(word):
        return None
    return word


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wordnet-dir", default="/usr/share/wordnet")
    ap.add_argument(
        "--out",
        default=os.path.join(here, os.pardir, "assets", "wordnet", "antonyms.tsv"),
    )
    args = ap.parse_args()

    db = {
        name: parse_data_file(os.path.join(args.wordnet_dir, "data." + name))
        for name, _ in FILES
    }

    pairs = set()
    for name, pos in FILES:
        for words, antonyms in db[name].values():
            for target, tfile, src, dst in antonyms:
                a = clean(words[src - 1])
                b = clean(db[tfile][target][0][dst - 1])
                if a is None or b is None or a == b:
                    continue
                pairs.add((min(a, b), max(a, b), pos))

    rows = sorted(pairs)
    out = os.path.normpath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(
            "# WordNet 3.0 direct antonym pairs (lexical '!' pointers), single "
            "lower-case words, one unordered pair per line: "
            "word<TAB>word<TAB>pos (a=adjective, v=verb, r=adverb, n=noun). "
            "Built by scripts/build-antonyms.py; see LICENSE and SOURCE.\n"
        )
        for a, b, pos in rows:
            fh.write(f"{a}\t{b}\t{pos}\n")

    counts = {pos: 0 for _, pos in FILES}
    for _, _, pos in rows:
        counts[pos] += 1
    for _, pos in FILES:
        print(f"{pos}\t{counts[pos]}")
    print(f"total\t{len(rows)}\t({len({(a, b) for a, b, _ in rows})} distinct word pairs)")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
