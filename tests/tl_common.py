"""What the tests' Python references share: reading a safetensors file into torch tensors (Debian
ships no safetensors package), and comparing a reference's logits and activations with claimcheck's."""
import json
import struct

import torch

DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64, "BOOL": torch.bool}


def read_safetensors(path):
    """An 8-byte little-endian header length, a JSON header mapping names to {dtype, shape,
    data_offsets}, then the raw data."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(body[begin:end]), dtype=DTYPES[info["dtype"]])
        out[name] = t.reshape(info["shape"])
    return out


def compare(logits, cache, theirs, tolerance=1e-4):
    """Each of the reference's tensors against claimcheck's of the same name: (largest relative
    difference, problems, tensors compared). Relative: to max(1, the largest |value|)."""
    worst, failed, compared = 0.0, [], 0
    for name, ref in [("logits", logits)] + sorted(cache.items()):
        if name not in theirs:
            failed.append(f"{name}: not in claimcheck's cache")
            continue
        got = theirs[name]
        if got.shape != ref.shape:
            failed.append(f"{name}: shape {list(got.shape)}, the reference has {list(ref.shape)}")
            continue
        finite = torch.isfinite(ref)
        if not torch.equal(finite, torch.isfinite(got)):
            failed.append(f"{name}: masked (-inf) entries differ")
            continue
        scale = max(1.0, ref[finite].abs().max().item())
        diff = (got[finite] - ref[finite]).abs().max().item() / scale
        worst = max(worst, diff)
        compared += 1
        if diff > tolerance:
            failed.append(f"{name}: max |claimcheck - reference| = {diff:.3g} of scale {scale:.3g}")
    return worst, failed, compared


def verdict(failed):
    """Prints each problem; the exit status: 0 when there is none, 1 otherwise."""
    for f in failed:
        print("DIFFERS:", f)
    return 1 if failed else 0
