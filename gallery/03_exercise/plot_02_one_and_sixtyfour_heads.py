r"""
Exercise: the extremes, 1 head and 64 heads
===========================================

At ``d_model = 64`` the head count can go from 1 to 64. With 1 head, ``d_k = 64`` and
multi-head attention is plain scaled dot-product attention on the full projections. With 64
heads, ``d_k = 1``: every head's score is a product of two scalars, the scale
``1 / sqrt(1)`` is 1, and each head can only rank the keys by one number. We check both
against the explicit computation and PyTorch's module, and plot what a one-number head can
do.
"""

# %%
# One head: :math:`d_k = 64`
# ---------------------------
#
# Splitting into one head only adds a head dimension of size 1: ``Q_heads`` is
# ``(B, H, L, D) = (2, 1, 5, 64)`` and holds exactly ``Q``.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

assert mha.check_heads(64, 1) == 64
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

torch.manual_seed(0)
attn1 = mha.MultiHeadAttention(64, 1, batch_first=True, device=device)
Q = mha.project(x, attn1.q_weight, attn1.q_bias)  # (B, L, E)
K = mha.project(x, attn1.k_weight, attn1.k_bias)  # (B, S, E)
V = mha.project(x, attn1.v_weight, attn1.v_bias)  # (B, S, E)

Q_heads = mha.split_heads(Q, 1)  # (B, 1, L, E)
assert Q_heads.shape == (2, 1, 5, 64)
assert torch.equal(Q_heads[:, 0], Q)

# %%
# One head is plain attention
# ---------------------------
#
# So the single head is plain scaled dot-product attention on the full 64-wide ``Q``, ``K``
# and ``V``, scaled by ``1 / sqrt(64)``, followed by ``W^O``. No split, no merge: the module's
# output and weights are the same. Averaging the weights over one head changes nothing.

weights_plain = torch.softmax(Q @ K.transpose(-2, -1) / 64**0.5, dim=-1)  # (B, L, S)
out_plain = mha.project(weights_plain @ V, attn1.out_proj.weight, attn1.out_proj.bias)

out1, weights1 = attn1(x, x, x, average_attn_weights=False)
assert weights1.shape == (2, 1, 5, 5)
assert out1.shape == (2, 5, 64)
torch.testing.assert_close(out1, out_plain)
torch.testing.assert_close(weights1[:, 0], weights_plain)
torch.testing.assert_close(attn1(x, x, x)[1], weights_plain)
print(f"1 head == plain attention: {tuple(out1.shape)} {tuple(weights1.shape)}")

# %%
# 64 heads: :math:`d_k = 1`
# --------------------------
#
# Now each head gets one column of ``Q``, ``K`` and ``V``: ``(2, 64, 5, 1)``. The scale is
# ``1 / sqrt(1) = 1``, so the default scale and ``scale=1.0`` give the same result.

assert mha.check_heads(64, 64) == 1
torch.manual_seed(0)
attn64 = mha.MultiHeadAttention(64, 64, batch_first=True, device=device)
Q = mha.project(x, attn64.q_weight, attn64.q_bias)  # (B, L, E)
K = mha.project(x, attn64.k_weight, attn64.k_bias)  # (B, S, E)
V = mha.project(x, attn64.v_weight, attn64.v_bias)  # (B, S, E)
q, k, v = (mha.split_heads(t, 64) for t in (Q, K, V))  # (B, H, L, 1)
assert q.shape == k.shape == v.shape == (2, 64, 5, 1)
torch.testing.assert_close(q[:, 7, :, 0], Q[:, :, 7])  # head 7 is column 7

context, weights = mha.scaled_dot_product_attention(q, k, v)  # (B, H, L, 1), (B, H, L, S)
context_scale1, weights_scale1 = mha.scaled_dot_product_attention(q, k, v, scale=1.0)
assert 1 / 1**0.5 == 1.0
torch.testing.assert_close(context, context_scale1)
torch.testing.assert_close(weights, weights_scale1)
assert weights.shape == (2, 64, 5, 5)

