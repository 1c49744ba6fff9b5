#!/usr/bin/env python3
"""An external check of claimcheck's forward pass (ctest: reference.transformerlens).

Loads a committed checkpoint by its TransformerLens names into a plain PyTorch module written from
TransformerLens's HookedTransformer conventions (not from claimcheck's code), runs the tokens that
`claimcheck eval --cache-out` wrote, and compares the logits and every activation both record under
the same hook name. Exit 0: they agree; 1: they differ; 77: python3-torch is missing (skipped).

usage: tl_reference.py CHECKPOINT.safetensors CACHE.safetensors
"""
import os
import sys

try:
    import torch
except ImportError:
    print("SKIP: python3-torch is not installed (apt-get install python3-torch)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tl_common import compare, read_safetensors, verdict  # noqa: E402

class Reference(torch.nn.Module):
    """HookedTransformer's forward for this architecture: no LayerNorm, biases zero, block 0
    attention only, block 1 attention + ReLU MLP; attention scores scaled by 1/sqrt(d_head) and
    causally masked before the softmax; every activation kept under its hook name."""

    def __init__(self, w, scale_power=0.5):
        super().__init__()
        self.w = w
        self.scale_power = scale_power  # 0.5: TransformerLens's attn_scale sqrt(d_head); else the self-check

    def attention(self, layer, x, cache):
        w = self.w
        p = f"blocks.{layer}.attn."
        q = torch.einsum("bpd,hdk->bphk", x, w[p + "W_Q"])
        k = torch.einsum("bpd,hdk->bphk", x, w[p + "W_K"])
        v = torch.einsum("bpd,hdk->bphk", x, w[p + "W_V"])
        d_head = q.shape[-1]
        scores = torch.einsum("bqhk,bphk->bhqp", q, k) / d_head ** self.scale_power
        T = x.shape[1]
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        pattern = torch.softmax(scores, dim=-1)
        z = torch.einsum("bhqp,bphd->bqhd", pattern, v)
        out = torch.einsum("bqhd,hdm->bqm", z, w[p + "W_O"])
        for name, t in [("hook_q", q), ("hook_k", k), ("hook_v", v), ("hook_attn_scores", scores),
                        ("hook_pattern", pattern), ("hook_z", z)]:
            cache[p + name] = t
        cache[f"blocks.{layer}.hook_attn_out"] = out
        return out

    def forward(self, tokens):
        w, cache = self.w, {}
        embed = w["embed.W_E"][tokens]
        pos = w["pos_embed.W_pos"][: tokens.shape[1]].unsqueeze(0).expand_as(embed)
        cache["hook_embed"], cache["hook_pos_embed"] = embed, pos
        x = embed + pos
        for layer in range(2):
            cache[f"blocks.{layer}.hook_resid_pre"] = x
            x = x + self.attention(layer, x, cache)
            if layer == 1:
                cache["blocks.1.hook_resid_mid"] = x
                pre = x @ w["blocks.1.mlp.W_in"]
                post = torch.relu(pre)
                mlp_out = post @ w["blocks.1.mlp.W_out"]
                cache["blocks.1.mlp.hook_pre"], cache["blocks.1.mlp.hook_post"] = pre, post
                cache["blocks.1.hook_mlp_out"] = mlp_out
                x = x + mlp_out
            cache[f"blocks.{layer}.hook_resid_post"] = x
        return x @ w["unembed.W_U"], cache


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    weights = read_safetensors(sys.argv[1])
    theirs = read_safetensors(sys.argv[2])
    with torch.no_grad():
        logits, cache = Reference(weights)(theirs["tokens"])
        # The comparison must be able to fail: a reference that scales attention by 1/d_head.
        wrong_logits, wrong_cache = Reference(weights, scale_power=1.0)(theirs["tokens"])
    if not compare(wrong_logits, wrong_cache, theirs)[1]:
        print("DIFFERS: the self-check (attention scaled by 1/d_head) was not caught: the comparison cannot fail")
        return 1
    worst, failed, compared = compare(logits, cache, theirs)
    same_answer = (logits[:, -1].argmax(-1) == theirs["logits"][:, -1].argmax(-1)).float().mean().item()
    print(f"{compared} tensors compared on {theirs['tokens'].shape[0]} sequences; largest relative difference "
          f"{worst:.3g}; answers at '=' agree on {100 * same_answer:.2f}%")
    return verdict(failed)


if __name__ == "__main__":
    sys.exit(main())
