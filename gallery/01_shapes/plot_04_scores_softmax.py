r"""
Step 4a: scores and softmax
===========================

Each head compares every query with every key: ``Q K^T / sqrt(d_k)`` turns the heads
``(2, 8, 5, 8)`` into scores ``(2, 8, 5, 5)``, one ``(5, 5)`` table per batch entry and head.
A softmax over the last axis turns each row into attention weights between 0 and 1 that sum
to 1. This example checks those claims and shows that one batched matrix product computes
all 8 heads at once, equal to a Python loop over the heads.
"""

import math

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_04_scores.png"

torch.manual_seed(0)
device = mha.get_device()


def show(name, tensor, letters):
    """Print a tensor's shape beside its dimension letters, its strides and contiguity."""
    print(
        f"{name:<18} {tuple(tensor.shape)!s:<14} {letters:<14} "
        f"stride {tensor.stride()!s:<16} contiguous={tensor.is_contiguous()}"
    )


B, L, E, H = 2, 5, 64, 8
D = mha.check_heads(E, H)  # d_k = 8
x = torch.randn(B, L, E, device=device)  # (B, L, E)
w_q, w_k = (torch.nn.Linear(E, E, device=device) for _ in range(2))
with torch.no_grad():
    Q_heads = mha.split_heads(w_q(x), H)  # (B, H, L, D)
    K_heads = mha.split_heads(w_k(x), H)  # (B, H, S, D)
show("Q_heads", Q_heads, "(B, H, L, D)")
show("K_heads", K_heads, "(B, H, S, D)")

# %%
# ``K^T``: swap the last two axes
# -------------------------------
#
# ``K_heads.transpose(-2, -1)`` is ``(B, H, D, S) = (2, 8, 8, 5)``. The batched ``@`` treats
# the first two axes as a batch of ``2 * 8 = 16`` independent matrices and multiplies
# ``(L, D) @ (D, S) -> (L, S)`` in each.

K_T = K_heads.transpose(-2, -1)  # (B, H, D, S)
show("K_heads^T", K_T, "(B, H, D, S)")
assert K_T.shape == (2, 8, 8, 5)

# %%
# Scores: :math:`Q K^\top / \sqrt{d_k}`
# -------------------------------------
#
# ``scores[b, h, i, j]`` is the dot product of query ``i`` with key ``j`` in head ``h``,
# divided by ``sqrt(d_k) = sqrt(8)`` so that its size does not grow with the head width.

scores = Q_heads @ K_T / math.sqrt(D)  # (B, H, L, S)
show("scores", scores, "(B, H, L, S)")
assert scores.shape == (2, 8, 5, 5)

b, h, i, j = 1, 3, 2, 4
torch.testing.assert_close(scores[b, h, i, j], Q_heads[b, h, i] @ K_heads[b, h, j] / math.sqrt(8))

# %%
# Softmax over the last axis
# --------------------------
#
# ``softmax(dim=-1)`` normalises each row (one query) over the keys. Every weight lies in
# ``[0, 1]`` and every row sums to 1: query ``i`` distributes one unit of attention over
# the 5 keys.

weights = scores.softmax(dim=-1)  # (B, H, L, S)
show("weights", weights, "(B, H, L, S)")
assert weights.shape == (2, 8, 5, 5)
torch.testing.assert_close(weights.sum(dim=-1), torch.ones(B, H, L, device=device))
assert bool(((weights >= 0) & (weights <= 1)).all())

print("weights of batch 0, head 0 (rows: queries, columns: keys)")
print(weights[0, 0].cpu().numpy().round(3))

# %%
# The axis matters: a softmax over ``dim=-2`` would normalise the *columns* (each key over
# the queries), and the rows would no longer sum to 1.

wrong = scores.softmax(dim=-2)  # (B, H, L, S), columns sum to 1
torch.testing.assert_close(wrong.sum(dim=-2), torch.ones(B, H, L, device=device))
assert not torch.allclose(wrong.sum(dim=-1), torch.ones(B, H, L, device=device))

# %%
# All heads in one product, equal to a loop
# -----------------------------------------
#
# Nothing in the code above loops over heads: the head axis is just another batch axis. A
# Python loop over every batch entry and head, one ``(5, 8) @ (8, 5)`` product each, gives the
# same scores.

looped = torch.empty(B, H, L, L, device=device)  # (B, H, L, S)
for b in range(B):
    for h in range(H):
        looped[b, h] = Q_heads[b, h] @ K_heads[b, h].T / math.sqrt(D)  # (L, D) @ (D, S)
assert looped.shape == scores.shape
torch.testing.assert_close(looped, scores)

# %%
# The same product written with :func:`torch.einsum` names the axes in the letters of the
# lesson: ``"bhld,bhsd->bhls"``.

torch.testing.assert_close(torch.einsum("bhld,bhsd->bhls", Q_heads, K_heads) / math.sqrt(D), scores)

# %%
# ``Q @ K.T`` on four dimensions
# ------------------------------
#
# The lesson's error table writes the scores as ``Q @ K.T``. That is right for one head, whose
# ``K`` is an ``(S, D)`` matrix. On the 4-D ``K_heads``, ``.T`` reverses *all* the dimensions,
# ``(2, 8, 5, 8)`` -> ``(8, 5, 8, 2)``: PyTorch warns that this use of ``.T`` is deprecated, and
# the product fails, since the batch dimensions ``(2, 8)`` and ``(8, 5)`` differ. Transpose
# only the last two: ``K.transpose(-2, -1)``, or ``K.mT``.

import warnings

torch.set_warn_always(True)  # PyTorch warns once per process unless asked to warn every time
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        Q_heads @ K_heads.T
    except RuntimeError as err:
        print(f"RuntimeError: {err}")
    reversed_all = tuple(K_heads.T.shape)
torch.set_warn_always(False)
print(f"K_heads.T reverses every dimension: {reversed_all}")
print(f"K_heads.mT swaps the last two:       {tuple(K_heads.mT.shape)}")
assert reversed_all == (8, 5, 8, 2)
assert any("deprecated" in str(w.message) for w in caught)
torch.testing.assert_close(Q_heads @ K_heads.mT / math.sqrt(D), scores)

# %%
# Functions used: :func:`mha.split_heads`, :func:`mha.check_heads`. The next example takes
# the weighted sum of the values and compares the whole step with
# :func:`mha.scaled_dot_product_attention`.
