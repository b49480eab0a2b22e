r"""
Inside in_proj_weight: W_Q, W_K and W_V packed in one matrix
============================================================

:class:`torch.nn.MultiheadAttention` stores the three input projections of the lesson,
``W_Q``, ``W_K`` and ``W_V``, stacked in one ``in_proj_weight`` of shape ``(3E, E)`` and their
biases in one ``in_proj_bias`` of shape ``(3E,)``. We cut them apart, recompute ``Q``, ``K``
and ``V`` by hand and with :func:`mha.project`, rebuild PyTorch's whole forward pass from its
own parameters with the step functions of :mod:`mha`, and look at the case where keys and
values have their own widths (``kdim``, ``vdim``) and the packed matrix is gone.
"""

# %%
# The packed matrix
# -----------------
#
# With ``d_model = 64``, ``in_proj_weight`` is ``(192, 64)``: rows 0-63 are ``W_Q``, rows
# 64-127 ``W_K``, rows 128-191 ``W_V``. ``chunk(3)`` cuts it into the three ``(64, 64)``
# blocks, and the bias into three ``(64,)`` blocks. The biases start at zero, so we give them
# random values first: otherwise a bias term forgotten below would go unnoticed.

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/pytorch_03_in_proj_weight.png"

torch.manual_seed(0)
device = mha.get_device()

theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
with torch.no_grad():
    theirs.in_proj_bias.normal_()
    theirs.out_proj.bias.normal_()

assert theirs.in_proj_weight.shape == (192, 64)
assert theirs.in_proj_bias.shape == (192,)
W_Q, W_K, W_V = theirs.in_proj_weight.chunk(3)  # 3 x (E, E)
b_Q, b_K, b_V = theirs.in_proj_bias.chunk(3)  # 3 x (E,)
assert W_Q.shape == W_K.shape == W_V.shape == (64, 64)
assert b_Q.shape == b_K.shape == b_V.shape == (64,)
torch.testing.assert_close(W_K, theirs.in_proj_weight[64:128])
print("in_proj_weight", tuple(theirs.in_proj_weight.shape), "-> W_Q, W_K, W_V", tuple(W_Q.shape))

# %%
# Q, K and V by hand
# ------------------
#
# Each projection is ``x W^T + b``, as :class:`torch.nn.Linear` computes it (the weight is
# stored ``(out, in)``, hence the transpose). :func:`mha.project` is exactly this, and one
# product with the packed matrix gives all three at once, ``(B, L, 3E)``, cut along the last
# dimension. :func:`mha.project_qkv` gives the same three.

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

Q = x @ W_Q.T + b_Q  # (B, L, E)
K = x @ W_K.T + b_K  # (B, L, E)
V = x @ W_V.T + b_V  # (B, L, E)
assert Q.shape == K.shape == V.shape == (2, 5, 64)

torch.testing.assert_close(mha.project(x, W_Q, b_Q), Q)
torch.testing.assert_close(mha.project(x, W_K, b_K), K)
torch.testing.assert_close(mha.project(x, W_V, b_V), V)

QKV = mha.project(x, theirs.in_proj_weight, theirs.in_proj_bias)  # (B, L, 3E)
assert QKV.shape == (2, 5, 192)
for mine, packed in zip((Q, K, V), QKV.chunk(3, dim=-1), strict=True):
    torch.testing.assert_close(packed, mine)
for mine, step in zip(
    (Q, K, V), mha.project_qkv(x, x, x, W_Q, W_K, W_V, b_Q, b_K, b_V), strict=True
):
    torch.testing.assert_close(step, mine)

# %%
# PyTorch's forward, rebuilt from its parameters
# ----------------------------------------------
#
# The five steps of the lesson, with PyTorch's own weights: project, split heads, attend,
# merge heads, project out with ``out_proj``. The output and the per-head weights match what
# the module returns.

q_heads = mha.split_heads(Q, 8)  # (B, H, L, D)
k_heads = mha.split_heads(K, 8)  # (B, H, S, D)
v_heads = mha.split_heads(V, 8)  # (B, H, S, D)
context, weights = mha.scaled_dot_product_attention(q_heads, k_heads, v_heads)  # (B, H, L, D)
concat = mha.merge_heads(context)  # (B, L, E)
out = mha.project(concat, theirs.out_proj.weight, theirs.out_proj.bias)  # (B, L, E)

assert q_heads.shape == (2, 8, 5, 8)
assert weights.shape == (2, 8, 5, 5)
assert out.shape == (2, 5, 64)

out_t, weights_t = theirs(x, x, x, average_attn_weights=False)
torch.testing.assert_close(out, out_t)
torch.testing.assert_close(weights, weights_t)
print(f"rebuilt forward == torch.nn.MultiheadAttention: {tuple(out.shape)} {tuple(weights.shape)}")

