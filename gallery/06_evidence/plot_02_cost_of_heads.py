r"""
What more heads cost
====================

Splitting ``d_model`` into more heads is free in parameters and in matrix-multiply FLOPs:
``H`` heads of width ``D = d_model / H`` do the products of one head of width ``d_model``.
This example checks that for ``d_model = 64`` and ``512`` and every head count that divides
them, counting the parameters and, with PyTorch's
:class:`~torch.utils.flop_counter.FlopCounterMode`, the matrix-product FLOPs of both
:class:`mha.MultiHeadAttention` and :class:`torch.nn.MultiheadAttention`, beside the formulas
of :mod:`mha.cost`. What grows is what is done once per attention weight: the weights hold
one ``L x S`` matrix per head, ``B * H * L * S`` numbers, and the scaling, the masks and the
softmax run element by element over as many scores.
"""

# %%
# Setup
# -----
#
# Batch 2 and sequences of 16 tokens (self-attention, so ``L = S = 16``). For each
# ``d_model`` we try every divisor as the head count, from one head of width ``d_model`` to
# ``d_model`` heads of width 1.

import itertools

import matplotlib.pyplot as plt
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

import mha

torch.manual_seed(0)
device = mha.get_device()
B, L = 2, 16
widths = [64, 512]


def divisors(n):
    return [h for h in range(1, n + 1) if n % h == 0]


print({E: divisors(E) for E in widths})

# %%
# Measure every configuration
# ---------------------------
#
# For each ``(d_model, H)``: the parameter count of both modules, the FLOPs PyTorch counts
# while each module runs with ``need_weights=True`` (our explicit path), split into the
# batched products ``bmm`` (scores and weighted sum) and the rest (the four projections), and
# the number of elements of the returned per-head weights. ``FlopCounterMode`` counts matrix
# products only, so the element-wise steps are not in these FLOPs. Each number is asserted
# equal to its formula in :mod:`mha.cost`.

rows = []
for E in widths:
    x = torch.randn(B, L, E, device=device)
    for H in divisors(E):
        ours = mha.MultiHeadAttention(E, H, batch_first=True, device=device)
        theirs = torch.nn.MultiheadAttention(E, H, batch_first=True, device=device)
        n_ours = sum(p.numel() for p in ours.parameters())
        n_theirs = sum(p.numel() for p in theirs.parameters())
        with FlopCounterMode(display=False) as counter, torch.no_grad():
            _, weights = ours(x, x, x, need_weights=True, average_attn_weights=False)
        with FlopCounterMode(display=False) as counter_theirs, torch.no_grad():
            theirs(x, x, x, need_weights=True, average_attn_weights=False)
        counted = counter.get_flop_counts()["Global"]
        bmm = counted.get(torch.ops.aten.bmm, 0)
        formula = mha.attention_flops(B, L, L, E, H)

        assert n_ours == n_theirs == mha.parameter_count(E, H)
        assert counter.get_total_flops() == counter_theirs.get_total_flops() == formula.total
        assert bmm == formula.scores + formula.weighted_sum
        assert weights.shape == (B, H, L, L)
        assert weights.numel() == mha.attention_weight_elements(B, L, L, H)
        rows.append(
            {
                "E": E,
                "H": H,
                "D": E // H,
                "params": n_ours,
                "flops": counter.get_total_flops(),
                "attend": bmm,
                "weights": weights.numel(),
            }
        )

# %%
# The table
# ---------
#
# Parameters and matrix-product FLOPs are one number per ``d_model`` whatever ``H`` is; the
# attention FLOPs (``Q K^T`` and ``weights @ V``) are ``2 * 2 * B * L * S * d_model`` for
# every ``H``, because the ``H`` products of width ``D`` add up to one of width
# ``H * D = d_model``. The weights, and with them the element-wise work on the scores, double
# each time ``H`` doubles.

print("d_model    H    D    params       FLOPs    attend  weights")
for r in rows:
    print(
        f"{r['E']:>7} {r['H']:>4} {r['D']:>4} {r['params']:>9,} {r['flops']:>11,} "
        f"{r['attend']:>9,} {r['weights']:>8,}"
    )

