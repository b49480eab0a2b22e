r"""
Exercise: from 8 heads to 4
===========================

The lesson's exercise, worked through: change ``num_heads = 8`` to ``4`` in the hand-written
code, predict the shapes, and check a split written by hand with :func:`mha.check.split_heads`.
A first attempt copied from the 8-head code is wrong, and the check says why; the second
passes. Then the answer: each head is twice as wide, ``d_k = 16``, and the layer keeps its
16,640 parameters.
"""

# %%
# The question
# ------------
#
# Take the lesson's hand-written code, ``d_model = 64`` and an input of shape ``(2, 5, 64)``,
# and change ``num_heads = 8`` to ``num_heads = 4``. Before running anything, write down the
# shapes of ``Q`` after the split, of the attention weights and of the output.

import math

import matplotlib.pyplot as plt
import torch
from torch import nn

import mha

torch.manual_seed(0)
device = mha.get_device()
batch, seq, d_model = 2, 5, 64
x = torch.randn(batch, seq, d_model, device=device)  # (B, L, E)
assert x.shape == (2, 5, 64)

# %%
# A first attempt
# ---------------
#
# The step that changes is the split. A first attempt copies the 8-head code's line with its
# sizes written out, ``view(2, 5, num_heads, 8)``: the head width stays 8 whatever the head
# count. :func:`mha.check.split_heads` calls the function on its own input and compares the
# result with :func:`mha.split_heads`; its report names the mistake and the fix.


def my_split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, D): first attempt, the 8-head code's sizes written out."""
    return x.view(2, 5, num_heads, 8).transpose(1, 2)


report = mha.check.split_heads(my_split_heads)
print(report)
assert not report.ok
assert report.mistake == "view_wrong_size"

# %%
# Why the check uses its own sizes
# --------------------------------
#
# The check's inputs are ``(2, 5, 12)``, ``(5, 7, 12)`` and ``(7, 2, 12)``, with 3 heads of 4:
# every dimension differs, because with the lesson's ``H = D = 8`` swapped axes pass by
# coincidence, and the batch and length change, so sizes written out fail. At the lesson's sizes the
# first attempt gives the right result, and so does a split that swaps ``H`` and ``D``,
# ``view(B, L, D, H)``: with ``H = D`` it is the same view. With 4 heads it gives
# ``(2, 16, 5, 4)``, 16 heads of 4 instead of 4 heads of 16.


def split_h_and_d_swapped(x, num_heads):
    B, L, E = x.shape
    return x.view(B, L, E // num_heads, num_heads).transpose(1, 2)  # (B, D, L, H)


assert "x: (2, 5, 12), num_heads=3" in str(report)  # the first input: B, L, E, H, D all differ
lesson_x = torch.randn(2, 5, 64, device=device)  # (B, L, E) at the lesson's sizes
for attempt in (my_split_heads, split_h_and_d_swapped):
    torch.testing.assert_close(attempt(lesson_x, 8), mha.split_heads(lesson_x, 8))
assert split_h_and_d_swapped(lesson_x, 4).shape == (2, 16, 5, 4)
assert mha.check.split_heads(split_h_and_d_swapped).mistake == "differs"

# %%
# A second attempt
# ----------------
#
# The fix the report gives: read the sizes from the tensor, ``B, L, E = x.shape``, and let
# the head width follow the head count, ``E // num_heads``. Now the check passes.


def my_split_heads(x, num_heads):
    """(B, L, E) -> (B, H, L, D): second attempt, every size read from the tensor."""
    B, L, E = x.shape
    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)  # (B, H, L, D)


report = mha.check.split_heads(my_split_heads)
print(report)
assert report.ok
assert report.mistake is None
assert "x: (2, 5, 12), (5, 7, 12), (7, 2, 12), num_heads=3" in str(report)  # the three inputs

# %%
# The answer
# ----------
#
# With 4 heads, each head is twice as wide: ``d_k = 64 / 4 = 16``, so ``Q`` after the split
# is ``(2, 4, 5, 16)``. Each head has one ``(5, 5)`` matrix of weights, so the weights are
# ``(2, 4, 5, 5)``. Merging the heads gives back ``(2, 5, 64)``, the input's shape. The four
# linear layers, with their biases, do not depend on the head count: 16,640 parameters with
# 8 heads or 4.

