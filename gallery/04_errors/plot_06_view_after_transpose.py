r"""
view after transpose without contiguous()
=========================================

Merging the heads back is ``(B, H, L, D) -> transpose -> (B, L, H, D) -> view (B, L, E)``.
The ``transpose`` only swaps strides; the numbers stay where they were in memory, so ``view``,
which never copies, cannot flatten ``(H, D)`` into one dimension and raises ``view size is
not compatible with input tensor's size and stride``. We look at the strides, reproduce the
error, and check the three fixes: ``.contiguous().view``, ``.reshape`` and
:func:`mha.merge_heads`.
"""

# %%
# Heads, as attention returns them
# --------------------------------
# The lesson's per-head output ``(B, H, L, D) = (2, 8, 5, 8)``, from :func:`mha.split_heads`
# and :func:`mha.scaled_dot_product_attention`. ``split_heads`` is itself a view plus a
# transpose, and the attention output is a fresh contiguous tensor.
import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/errors_06_view_transpose.png"

torch.manual_seed(0)
device = mha.get_device()

q, k, v = torch.randn(3, 2, 5, 64, device=device).unbind(0)  # (B, L, E) each
q_h, k_h, v_h = (mha.split_heads(t, 8) for t in (q, k, v))  # (B, H, L, D)
context, _ = mha.scaled_dot_product_attention(q_h, k_h, v_h)  # (B, H, L, D)

assert context.shape == (2, 8, 5, 8)
assert context.is_contiguous()
assert context.stride() == (320, 40, 8, 1)
assert not q_h.is_contiguous()
print("context", tuple(context.shape), "stride", context.stride(), context.is_contiguous())

# %%
# transpose swaps strides, not data
# ---------------------------------
# After ``transpose(1, 2)`` the shape is ``(B, L, H, D)``, but stepping one head still jumps
# 40 numbers and one token 8: the strides are ``(320, 8, 40, 1)``. Memory no longer runs in
# the order of the shape, so the tensor is not contiguous, and it shares the storage of
# ``context``. Printed: shape, strides, ``is_contiguous()``.
swapped = context.transpose(1, 2)  # (B, L, H, D)
assert swapped.shape == (2, 5, 8, 8)
assert swapped.stride() == (320, 8, 40, 1)
assert not swapped.is_contiguous()
assert swapped.data_ptr() == context.data_ptr()
print("transposed", tuple(swapped.shape), "stride", swapped.stride(), swapped.is_contiguous())

# %%
# The error
# ---------
# Viewing ``(H, D)`` as one dimension of 64 would need the 8 heads of a token side by side in
# memory, 8 numbers apart; they are 40 apart. ``view`` refuses (and suggests ``reshape``).
try:
    swapped.view(2, 5, 64)
except RuntimeError as err:
    view_error = err
else:
    raise AssertionError("expected view of a transposed tensor to raise")

message = str(view_error)
assert type(view_error) is RuntimeError
assert message.startswith("view size is not compatible with input tensor's size and stride")
assert "Use .reshape(...) instead." in message
print(f"{type(view_error).__name__}: {view_error}")

# %%
# Fix 1: contiguous() then view
# -----------------------------
# ``contiguous()`` copies the numbers into the order of the shape (a new storage with
# strides ``(320, 64, 8, 1)``), after which ``view`` works.
copied = swapped.contiguous()
assert copied.is_contiguous()
assert copied.stride() == (320, 64, 8, 1)
assert copied.data_ptr() != context.data_ptr()
merged_1 = copied.view(2, 5, 64)  # (B, L, E)
print("contiguous()", tuple(copied.shape), "stride", copied.stride(), copied.is_contiguous())

# %%
# Fix 2: reshape
# --------------
# ``reshape`` returns a view when the strides allow one and a copy otherwise; here it copies.
merged_2 = swapped.reshape(2, 5, 64)  # (B, L, E)
assert merged_2.data_ptr() != context.data_ptr()
torch.testing.assert_close(merged_2, merged_1, rtol=0, atol=0)

# %%
# Fix 3: mha.merge_heads
# ----------------------
# :func:`mha.merge_heads` does transpose, contiguous and view in one step, and undoes
# :func:`mha.split_heads` exactly.
merged_3 = mha.merge_heads(context)  # (B, L, E)
assert merged_3.shape == (2, 5, 64)
assert merged_3.is_contiguous()
torch.testing.assert_close(merged_3, merged_1, rtol=0, atol=0)
torch.testing.assert_close(mha.merge_heads(q_h), q, rtol=0, atol=0)
print("all three fixes give", tuple(merged_3.shape), "with the same values")

# %%
# Functions used: :func:`mha.split_heads`, :func:`mha.merge_heads`,
# :func:`mha.scaled_dot_product_attention`, :func:`mha.get_device`.
