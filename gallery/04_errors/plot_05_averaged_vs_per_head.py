r"""
Averaged weights taken for per-head weights
===========================================

By default :class:`torch.nn.MultiheadAttention` and :class:`mha.MultiHeadAttention` return
the attention weights averaged over the heads, ``(B, L, S) = (2, 5, 5)``. Code that expects
one matrix per head, ``(B, H, L, S) = (2, 8, 5, 5)``, and indexes ``weights[:, h]`` gets no
error for ``h < 5``: it gets the averaged row of *query* ``h``, not head ``h``. Only
``h >= 5`` fails, with an ``IndexError``. We show the mix-up, the error, and the fix
``average_attn_weights=False``.
"""

# %%
# The default: weights averaged over heads
# ----------------------------------------
#
# The lesson's module and input. The weights are ``(B, L, S)``: no head dimension.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

attn = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

_, weights_avg = attn(x, x, x)  # average_attn_weights=True by default
_, weights_per_head = attn(x, x, x, average_attn_weights=False)

assert weights_avg.shape == (2, 5, 5)  # (B, L, S)
assert weights_per_head.shape == (2, 8, 5, 5)  # (B, H, L, S)
torch.testing.assert_close(weights_avg, weights_per_head.mean(dim=1))
print(f"averaged: {tuple(weights_avg.shape)}  per head: {tuple(weights_per_head.shape)}")

# %%
# The mistake: weights[:, 1] is not head 1
# ----------------------------------------
#
# On the averaged tensor, dimension 1 is the query position ``L``. ``weights_avg[:, 1]`` is
# therefore ``(B, S) = (2, 5)``: for every sequence, how query 1 attends, averaged over the
# heads. Head 1's matrix is ``weights_per_head[:, 1]``, ``(B, L, S) = (2, 5, 5)``; even its
# row for query 1 is a different set of numbers.

not_head_1 = weights_avg[:, 1]
head_1 = weights_per_head[:, 1]

assert not_head_1.shape == (2, 5)
assert head_1.shape == (2, 5, 5)
torch.testing.assert_close(not_head_1, weights_per_head[:, :, 1].mean(dim=1))  # query 1
assert not torch.allclose(not_head_1, head_1[:, 1])
print(f"weights_avg[0, 1]       (query 1, mean of heads): {weights_avg[0, 1].detach().cpu()}")
print(f"weights_per_head[0, 1, 1] (head 1, query 1):      {head_1[0, 1].detach().cpu()}")

# %%
# The error appears only past the sequence length
# -----------------------------------------------
#
# With 8 heads and 5 tokens, a loop over heads runs silently for ``h = 0 .. 4`` and fails at
# ``h = 5``: the averaged tensor has only 5 entries in dimension 1.

try:
    for h in range(8):
        weights_avg[:, h]
except IndexError as err:
    index_error = err
else:
    raise AssertionError("expected weights_avg[:, 5] to raise")

assert h == 5
assert "index 5 is out of bounds for dimension 1 with size 5" in str(index_error)
print(f"h = {h}: {type(index_error).__name__}: {index_error}")

# %%
# The fix: average_attn_weights=False
# -----------------------------------
#
# Ask for per-head weights and index the head dimension; every head's rows sum to 1.
# PyTorch's module returns the same tensors with the same flag.

per_head_rows = weights_per_head.sum(dim=-1)  # (B, H, L)
torch.testing.assert_close(per_head_rows, torch.ones(2, 8, 5, device=device))
for h in range(8):
    assert weights_per_head[:, h].shape == (2, 5, 5)

theirs = attn.to_torch()  # also batch_first=True
_, weights_theirs = theirs(x, x, x)
_, per_head_theirs = theirs(x, x, x, average_attn_weights=False)
torch.testing.assert_close(weights_theirs, weights_avg)
torch.testing.assert_close(per_head_theirs, weights_per_head)

# %%
# Picture
# -------
#
# Sequence 0: the averaged matrix with its row for query 1 outlined (what
# ``weights_avg[0, 1]`` is), next to head 1's own matrix (what was wanted).

fig, axes = plt.subplots(1, 2, figsize=(7, 3.6), layout="constrained")
panels = [
    ("weights_avg[0]: mean of 8 heads", weights_avg[0]),
    ("weights_per_head[0, 1]: head 1", weights_per_head[0, 1]),
]
vmax = max(w.max().item() for _, w in panels)
for ax, (title, w) in zip(axes, panels, strict=True):
    image = ax.imshow(w.detach().cpu(), vmin=0, vmax=vmax, cmap="viridis")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    ax.set_xticks(range(5))
    ax.set_yticks(range(5))
axes[0].add_patch(plt.Rectangle((-0.5, 0.5), 5, 1, fill=False, edgecolor="red", linewidth=2))
axes[0].text(2, 1, "weights_avg[0, 1]", color="white", fontsize=10, ha="center", va="center")
fig.colorbar(image, ax=axes, shrink=0.8, label="weight")

# %%
# Functions used: :class:`mha.MultiHeadAttention` (``average_attn_weights``),
# :meth:`mha.MultiHeadAttention.to_torch`, :func:`mha.get_device`.
