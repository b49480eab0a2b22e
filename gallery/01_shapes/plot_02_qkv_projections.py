r"""
Step 2: project to queries, keys and values
===========================================

Three learned matrices ``W_Q``, ``W_K`` and ``W_V``, each of shape ``(64, 64)``, turn the
input ``x`` of shape ``(2, 5, 64)`` into the queries ``Q``, keys ``K`` and values ``V``, each
``(2, 5, 64)``. This example writes the projection as :class:`torch.nn.Linear` computes it,
``y = x W^T + b``, checks :func:`mha.project` and :func:`mha.project_qkv` against it, and shows
that one packed ``(192, 64)`` matrix gives the same three results as three separate ones.
"""

import torch
from torch.overrides import TorchFunctionMode

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_02_qkv.png"

torch.manual_seed(0)
device = mha.get_device()


def show(name, tensor, letters):
    """Print a tensor's shape beside its dimension letters, its strides and contiguity."""
    print(
        f"{name:<18} {tuple(tensor.shape)!s:<14} {letters:<14} "
        f"stride {tensor.stride()!s:<16} contiguous={tensor.is_contiguous()}"
    )


B, L, E, H = 2, 5, 64, 8
x = torch.randn(B, L, E, device=device)  # (B, L, E)
show("x", x, "(B, L, E)")

# %%
# A linear layer is ``y = x W^T + b``
# -----------------------------------
#
# :class:`torch.nn.Linear` ``(in_features=64, out_features=64)`` stores its weight as
# ``(out_features, in_features)`` and computes ``x @ W.T + b`` on the *last* axis only. The
# batch and sequence axes pass through untouched: ``(2, 5, 64) -> (2, 5, 64)``.

w_q = torch.nn.Linear(E, E, device=device)  # W_Q
assert w_q.weight.shape == (64, 64)  # (E_out, E_in)
assert w_q.bias.shape == (64,)

by_hand = x @ w_q.weight.T + w_q.bias  # (B, L, E)
torch.testing.assert_close(by_hand, w_q(x))
show("W_Q.weight", w_q.weight, "(E_out, E_in)")
show("W_Q.bias", w_q.bias, "(E_out,)")
show("x @ W_Q^T + b", by_hand, "(B, L, E)")

# %%
# The projection treats every token on its own: token ``t`` of the output depends only on
# token ``t`` of the input. Mixing between tokens happens later, in the attention weights.

torch.testing.assert_close(w_q(x)[:, 2], w_q(x[:, 2]))

# %%
# Three projections: ``Q``, ``K`` and ``V``
# -----------------------------------------
#
# Each role gets its own matrix. In self-attention all three read the same ``x``, and all
# three results keep the shape ``(B, L, E) = (2, 5, 64)``.

w_k = torch.nn.Linear(E, E, device=device)  # W_K
w_v = torch.nn.Linear(E, E, device=device)  # W_V

Q = w_q(x)  # (B, L, E)
K = w_k(x)  # (B, S, E), S = L in self-attention
V = w_v(x)  # (B, S, E)
for name, t, letters in (("Q", Q, "(B, L, E)"), ("K", K, "(B, S, E)"), ("V", V, "(B, S, E)")):
    assert t.shape == (2, 5, 64)
    show(name, t, letters)
for layer in (w_q, w_k, w_v):
    assert layer.weight.shape == (64, 64)

# %%
# The same with :mod:`mha`
# ------------------------
#
# :func:`mha.project` is this one product, ``F.linear(x, weight, bias)``;
# :func:`mha.project_qkv` applies the three projections and returns ``Q``, ``K``, ``V``.
# Both equal the :class:`torch.nn.Linear` outputs.

torch.testing.assert_close(mha.project(x, w_q.weight, w_q.bias), Q)

q, k, v = mha.project_qkv(x, x, x, w_q.weight, w_k.weight, w_v.weight, w_q.bias, w_k.bias, w_v.bias)
torch.testing.assert_close(q, Q)
torch.testing.assert_close(k, K)
torch.testing.assert_close(v, V)

# %%
# One packed ``(192, 64)`` matrix
# -------------------------------
#
# Stacking ``W_Q``, ``W_K`` and ``W_V`` on top of each other gives one ``(3E, E) = (192, 64)``
# matrix. One product then reads ``x`` once and returns a ``(2, 5, 192)`` tensor whose three
# 64-wide chunks are ``Q``, ``K`` and ``V``. This is how :class:`torch.nn.MultiheadAttention`
# stores them (its ``in_proj_weight``). :func:`mha.project_qkv` runs the three products
# instead: on the benchmark's shapes the one product met no speed goal that the three miss
# (``nox -s bench``).

packed_weight = torch.cat([w_q.weight, w_k.weight, w_v.weight])  # (3E, E)
packed_bias = torch.cat([w_q.bias, w_k.bias, w_v.bias])  # (3E,)
packed = x @ packed_weight.T + packed_bias  # (B, L, 3E)
assert packed_weight.shape == (192, 64)
assert packed.shape == (2, 5, 192)
show("packed weight", packed_weight, "(3E, E)")
show("packed output", packed, "(B, L, 3E)")

q_p, k_p, v_p = packed.chunk(3, dim=-1)  # 3 x (B, L, E)
torch.testing.assert_close(q_p, Q)
torch.testing.assert_close(k_p, K)
torch.testing.assert_close(v_p, V)

torch_mha = torch.nn.MultiheadAttention(E, H, batch_first=True, device=device)
assert torch_mha.in_proj_weight.shape == packed_weight.shape == (192, 64)

# %%
# To see which products :func:`mha.project_qkv` runs, record the weight of every
# ``F.linear`` call: three ``(64, 64)`` products, whether ``query``, ``key`` and ``value`` are
# the same tensor or the keys and values come from elsewhere.


class LinearCalls(TorchFunctionMode):
    """Inside ``with LinearCalls() as calls:``, ``calls.weights`` lists the weight shape of
    every ``F.linear`` call."""

    def __init__(self):
        super().__init__()
        self.weights = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.nn.functional.linear:
            self.weights.append(tuple(args[1].shape))
        return func(*args, **(kwargs or {}))


weights = (w_q.weight, w_k.weight, w_v.weight, w_q.bias, w_k.bias, w_v.bias)
memory = torch.randn(B, 7, E, device=device)  # (B, S, E): another sequence
with LinearCalls() as self_attention:
    mha.project_qkv(x, x, x, *weights)
with LinearCalls() as cross_attention:
    mha.project_qkv(x, memory, memory, *weights)
print(f"self-attention:  {self_attention.weights}")
print(f"cross-attention: {cross_attention.weights}")
assert self_attention.weights == [(64, 64)] * 3
assert cross_attention.weights == [(64, 64)] * 3

# %%
# Functions used: :func:`mha.project`, :func:`mha.project_qkv`. Next: splitting ``Q``, ``K``
# and ``V`` into heads.
