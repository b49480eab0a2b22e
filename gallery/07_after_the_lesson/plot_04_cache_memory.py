r"""
Parameters and KV-cache memory against the number of key/value heads
====================================================================

At a LLaMA-like width, ``E = 4096`` with ``H = 32`` heads of ``D = 128``, a KV cache of 32k
tokens in bfloat16 takes 512 MiB per layer with multi-head attention. Grouped-query attention
divides it by ``G = H / H_kv``; multi-query attention by 32. The parameters shrink much less:
only ``W^K`` and ``W^V`` do. Every number in the table is computed by :mod:`mha.cost` and
asserted against the ``numel()`` of a real module and the ``nbytes`` of a real cache, built
on PyTorch's ``meta`` device (shapes without data), so nothing is allocated.
"""

# %%
# Setup
# -----
#
# One layer, one sequence of 32768 tokens, bfloat16 (2 bytes per number), no biases, as in
# LLaMA. ``H_kv`` runs over the divisors of 32.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
E, H, S, B = 4096, 32, 32768, 1
D = mha.check_heads(E, H)
dtype = torch.bfloat16
kv_heads = [h for h in range(1, H + 1) if H % h == 0]
assert D == 128 and kv_heads == [1, 2, 4, 8, 16, 32]

# %%
# Measure on the meta device
# --------------------------
#
# For each ``H_kv``: a module on ``meta``, its parameter count, then one causal forward of the
# 32768 tokens into an empty :class:`mha.KVCache`, and the bytes of the cached keys and
# values. Each is asserted equal to :func:`mha.parameter_count` and
# :func:`mha.kv_cache_bytes`, and the cache to ``2 * B * H_kv * S * D * 2`` bytes.

rows = []
for H_kv in kv_heads:
    attn = mha.GroupedQueryAttention(E, H, H_kv, device="meta", dtype=dtype)
    params = sum(p.numel() for p in attn.parameters())
    cache = mha.KVCache()
    with torch.no_grad():
        out = attn(torch.empty(B, S, E, device="meta", dtype=dtype), is_causal=True, cache=cache)
    assert out.shape == (B, S, E)
    assert cache.keys.shape == cache.values.shape == (B, H_kv, S, D)
    cache_bytes = cache.keys.nbytes + cache.values.nbytes
    assert params == mha.parameter_count(E, H, bias=False, num_kv_heads=H_kv)
    assert params == 2 * E * E + 2 * H_kv * D * E
    assert cache_bytes == mha.kv_cache_bytes(B, S, E, H, H_kv, dtype=dtype)
    assert cache_bytes == 2 * B * H_kv * S * D * 2
    rows.append({"H_kv": H_kv, "G": H // H_kv, "params": params, "cache": cache_bytes})

# %%
# The table
# ---------
#
# Per layer. From multi-head (``H_kv = 32``) to multi-query (``H_kv = 1``) the cache goes from
# 512 MiB to 16 MiB, 32 times less; the parameters from 67.1 M to 34.6 M, not even half,
# because ``W^Q`` and ``W^O`` keep their ``E x E``. Llama 3 8B has this width and 8 key/value
# heads: a cache 4 times smaller than with 32.

MiB = 2**20
print("H_kv   G  params (M)  KV cache (MiB)  cache / MHA")
for r in rows:
    print(
        f"{r['H_kv']:>4} {r['G']:>3} {r['params'] / 1e6:>11.1f} {r['cache'] / MiB:>15.0f} "
        f"{r['cache'] / rows[-1]['cache']:>12.4g}"
    )
by_kv = {r["H_kv"]: r for r in rows}
assert by_kv[32]["cache"] == 512 * MiB and by_kv[1]["cache"] == 16 * MiB
assert by_kv[8]["cache"] * 4 == by_kv[32]["cache"]
assert by_kv[32]["params"] == 4 * E * E == mha.parameter_count(E, H, bias=False)
assert round(by_kv[32]["params"] / 1e6, 1) == 67.1 and round(by_kv[1]["params"] / 1e6, 1) == 34.6

# %%
# Figure
# ------
#
# **Figure.** Per layer, against the number of key/value heads (log scale): left, the
# parameters in millions; right, the KV cache of 32k bfloat16 tokens in MiB. The cache is a
# straight line of slope 1, ``H_kv * 16`` MiB; the parameters flatten towards the
# ``2 E^2`` of ``W^Q`` and ``W^O``.

fig, (left, right) = plt.subplots(1, 2, figsize=(7, 3.2), layout="constrained")
xs = [r["H_kv"] for r in rows]
left.plot(xs, [r["params"] / 1e6 for r in rows], "o-")
left.axhline(2 * E * E / 1e6, color="grey", ls=":", label="W^Q + W^O")
left.set(xlabel="key/value heads H_kv", ylabel="millions", title="Parameters", ylim=(0, 70))
left.legend(loc="lower right")
right.plot(xs, [r["cache"] / MiB for r in rows], "s-", color="C1")
right.set(xlabel="key/value heads H_kv", ylabel="MiB", title="KV cache, 32k tokens")
right.set_yscale("log", base=2)
for ax in (left, right):
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.grid(True, alpha=0.3)
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :class:`mha.KVCache`,
# :func:`mha.parameter_count`, :func:`mha.kv_cache_bytes`, :func:`mha.check_heads`.
