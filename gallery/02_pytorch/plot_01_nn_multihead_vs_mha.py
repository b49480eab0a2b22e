r"""
torch.nn.MultiheadAttention and mha.MultiHeadAttention side by side
===================================================================

:class:`mha.MultiHeadAttention` is a twin of :class:`torch.nn.MultiheadAttention`: the same
constructor, the same ``forward`` arguments, and the same results. Here we copy the weights of
PyTorch's module into ours (:meth:`~mha.MultiHeadAttention.from_torch`) and back
(:meth:`~mha.MultiHeadAttention.to_torch`), show that the same seed alone already gives both
modules identical parameters, and run both layouts: ``batch_first=True`` ``(B, L, E)`` and
PyTorch's default ``batch_first=False`` ``(L, B, E)``. Every equality is checked with
:func:`torch.testing.assert_close`.
"""

# %%
# Copy PyTorch's weights into ours
# --------------------------------
#
# We build PyTorch's module with the lesson's sizes (``d_model = 64``, 8 heads) and make our
# twin from it with :meth:`~mha.MultiHeadAttention.from_torch`, which copies every
# parameter. The same input then gives the same output ``(B, L, E)`` and the same attention
# weights, averaged over heads ``(B, L, S)``. The constructor and ``forward`` take the same
# arguments, in the same order, with the same defaults.

import inspect

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/pytorch_01_side_by_side.png"

torch.manual_seed(0)
device = mha.get_device()

theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
ours = mha.MultiHeadAttention.from_torch(theirs)

x = torch.randn(2, 5, 64, device=device)  # (B, L, E)
out_t, weights_t = theirs(x, x, x)
out_o, weights_o = ours(x, x, x)

assert out_t.shape == out_o.shape == (2, 5, 64)
assert weights_t.shape == weights_o.shape == (2, 5, 5)
torch.testing.assert_close(out_o, out_t)
torch.testing.assert_close(weights_o, weights_t)
print(theirs)
print(ours)


def arguments(cls, method):
    """(name, kind, default) of each argument of ``cls.method``."""
    found = inspect.signature(getattr(cls, method)).parameters.values()
    return [(p.name, p.kind, p.default) for p in found]


for method in ("__init__", "forward"):
    theirs_args = arguments(torch.nn.MultiheadAttention, method)
    assert arguments(mha.MultiHeadAttention, method) == theirs_args, method
    print(f"{method}: {[name for name, _, _ in theirs_args[1:]]}")

# %%
# And ours back into PyTorch's
# ----------------------------
#
# :meth:`~mha.MultiHeadAttention.to_torch` goes the other way. Both modules store the same
# parameters under the same names: the three input projections packed into one
# ``in_proj_weight`` of shape ``(3E, E) = (192, 64)``, then ``out_proj``. Ours also names the
# lesson's three blocks: ``q_weight``, ``k_weight``, ``v_weight`` are views of its rows.

ours = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)
theirs = ours.to_torch()

assert theirs.in_proj_weight.shape == ours.in_proj_weight.shape == (192, 64)
assert list(theirs.state_dict()) == list(ours.state_dict())
packed = torch.cat([ours.q_weight, ours.k_weight, ours.v_weight])  # (3E, E)
torch.testing.assert_close(theirs.in_proj_weight, packed)
for n, name in enumerate(("q_weight", "k_weight", "v_weight")):  # views, not copies
    assert getattr(ours, name).data_ptr() == ours.in_proj_weight[64 * n].data_ptr()

out_o, weights_o = ours(x, x, x)
out_t, weights_t = theirs(x, x, x)
torch.testing.assert_close(out_t, out_o)
torch.testing.assert_close(weights_t, weights_o)
print(f"in_proj_weight: {tuple(theirs.in_proj_weight.shape)}")

