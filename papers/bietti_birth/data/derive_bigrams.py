#!/usr/bin/env python3
"""Derives the character statistics of Bietti et al. (2023)'s synthetic task from the tiny-Shakespeare text.

The paper takes pi_u (unigram) and pi_b (bigram) to be "character-level distributions estimated from the
tiny Shakespeare dataset, with vocabulary size N = 65". This script counts them from karpathy/char-rnn's
data/tinyshakespeare/input.txt (public domain text; 1 115 394 bytes) and writes shakespeare_char_stats.json:
the vocabulary (the text's distinct characters in code-point order: token i is vocab[i]), the count of
each character and of each ordered pair of consecutive characters. The module normalises them; the counts
are committed so that nothing is downloaded or derived at build or run time.

Usage: derive_bigrams.py INPUT_TXT > shakespeare_char_stats.json   (refuses a text of another sha256)
"""
import hashlib
import json
import sys

SOURCE_URL = "https://github.com/karpathy/char-rnn/blob/master/data/tinyshakespeare/input.txt"
SOURCE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


def main(path):
    raw = open(path, "rb").read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SOURCE_SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {SOURCE_SHA256} (the text this paper's statistics come from)")
    text = raw.decode("utf-8")
    vocab = sorted(set(text))
    index = {c: i for i, c in enumerate(vocab)}
    n = len(vocab)
    unigram = [0] * n
    bigram = [[0] * n for _ in range(n)]
    for c in text:
        unigram[index[c]] += 1
    for a, b in zip(text, text[1:]):
        bigram[index[a]][index[b]] += 1
    out = {
        "source": {"url": SOURCE_URL, "sha256": SOURCE_SHA256, "bytes": len(raw)},
        "derived_by": "papers/bietti_birth/data/derive_bigrams.py",
        "vocab": vocab,
        "unigram_counts": unigram,
        "bigram_counts": bigram,
    }
    json.dump(out, sys.stdout, ensure_ascii=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
