r"""
Forgetting to scale the scores
==============================

Leaving out the factor ``1 / sqrt(d_k)`` raises no error: every shape is still right. The
damage shows in the numbers. The dot product of two vectors with ``d_k`` unit-variance
entries has standard deviation ``sqrt(d_k)``, so without the scale the softmax sees ever
larger scores as ``d_k`` grows: it saturates (one key takes almost all the weight, the
entropy falls towards 0) and the gradient that reaches the scores vanishes. We measure both
for ``d_k`` from 8 to 512, scaled and unscaled, and plot them.
"""

# %%
# Queries and keys of growing width
# ---------------------------------
# The lesson's batch, heads and length, ``(B, H, L, D) = (2, 8, 5, d_k)``, with ``d_k`` from
# 8 (the lesson's head width) to 512. Entries have unit variance, as the projections of
# normalised inputs roughly do. The raw scores ``q k^T`` then have a standard deviation
# close to ``sqrt(d_k)``; divided by ``sqrt(d_k)`` they stay near 1 whatever the width.
import math

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

B, H, L = 2, 8, 5
widths = [8, 16, 32, 64, 128, 256, 512]
inputs = {}
for d_k in widths:
    q, k, v = torch.randn(3, B, H, L, d_k, device=device).unbind(0)  # (B, H, L, d_k) each
    inputs[d_k] = (q, k, v)

print("d_k   std(q k^T)   sqrt(d_k)   std(q k^T / sqrt(d_k))")
for d_k, (q, k, _) in inputs.items():
    raw = q @ k.transpose(-2, -1)  # (B, H, L, L)
    scaled = raw / math.sqrt(d_k)
    assert 0.7 * math.sqrt(d_k) < raw.std() < 1.3 * math.sqrt(d_k)
    assert 0.7 < scaled.std() < 1.3
    print(f"{d_k:3d}   {raw.std():10.2f}   {math.sqrt(d_k):9.2f}   {scaled.std():22.2f}")

# %%
# The mistake, written with the package
# -------------------------------------
# :func:`mha.scaled_dot_product_attention` divides by ``sqrt(d_k)`` unless told otherwise;
# ``scale=1.0`` is the forgotten scale. Both return weights of the right shape, rows that
# sum to 1, and no warning: nothing but the values tells them apart.
q, k, v = inputs[512]
_, weights_scaled = mha.scaled_dot_product_attention(q, k, v)
_, weights_unscaled = mha.scaled_dot_product_attention(q, k, v, scale=1.0)

assert weights_scaled.shape == weights_unscaled.shape == (2, 8, 5, 5)
ones = torch.ones(2, 8, 5, device=device)
torch.testing.assert_close(weights_unscaled.sum(dim=-1), ones)
torch.testing.assert_close(weights_scaled, torch.softmax(q @ k.transpose(-2, -1) / 512**0.5, -1))
torch.testing.assert_close(weights_unscaled, torch.softmax(q @ k.transpose(-2, -1), -1))
print("d_k = 512, batch 0, head 0, scaled weights:")
print(weights_scaled[0, 0].cpu().numpy().round(3))
print("d_k = 512, batch 0, head 0, unscaled weights:")
print(weights_unscaled[0, 0].cpu().numpy().round(3))

# %%
# Saturation and the gradient through the softmax
# -----------------------------------------------
# For each width we take the scores (the softmax input), apply the softmax and send the same
# fixed random gradient back from the weights. Per query row we record the largest weight,
# the entropy (``log 5 = 1.61`` for a uniform row, 0 for a one-hot row) and the norm of the
# gradient that reaches the scores, then take the median over the ``2 * 8 * 5 = 80`` rows.
# The softmax's Jacobian ``diag(p) - p p^T`` is zero for a one-hot ``p``: a saturated row
# passes almost no gradient back to the queries and keys.
upstream = torch.randn(B, H, L, L, device=device)  # d loss / d weights, the same for all


