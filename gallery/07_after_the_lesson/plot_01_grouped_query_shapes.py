r"""
Grouped-query attention: 8, 2 and 1 key/value heads
===================================================

The lesson's layer at its sizes, ``(B, L, E) = (2, 5, 64)`` with 8 query heads, but with
fewer key/value heads: 8 (multi-head attention), 2 (grouped-query attention, 4 query heads per
key/value head) and 1 (multi-query attention). Only the keys and values change shape;
:func:`mha.repeat_kv` shows which query head reads which key/value head, and the module's
output equals PyTorch's ``F.scaled_dot_product_attention(..., enable_gqa=True)``.
"""

# %%
# Setup
# -----
#
# ``H = 8`` query heads of width ``D = 64 / 8 = 8``. ``H_kv`` key/value heads; each serves a
# group of ``G = H / H_kv`` query heads.

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import mha

torch.manual_seed(0)
device = mha.get_device()
B, L, E, H = 2, 5, 64, 8
D = E // H
x = torch.randn(B, L, E, device=device)  # (B, L, E)

# %%
# Only K and V shrink
# -------------------
#
# ``k_proj`` and ``v_proj`` map ``E = 64`` to ``H_kv * D`` columns: 64, 16, 8. Split into
# heads, the keys are ``(B, H_kv, S, D)``: ``(2, 8, 5, 8)``, ``(2, 2, 5, 8)``, ``(2, 1, 5, 8)``.
# The queries, the scores ``(B, H, L, S)`` and the output do not change.

for H_kv in (8, 2, 1):
    attn = mha.GroupedQueryAttention(E, H, H_kv, device=device)
    with torch.no_grad():
        q = mha.split_heads(attn.q_proj(x), H)  # (B, H, L, D)
        k = mha.split_heads(attn.k_proj(x), H_kv)  # (B, H_kv, S, D)
        out = attn(x)  # (B, L, E)
    assert attn.k_proj.weight.shape == attn.v_proj.weight.shape == (H_kv * D, E)
    assert q.shape == (B, H, L, D)
    assert k.shape == (B, H_kv, L, D)
    assert out.shape == (B, L, E)
    print(
        f"H_kv={H_kv}  G={H // H_kv}  W^K {tuple(attn.k_proj.weight.shape)}  K_heads "
        f"{tuple(k.shape)}  output {tuple(out.shape)}"
    )

# %%
# The shape table with ``--kv-heads 2``
# -------------------------------------
#
# ``python -m mha --kv-heads 2`` prints the same table: ``K_heads`` is ``(2, 2, 5, 8)``, and
# the step ``3b) repeat kv`` shows the keys repeated to 8 heads for the explicit path.

steps = mha.trace_shapes(batch=2, target_len=5, embed_dim=64, num_heads=8, num_kv_heads=2)
print(mha.format_shape_table(steps))
shapes = {s.name: s.shape for s in steps}
assert shapes["K_heads"] == shapes["V_heads"] == (2, 2, 5, 8)
assert shapes["K_repeated"] == (2, 8, 5, 8)
assert shapes["scores"] == (2, 8, 5, 5)

# %%
# Which query head reads which key/value head
# -------------------------------------------
#
# :func:`mha.repeat_kv` repeats each key/value head ``G`` times in a row: key/value head ``j``
# serves query heads ``j*G`` to ``(j+1)*G - 1``. With ``H_kv = 2``, heads 0-3 share key/value
# head 0 and heads 4-7 share head 1. It copies: the explicit path pays ``G`` times the keys'
# memory. The fused path never calls it: it hands the ``H_kv`` heads to PyTorch (page 7 of
# the tutorial measures which of PyTorch's kernels copies them in turn).

H_kv = 2
attn = mha.GroupedQueryAttention(E, H, H_kv, device=device)
with torch.no_grad():
    q = mha.split_heads(attn.q_proj(x), H)  # (B, H, L, D)
    k = mha.split_heads(attn.k_proj(x), H_kv)  # (B, H_kv, S, D)
    v = mha.split_heads(attn.v_proj(x), H_kv)  # (B, H_kv, S, D)
k_rep = mha.repeat_kv(k, H)  # (B, H, S, D)
assert k_rep.shape == (B, H, L, D)
G = H // H_kv
assert k_rep.untyped_storage().nbytes() == G * k.numel() * k.element_size()  # G copies
for h in range(H):
    assert k_rep[:, h].equal(k[:, h // G])
print("query head -> key/value head:", [h // G for h in range(H)])

# %%
# Explicit, fused and PyTorch's: the same numbers
# -----------------------------------------------
#
# The explicit path repeats the keys and values, then runs the lesson's
# :func:`mha.scaled_dot_product_attention` and returns the weights ``(B, H, L, S)``. The fused
# path hands the ``H_kv`` heads to ``F.scaled_dot_product_attention(..., enable_gqa=True)``.
# Both equal PyTorch's function called directly.

with torch.no_grad():
    explicit, weights = mha.grouped_query_attention(q, k, v, need_weights=True)
    fused, _ = mha.grouped_query_attention(q, k, v)
    theirs = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # (B, H, L, D)
    module = attn(x)
assert weights.shape == (B, H, L, L)
torch.testing.assert_close(explicit, theirs)
torch.testing.assert_close(fused, theirs)
torch.testing.assert_close(module, attn.out_proj(mha.merge_heads(theirs)))
print("explicit == fused == F.scaled_dot_product_attention(enable_gqa=True)")

# %%
# Figure: the grouping
# --------------------
#
# **Figure.** For 8, 2 and 1 key/value heads, a cell is dark where query head ``h`` (row)
# reads key/value head ``j`` (column), computed by :func:`mha.repeat_kv` on one-hot heads.
# Multi-head attention is the diagonal; grouped-query attention, blocks of 4; multi-query, one
# column.

fig, axes = plt.subplots(1, 3, figsize=(7, 2.9), layout="constrained")
for ax, H_kv in zip(axes, (8, 2, 1), strict=True):
    one_hot = torch.eye(H_kv).view(1, H_kv, 1, H_kv)  # (B, H_kv, S, D): head j is e_j
    reads = mha.repeat_kv(one_hot, H)[0, :, 0]  # (H, H_kv)
    assert reads.sum(-1).eq(1).all()
    ax.imshow(reads, cmap="Greys", vmin=0, vmax=1.3, aspect="auto")
    ax.set(title=f"H_kv = {H_kv}", xlabel="key/value head", xticks=range(H_kv))
    ax.set_yticks(range(H))
axes[0].set_ylabel("query head")
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :func:`mha.repeat_kv`,
# :func:`mha.grouped_query_attention`, :func:`mha.split_heads`, :func:`mha.merge_heads`,
# :func:`mha.trace_shapes`, :func:`mha.format_shape_table`, :func:`mha.get_device`.
