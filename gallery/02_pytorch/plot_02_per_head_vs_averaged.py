r"""
Per-head or averaged attention weights
======================================

:class:`torch.nn.MultiheadAttention` returns the attention weights averaged over the heads
unless asked otherwise. With ``average_attn_weights=False`` it returns one ``(L, S)`` matrix
per head, ``(B, H, L, S) = (2, 8, 5, 5)``; by default the mean of those over the head
dimension, ``(B, L, S) = (2, 5, 5)``; and with ``need_weights=False`` nothing at all. We check
each of these on PyTorch's module and on :class:`mha.MultiHeadAttention`, and draw the eight
heads next to their average.
"""

# %%
# Two modules with the same parameters
# ------------------------------------
# PyTorch's module and our twin, built with :meth:`~mha.MultiHeadAttention.from_torch`, on
# the lesson's input ``(B, L, E) = (2, 5, 64)``.
import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
ours = mha.MultiHeadAttention.from_torch(theirs)
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

# %%
# One matrix per head
# -------------------
# ``average_attn_weights=False`` keeps the head dimension: ``(B, H, L, S)``. Each row is a
# softmax over the 5 keys, so it sums to 1.
out_t, per_head_t = theirs(x, x, x, average_attn_weights=False)
out_o, per_head_o = ours(x, x, x, average_attn_weights=False)

assert per_head_t.shape == per_head_o.shape == (2, 8, 5, 5)
torch.testing.assert_close(per_head_o, per_head_t)
torch.testing.assert_close(per_head_o.sum(dim=-1), torch.ones(2, 8, 5, device=device))
print("per-head weights:", tuple(per_head_o.shape))

# %%
# The default: averaged over heads
# --------------------------------
# ``average_attn_weights=True`` (the default) returns ``(B, L, S)``: exactly the mean of the
# per-head weights over dimension 1, the head dimension. An average of rows that sum to 1
# still sums to 1. The output itself does not depend on this flag.
_, averaged_t = theirs(x, x, x)
_, averaged_o = ours(x, x, x)

assert averaged_t.shape == averaged_o.shape == (2, 5, 5)
torch.testing.assert_close(averaged_t, per_head_t.mean(dim=1))
torch.testing.assert_close(averaged_o, per_head_o.mean(dim=1))
torch.testing.assert_close(averaged_o, averaged_t)
torch.testing.assert_close(averaged_o.sum(dim=-1), torch.ones(2, 5, device=device))
print("averaged weights:", tuple(averaged_o.shape))
print("batch 0, averaged:")
print(averaged_o[0].detach().cpu().numpy().round(3))

# %%
# No weights at all
# -----------------
# ``need_weights=False`` returns ``None`` in place of the weights. PyTorch may then use a
# fused kernel and ours runs :func:`torch.nn.functional.scaled_dot_product_attention`; the
# output is the same as with the weights.
out_nw_t, none_t = theirs(x, x, x, need_weights=False)
out_nw_o, none_o = ours(x, x, x, need_weights=False)

assert none_t is None
assert none_o is None
torch.testing.assert_close(out_nw_t, out_t)
torch.testing.assert_close(out_nw_o, out_o)
torch.testing.assert_close(out_nw_o, out_nw_t)
print("need_weights=False ->", none_o)

# %%
# Eight heads and their average
# -----------------------------
# The first sequence of the batch: each head has its own pattern; the average blurs them.
# A mean is never larger than the largest of its terms, so the strongest weight of any head
# is at least the strongest weight of the average: the average hides the sharpest heads.
per_head = per_head_o[0].detach().cpu()  # (H, L, S)
average = averaged_o[0].detach().cpu()  # (L, S)
assert average.max() <= per_head.max()
print(f"largest weight: any head {per_head.max():.3f}, average {average.max():.3f}")
panels = [(f"head {h}", per_head[h]) for h in range(8)] + [("average", average)]

fig, axes = plt.subplots(2, 5, figsize=(7, 3.8), sharex=True, sharey=True, layout="constrained")
for ax, (title, w) in zip(axes.flat, panels, strict=False):
    image = ax.imshow(w, vmin=0, vmax=float(per_head.max()), cmap="viridis")
    ax.set_title(title, fontweight="bold" if title == "average" else "normal")
    ax.set_xticks(range(5))
    ax.set_yticks(range(5))
axes[1, 4].axis("off")  # 8 heads and the average: nine panels
for ax in axes[1]:
    ax.set_xlabel("key")
for ax in axes[:, 0]:
    ax.set_ylabel("query")
fig.colorbar(image, ax=axes, shrink=0.8, label="weight")

# %%
# Functions used: :class:`mha.MultiHeadAttention`,
# :meth:`mha.MultiHeadAttention.from_torch`, :func:`mha.get_device`; compared with
# :class:`torch.nn.MultiheadAttention`.
