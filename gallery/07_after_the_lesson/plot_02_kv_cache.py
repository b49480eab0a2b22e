r"""
The KV cache, step by step
==========================

Generating text runs the layer once per new token. Without a cache, every step projects the
whole prefix again; with :class:`mha.KVCache`, each step projects only the new token and
appends its key and value to those already cached. This example prefills a prompt of 5
tokens, decodes 4 more one at a time, prints the cache's shape after each step, and asserts
that the outputs equal one causal forward over all 9 tokens.
"""

# %%
# Setup
# -----
#
# The lesson's width and heads, with 2 key/value heads: ``E = 64``, ``H = 8``, ``H_kv = 2``,
# ``D = 8``. The 9 tokens are fixed in advance, so the full causal forward is the reference
# each step must match.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()
B, E, H, H_kv = 2, 64, 8, 2
D = E // H
prompt_len, new_tokens = 5, 4
attn = mha.GroupedQueryAttention(E, H, H_kv, device=device).eval()
x = torch.randn(B, prompt_len + new_tokens, E, device=device)  # (B, 9, E)

with torch.no_grad():
    full = attn(x, is_causal=True)  # (B, 9, E): position p sees positions 0..p
assert full.shape == (B, 9, E)

# %%
# Prefill: the prompt in one call
# -------------------------------
#
# An empty cache, then one call with the 5 prompt tokens: the cache now holds their keys and
# values, ``(B, H_kv, S, D) = (2, 2, 5, 8)``. With a cache and ``is_causal=True`` the call's
# queries are the *last* positions of the sequence; here the cache was empty, so they are
# positions 0-4, as in the full forward.

cache = mha.KVCache()
assert len(cache) == 0 and cache.keys is None
with torch.no_grad():
    out = attn(x[:, :prompt_len], is_causal=True, cache=cache)  # (B, 5, E)
assert len(cache) == 5
assert cache.keys.shape == cache.values.shape == (B, H_kv, 5, D)
torch.testing.assert_close(out, full[:, :prompt_len])
print(f"prefill: output {tuple(out.shape)}, cache {tuple(cache.keys.shape)}")

# %%
# Decode: one token per call
# --------------------------
#
# Each call gets one token ``(B, 1, E)``: it projects one query, one key and one value,
# appends the key and value (``S`` grows by one), and the query attends to all ``S`` cached
# keys. Its output equals row ``p`` of the full forward.

outputs = [out]
lengths = [len(cache)]
for p in range(prompt_len, prompt_len + new_tokens):
    with torch.no_grad():
        step = attn(x[:, p : p + 1], is_causal=True, cache=cache)  # (B, 1, E)
    assert step.shape == (B, 1, E)
    assert len(cache) == p + 1
    assert cache.keys.shape == (B, H_kv, p + 1, D)
    torch.testing.assert_close(step, full[:, p : p + 1])
    outputs.append(step)
    lengths.append(len(cache))
    print(f"token {p}: query (B, H, 1, D) = {(B, H, 1, D)}, cache keys {tuple(cache.keys.shape)}")

# %%
# Decoding equals the full forward
# --------------------------------
#
# The prefill and the four decoded tokens, concatenated, are the full causal forward. The
# cache holds the same keys as projecting all 9 tokens at once.

decoded = torch.cat(outputs, dim=1)  # (B, 9, E)
torch.testing.assert_close(decoded, full)
with torch.no_grad():
    all_keys = mha.split_heads(attn.k_proj(x), H_kv)  # (B, H_kv, 9, D)
torch.testing.assert_close(cache.keys, all_keys)
print("decoded == full causal forward:", tuple(decoded.shape))

# %%
# What the cache stores
# ---------------------
#
# Two tensors of ``B * H_kv * S * D`` numbers each, whatever ``H``: here ``2 * 2 * 2 * 9 * 8``
# float32 values, 2304 bytes. :func:`mha.kv_cache_bytes` gives the same from the sizes alone.
# The buffers behind them have room for more: they start at 16 positions and double when
# full, so these 9 positions sit in 4096 bytes.

stored = cache.keys.nbytes + cache.values.nbytes
assert stored == 2 * B * H_kv * 9 * D * 4 == 2304
assert stored == mha.kv_cache_bytes(B, 9, E, H, H_kv)
buffers = cache.keys.untyped_storage().nbytes() + cache.values.untyped_storage().nbytes()
assert buffers == 2 * B * H_kv * 16 * D * 4 == 4096
print(f"cache: {stored} bytes ({len(cache)} positions), in buffers of {buffers} bytes")

# %%
# Figure: what each call computes
# -------------------------------
#
# **Figure.** Rows are the calls (the prefill, then one per decoded token), columns the 9
# positions. Dark: the positions whose keys and values the call projects; light: those it
# reads from the cache. The prefill projects 5; every later call projects one and reads the
# rest.

grid = torch.zeros(len(lengths), 9)
start = 0
for row, end in enumerate(lengths):
    grid[row, :start] = 0.35  # read from the cache
    grid[row, start:end] = 1.0  # projected in this call
    start = end
fig, ax = plt.subplots(figsize=(7, 2.8), layout="constrained")
ax.imshow(grid, cmap="Blues", vmin=0, vmax=1, aspect="auto")
ax.set_yticks(range(len(lengths)), ["prefill"] + [f"token {p}" for p in range(5, 9)])
ax.set_xticks(range(9))
ax.set(xlabel="position", title="Keys and values: projected (dark) or read from the cache")
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :class:`mha.KVCache`,
# :func:`mha.split_heads`, :func:`mha.kv_cache_bytes`, :func:`mha.get_device`.
