r"""
batch_first=False given batch-first data
========================================

:class:`torch.nn.MultiheadAttention` expects ``(L, B, E)`` unless built with
``batch_first=True``. Given the lesson's ``(B, L, E) = (2, 5, 64)`` it reads 5 sequences of
length 2. In self-attention the shapes still fit, so it runs and returns a wrong result:
attention mixes the two batch elements instead of the five tokens. When the shapes do not
fit (cross-attention with another length, a key padding mask) it fails with messages that
never mention the layout; :class:`mha.MultiHeadAttention` names ``batch_first`` in its own.
We show the silent case, the leak across the batch, both errors, and the two fixes.
"""

# %%
# Two modules with the same parameters
# ------------------------------------
#
# Built from the same seed, one with the default ``batch_first=False``, one with
# ``batch_first=True``. The data is batch first: ``(B, L, E) = (2, 5, 64)``.

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/errors_04_batch_first.png"

device = mha.get_device()

torch.manual_seed(0)
wrong = torch.nn.MultiheadAttention(64, 8, device=device)  # expects (L, B, E)
torch.manual_seed(0)
right = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)  # (B, L, E)
for p_wrong, p_right in zip(wrong.parameters(), right.parameters(), strict=True):
    assert torch.equal(p_wrong, p_right)

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

# %%
# Self-attention: it runs, and the result is wrong
# ------------------------------------------------
#
# The wrong module sees ``L = 2`` and ``B = 5``. The output has the input's shape, so
# nothing looks amiss, but the averaged weights give it away: ``(5, 2, 2)``, five batches of
# 2-by-2 attention, instead of ``(B, L, S) = (2, 5, 5)``. The outputs differ.

out_wrong, weights_wrong = wrong(x, x, x)
out_right, weights_right = right(x, x, x)

assert out_wrong.shape == out_right.shape == (2, 5, 64)
assert weights_wrong.shape == (5, 2, 2)
assert weights_right.shape == (2, 5, 5)
assert not torch.allclose(out_wrong, out_right)
print(f"output shapes: {tuple(out_wrong.shape)} {tuple(out_right.shape)}")
print(f"weights, batch_first=False: {tuple(weights_wrong.shape)}")
print(f"weights, batch_first=True:  {tuple(weights_right.shape)}")
print(f"largest difference of the outputs: {(out_wrong - out_right).abs().max():.3f}")

# %%
# The leak: one sequence changes another's output
# -----------------------------------------------
#
# With the wrong layout, position ``i`` of every sequence forms one "sequence" of length 2:
# token ``i`` of sequence 0 attends to itself and to token ``i`` of sequence 1, nothing else.
# Changing only token 3 of sequence 1 therefore changes token 3 of sequence 0, and no other
# token of sequence 0. With the right layout sequence 0 does not move at all, while every
# token of sequence 1 does (they all attend to token 3).

x_changed = x.clone()
x_changed[1, 3] = torch.randn(64, device=device)  # only token 3 of batch element 1

out_wrong_changed, _ = wrong(x_changed, x_changed, x_changed)
out_right_changed, _ = right(x_changed, x_changed, x_changed)

others = [0, 1, 2, 4]
assert not torch.allclose(out_wrong_changed[0, 3], out_wrong[0, 3])  # sequence 0 moved
torch.testing.assert_close(out_wrong_changed[0, others], out_wrong[0, others])
torch.testing.assert_close(out_right_changed[0], out_right[0])  # sequence 0 unchanged
for i in range(5):
    assert not torch.allclose(out_right_changed[1, i], out_right[1, i])
leak = (out_wrong_changed[0] - out_wrong[0]).abs().amax(dim=-1)  # (L,)
print(f"batch_first=False, change of sequence 0 per token: {leak.detach().cpu().numpy().round(3)}")
print("batch_first=True,  change of sequence 0: none")

# %%
# Our module is fooled the same way
# ---------------------------------
#
# No check can catch this case: 5 sequences of length 2 is a valid input.
# :class:`mha.MultiHeadAttention` with the same parameters returns the same wrong result.

ours_wrong = mha.MultiHeadAttention.from_torch(wrong)
out_ours_wrong, _ = ours_wrong(x, x, x)
torch.testing.assert_close(out_ours_wrong, out_wrong)

