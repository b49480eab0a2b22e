r"""
Why the scores are scaled
=========================

The paper scales the scores by :math:`1/\sqrt{d_k}` because "for large values of
:math:`d_k`, the dot products grow large in magnitude, pushing the softmax function into
regions where it has extremely small gradients". This example measures each link of that
sentence for :math:`d_k = 1, 2, 4, \dots, 512`: the variance of :math:`q \cdot k` grows like
:math:`d_k`; without the scale the softmax sharpens as :math:`d_k` grows, towards a one-hot
choice (largest weight near 1, entropy near 0); and the gradient that reaches the queries and
keys, *larger* than with the scale up to :math:`d_k = 32`, falls below it at 64 and collapses
by orders of magnitude from 128 up. With the scale all three stay flat.
"""

# %%
# Setup
# -----
#
# Queries and keys are drawn with independent, unit-variance entries, the assumption of the
# paper's footnote. Each measurement averages many independent draws.

import math

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()
dims = [2**i for i in range(10)]  # d_k = 1, 2, 4, ..., 512
print("d_k:", dims)

# %%
# The variance of :math:`q \cdot k` is :math:`d_k`
# -------------------------------------------------
#
# :math:`q \cdot k = \sum_i q_i k_i` is a sum of :math:`d_k` independent products of mean 0
# and variance 1, so its variance is :math:`d_k`. We draw 20,000 pairs per :math:`d_k` and
# compare the measured variance with :math:`d_k`: the ratio stays within 10 % of 1 (the
# sampling error at this size is about 2 %). Divided by :math:`\sqrt{d_k}`, the variance is 1
# for every :math:`d_k`.

n_pairs = 20_000
variance, variance_scaled = [], []
for d_k in dims:
    q = torch.randn(n_pairs, d_k, device=device)
    k = torch.randn(n_pairs, d_k, device=device)
    dots = (q * k).sum(dim=-1)  # (n_pairs,)
    variance.append(dots.var().item())
    variance_scaled.append((dots / math.sqrt(d_k)).var().item())

ratios = [v / d_k for v, d_k in zip(variance, dims, strict=True)]
for d_k, v, r, vs in zip(dims, variance, ratios, variance_scaled, strict=True):
    print(f"d_k={d_k:4d}  var(q.k)={v:8.2f}  var/d_k={r:.3f}  var(q.k/sqrt(d_k))={vs:.3f}")
assert all(0.9 < r < 1.1 for r in ratios), ratios
assert all(0.9 < v < 1.1 for v in variance_scaled), variance_scaled

# %%
# The softmax saturates without the scale
# ---------------------------------------
#
# One query attends over ``S = 8`` random keys, 4,000 times per :math:`d_k`, through
# :func:`mha.scaled_dot_product_attention` with its default scale :math:`1/\sqrt{d_k}` and
# with ``scale=1.0`` (no scaling): :func:`mha.measure_scale` does it, the measurement behind
# every number about the scale on this site. We record the largest attention weight of each row and the
# row's entropy :math:`-\sum_j p_j \log p_j` (uniform over 8 keys: :math:`\log 8 = 2.08`
# nats; one-hot: 0), and, in the next cell, the gradients. Without the scale the rows sharpen
# from the smallest widths on: at the lesson's :math:`d_k = 8` the median largest weight is
# already about 0.63 against 0.32 with the scale, though still far from one-hot; it passes 0.9
# at :math:`d_k = 64` and is above 0.99 at 512.
#
# We report medians over the rows: rows whose two largest scores happen to be nearly equal
# keep a gradient at any :math:`d_k`, and these rare rows carry the *mean*; the median is the
# typical row.

n_keys = 8  # mha.measure_scale's default, with 4,000 rows per width
rows = mha.measure_scale(dims, device=device)  # the site's one measurement of the scale


def column(of, stat):
    """One statistic of ``rows`` across the widths: ``column(of="unscaled", stat="largest")``."""
    return [getattr(getattr(m, of), stat) for m in rows]


print(" d_k | max weight scaled / unscaled | entropy scaled / unscaled")
for m in rows:
    s, u = m.scaled, m.unscaled
    print(
        f"{m.d_k:4d} | {s.largest:.3f} / {u.largest:.4f}"
        f"               | {s.entropy:.3f} / {u.entropy:.4f}"
    )
saturation = next(
    d for d, p in zip(dims, column(of="unscaled", stat="largest"), strict=True) if p > 0.9
)
print(f"unscaled: the median largest weight passes 0.9 at d_k = {saturation}")
assert saturation in (32, 64)  # 64 here; the median at d_k = 32 is just below 0.9

# The lesson's d_k = 8: sharper without the scale (0.63 against 0.32), but far from one-hot.
at_8 = dims.index(8)
assert 0.55 < column(of="unscaled", stat="largest")[at_8] < 0.75
assert 0.25 < column(of="scaled", stat="largest")[at_8] < 0.4

# Unscaled: the typical row is one-hot at d_k = 512.
assert column(of="unscaled", stat="largest")[-1] > 0.99
assert column(of="unscaled", stat="entropy")[-1] < 0.05
# Scaled: the largest weight stays between 0.2 and 0.4 (about 2-3 keys share the weight),
# and the entropy moves by less than 0.25 nats (0.17 measured), at every d_k.
scaled_max = column(of="scaled", stat="largest")
scaled_entropy = column(of="scaled", stat="entropy")
assert all(0.2 < p < 0.4 for p in scaled_max), scaled_max
assert max(scaled_entropy) - min(scaled_entropy) < 0.25, scaled_entropy

