r"""
The causal-alignment trap
=========================

With a KV cache, the queries of a call are the *last* positions of the sequence, so the
causal mask must be aligned to the bottom right: a query at absolute position ``p`` sees the
keys at positions ``<= p``. ``F.scaled_dot_product_attention(..., is_causal=True)`` aligns it
to the top left (query ``i`` sees keys ``<= i``), which is right only when there are as many
queries as keys. This example reproduces the bug with a call of 3 queries, shows that a
one-token decoding step is its worst case (the single query sees only the first key), that
it is silent, and catches it by comparing with the full forward.
"""

# %%
# Setup
# -----
#
# ``E = 64``, ``H = 8``, ``H_kv = 2``; a sequence of 7 tokens. The last 3 are the call's
# queries (``L = 3``) and all 7 are keys (``S = 7``).

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

import mha

torch.manual_seed(0)
device = mha.get_device()
B, E, H, H_kv, S, L = 2, 64, 8, 2, 7, 3
attn = mha.GroupedQueryAttention(E, H, H_kv, device=device).eval()
x = torch.randn(B, S, E, device=device)
with torch.no_grad():
    full = attn(x, is_causal=True)  # (B, S, E), the reference

# %%
# The two alignments
# ------------------
#
# Top left: query ``i`` sees keys ``0..i`` whatever ``S``. Bottom right: the ``L`` queries are
# positions ``S - L .. S - 1``, so query ``i`` sees keys ``0..i + S - L``. For ``L = 3``,
# ``S = 7`` they differ in 12 of 21 cells.

top_left = torch.ones(L, S, dtype=torch.bool).tril()  # (L, S), True = may attend
bottom_right = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)  # (L, S)
print(top_left.int())
print(bottom_right.int())
assert top_left.sum(-1).tolist() == [1, 2, 3]
assert bottom_right.sum(-1).tolist() == [5, 6, 7]
assert (top_left != bottom_right).sum() == 12

# %%
# Reproduce the bug
# -----------------
#
# Fill a cache with the first 4 tokens, then compute the last 3 by hand with
# ``is_causal=True`` in PyTorch's function: it runs without an error or a warning, and gives
# numbers that are simply wrong. The first of the three queries sees key 0 alone.

cache = mha.KVCache()
with torch.no_grad():
    attn(x[:, : S - L], cache=cache)  # positions 0..3 into the cache
    q = mha.split_heads(attn.q_proj(x[:, S - L :]), H)  # (B, H, L, D)
    k = mha.split_heads(attn.k_proj(x[:, S - L :]), H_kv)  # (B, H_kv, L, D)
    v = mha.split_heads(attn.v_proj(x[:, S - L :]), H_kv)
    keys, values = cache.append(k, v)  # (B, H_kv, S, D)
    wrong = F.scaled_dot_product_attention(q, keys, values, is_causal=True, enable_gqa=True)
    wrong = attn.out_proj(mha.merge_heads(wrong))  # (B, L, E)
assert wrong.shape == (B, L, E) and torch.isfinite(wrong).all()  # silent
error = (wrong - full[:, S - L :]).abs().amax().item()
print(f"top-left is_causal with a cache: largest error {error:.3f}")

# %%
# Catch it
# --------
#
# The check that catches it is the one this gallery makes everywhere: compare with the full
# forward. The comparison raises; the bottom-right mask (PyTorch's ``causal_lower_right``)
# passes, and so does the module, which aligns to the bottom right by itself.

try:
    torch.testing.assert_close(wrong, full[:, S - L :])
except AssertionError as err:
    caught = str(err).splitlines()[0]
    print("caught:", caught)
else:
    raise RuntimeError("the top-left mask should not match the full forward")
assert caught.startswith("Tensor-likes are not close")

with torch.no_grad():
    right = F.scaled_dot_product_attention(
        q, keys, values, attn_mask=causal_lower_right(L, S), enable_gqa=True
    )
    right = attn.out_proj(mha.merge_heads(right))
torch.testing.assert_close(right, full[:, S - L :])

cache = mha.KVCache()
with torch.no_grad():
    attn(x[:, : S - L], is_causal=True, cache=cache)
    module = attn(x[:, S - L :], is_causal=True, cache=cache)
torch.testing.assert_close(module, full[:, S - L :])
print("bottom right == full forward; the module with a cache == full forward")

# %%
# One token per call: the worst case
# ----------------------------------
#
# A decoding step has one query, the last position, and it may see every key. Top-left
# alignment lets that single query see key 0 alone: the step attends to the first token of
# the sequence and ignores everything after it. Without a mask the last position sees every
# key, which is right; so is the module.

one_key = torch.ones(1, S, dtype=torch.bool).tril()  # (1, S): top left for L = 1
assert one_key.sum().item() == 1 and one_key[0, 0]  # key 0 only
with torch.no_grad():
    last = q[:, :, -1:]  # (B, H, 1, D): the query of position S - 1
    wrong1 = F.scaled_dot_product_attention(last, keys, values, is_causal=True, enable_gqa=True)
    first_only = F.scaled_dot_product_attention(
        last, keys[:, :, :1], values[:, :, :1], enable_gqa=True
    )  # attention over key 0 alone
    unmasked = F.scaled_dot_product_attention(last, keys, values, enable_gqa=True)
    wrong1, first_only, unmasked = (
        attn.out_proj(mha.merge_heads(t)) for t in (wrong1, first_only, unmasked)
    )  # (B, 1, E) each
torch.testing.assert_close(wrong1, first_only)  # is_causal=True: key 0 and nothing else
torch.testing.assert_close(unmasked, full[:, -1:])  # no mask: right for the last position
cache = mha.KVCache()
with torch.no_grad():
    attn(x[:, : S - 1], is_causal=True, cache=cache)  # positions 0..5
    step = attn(x[:, S - 1 :], is_causal=True, cache=cache)  # position 6, one token
torch.testing.assert_close(step, full[:, -1:])  # the module: right
error1 = (wrong1 - full[:, -1:]).abs().amax().item()
print(f"top-left is_causal, one token: largest error {error1:.3f}")
assert error1 > 0.05

# %%
# Figure: the two masks
# ---------------------
#
# **Figure.** The ``(L, S) = (3, 7)`` mask of one call after 4 cached positions; dark cells
# may attend. Left, top left (``is_causal=True`` in PyTorch's function): the queries lose
# the cached past. Right, bottom right (``mha.KVCache``): query ``i`` is position ``4 + i``.
# With one query, the top-left mask would be its first row alone: key 0.

fig, axes = plt.subplots(1, 2, figsize=(7, 2.4), layout="constrained", sharey=True)
for ax, mask, title in zip(
    axes, (top_left, bottom_right), ("top left: wrong here", "bottom right: right"), strict=True
):
    ax.imshow(mask, cmap="Greys", vmin=0, vmax=1.3)
    ax.set(title=title, xlabel="key position", xticks=range(S))
    ax.set_yticks(range(L), [f"q{i} (pos {S - L + i})" for i in range(L)])
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :class:`mha.KVCache`,
# :func:`mha.split_heads`, :func:`mha.merge_heads`, :func:`mha.get_device`.