# %%
# Cross-attention: PyTorch's error
# --------------------------------
#
# Queries of length 5 attend to a memory of length 7. Read as ``(L, B, E)``, the query has
# batch 5 and the memory batch 7; PyTorch fails deep inside, reshaping the keys for the
# heads (``2 * 7 * 64 = 896`` numbers into ``(2, 5 * 8, 8)``).

memory = torch.randn(2, 7, 64, device=device)  # (B, S, E)
try:
    wrong(x, memory, memory)
except RuntimeError as err:
    torch_cross_error = err
else:
    raise AssertionError("expected cross-attention with batch_first=False to raise")

assert type(torch_cross_error) is RuntimeError
assert "shape '[2, 40, 8]' is invalid for input of size 896" in str(torch_cross_error)
print(f"{type(torch_cross_error).__name__}: {torch_cross_error}")

# %%
# A key padding mask: PyTorch's error
# -----------------------------------
#
# The mask is ``(B, S) = (2, 5)``, as it should be, but the module thinks ``B = 5``.

padding = torch.zeros(2, 5, dtype=torch.bool, device=device)  # (B, S), True = ignore
padding[1, 3:] = True  # the second sequence has 3 real tokens
try:
    wrong(x, x, x, key_padding_mask=padding)
except AssertionError as err:
    torch_mask_error = err
else:
    raise AssertionError("expected a (B, S) mask with batch_first=False to raise")

assert "Expected key_padded_mask.shape[0] to be 5, but got 2" in str(torch_mask_error)
print(f"{type(torch_mask_error).__name__}: {torch_mask_error}")

# %%
# Our errors name batch_first
# ---------------------------
#
# :class:`mha.MultiHeadAttention` checks the inputs before computing. When they do not fit
# the module's layout but would fit the other one, the ``ValueError`` says so and names
# both fixes.

fix_hint = (
    "with batch_first=False the batch is dimension 1 of (L, B, E), but the inputs fit "
    "batch_first=True: construct the module with batch_first=True or transpose the inputs"
)
for name, call in (
    ("cross-attention", lambda: ours_wrong(x, memory, memory)),
    ("key_padding_mask", lambda: ours_wrong(x, x, x, key_padding_mask=padding)),
):
    try:
        call()
    except ValueError as err:
        message = str(err)
    else:
        raise AssertionError(f"expected {name} with batch_first=False to raise")
    assert "batch_first" in message
    assert message.endswith(fix_hint)
    print(f"{name}: ValueError: {message}\n")

# %%
# Fix 1: batch_first=True
# -----------------------
#
# The module built with ``batch_first=True`` takes the data as it is, in every case.

out_cross, _ = right(x, memory, memory)
out_masked, _ = right(x, x, x, key_padding_mask=padding)
assert out_cross.shape == out_masked.shape == (2, 5, 64)
ours_right = mha.MultiHeadAttention.from_torch(right)
torch.testing.assert_close(ours_right(x, memory, memory)[0], out_cross)
torch.testing.assert_close(ours_right(x, x, x, key_padding_mask=padding)[0], out_masked)

# %%
# Fix 2: transpose to (L, B, E) and back
# --------------------------------------
#
# Keeping ``batch_first=False``, swap the first two dimensions going in and coming out.
# The results equal those of the ``batch_first=True`` module.

x_lbe = x.transpose(0, 1)  # (L, B, E) = (5, 2, 64)
memory_sbe = memory.transpose(0, 1)  # (S, B, E) = (7, 2, 64)

out_t, _ = wrong(x_lbe, x_lbe, x_lbe)
torch.testing.assert_close(out_t.transpose(0, 1), out_right)
out_t, _ = wrong(x_lbe, memory_sbe, memory_sbe)
torch.testing.assert_close(out_t.transpose(0, 1), out_cross)
out_t, _ = wrong(x_lbe, x_lbe, x_lbe, key_padding_mask=padding)  # the mask stays (B, S)
torch.testing.assert_close(out_t.transpose(0, 1), out_masked)
print("transposed in and out: equal to batch_first=True in all three cases")

# %%
# Functions used: :class:`mha.MultiHeadAttention`,
# :meth:`mha.MultiHeadAttention.from_torch`, :func:`mha.get_device`; compared with
# :class:`torch.nn.MultiheadAttention`.