num_heads = 4
d_k = d_model // num_heads
assert d_k == 16

W_q, W_k, W_v, W_o = (nn.Linear(d_model, d_model, device=device) for _ in range(4))
with torch.no_grad():
    Q = my_split_heads(W_q(x), num_heads)  # (B, H, L, D)
    K = my_split_heads(W_k(x), num_heads)
    V = my_split_heads(W_v(x), num_heads)
    weights = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1)  # (B, H, L, L)
    concat = (weights @ V).transpose(1, 2).contiguous().view(batch, seq, d_model)  # (B, L, E)
    out = W_o(concat)  # (B, L, E)
print(f"num_heads={num_heads}  Q {tuple(Q.shape)}  weights {tuple(weights.shape)}  "
      f"output {tuple(out.shape)}")  # fmt: skip

assert Q.shape == (2, 4, 5, 16)
assert weights.shape == (2, 4, 5, 5)
assert out.shape == (2, 5, 64)
assert sum(p.numel() for layer in (W_q, W_k, W_v, W_o) for p in layer.parameters()) == 16_640
assert mha.parameter_count(64, 4) == mha.parameter_count(64, 8) == 16_640

# %%
# The modules agree
# -----------------
#
# :class:`mha.MultiHeadAttention` with the same four layers gives the same output and the
# same per-head weights, ``(2, 4, 5, 5)``.

attn = mha.MultiHeadAttention(d_model, num_heads, batch_first=True, device=device).eval()
with torch.no_grad():
    attn.in_proj_weight.copy_(torch.cat([W_q.weight, W_k.weight, W_v.weight]))
    attn.in_proj_bias.copy_(torch.cat([W_q.bias, W_k.bias, W_v.bias]))
    attn.out_proj.weight.copy_(W_o.weight)
    attn.out_proj.bias.copy_(W_o.bias)
    out_attn, weights_attn = attn(x, x, x, average_attn_weights=False)
torch.testing.assert_close(out_attn, out)
torch.testing.assert_close(weights_attn, weights)
assert weights_attn.shape == (2, 4, 5, 5)

# %%
# The picture
# -----------
#
# The 64 numbers of one token's ``Q``, coloured by the head they go to: 8 heads of 8 numbers,
# or 4 heads of 16, numbered from 0 as the head dimension of ``(B, H, L, D)`` counts them.
# The split only cuts the same 64 numbers into fewer, wider pieces.


def heads_of_channels(num_heads):
    """The head each of the 64 channels goes to, read from mha.split_heads: (E,)."""
    channels = torch.arange(d_model, dtype=torch.float32).view(1, 1, d_model)  # (B, L, E)
    split = mha.split_heads(channels, num_heads)[0, :, 0]  # (H, D): channel numbers per head
    head_of = torch.empty(d_model, dtype=torch.long)
    for head, row in enumerate(split.long()):
        head_of[row] = head
    return head_of


fig, axes = plt.subplots(2, 1, figsize=(7, 2.6), layout="constrained")
for ax, heads in zip(axes, (8, 4), strict=True):
    head_of = heads_of_channels(heads)
    width = d_model // heads
    assert torch.equal(head_of, torch.arange(d_model) // width)  # contiguous blocks of D
    ax.imshow(head_of[None].numpy(), cmap="tab10", vmin=0, vmax=9, aspect="auto")
    for head in range(heads):
        ax.text(head * width + (width - 1) / 2, 0, str(head), ha="center", va="center")
    ax.set_yticks([])
    ax.set_xticks([0, 16, 32, 48, 63])
    ax.set_title(f"{heads} heads of {width} numbers")
axes[1].set_xlabel("channel of Q (64 numbers per token)")

# %%
# Functions used: :func:`mha.check.split_heads`, :func:`mha.split_heads`,
# :func:`mha.parameter_count`, :class:`mha.MultiHeadAttention`, :func:`mha.get_device`.
