#!/usr/bin/python3
"""The same training step in PyTorch (Debian's python3-torch), written the way TransformerLens
computes it: every position through both layers and the MLP, logits at every position, the loss
taken at '='. Prints the median step time; bench/README-style numbers go to reports/perf.md.

    /usr/bin/python3 bench/reference_step.py --batch 512 --steps 30
"""
import argparse
import statistics
import time

import torch
import torch.nn.functional as F

D, E, M, T, V = 128, 128, 512, 16, 74


def init(seed):
    g = torch.Generator().manual_seed(seed)
    std = 0.8 / D ** 0.5
    shapes = {"W_E": (V, D), "W_pos": (T, D), "W_U": (D, V), "W_in": (D, M), "W_out": (M, D)}
    for l in (0, 1):
        for w in ("Q", "K", "V"):
            shapes[f"{l}.W_{w}"] = (1, D, E)
        shapes[f"{l}.W_O"] = (1, E, D)
    return {k: (torch.randn(s, generator=g) * std).requires_grad_() for k, s in shapes.items()}


def attn(p, l, x):  # x [B, T, D], TransformerLens' einsum formulation
    q = torch.einsum("btd,hde->bthe", x, p[f"{l}.W_Q"])
    k = torch.einsum("btd,hde->bthe", x, p[f"{l}.W_K"])
    v = torch.einsum("btd,hde->bthe", x, p[f"{l}.W_V"])
    scores = torch.einsum("bqhe,bkhe->bhqk", q, k) / E ** 0.5
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    pattern = scores.masked_fill(mask, float("-inf")).softmax(-1)
    z = torch.einsum("bhqk,bkhe->bqhe", pattern, v)
    return torch.einsum("bqhe,hed->bqd", z, p[f"{l}.W_O"])


def forward(p, tokens):
    x = p["W_E"][tokens] + p["W_pos"]
    x = x + attn(p, 0, x)
    x = x + attn(p, 1, x)
    x = x + F.relu(x @ p["W_in"]) @ p["W_out"]
    return x @ p["W_U"]  # [B, T, V]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    p = init(0)
    opt = torch.optim.AdamW(p.values(), lr=1e-3, weight_decay=2e-2)
    tokens = torch.randint(0, V, (a.batch, T))
    targets = torch.randint(0, 59, (a.batch,))
    times = []
    for s in range(a.steps + 3):
        t0 = time.perf_counter()
        loss = F.cross_entropy(forward(p, tokens)[:, -1], targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if s >= 3:
            times.append(time.perf_counter() - t0)
    print(f"batch {a.batch}: median {1000 * statistics.median(times):.1f} ms/step "
          f"(torch {torch.__version__}, {a.threads} threads)")


if __name__ == "__main__":
    main()