# %%
# Each head's rows, and ``out_proj``
# ----------------------------------
#
# ``nn.Linear`` stores each matrix as ``(out, in)``, so head ``i`` of the queries comes from
# rows ``8 i .. 8 i + 7`` of ``W_Q``: the paper's columns. ``out_proj`` prints as
# ``NonDynamicallyQuantizableLinear``, a subclass of :class:`torch.nn.Linear` that adds only
# its name (PyTorch's source keeps it for its quantization tools); it computes
# ``x @ weight.T + bias`` like any linear layer.

for i in range(8):
    rows = slice(8 * i, 8 * i + 8)
    torch.testing.assert_close(q_heads[:, i], x @ W_Q[rows].T + b_Q[rows])
print(f"out_proj: {type(theirs.out_proj).__name__}")
assert isinstance(theirs.out_proj, torch.nn.Linear)
W_O, b_O = theirs.out_proj.weight, theirs.out_proj.bias
torch.testing.assert_close(theirs.out_proj(concat), concat @ W_O.T + b_O)

# %%
# Keys and values of other widths: kdim and vdim
# ----------------------------------------------
#
# When ``key`` and ``value`` have their own widths (cross-attention to a memory of another
# model), the three matrices no longer have the same shape and cannot be stacked:
# ``in_proj_weight`` is ``None`` and PyTorch keeps ``q_proj_weight`` ``(E, E)``,
# ``k_proj_weight`` ``(E, kdim)`` and ``v_proj_weight`` ``(E, vdim)``. The bias is still
# packed, ``(3E,)``.

cross = torch.nn.MultiheadAttention(64, 8, kdim=32, vdim=48, batch_first=True, device=device)
with torch.no_grad():
    cross.in_proj_bias.normal_()
    cross.out_proj.bias.normal_()

assert cross.in_proj_weight is None
assert cross.q_proj_weight.shape == (64, 64)
assert cross.k_proj_weight.shape == (64, 32)
assert cross.v_proj_weight.shape == (64, 48)
assert cross.in_proj_bias.shape == (192,)
for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
    print(f"{name}: {tuple(getattr(cross, name).shape)}")

# %%
# The forward pass with separate matrices
# ---------------------------------------
#
# The same steps with the separate matrices: the queries come from ``x`` ``(2, 5, 64)``, the
# keys and values from a memory of 7 positions, ``(2, 7, 32)`` and ``(2, 7, 48)``. All three
# are projected to width 64, so the heads split as before; the weights are ``(B, H, L, S)``
# with ``S = 7``.

memory_k = torch.randn(2, 7, 32, device=device)  # (B, S, kdim)
memory_v = torch.randn(2, 7, 48, device=device)  # (B, S, vdim)
c_Q, c_K, c_V = cross.in_proj_bias.chunk(3)
Q, K, V = mha.project_qkv(
    x,
    memory_k,
    memory_v,
    cross.q_proj_weight,
    cross.k_proj_weight,
    cross.v_proj_weight,
    c_Q,
    c_K,
    c_V,
)  # (B, L, E), (B, S, E), (B, S, E)
assert (Q.shape, K.shape, V.shape) == ((2, 5, 64), (2, 7, 64), (2, 7, 64))

context, weights = mha.scaled_dot_product_attention(
    mha.split_heads(Q, 8), mha.split_heads(K, 8), mha.split_heads(V, 8)
)  # (B, H, L, D), (B, H, L, S)
out = mha.project(mha.merge_heads(context), cross.out_proj.weight, cross.out_proj.bias)
assert weights.shape == (2, 8, 5, 7)

out_t, weights_t = cross(x, memory_k, memory_v, average_attn_weights=False)
torch.testing.assert_close(out, out_t)
torch.testing.assert_close(weights, weights_t)

# %%
# Our module converts either storage
# ----------------------------------
#
# Our module stores them as PyTorch does in both cases (here ``q_proj_weight``,
# ``k_proj_weight``, ``v_proj_weight`` and no ``in_proj_weight``), and its ``q_weight``,
# ``k_weight``, ``v_weight`` name the lesson's three matrices whichever storage holds them:

ours = mha.MultiHeadAttention.from_torch(cross)
assert ours.in_proj_weight is None and ours.k_weight is ours.k_proj_weight
assert ours.k_weight.shape == (64, 32)
assert ours.v_weight.shape == (64, 48)
out_o, weights_o = ours(x, memory_k, memory_v, average_attn_weights=False)
torch.testing.assert_close(out_o, out_t)
torch.testing.assert_close(weights_o, weights_t)
assert ours.to_torch().in_proj_weight is None
print(ours)

# %%
# Functions used: :func:`mha.project`, :func:`mha.project_qkv`, :func:`mha.split_heads`,
# :func:`mha.scaled_dot_product_attention`, :func:`mha.merge_heads`,
# :class:`mha.MultiHeadAttention`, :meth:`mha.MultiHeadAttention.from_torch`,
# :func:`mha.get_device`; compared with :class:`torch.nn.MultiheadAttention`.