# %%
# The modules agree
# -----------------
#
# The module agrees, and so does PyTorch's module from the same seed.

out64, weights64 = attn64(x, x, x, average_attn_weights=False)
assert out64.shape == (2, 5, 64)
assert weights64.shape == (2, 64, 5, 5)
torch.testing.assert_close(weights64, weights)
out_by_hand = mha.project(mha.merge_heads(context), attn64.out_proj.weight, attn64.out_proj.bias)
torch.testing.assert_close(out64, out_by_hand)

torch.manual_seed(0)
theirs64 = torch.nn.MultiheadAttention(64, 64, batch_first=True, device=device)
out_t, weights_t = theirs64(x, x, x, average_attn_weights=False)
torch.testing.assert_close(out64, out_t)
torch.testing.assert_close(weights64, weights_t)
print(f"64 heads: {tuple(out64.shape)} {tuple(weights64.shape)}")

# %%
# A score is a product of two scalars
# -----------------------------------
#
# With ``d_k = 1`` the "dot product" of a query and a key is one multiplication:
# ``score[i, j] = q_i * k_j``. The scores of a head are the outer product of its query column
# and its key column.

scores = q @ k.transpose(-2, -1)  # (B, H, L, S)
outer = q[..., :, 0, None] * k[..., None, :, 0]  # (B, H, L, 1) * (B, H, 1, S)
torch.testing.assert_close(scores, outer)
torch.testing.assert_close(torch.softmax(scores, dim=-1), weights)

# %%
# One number per key
# ------------------
#
# Each row's softmax, ``exp(q_i k_j) / sum_j' exp(q_i k_j')``, depends on each key through
# one number, ``k_j``; the query only sets the sign and sharpness. A query with ``q_i > 0``
# puts its largest weight on the key with the largest ``k_j``; one with ``q_i < 0`` on the
# key with the smallest. No head can pick out a key by anything but its rank along one axis.

k_scalar = k[..., 0]  # (B, H, S)
favourite = torch.where(
    q[..., 0, None] > 0,  # (B, H, L, 1)
    k_scalar.argmax(-1)[..., None, None],  # (B, H, 1, 1)
    k_scalar.argmin(-1)[..., None, None],
).expand(-1, -1, 5, 1)  # (B, H, L, 1)
torch.testing.assert_close(weights.gather(-1, favourite)[..., 0], weights.amax(-1))

# more than the favourite: with the keys sorted by k_j, every row is monotone
order = k_scalar.argsort(-1)[..., None, :].expand(-1, -1, 5, -1)  # (B, H, L, S)
steps = weights.gather(-1, order).diff(dim=-1)  # (B, H, L, S - 1)
assert (steps * q.sign()).ge(0).all()  # rising if q_i > 0, falling if q_i < 0
print("every row's largest weight is on the key with the largest or smallest k_j")

# %%
# The picture
# -----------
#
# The picture: for one head, the weight each query gives to each key, against that key's
# scalar ``k_j``. Every query's curve ``exp(q_i k_j) / Z_i`` rises with ``k_j`` when
# ``q_i > 0`` and falls when ``q_i < 0``.

head = 0
k_head = k_scalar[0, head].detach().cpu()  # (S,)
by_k = k_head.argsort()
fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
for i in range(5):
    q_i = float(q[0, head, i, 0].detach())
    w_i = weights[0, head, i].detach().cpu()
    ax.plot(k_head[by_k], w_i[by_k], marker="o", label=f"query {i}, q = {q_i:+.2f}")
ax.set_xlabel("key scalar k_j")
ax.set_ylabel("attention weight")
ax.set_title(f"64 heads, d_k = 1: head {head}, batch 0")
ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)  # off the data

# %%
# Functions used: :func:`mha.check_heads`, :func:`mha.project`, :func:`mha.split_heads`,
# :func:`mha.scaled_dot_product_attention`, :func:`mha.merge_heads`,
# :class:`mha.MultiHeadAttention`, :attr:`mha.MultiHeadAttention.q_weight`,
# :func:`mha.get_device`; compared with :class:`torch.nn.MultiheadAttention`.