# %%
# The same seed gives the same parameters
# ---------------------------------------
#
# No copy is needed at all: our constructor draws its random numbers in PyTorch's order, so
# ``torch.manual_seed(0)`` before each constructor gives identical parameters. To compare,
# cut PyTorch's packed ``in_proj_weight`` ``(192, 64)`` and ``in_proj_bias`` ``(192,)`` into
# three blocks of 64 rows: ``W_Q``, ``W_K``, ``W_V``. The comparison is exact (``atol=0``,
# ``rtol=0``). The weights are random (Xavier-uniform); the biases start at zero in both.

torch.manual_seed(0)
theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
torch.manual_seed(0)
ours = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)

W_Q, W_K, W_V = theirs.in_proj_weight.chunk(3)  # 3 x (E, E)
b_Q, b_K, b_V = theirs.in_proj_bias.chunk(3)  # 3 x (E,)
pairs = {
    "W_Q": (W_Q, ours.q_weight),
    "W_K": (W_K, ours.k_weight),
    "W_V": (W_V, ours.v_weight),
    "b_Q": (b_Q, ours.q_bias),
    "b_K": (b_K, ours.k_bias),
    "b_V": (b_V, ours.v_bias),
    "W_O": (theirs.out_proj.weight, ours.out_proj.weight),
    "b_O": (theirs.out_proj.bias, ours.out_proj.bias),
}
for name, (p_t, p_o) in pairs.items():
    assert p_t.shape == p_o.shape
    torch.testing.assert_close(p_o, p_t, atol=0, rtol=0)
    print(f"{name}: {tuple(p_o.shape)!s:9} identical")

n_theirs = sum(p.numel() for p in theirs.parameters())
n_ours = sum(p.numel() for p in ours.parameters())
assert n_theirs == n_ours == 4 * 64 * 64 + 4 * 64
print(f"parameters: {n_ours}")

# %%
# Same parameters, same outputs
# -----------------------------
#
# So the outputs and weights agree too, without any copy:

out_t, weights_t = theirs(x, x, x)
out_o, weights_o = ours(x, x, x)
torch.testing.assert_close(out_o, out_t)
torch.testing.assert_close(weights_o, weights_t)

# %%
# PyTorch's default layout: sequence first
# ----------------------------------------
#
# Without ``batch_first=True``, both modules expect ``(L, B, E)`` inputs, here ``(5, 2, 64)``,
# and return the output in the same layout. The attention weights stay ``(B, L, S)``. With the
# parameters of the batch-first modules above, the output is the batch-first one transposed.

torch.manual_seed(0)
theirs_lbe = torch.nn.MultiheadAttention(64, 8, device=device)  # batch_first=False
ours_lbe = mha.MultiHeadAttention.from_torch(theirs_lbe)
assert not ours_lbe.batch_first

x_lbe = x.transpose(0, 1)  # (B, L, E) -> (L, B, E)
assert x_lbe.shape == (5, 2, 64)
out_t_lbe, weights_t_lbe = theirs_lbe(x_lbe, x_lbe, x_lbe)
out_o_lbe, weights_o_lbe = ours_lbe(x_lbe, x_lbe, x_lbe)

assert out_t_lbe.shape == out_o_lbe.shape == (5, 2, 64)
assert weights_t_lbe.shape == weights_o_lbe.shape == (2, 5, 5)
torch.testing.assert_close(out_o_lbe, out_t_lbe)
torch.testing.assert_close(weights_o_lbe, weights_t_lbe)

# same seed as the batch-first pair: same parameters, so the same numbers, transposed
torch.testing.assert_close(out_o_lbe.transpose(0, 1), out_o)
torch.testing.assert_close(weights_o_lbe, weights_o)
print(f"batch_first=False: {tuple(x_lbe.shape)} -> {tuple(out_o_lbe.shape)}")

# %%
# Functions used: :class:`mha.MultiHeadAttention`,
# :meth:`mha.MultiHeadAttention.from_torch`, :meth:`mha.MultiHeadAttention.to_torch`,
# :func:`mha.get_device`; compared with :class:`torch.nn.MultiheadAttention`.
