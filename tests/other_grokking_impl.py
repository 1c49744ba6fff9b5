"""A model of Nanda et al.'s modular-addition task written by another implementation, as a user of
claimcheck would bring one: plain PyTorch, its own module layout (one fused QKV projection, an MLP made
of nn.Linear layers without biases), its own data split and its own initialisation, trained for a few
full-batch AdamW steps. It is saved the way a TransformerLens user saves a HookedTransformer: the
state dict under TransformerLens's names (converted from this module's own), and the config's
arguments. `claimcheck import` turns it into a checkpoint of the paper's run; its claims then give
verdicts (it has not grokked in so few steps: most FAIL).
usage: other_grokking_impl.py OUT_DIR [STEPS]"""
import json
import struct
import sys

import torch

P, D, H, DH, F, T = 113, 128, 4, 32, 512, 3
out = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
torch.manual_seed(1234)


class OneLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(P + 1, D)  # the residues and '='
        self.pos = torch.nn.Parameter(torch.randn(T, D) * 0.02)
        self.qkv = torch.nn.Linear(D, 3 * H * DH, bias=False)
        self.out = torch.nn.Linear(H * DH, D, bias=False)
        self.up = torch.nn.Linear(D, F, bias=False)
        self.down = torch.nn.Linear(F, D, bias=False)
        self.unembed = torch.nn.Linear(D, P, bias=False)

    def forward(self, tokens):  # [B, T] -> logits at '=' [B, P]
        x = self.embed(tokens) + self.pos
        q, k, v = self.qkv(x).view(x.shape[0], T, 3, H, DH).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / DH ** 0.5
        scores = scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        z = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v).reshape(x.shape[0], T, H * DH)
        x = x + self.out(z)
        x = x + self.down(torch.relu(self.up(x)))
        return self.unembed(x[:, -1])


model = OneLayer()
a, b = torch.meshgrid(torch.arange(P), torch.arange(P), indexing="ij")
tokens = torch.stack([a.flatten(), b.flatten(), torch.full((P * P,), P)], 1)
labels = (a.flatten() + b.flatten()) % P
train = torch.randperm(P * P)[: int(0.3 * P * P)]
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1.0, betas=(0.9, 0.98))
for step in range(steps):
    loss = torch.nn.functional.cross_entropy(model(tokens[train]), labels[train])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"trained {steps} steps, train loss {loss.item():.3f}")

# This module's weights under TransformerLens's names and layouts ([H, D, DH] for W_Q/K/V, [H, DH, D]
# for W_O, [D, F] / [F, D] for the MLP, [D, P] for W_U).
w = model.qkv.weight.detach().view(3, H, DH, D)
state = {
    "embed.W_E": model.embed.weight.detach(),
    "pos_embed.W_pos": model.pos.detach(),
    "blocks.0.attn.W_Q": w[0].transpose(1, 2),
    "blocks.0.attn.W_K": w[1].transpose(1, 2),
    "blocks.0.attn.W_V": w[2].transpose(1, 2),
    "blocks.0.attn.W_O": model.out.weight.detach().T.reshape(H, DH, D),
    "blocks.0.attn.b_Q": torch.zeros(H, DH),
    "blocks.0.attn.b_K": torch.zeros(H, DH),
    "blocks.0.attn.b_V": torch.zeros(H, DH),
    "blocks.0.attn.b_O": torch.zeros(D),
    "blocks.0.mlp.W_in": model.up.weight.detach().T,
    "blocks.0.mlp.b_in": torch.zeros(F),
    "blocks.0.mlp.W_out": model.down.weight.detach().T,
    "blocks.0.mlp.b_out": torch.zeros(D),
    "unembed.W_U": model.unembed.weight.detach().T,
    "unembed.b_U": torch.zeros(P),
}

# safetensors by hand (the format is 8 bytes of header length, a JSON header, the raw data): the test
# needs no package beyond python3-torch.
header, data = {}, b""
for name, t in state.items():
    raw = t.contiguous().to(torch.float32).numpy().tobytes()
    header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
head = json.dumps(header).encode()
with open(f"{out}/model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(head)) + head + data)
config = {"n_layers": 1, "d_model": D, "n_ctx": T, "d_head": DH, "n_heads": H, "d_mlp": F, "d_vocab": P + 1,
          "d_vocab_out": P, "act_fn": "relu", "normalization_type": None, "attn_only": False,
          "positional_embedding_type": "standard", "use_attn_scale": True, "seed": 1234}
with open(f"{out}/config.json", "w") as f:
    json.dump(config, f)
