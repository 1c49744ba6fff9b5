#!/usr/bin/env python3
"""ctest reference.transformerlens_export: `claimcheck export --format transformer-lens` loads strictly.

Builds a model with TransformerLens's HookedTransformer module tree (written from its conventions,
not from claimcheck's code: embed, pos_embed, blocks.L.{attn,mlp} with an MLP in every block, every
bias, the attention's `mask` and `IGNORE` buffers, unembed, and its hook names) from the exported
config.json, loads the exported model.safetensors with load_state_dict(strict=True), runs the
tokens `claimcheck eval --cache-out` wrote (the first 64 sequences of every evaluation set) and
compares the logits, and every activation both record under the same hook name, with claimcheck's.
It also checks that the check can fail: the raw checkpoint (no biases, no block-0 MLP) must be
refused by the strict load. Exit 0: they agree; 1: they differ; 77: python3-torch is missing.

usage: tl_export_check.py EXPORT_DIR CACHE.safetensors CHECKPOINT.safetensors
"""
import json
import math
import os
import sys

try:
    import torch
    from torch import nn
except ImportError:
    print("SKIP: python3-torch is not installed (apt-get install python3-torch)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tl_common import compare, read_safetensors, verdict  # noqa: E402

TOLERANCE = 1e-5  # largest |difference| relative to max(1, the largest |value|)

class HookPoint(nn.Module):
    """An identity that records its input under its module name, as TransformerLens's hooks do."""

    def forward(self, x):
        self.cache[self.name] = x
        return x


class Embed(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.W_E = nn.Parameter(torch.empty(cfg["d_vocab"], cfg["d_model"]))

    def forward(self, tokens):
        return self.W_E[tokens]


class PosEmbed(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.W_pos = nn.Parameter(torch.empty(cfg["n_ctx"], cfg["d_model"]))

    def forward(self, tokens):
        return self.W_pos[: tokens.shape[1]].unsqueeze(0).expand(tokens.shape[0], -1, -1)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        H, D, Dh, T = cfg["n_heads"], cfg["d_model"], cfg["d_head"], cfg["n_ctx"]
        self.W_Q = nn.Parameter(torch.empty(H, D, Dh))
        self.W_K = nn.Parameter(torch.empty(H, D, Dh))
        self.W_V = nn.Parameter(torch.empty(H, D, Dh))
        self.W_O = nn.Parameter(torch.empty(H, Dh, D))
        self.b_Q = nn.Parameter(torch.empty(H, Dh))
        self.b_K = nn.Parameter(torch.empty(H, Dh))
        self.b_V = nn.Parameter(torch.empty(H, Dh))
        self.b_O = nn.Parameter(torch.empty(D))
        self.register_buffer("mask", torch.tril(torch.ones(T, T).bool()))
        self.register_buffer("IGNORE", torch.tensor(-math.inf))
        self.attn_scale = math.sqrt(Dh) if cfg.get("use_attn_scale", True) else 1.0
        for h in ["hook_k", "hook_q", "hook_v", "hook_z", "hook_attn_scores", "hook_pattern", "hook_result"]:
            setattr(self, h, HookPoint())

    def forward(self, x):
        q = self.hook_q(torch.einsum("bpd,hdk->bphk", x, self.W_Q) + self.b_Q)
        k = self.hook_k(torch.einsum("bpd,hdk->bphk", x, self.W_K) + self.b_K)
        v = self.hook_v(torch.einsum("bpd,hdk->bphk", x, self.W_V) + self.b_V)
        scores = torch.einsum("bqhk,bphk->bhqp", q, k) / self.attn_scale
        T = x.shape[1]
        scores = self.hook_attn_scores(torch.where(self.mask[:T, :T], scores, self.IGNORE))
        pattern = self.hook_pattern(torch.softmax(scores, dim=-1))
        z = self.hook_z(torch.einsum("bhqp,bphd->bqhd", pattern, v))
        return torch.einsum("bqhd,hdm->bqm", z, self.W_O) + self.b_O


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        D, F = cfg["d_model"], cfg["d_mlp"]
        self.W_in = nn.Parameter(torch.empty(D, F))
        self.b_in = nn.Parameter(torch.empty(F))
        self.W_out = nn.Parameter(torch.empty(F, D))
        self.b_out = nn.Parameter(torch.empty(D))
        self.act = {"relu": torch.relu, "gelu": nn.functional.gelu}[cfg["act_fn"]]
        self.hook_pre, self.hook_post = HookPoint(), HookPoint()

    def forward(self, x):
        post = self.hook_post(self.act(self.hook_pre(x @ self.W_in + self.b_in)))
        return post @ self.W_out + self.b_out


class TransformerBlock(nn.Module):
    """normalization_type None: ln1 and ln2 are identities with no parameters."""

    def __init__(self, cfg):
        super().__init__()
        self.ln1, self.ln2 = nn.Identity(), nn.Identity()
        self.attn, self.mlp = Attention(cfg), MLP(cfg)
        for h in ["hook_attn_out", "hook_mlp_out", "hook_resid_pre", "hook_resid_mid", "hook_resid_post"]:
            setattr(self, h, HookPoint())

    def forward(self, resid_pre):
        resid_pre = self.hook_resid_pre(resid_pre)
        resid_mid = self.hook_resid_mid(resid_pre + self.hook_attn_out(self.attn(self.ln1(resid_pre))))
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.mlp(self.ln2(resid_mid))))


class Unembed(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.W_U = nn.Parameter(torch.empty(cfg["d_model"], cfg["d_vocab_out"]))
        self.b_U = nn.Parameter(torch.empty(cfg["d_vocab_out"]))

    def forward(self, x):
        return x @ self.W_U + self.b_U


class HookedTransformerLike(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg["normalization_type"] is None and not cfg["attn_only"]
        assert cfg["positional_embedding_type"] == "standard"
        self.embed, self.pos_embed = Embed(cfg), PosEmbed(cfg)
        self.hook_embed, self.hook_pos_embed = HookPoint(), HookPoint()
        self.blocks = nn.ModuleList([TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.unembed = Unembed(cfg)
        self.cache = {}
        for name, module in self.named_modules():
            if isinstance(module, HookPoint):
                module.name, module.cache = name, self.cache

    def forward(self, tokens):
        self.cache.clear()
        x = self.hook_embed(self.embed(tokens)) + self.hook_pos_embed(self.pos_embed(tokens))
        for block in self.blocks:
            x = block(x)
        return self.unembed(x)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    export_dir, cache_path, checkpoint = sys.argv[1:]
    cfg = json.load(open(f"{export_dir}/config.json"))
    model = HookedTransformerLike(cfg)
    state = read_safetensors(f"{export_dir}/model.safetensors")
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        print(f"DIFFERS: the export does not load strictly: {e}")
        return 1
    # The check can fail: the checkpoint as trained lacks every bias and block 0's MLP.
    try:
        HookedTransformerLike(cfg).load_state_dict(read_safetensors(checkpoint), strict=True)
        print("DIFFERS: the raw checkpoint loaded strictly too: the strict load checks nothing")
        return 1
    except RuntimeError:
        pass
    theirs = read_safetensors(cache_path)
    with torch.no_grad():
        logits = model(theirs["tokens"])
    # Block 0's MLP hooks exist here and not in claimcheck's cache (its model has no MLP there).
    hooks = {name: t for name, t in model.cache.items() if name in theirs}
    worst, failed, compared = compare(logits, hooks, theirs, TOLERANCE)
    if "logits" not in theirs or compared < 2:
        failed.append(f"only {compared} tensors compared")
    print(f"strict load of {len(state)} tensors; {compared} tensors compared on {theirs['tokens'].shape[0]} "
          f"sequences (every evaluation set); largest relative difference {worst:.3g} (tolerance {TOLERANCE})")
    return verdict(failed)


if __name__ == "__main__":
    sys.exit(main())
