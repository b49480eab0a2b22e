r"""
embed_dim must be divisible by num_heads
========================================

Each head gets an equal slice of width ``D = E / H`` of the model width, so ``H`` must divide
``E``. Asking for 6 heads on ``E = 64`` fails as soon as the module is built: PyTorch raises
an ``AssertionError`` with the bare rule, :class:`mha.MultiHeadAttention` a ``ValueError``
that also names both values and lists the head counts that would work. We reproduce both,
check type and message, and build the module again with a head count that divides 64.
"""

# %%
# PyTorch's error
# ---------------
#
# :class:`torch.nn.MultiheadAttention` checks ``head_dim * num_heads == embed_dim`` in its
# constructor. The message states the rule, not the numbers that broke it.

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/errors_01_embed_dim.png"

torch.manual_seed(0)
device = mha.get_device()

try:
    torch.nn.MultiheadAttention(64, 6, device=device)
except AssertionError as err:
    torch_error = err
else:
    raise RuntimeError("expected torch.nn.MultiheadAttention(64, 6) to raise")

assert type(torch_error) is AssertionError
assert "embed_dim must be divisible by num_heads" in str(torch_error)
print(f"{type(torch_error).__name__}: {torch_error}")

# %%
# Our error
# ---------
#
# :class:`mha.MultiHeadAttention` runs :func:`mha.check_heads` first. Wrong user input is a
# ``ValueError`` (an ``assert`` is for bugs in the code, not for arguments), and the message
# says what was expected, what was received (``64 / 6 = 10.67``, not a whole number) and
# which head counts divide 64. It is also an ``AssertionError``, so code written for
# PyTorch's ``except AssertionError:`` still catches it.

try:
    mha.MultiHeadAttention(64, 6, device=device)
except ValueError as err:
    our_error = err
else:
    raise RuntimeError("expected mha.MultiHeadAttention(64, 6) to raise")

assert isinstance(our_error, ValueError)
assert isinstance(our_error, AssertionError)  # caught by code written for PyTorch
assert str(our_error) == (
    "embed_dim must be divisible by num_heads, got embed_dim=64 and num_heads=6 "
    "(64 / 6 = 10.67); head counts that divide 64: 1, 2, 4, 8, 16, 32, 64"
)
print(f"{type(our_error).__name__}: {our_error}")

# %%
# Check the head count before building
# ------------------------------------
#
# :func:`mha.check_heads` is the same check as a function: it returns the head width ``D``
# for a valid pair and raises the same ``ValueError`` otherwise. The valid head counts for
# ``E = 64`` are exactly its divisors.

valid = []
for num_heads in range(1, 65):
    try:
        head_dim = mha.check_heads(64, num_heads)
    except ValueError:
        continue
    assert head_dim * num_heads == 64
    valid.append(num_heads)

assert valid == [1, 2, 4, 8, 16, 32, 64]
assert mha.check_heads(64, 8) == 8
print(f"head counts that divide 64: {valid}")

# %%
# The fix: a head count that divides the width
# --------------------------------------------
#
# With 8 heads of width 8 (the lesson's sizes) both modules build, and from the same seed
# they hold the same parameters and give the same output. Keeping 6 heads would instead
# need a width that 6 divides, such as ``E = 60`` or ``E = 96``.

torch.manual_seed(0)
theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
torch.manual_seed(0)
ours = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)
assert ours.head_dim == 8

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)
out_theirs, _ = theirs(x, x, x)
out_ours, _ = ours(x, x, x)
assert out_ours.shape == (2, 5, 64)
torch.testing.assert_close(out_ours, out_theirs)

assert mha.check_heads(96, 6) == 16
assert mha.MultiHeadAttention(96, 6, device=device).head_dim == 16
print("MultiHeadAttention(64, 8): head_dim =", ours.head_dim, "output", tuple(out_ours.shape))
print("MultiHeadAttention(96, 6): head_dim =", mha.check_heads(96, 6))

# %%
# Functions used: :func:`mha.check_heads`, :class:`mha.MultiHeadAttention`,
# :func:`mha.get_device`; compared with :class:`torch.nn.MultiheadAttention`.
