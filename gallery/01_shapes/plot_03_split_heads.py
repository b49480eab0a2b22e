r"""
Step 3: split into heads
========================

The 64 columns of ``Q`` are cut into 8 heads of 8 columns each: ``view`` turns
``(2, 5, 64)`` into ``(2, 5, 8, 8)``, and ``transpose(1, 2)`` moves the head axis in front of
the tokens, ``(2, 8, 5, 8)``, so that each head is its own ``(5, 8)`` matrix. This example
prints the strides before and after, shows that nothing is copied (the result is a
non-contiguous view of the same memory), checks :func:`mha.split_heads` against the manual
version and proves that head ``h`` of token ``t`` is columns ``h*8:(h+1)*8`` of the projection.
"""

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_03_split.png"

torch.manual_seed(0)
device = mha.get_device()


def show(name, tensor, letters):
    """Print a tensor's shape beside its dimension letters, its strides and contiguity."""
    print(
        f"{name:<18} {tuple(tensor.shape)!s:<14} {letters:<14} "
        f"stride {tensor.stride()!s:<16} contiguous={tensor.is_contiguous()}"
    )


B, L, E, H = 2, 5, 64, 8
D = mha.check_heads(E, H)  # 8
x = torch.randn(B, L, E, device=device)  # (B, L, E)
w_q = torch.nn.Linear(E, E, device=device)
Q = w_q(x)  # (B, L, E)
show("Q", Q, "(B, L, E)")
assert Q.stride() == (320, 64, 1)
assert Q.is_contiguous()

# %%
# ``view``: cut the last axis into ``H`` blocks of ``D``
# ------------------------------------------------------
#
# ``Q`` lies in memory row after row: moving one token ahead skips 64 numbers, one feature
# ahead skips 1. ``view(B, L, H, D)`` reads the same memory with four axes; the 64 columns of a
# token become 8 blocks of 8, and one head ahead skips 8 numbers. Still contiguous.

Q_view = Q.view(B, L, H, D)  # (B, L, H, D)
show("Q.view", Q_view, "(B, L, H, D)")
assert Q_view.shape == (2, 5, 8, 8)
assert Q_view.stride() == (320, 64, 8, 1)
assert Q_view.is_contiguous()

# %%
# ``transpose(1, 2)``: heads in front of tokens
# ---------------------------------------------
#
# Swapping the token and head axes only swaps their strides: ``(320, 64, 8, 1)`` becomes
# ``(320, 8, 64, 1)``. The numbers stay where they were, so the tensor is no longer
# contiguous (walking it in order jumps around memory), but each ``Q_heads[b, h]`` is now a
# ``(L, D) = (5, 8)`` matrix that the attention step can multiply on its own.

Q_heads = Q_view.transpose(1, 2)  # (B, H, L, D)
show("Q_heads", Q_heads, "(B, H, L, D)")
assert Q_heads.shape == (2, 8, 5, 8)
assert Q_heads.stride() == (320, 8, 64, 1)
assert not Q_heads.is_contiguous()
assert Q_heads[0, 3].shape == (5, 8)

# %%
# A view: the same memory, no copy
# --------------------------------
#
# All three tensors start at the same address, and writing through the view changes the
# original. (The write is done on a copy of ``Q`` to leave ``Q`` as it is.)

print(f"data_ptr equal: {Q.data_ptr() == Q_view.data_ptr() == Q_heads.data_ptr()}")
assert Q.data_ptr() == Q_view.data_ptr() == Q_heads.data_ptr()

scratch = Q.detach().clone()
scratch_heads = scratch.view(B, L, H, D).transpose(1, 2)  # (B, H, L, D)
scratch_heads[1, 3, 2, 0] = 100.0  # batch 1, head 3, token 2, first column of the head
assert scratch[1, 2, 3 * D] == 100.0

# %%
# :func:`mha.split_heads` is exactly this
# ---------------------------------------
#
# The package's step is the same ``view`` and ``transpose``: equal values, equal strides,
# and the same memory.

split = mha.split_heads(Q, H)  # (B, H, L, D)
assert torch.equal(split, Q_heads)
assert split.stride() == Q_heads.stride()
assert split.data_ptr() == Q.data_ptr()

# %%
# Head ``h`` of token ``t`` is columns ``h*8:(h+1)*8``
# ----------------------------------------------------
#
# Splitting does not mix anything: head ``h`` sees exactly the columns ``h*D`` to
# ``(h+1)*D`` of the projection, for every batch entry and every token. So ``W_Q`` is
# really 8 separate ``(8, 64)`` matrices stacked, one per head, as the paper writes
# ``W_i^Q``.

for b in range(B):
    for h in range(H):
        for t in range(L):
            assert torch.equal(Q_heads[b, h, t], Q[b, t, h * D : (h + 1) * D])

h = 3
torch.testing.assert_close(Q_heads[:, h], Q[:, :, h * D : (h + 1) * D])
head_weight = w_q.weight[h * D : (h + 1) * D]  # W_3^Q, (D, E)
head_bias = w_q.bias[h * D : (h + 1) * D]  # (D,)
torch.testing.assert_close(Q_heads[:, h], x @ head_weight.T + head_bias)
print(f"head {h}: columns {h * D}:{(h + 1) * D}, its own W^Q of shape {tuple(head_weight.shape)}")

# %%
# Functions used: :func:`mha.split_heads`, :func:`mha.check_heads`. Next: the attention
# scores of every head.
