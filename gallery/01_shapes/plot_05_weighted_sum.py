r"""
Step 4b: the weighted sum of the values
=======================================

The attention weights ``(2, 8, 5, 5)`` multiply the values ``(2, 8, 5, 8)``: each head's
output row for query ``i`` is a weighted average of that head's value rows, with the
weights of row ``i``. The result has the shape of the queries, ``(2, 8, 5, 8)``. This example
checks that each output row is a convex combination of the value rows, and that the whole
step equals :func:`mha.scaled_dot_product_attention` and PyTorch's
:func:`torch.nn.functional.scaled_dot_product_attention`.
"""

import math

import torch
import torch.nn.functional as F

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_05_weighted.png"

torch.manual_seed(0)
device = mha.get_device()


def show(name, tensor, letters):
    """Print a tensor's shape beside its dimension letters, its strides and contiguity."""
    print(
        f"{name:<18} {tuple(tensor.shape)!s:<14} {letters:<14} "
        f"stride {tensor.stride()!s:<16} contiguous={tensor.is_contiguous()}"
    )


B, L, E, H = 2, 5, 64, 8
D = mha.check_heads(E, H)
x = torch.randn(B, L, E, device=device)  # (B, L, E)
w_q, w_k, w_v = (torch.randn(E, E, device=device) / math.sqrt(E) for _ in range(3))
q, k, v = mha.project_qkv(x, x, x, w_q, w_k, w_v)  # 3 x (B, L, E)
Q_heads, K_heads, V_heads = (mha.split_heads(t, H) for t in (q, k, v))  # (B, H, L|S, D)

scores = Q_heads @ K_heads.transpose(-2, -1) / math.sqrt(D)  # (B, H, L, S)
weights = scores.softmax(dim=-1)  # (B, H, L, S)
show("weights", weights, "(B, H, L, S)")
show("V_heads", V_heads, "(B, H, S, D)")

# %%
# ``weights @ V``
# ---------------
#
# Per batch entry and head, ``(L, S) @ (S, D) -> (L, D)``: the key axis ``S`` is summed
# away, and each query gets a ``D``-wide vector. This is ``head_i`` in the paper, for all
# heads at once.

context = weights @ V_heads  # (B, H, L, D)
show("context", context, "(B, H, L, D)")
assert context.shape == (2, 8, 5, 8)

# %%
# Each output row is a convex combination of value rows
# -----------------------------------------------------
#
# Written out for one row: ``context[b, h, i] = sum_j weights[b, h, i, j] * V_heads[b, h, j]``.
# The weights are non-negative and sum to 1, so the output is a weighted *average* of the
# value rows: every coordinate lies between the smallest and the largest value in that
# column of the head.

b, h, i = 1, 5, 3
row = sum(weights[b, h, i, j] * V_heads[b, h, j] for j in range(L))  # (D,)
torch.testing.assert_close(context[b, h, i], row)
print(f"weights[{b}, {h}, {i}] =", weights[b, h, i].cpu().numpy().round(3))
print(f"sum = {weights[b, h, i].sum().item():.6f}")
assert bool((weights >= 0).all())
torch.testing.assert_close(weights.sum(dim=-1), torch.ones(B, H, L, device=device))

low = V_heads.amin(dim=-2, keepdim=True)  # (B, H, 1, D), smallest value per column
high = V_heads.amax(dim=-2, keepdim=True)  # (B, H, 1, D), largest value per column
tol = 1e-5
assert bool((context >= low - tol).all())
assert bool((context <= high + tol).all())

# %%
# A one-hot row of weights copies one value row; a uniform row averages them all.

one_hot = torch.zeros(L, L, device=device)
one_hot[:, 2] = 1.0  # every query attends only to key 2
torch.testing.assert_close(one_hot @ V_heads[b, h], V_heads[b, h, 2].expand(L, D))
uniform = torch.full((L, L), 1.0 / L, device=device)
torch.testing.assert_close(uniform @ V_heads[b, h], V_heads[b, h].mean(dim=0).expand(L, D))

# %%
# The same step in :mod:`mha` and in PyTorch
# ------------------------------------------
#
# :func:`mha.scaled_dot_product_attention` runs scores, softmax and weighted sum and returns
# both the output and the weights. PyTorch's fused
# :func:`torch.nn.functional.scaled_dot_product_attention` returns the output only. All three
# agree.

out_mha, weights_mha = mha.scaled_dot_product_attention(Q_heads, K_heads, V_heads)
out_torch = F.scaled_dot_product_attention(Q_heads, K_heads, V_heads)
assert out_mha.shape == out_torch.shape == (2, 8, 5, 8)
torch.testing.assert_close(out_mha, context)
torch.testing.assert_close(weights_mha, weights)
torch.testing.assert_close(out_torch, context)

# %%
# Attention does not see order
# ----------------------------
#
# The weighted sum compares tokens by content alone. Shuffle the tokens of a sequence and the
# outputs of a whole layer come back shuffled the same way, with the same values: the layer
# cannot tell "the dog bit the man" from "the man bit the dog". Positional encoding, the
# course's next lesson, adds to each token's vector a vector for its position.

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)
layer = mha.MultiHeadAttention(64, 8, batch_first=True, device=device).eval()
order = torch.tensor([3, 0, 4, 1, 2], device=device)  # the 5 tokens, shuffled
with torch.no_grad():
    out, _ = layer(x, x, x)  # self-attention: query, key and value are all x
    shuffled, _ = layer(x[:, order], x[:, order], x[:, order])
torch.testing.assert_close(shuffled, out[:, order])  # the same outputs, in the shuffled order

# %%
# Functions used: :func:`mha.check_heads`, :func:`mha.project_qkv`, :func:`mha.split_heads`,
# :func:`mha.scaled_dot_product_attention`, :class:`mha.MultiHeadAttention`. Next: merging the
# heads back into one tensor.