def softmax_stats(q, k, scale):
    """Median over query rows of max weight, entropy and gradient norm at the scores."""
    scores = (q @ k.transpose(-2, -1) * scale).requires_grad_()  # (B, H, L, S)
    weights = torch.softmax(scores, dim=-1)  # (B, H, L, S)
    weights.backward(upstream)
    entropy = -(weights * weights.clamp_min(1e-30).log()).sum(dim=-1)  # (B, H, L)
    grad_norm = scores.grad.norm(dim=-1)  # (B, H, L)
    rows = (weights.max(dim=-1).values, entropy, grad_norm)
    return [row.detach().median().item() for row in rows]


stats = {"scaled": {}, "unscaled": {}}
for d_k, (q, k, _) in inputs.items():
    stats["scaled"][d_k] = softmax_stats(q, k, 1 / math.sqrt(d_k))
    stats["unscaled"][d_k] = softmax_stats(q, k, 1.0)

print("        max weight        entropy           grad norm at scores")
print("d_k     scaled  unscaled  scaled  unscaled  scaled    unscaled")
for d_k in widths:
    (p_s, h_s, g_s), (p_u, h_u, g_u) = stats["scaled"][d_k], stats["unscaled"][d_k]
    print(f"{d_k:3d}     {p_s:6.3f}  {p_u:8.3f}  {h_s:6.3f}  {h_u:8.3f}  {g_s:8.2e}  {g_u:8.2e}")

# %%
# What the numbers show
# ---------------------
# Scaled, the typical row looks the same at every width: largest weight below 0.6, entropy
# above 1, gradient norm within a factor 1.5 of its value at ``d_k = 8``. Unscaled, the
# largest weight climbs towards 1 and the entropy towards 0 as ``d_k`` grows; at
# ``d_k = 512`` the typical row is one-hot (largest weight above 0.99) and the gradient at
# the scores is more than 100 times smaller than with the scale.
g_s8 = stats["scaled"][8][2]  # gradient norm at the scores, scaled, d_k = 8
for d_k in widths:
    p_s, h_s, g_s = stats["scaled"][d_k]
    assert p_s < 0.6
    assert h_s > 1.0
    assert g_s8 / 1.5 < g_s < g_s8 * 1.5

p_u = [stats["unscaled"][d_k][0] for d_k in widths]  # largest weight, d_k = 8 .. 512
h_u = [stats["unscaled"][d_k][1] for d_k in widths]  # entropy
g_u = [stats["unscaled"][d_k][2] for d_k in widths]  # gradient norm at the scores
assert p_u[0] < p_u[3] < p_u[-1]  # d_k = 8 < 64 < 512: the largest weight grows
assert h_u[0] > h_u[3] > h_u[-1]  # and the entropy falls
assert p_u[-1] > 0.99
assert h_u[-1] < 0.05
g_scaled_512 = stats["scaled"][512][2]
assert g_u[-1] * 100 < g_scaled_512
print(f"d_k = 512: gradient at the scores {g_scaled_512 / g_u[-1]:.0f} times smaller unscaled")

# %%
# Plot
# ----
# The three medians against ``d_k`` (log scales for the width and the gradient).
fig, axes = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True, layout="constrained")
titles = ["largest weight in a row", "entropy of a row", "gradient norm at the scores"]
for index, (ax, title) in enumerate(zip(axes, titles, strict=True)):
    for label, style in (("scaled", "o-"), ("unscaled", "s--")):
        ax.plot(widths, [stats[label][d][index] for d in widths], style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_xticks(widths, [str(d) for d in widths])
    ax.set_title(title, loc="left")
    ax.set_ylabel("median")
axes[-1].set_xlabel(r"head width $d_k$")
axes[0].set_ylim(0, 1.05)
axes[0].set_ylabel("median over\nthe 80 query rows")
axes[1].axhline(math.log(L), color="gray", linewidth=0.8, linestyle=":", label="uniform")
axes[1].set_ylim(bottom=0)
axes[2].set_yscale("log")
for ax in axes:  # legends beside the panels, off the data
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)

# %%
# Functions used: :func:`mha.scaled_dot_product_attention` (its ``scale`` argument),
# :func:`mha.get_device`.
