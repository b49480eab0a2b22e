r"""
Step 5: merge the heads
=======================

After attention, each head holds a ``(5, 8)`` result: the tensor is ``(2, 8, 5, 8)``. To
concatenate the heads, ``transpose(1, 2)`` puts the tokens back in front of the heads,
``(2, 5, 8, 8)``, ``contiguous()`` copies the numbers into that order, and ``view`` joins the
last two axes into ``(2, 5, 64)``. This example checks each step, shows that ``reshape`` does
the same, that merging is the exact inverse of splitting, and reproduces the error that
``view`` raises when ``contiguous()`` is left out, followed by the fix.
"""

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_06_merge.png"

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
q, k, v = torch.randn(3, B, L, E, device=device).unbind(0)  # 3 x (B, L, E)
Q_heads, K_heads, V_heads = (mha.split_heads(t, H) for t in (q, k, v))  # (B, H, L, D)
context, _ = mha.scaled_dot_product_attention(Q_heads, K_heads, V_heads)  # (B, H, L, D)
show("context", context, "(B, H, L, D)")
assert context.shape == (2, 8, 5, 8)
assert context.is_contiguous()

# %%
# ``transpose(1, 2)``: tokens back in front of heads
# --------------------------------------------------
#
# Swapping the axes again gives ``(B, L, H, D) = (2, 5, 8, 8)``, as a view: only the strides
# change, and the tensor is not contiguous.

moved = context.transpose(1, 2)  # (B, L, H, D)
show("transpose(1, 2)", moved, "(B, L, H, D)")
assert moved.shape == (2, 5, 8, 8)
assert not moved.is_contiguous()
assert moved.data_ptr() == context.data_ptr()

# %%
# ``view`` without ``contiguous()`` fails
# ---------------------------------------
#
# ``view`` never copies: it can only reinterpret memory whose order matches the new shape.
# Joining the head and width axes of ``moved`` would need the 8 heads of one token to lie
# next to each other in memory, and they do not. PyTorch raises a ``RuntimeError``:

try:
    moved.view(B, L, E)
except RuntimeError as err:
    message = str(err)
    print(f"RuntimeError: {message}")
else:
    raise AssertionError("view of a non-contiguous tensor was expected to fail")
assert "view size is not compatible" in message

# %%
# The fix: ``contiguous()``, then ``view``
# ----------------------------------------
#
# ``contiguous()`` copies the numbers into the order of the new shape (new memory, standard
# strides); ``view`` then joins ``(H, D)`` into ``E = H * D = 64``.

packed = moved.contiguous()  # (B, L, H, D), a copy
show("contiguous()", packed, "(B, L, H, D)")
assert packed.is_contiguous()
assert packed.stride() == (320, 64, 8, 1)
assert packed.data_ptr() != context.data_ptr()

concat = packed.view(B, L, E)  # (B, L, E)
show("view(B, L, E)", concat, "(B, L, E)")
assert concat.shape == (2, 5, 64)
assert concat.data_ptr() == packed.data_ptr()

# %%
# ``reshape`` does the same in one call: it returns a view when it can and copies when it
# must, as here. :func:`mha.merge_heads` is the explicit three-step version.

reshaped = moved.reshape(B, L, E)  # (B, L, E)
assert torch.equal(reshaped, concat)
assert reshaped.data_ptr() != context.data_ptr()  # it had to copy
assert torch.equal(mha.merge_heads(context), concat)

# %%
# Token ``t`` holds head ``h`` in columns ``h*8:(h+1)*8``
# -------------------------------------------------------
#
# This is ``Concat(head_1, ..., head_h)`` of the paper: the heads sit side by side along the
# last axis, in order.

for h in range(H):
    torch.testing.assert_close(concat[:, :, h * D : (h + 1) * D], context[:, h])

# %%
# Merging is the exact inverse of splitting
# -----------------------------------------
#
# No number is changed, only moved: merging the split heads gives back the projection bit
# for bit, and splitting the merged tensor gives back the heads.

round_trip = mha.merge_heads(mha.split_heads(q, H))  # (B, L, E) -> (B, H, L, D) -> (B, L, E)
print(f"torch.equal(merge_heads(split_heads(q)), q): {torch.equal(round_trip, q)}")
assert torch.equal(round_trip, q)
assert torch.equal(mha.split_heads(mha.merge_heads(context), H), context)

# %%
# Let ``mha.check`` name the mistake
# ----------------------------------
#
# :mod:`mha.check` runs your own ``split_heads``, ``merge_heads`` or attention against the
# package's and names the mistake it finds. Here it is given a merge that forgets
# ``contiguous()``, then an attention that forgets the scale. To check a function of your own,
# say ``my_merge(x)``, give it to the same check: a report that starts with ✓ means it matches
# the package on every input tried.


def wrong_merge(x):  # (B, H, L, D) -> (B, L, E)
    B, H, L, D = x.shape
    return x.transpose(1, 2).view(B, L, H * D)  # no contiguous()


report = mha.check.merge_heads(wrong_merge)
print(report)
assert (report.ok, report.mistake) == (False, "view_after_transpose")


def attention_unscaled(q, k, v):
    weights = (q @ k.transpose(-2, -1)).softmax(dim=-1)
    return weights @ v, weights


assert mha.check.attention(attention_unscaled).mistake == "no_scale"

# %%
# Functions used: :func:`mha.check_heads`, :func:`mha.split_heads`, :func:`mha.merge_heads`,
# :func:`mha.scaled_dot_product_attention`, :func:`mha.check.merge_heads`,
# :func:`mha.check.attention`. Next: the output projection.
