r"""
Attention in one line: F.scaled_dot_product_attention
=====================================================

Step 4 of the lesson, ``softmax(Q K^T / sqrt(d_k)) V``, is one call in PyTorch:
:func:`torch.nn.functional.scaled_dot_product_attention`. We check that it gives the output
of the explicit step :func:`mha.scaled_dot_product_attention`, with and without a causal mask
(``is_causal=True`` against the same mask written out), and then show the trap between the
two PyTorch APIs: for a boolean mask, ``True`` means *may attend* in
``F.scaled_dot_product_attention`` but *blocked* in :class:`torch.nn.MultiheadAttention`.
"""

# %%
# One line against the explicit step
# ----------------------------------
#
# Queries, keys and values already split into heads: ``(B, H, L, D) = (2, 8, 5, 8)``. The
# fused function returns only the output; the explicit step also returns the weights it
# computed on the way, ``(B, H, L, S)``.

import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import mha

torch.manual_seed(0)
device = mha.get_device()

q, k, v = torch.randn(3, 2, 8, 5, 8, device=device).unbind(0)  # (B, H, L, D) each

out_fused = F.scaled_dot_product_attention(q, k, v)  # (B, H, L, D)
out_explicit, weights = mha.scaled_dot_product_attention(q, k, v)  # (B, H, L, D), (B, H, L, S)

assert out_fused.shape == out_explicit.shape == (2, 8, 5, 8)
assert weights.shape == (2, 8, 5, 5)
torch.testing.assert_close(out_fused, out_explicit)

# the formula itself, written out
by_hand = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1) @ v
torch.testing.assert_close(by_hand, out_explicit)
print(f"F.scaled_dot_product_attention == explicit step: {tuple(out_fused.shape)}")

# %%
# With a causal mask
# ------------------
#
# ``is_causal=True`` lets query ``i`` see keys ``0..i`` only. Written out, that is a boolean
# ``(L, S)`` mask that is ``True`` on and below the diagonal: in this function's convention
# ``True`` marks the pairs that *may attend*. Both ways, fused and explicit, agree, and the
# weights above the diagonal are zero.

allowed = torch.ones(5, 5, dtype=torch.bool, device=device).tril()  # (L, S), True = may attend
print(allowed.int().cpu())

causal_fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
causal_fused_mask = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
causal_explicit, causal_weights = mha.scaled_dot_product_attention(q, k, v, is_causal=True)
causal_explicit_mask, _ = mha.scaled_dot_product_attention(q, k, v, attn_mask=allowed)

torch.testing.assert_close(causal_fused_mask, causal_fused)
torch.testing.assert_close(causal_explicit, causal_fused)
torch.testing.assert_close(causal_explicit_mask, causal_fused)
assert causal_weights[..., ~allowed].eq(0).all()
torch.testing.assert_close(causal_weights.sum(-1), torch.ones(2, 8, 5, device=device))

# %%
# The same mask in the other convention
# -------------------------------------
#
# :func:`mha.causal_mask` builds the same mask in the *other* convention, that of
# :class:`torch.nn.MultiheadAttention`: ``True`` marks the blocked pairs, above the diagonal.
# It is the negation of ``allowed``.

blocked_causal = mha.causal_mask(5, device=device)  # (L, S), True = blocked
assert torch.equal(blocked_causal, ~allowed)
print(blocked_causal.int().cpu())

# %%
# One mask, two meanings
# ----------------------
#
# Take a mask that is ``True`` on the last two keys. :class:`torch.nn.MultiheadAttention`
# reads it as "block keys 3 and 4": each query attends to keys 0-2.
# ``F.scaled_dot_product_attention`` reads the same tensor as "attend to keys 3 and 4 only".

mask = torch.zeros(5, 5, dtype=torch.bool, device=device)
mask[:, 3:] = True  # (L, S)

module = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)
out_module, weights_module = module(x, x, x, attn_mask=mask, average_attn_weights=False)
assert weights_module[..., 3:].eq(0).all()  # True = blocked
assert weights_module[..., :3].gt(0).all()

# %%
# Rebuilding the module with the fused function
# ---------------------------------------------
#
# Now the module's computation rebuilt by hand, with the fused function for step 4. Passing
# ``mask`` as it is gives a different result; passing ``~mask`` gives the module's output.

W_Q, W_K, W_V = module.in_proj_weight.chunk(3)
b_Q, b_K, b_V = module.in_proj_bias.chunk(3)
Q, K, V = mha.project_qkv(x, x, x, W_Q, W_K, W_V, b_Q, b_K, b_V)  # (B, L, E) each
q_h, k_h, v_h = (mha.split_heads(t, 8) for t in (Q, K, V))  # (B, H, L, D) each


def finish(context):
    """Steps 4 and 5: merge heads, project out with the module's ``W^O``."""
    return mha.project(mha.merge_heads(context), module.out_proj.weight, module.out_proj.bias)


out_same_mask = finish(F.scaled_dot_product_attention(q_h, k_h, v_h, attn_mask=mask))
out_negated = finish(F.scaled_dot_product_attention(q_h, k_h, v_h, attn_mask=~mask))

assert not torch.allclose(out_same_mask, out_module)
torch.testing.assert_close(out_negated, out_module)
print(f"same mask, max difference: {(out_same_mask - out_module).abs().max():.3f}")
print(f"~mask,     max difference: {(out_negated - out_module).abs().max():.2e}")

# %%
# Where the weight went
# ---------------------
#
# The explicit step shows where the weight went. With ``mask`` read as *may attend*, keys
# 0-2 get nothing: the opposite of the module.

_, weights_same_mask = mha.scaled_dot_product_attention(q_h, k_h, v_h, attn_mask=mask)
assert weights_same_mask[..., :3].eq(0).all()
_, weights_negated = mha.scaled_dot_product_attention(q_h, k_h, v_h, attn_mask=~mask)
torch.testing.assert_close(weights_negated, weights_module)

fig, axes = plt.subplots(1, 2, figsize=(7, 3.6), sharey=True, layout="constrained")
panels = [
    ("nn.MultiheadAttention\nmask True = blocked", weights_module),
    ("F.scaled_dot_product_attention\nmask True = may attend", weights_same_mask),
]
for ax, (title, w) in zip(axes, panels, strict=True):
    image = ax.imshow(w[0, 0].detach().cpu(), vmin=0, vmax=1, cmap="viridis")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("key")
    ax.set_xticks(range(5))
    ax.set_yticks(range(5))
axes[0].set_ylabel("query")
fig.colorbar(image, ax=axes, shrink=0.8, label="weight (batch 0, head 0)")

# %%
# Functions used: :func:`mha.scaled_dot_product_attention`, :func:`mha.causal_mask`,
# :func:`mha.project_qkv`, :func:`mha.split_heads`, :func:`mha.merge_heads`,
# :func:`mha.project`, :func:`mha.get_device`; compared with
# :func:`torch.nn.functional.scaled_dot_product_attention` and
# :class:`torch.nn.MultiheadAttention`.