for E in widths:
    mine = [r for r in rows if r["E"] == E]
    assert len({r["params"] for r in mine}) == 1  # identical for every H
    assert len({r["flops"] for r in mine}) == 1  # identical for every H
    assert {r["attend"] for r in mine} == {2 * 2 * B * L * L * E}
    assert [r["weights"] for r in mine] == [B * r["H"] * L * L for r in mine]  # linear in H
    assert all(a["weights"] < b["weights"] for a, b in itertools.pairwise(mine))  # grows with H

# %%
# The nuance: memory of the weights
# ---------------------------------
#
# The products stay flat, but the explicit path stores the scores and the weights as
# ``(B, H, L, S)`` tensors. At ``d_model = 512`` with 512 heads of width 1 they take 512
# times the memory of one head, while the products are the same. For long sequences this
# ``L * S`` term per head dominates.

E = 512
one, many = rows[len(divisors(64))], rows[-1]
assert (one["E"], one["H"], many["E"], many["H"]) == (E, 1, E, E)
assert many["weights"] == E * one["weights"]
for n_tokens in (16, 1024, 8192):
    per_head = mha.attention_weight_elements(1, n_tokens, n_tokens, 1) * 4  # float32 bytes
    print(f"L = S = {n_tokens:>5}: {per_head / 2**20:10.3f} MiB of weights per head and batch item")
assert mha.attention_weight_elements(1, 1024, 1024, 1) * 4 == 4 * 2**20  # 4 MiB at L = 1024

# %%
# The fused path does not store them
# ----------------------------------
#
# With ``need_weights=False`` the module calls
# :func:`torch.nn.functional.scaled_dot_product_attention`. Its flash-attention and
# memory-efficient kernels compute the softmax block by block and never store the weights;
# its third kernel, the *math* fallback, does, and PyTorch picks it when the fused ones cannot
# run the inputs (on the CPU, for example, with dropout). We record the largest tensor PyTorch
# creates during one forward pass at ``L = S = 1024``, ``d_model = 512``, ``H = 8``, with
# :class:`mha.LargestTensor`.

module = mha.MultiHeadAttention(512, 8, batch_first=True, device=device).eval()
x = torch.randn(1, 1024, 512, device=device)  # (B, L, E)
n_weights = mha.attention_weight_elements(1, 1024, 1024, 8)
with torch.no_grad():
    with mha.LargestTensor() as explicit:
        module(x, x, x, need_weights=True)
    with mha.LargestTensor() as fused:
        module(x, x, x, need_weights=False)
    with sdpa_kernel(SDPBackend.MATH), mha.LargestTensor() as fused_math:
        module(x, x, x, need_weights=False)
print(f"weights (B, H, L, S): {n_weights:,} elements; largest tensor created:")
for name, seen in (("explicit", explicit), ("fused", fused), ("fused, math kernel", fused_math)):
    print(f"  {name:18}: {seen.numel:>10,}")
assert explicit.numel >= n_weights and fused_math.numel >= n_weights
if device.type == "cpu":  # torch picks its flash kernel here
    assert fused.numel < n_weights

# %%
# Figure
# ------
#
# **Figure.** For each ``d_model`` (one colour): top, the parameter count; middle, the
# matrix-multiply FLOPs of one forward pass; bottom, the number of attention-weight elements,
# against the head count on log axes. Look at the flat lines at the top and in the middle
# and the line of slope 1 at the bottom, the same for both widths: the weight memory depends
# on ``B``, ``H``, ``L`` and ``S``, not on ``d_model``.

fig, axes = plt.subplots(3, 1, figsize=(7, 8.5), sharex=True, layout="constrained")
for E, marker in zip(widths, "os", strict=True):
    mine = [r for r in rows if r["E"] == E]
    heads = [r["H"] for r in mine]
    for ax, key in zip(axes, ("params", "flops", "weights"), strict=True):
        ax.loglog(heads, [r[key] for r in mine], marker + "-", label=f"d_model = {E}")
titles = ("Parameters", "Matrix-multiply FLOPs (B=2, L=S=16)", "Attention-weight elements")
for ax, title in zip(axes, titles, strict=True):
    ax.set(ylabel="count", title=title)
    ax.set_xscale("log", base=2)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)  # off the data
axes[-1].set_xlabel("heads H")

# %%
# Functions used: :func:`mha.parameter_count`, :func:`mha.attention_flops`,
# :func:`mha.attention_weight_elements`, :class:`mha.MultiHeadAttention`,
# :class:`mha.LargestTensor`.
