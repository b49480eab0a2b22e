r"""
view with a hard-coded shape
============================

Splitting heads starts with a ``view`` from ``(B, L, E)`` to ``(B, L, H, D)``. Written with
the lesson's numbers, ``x.view(2, 5, 8, 8)``, it breaks as soon as the tensor's last
dimension is not 64: PyTorch says ``shape '[2, 5, 8, 8]' is invalid for input of size 600``.
We reproduce it, let ``-1`` infer one dimension instead, see where ``-1`` still fails
(and where it silently infers a wrong size), and show the error of :func:`mha.split_heads`,
which names the dimension and the head counts that fit.
"""

# %%
# The mistake: a projection to the wrong width
# --------------------------------------------
#
# The projection was built as ``nn.Linear(64, 60)``, so ``q`` is ``(2, 5, 60)``: 600
# numbers. The hard-coded view asks for ``2 * 5 * 8 * 8 = 640`` of them.

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/errors_03_view_shape.png"

torch.manual_seed(0)
device = mha.get_device()

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)
wrong_proj = torch.nn.Linear(64, 60, device=device)
q = wrong_proj(x)
assert q.shape == (2, 5, 60)

try:
    q.view(2, 5, 8, 8)
except RuntimeError as err:
    view_error = err
else:
    raise AssertionError("expected view(2, 5, 8, 8) of 600 numbers to raise")

assert type(view_error) is RuntimeError
assert "shape '[2, 5, 8, 8]' is invalid for input of size 600" in str(view_error)
print(f"{type(view_error).__name__}: {view_error}")

# %%
# The same error from a wrong head count
# --------------------------------------
#
# The width is right (64) but the head count changed to 6 while ``D = 8`` stayed written
# out: ``2 * 5 * 6 * 8 = 480`` numbers asked for, 640 given.

q = torch.nn.Linear(64, 64, device=device)(x)  # (B, L, E) = (2, 5, 64)
try:
    q.view(2, 5, 6, 8)
except RuntimeError as err:
    heads_error = err
else:
    raise AssertionError("expected view(2, 5, 6, 8) of 640 numbers to raise")

assert "shape '[2, 5, 6, 8]' is invalid for input of size 640" in str(heads_error)
print(f"{type(heads_error).__name__}: {heads_error}")

# %%
# The fix: read the sizes, let -1 infer the head width
# ----------------------------------------------------
#
# Take ``B, L, E`` from the tensor and write ``view(B, L, H, -1)``: ``-1`` stands for the one
# size that makes the element count match, here ``D = E / H``. ``B`` and ``L`` are fixed, so
# the only size left to infer is the head width. The result is the first step of
# :func:`mha.split_heads` (which then transposes to ``(B, H, L, D)``).

B, L, E = q.shape
H = 8
q_heads = q.view(B, L, H, -1)  # (B, L, H, D)
assert q_heads.shape == (2, 5, 8, 8)
assert torch.equal(q_heads.transpose(1, 2), mha.split_heads(q, H))

H = 4  # another head count: -1 follows, D = 16
q_heads4 = q.view(B, L, H, -1)
assert q_heads4.shape == (2, 5, 4, 16)
print(f"view(B, L, 8, -1): {tuple(q_heads.shape)}  view(B, L, 4, -1): {tuple(q_heads4.shape)}")

# %%
# When -1 still fails
# -------------------
#
# ``-1`` can only infer a whole number. With 60 features and 8 heads there is none
# (``600 / (2 * 5 * 8) = 7.5``), so the same ``RuntimeError`` comes back, now with ``-1`` in
# the shape. The fix there is the width or the head count, not the view.

q60 = wrong_proj(x)  # (2, 5, 60)
B, L, E = q60.shape
try:
    q60.view(B, L, 8, -1)
except RuntimeError as err:
    infer_error = err
else:
    raise AssertionError("expected view(2, 5, 8, -1) of 600 numbers to raise")

assert "shape '[2, 5, 8, -1]' is invalid for input of size 600" in str(infer_error)
print(f"{type(infer_error).__name__}: {infer_error}")

# %%
# -1 in the wrong place hides the mistake
# ---------------------------------------
#
# ``view(B, -1, H, D)`` with ``H`` and ``D`` written out infers the *sequence length*
# instead. It is right for a correct tensor, but on a tensor of width 128 it succeeds with
# ``L = 10``: each token's 128 features are cut into two "tokens" of 64, and no error ever
# comes. Put ``-1`` on the dimension being split, and take the others from ``x.shape``.

q_good = q.view(B, -1, 8, 8)
assert q_good.shape == (2, 5, 8, 8)

q128 = torch.randn(2, 5, 128, device=device)  # a projection to 2 * 64 features
q_bad = q128.view(B, -1, 8, 8)
assert q_bad.shape == (2, 10, 8, 8)  # no error: L silently became 10
assert torch.equal(q_bad[:, 1].flatten(1), q128[:, 0, 64:])  # "token 1" is half of token 0
print(f"view(B, -1, 8, 8) of (2, 5, 128): {tuple(q_bad.shape)} - no error")

# %%
# The package's error
# -------------------
#
# :func:`mha.split_heads` checks the width before viewing and raises a ``ValueError`` that
# names the argument, the shape received and the head counts that would divide it.

try:
    mha.split_heads(q60, 8)
except ValueError as err:
    split_error = err
else:
    raise AssertionError("expected mha.split_heads of width 60 into 8 heads to raise")

message = str(split_error)
assert message.startswith(
    "split_heads expected the last dimension of x to be divisible by num_heads=8, "
    "got x of shape (2, 5, 60)"
)
assert "head counts that divide 60: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60" in message
assert isinstance(split_error, RuntimeError)  # also caught as PyTorch's view error
print(f"{type(split_error).__name__}: {split_error}")

# %%
# The fix for the width: project to E = H * D
# -------------------------------------------
#
# Projecting to 64 features (or choosing 6 or 10 heads for 60) makes the split work.

right_proj = torch.nn.Linear(64, 64, device=device)
heads_64 = mha.split_heads(right_proj(x), 8)  # (B, H, L, D)
heads_60 = mha.split_heads(q60, 6)  # (B, H, L, D)
assert heads_64.shape == (2, 8, 5, 8)
assert heads_60.shape == (2, 6, 5, 10)
print(f"width 64, 8 heads: {tuple(heads_64.shape)}  width 60, 6 heads: {tuple(heads_60.shape)}")

# %%
# Functions used: :func:`mha.split_heads`, :func:`mha.get_device`.