# %%
# The gradient vanishes without the scale
# ---------------------------------------
#
# The loss is a fixed random linear function of the weights, so the gradient measures only
# how much the softmax lets through. Through a saturated softmax almost nothing reaches
# :math:`q` and :math:`k`. But a sharper softmax is not yet a saturated one: up to
# :math:`d_k = 32` the unscaled median gradient is *larger* than the scaled one (about 0.57
# against 0.29 at the lesson's :math:`d_k = 8`; it peaks at 16). It falls below the scaled
# one at :math:`d_k = 64` (1.15 times smaller), is 3.35 times smaller at 128, about 25 times
# at 256 and 367 times at 512. The scaled one stays within a factor of 2 over the whole range
# (0.17 to 0.31). The gradient that reaches a key shrinks from the start: 1.68 times smaller
# at :math:`d_k = 8`, 477 times at 64.

grad_scaled = column(of="scaled", stat="grad_q")
grad_unscaled = column(of="unscaled", stat="grad_q")
for d_k, gs, gu, gk in zip(
    dims, grad_scaled, grad_unscaled, column(of="unscaled", stat="grad_k"), strict=True
):
    print(
        f"d_k={d_k:4d}  |grad q| scaled {gs:.3e}  unscaled {gu:.3e}  (|grad k| unscaled {gk:.3e})"
    )
print(f"unscaled |grad q| mean over rows at d_k=512: {column('unscaled', 'grad_q_mean')[-1]:.3f}")

peak = max(grad_unscaled)
print(f"unscaled: peak / value at d_k=512 = {peak / grad_unscaled[-1]:.0f}")
print(f"scaled: max / min over d_k = {max(grad_scaled) / min(grad_scaled):.2f}")
assert peak / grad_unscaled[-1] > 100
assert grad_scaled[-1] / grad_unscaled[-1] > 100
assert column(of="unscaled", stat="grad_k")[-1] < column(of="scaled", stat="grad_k")[-1] / 100
assert max(grad_scaled) / min(grad_scaled) < 2
assert 0.15 < min(grad_scaled) and max(grad_scaled) < 0.35

# The crossover: scaled / unscaled median gradient at each d_k.
ratio = {d: gs / gu for d, gs, gu in zip(dims, grad_scaled, grad_unscaled, strict=True)}
print("scaled / unscaled |grad q|:", {d: round(r, 2) for d, r in ratio.items()})
assert all(ratio[d] < 1 for d in dims if 2 <= d <= 32)  # unscaled larger up to d_k = 32
assert 0.5 < grad_unscaled[dims.index(8)] < 0.62 and 0.25 < grad_scaled[dims.index(8)] < 0.33
assert dims[grad_unscaled.index(peak)] in (8, 16)  # the unscaled peak
assert 1.1 < ratio[64] < 1.2  # 1.15 times smaller at 64
assert 3 < ratio[128] < 4  # 3.35 times at 128
assert 20 < ratio[256] < 30  # about 25 times at 256
assert 300 < ratio[512] < 400  # 367 times at 512
key_ratio = {m.d_k: m.key_ratio for m in rows}
assert 1.5 < key_ratio[8] < 2 and key_ratio[64] > 400  # the keys': 1.68 and 477 times

# %%
# All three curves
# ----------------
#
# **Figure.** Top: measured variance of :math:`q \cdot k` on the line :math:`d_k` (dashed),
# and 1 after scaling. Middle: median largest attention weight; the unscaled curve climbs to
# 1 (a one-hot softmax) while the scaled one stays flat. Bottom: median gradient norm reaching
# the query, on a log scale; look at the unscaled curve, above the scaled one up to
# :math:`d_k = 32`, crossing it before 64 and falling off after.

fig, axes = plt.subplots(3, 1, figsize=(7, 8.5), sharex=True, layout="constrained")
ax = axes[0]
ax.loglog(dims, variance, "o-", label=r"$q \cdot k$ (measured)")
ax.loglog(dims, dims, "k--", label=r"$d_k$ (theory)")
ax.loglog(dims, variance_scaled, "s-", label=r"$q \cdot k / \sqrt{d_k}$")
ax.set(ylabel="variance", title="Variance of the scores")
ax = axes[1]
ax.semilogx(dims, column(of="unscaled", stat="largest"), "o-", label="unscaled")
ax.semilogx(dims, scaled_max, "s-", label=r"scaled by $1/\sqrt{d_k}$")
ax.axhline(1 / n_keys, color="gray", ls=":", label=f"uniform (1/{n_keys})")
ax.set(ylabel="median largest weight", title="Softmax saturation", ylim=(0, 1.05))
ax = axes[2]
ax.loglog(dims, grad_unscaled, "o-", label="unscaled")
ax.loglog(dims, grad_scaled, "s-", label=r"scaled by $1/\sqrt{d_k}$")
ax.set(xlabel=r"$d_k$", ylabel=r"median $\|\partial \mathrm{loss} / \partial q\|$")
ax.set_title("Gradient reaching the query")
axes[-1].set_xticks(dims[::2], [str(d) for d in dims[::2]])
for ax in axes:  # legends beside the panels, off the data
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)

# %%
# Functions used: :func:`mha.get_device`, :func:`mha.measure_scale`.
