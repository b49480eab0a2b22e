r"""
Exercise: from 8 heads to 4
===========================

The lesson's exercise: keep ``d_model = 64`` and the input ``(B, L, E) = (2, 5, 64)``, but use
4 heads instead of 8. What are the shapes of ``Q_heads``, ``attn_weights`` and the output, and
how many parameters does the layer have now? The worked answer, step by step, with every
shape asserted: each head becomes twice as wide (``d_k = 64 / 4 = 16``), there are half as
many attention matrices, the output is unchanged in shape, and the parameter count does not
change at all.
"""

# %%
# The question
# ------------
# Eight heads, as in the lesson: ``d_k = 64 / 8 = 8``. Four heads: ``d_k = 64 / 4 = 16``.
# :func:`mha.check_heads` computes the head width and refuses a head count that does not
# divide ``d_model``.
import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/exercise_01_eight_to_four.png"

torch.manual_seed(0)
device = mha.get_device()

assert mha.check_heads(64, 8) == 8
assert mha.check_heads(64, 4) == 16
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

# %%
# Step 1: project (unchanged)
# ---------------------------
# The projections map 64 to 64 whatever the head count: ``Q``, ``K``, ``V`` are
# ``(B, L, E) = (2, 5, 64)``. We use the weights of a 4-head module.
torch.manual_seed(0)
attn4 = mha.MultiHeadAttention(64, 4, batch_first=True, device=device)
Q, K, V = mha.project_qkv(
    x,
    x,
    x,
    attn4.q_proj.weight,
    attn4.k_proj.weight,
    attn4.v_proj.weight,
    attn4.q_proj.bias,
    attn4.k_proj.bias,
    attn4.v_proj.bias,
)
assert Q.shape == K.shape == V.shape == (2, 5, 64)

# %%
# Step 2: split into 4 heads of 16
# --------------------------------
# The 64 columns are cut into 4 blocks of 16: ``Q_heads`` is ``(B, H, L, D) = (2, 4, 5, 16)``
# instead of ``(2, 8, 5, 8)``. Head 1 is columns 16-31 of ``Q``.
Q_heads = mha.split_heads(Q, 4)  # (B, H, L, D)
K_heads = mha.split_heads(K, 4)  # (B, H, S, D)
V_heads = mha.split_heads(V, 4)  # (B, H, S, D)
assert Q_heads.shape == (2, 4, 5, 16)
assert K_heads.shape == V_heads.shape == (2, 4, 5, 16)
torch.testing.assert_close(Q_heads[:, 1], Q[:, :, 16:32])
print("Q_heads:", tuple(Q_heads.shape))

# %%
# Step 3: attend, 4 matrices of 5 x 5 per sequence
# ------------------------------------------------
# One ``(L, S)`` matrix per head: ``attn_weights`` is ``(B, H, L, S) = (2, 4, 5, 5)``. The
# scores are divided by ``sqrt(16) = 4`` now, not ``sqrt(8)``. The context per head is
# ``(2, 4, 5, 16)``.
scores = Q_heads @ K_heads.transpose(-2, -1) / 16**0.5  # (B, H, L, S)
attn_weights = torch.softmax(scores, dim=-1)  # (B, H, L, S)
context, weights_step = mha.scaled_dot_product_attention(Q_heads, K_heads, V_heads)

assert scores.shape == attn_weights.shape == (2, 4, 5, 5)
torch.testing.assert_close(weights_step, attn_weights)
torch.testing.assert_close(attn_weights.sum(-1), torch.ones(2, 4, 5, device=device))
assert context.shape == (2, 4, 5, 16)
print("attn_weights:", tuple(attn_weights.shape))

# %%
# Steps 4 and 5: merge and project out (unchanged)
# ------------------------------------------------
# Four heads of 16 concatenate back to 64: ``(2, 5, 64)``, and ``W^O`` keeps it there. The
# output has the shape of the input whatever the head count. The module gives the same
# numbers, and so does PyTorch's from the same seed.
concat = mha.merge_heads(context)  # (B, L, E)
output = mha.project(concat, attn4.out_proj.weight, attn4.out_proj.bias)  # (B, L, E)
assert concat.shape == output.shape == (2, 5, 64)

out_module, weights_module = attn4(x, x, x, average_attn_weights=False)
torch.testing.assert_close(out_module, output)
torch.testing.assert_close(weights_module, attn_weights)

torch.manual_seed(0)
theirs4 = torch.nn.MultiheadAttention(64, 4, batch_first=True, device=device)
out_t, weights_t = theirs4(x, x, x, average_attn_weights=False)
torch.testing.assert_close(out_t, output)
torch.testing.assert_close(weights_t, attn_weights)
print("output:", tuple(output.shape))

# %%
# The parameter count does not change
# -----------------------------------
# Every weight matrix is ``(64, 64)`` with 8 heads or 4: the heads are column blocks of the
# same matrices, not extra matrices. Four matrices and four biases, ``4 * 64 * 64 + 4 * 64 =
# 16640`` parameters, either way. From the same seed the parameters are even identical; only
# the way the columns are grouped differs, and with it the output.
torch.manual_seed(0)
attn8 = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)


def count(module):
    """Number of trainable numbers in a module."""
    return sum(p.numel() for p in module.parameters())


assert count(attn8) == count(attn4) == 4 * 64 * 64 + 4 * 64
for p8, p4 in zip(attn8.parameters(), attn4.parameters(), strict=True):
    assert p8.shape == p4.shape
    torch.testing.assert_close(p8, p4, atol=0, rtol=0)
print(f"parameters: 8 heads {count(attn8)}, 4 heads {count(attn4)}")

out8, weights8 = attn8(x, x, x, average_attn_weights=False)
assert weights8.shape == (2, 8, 5, 5)
assert out8.shape == output.shape
assert not torch.allclose(out8, output)

# %%
# The shape table for both
# ------------------------
# :func:`mha.trace_shapes` runs the same steps on shape-only tensors. Side by side, only the
# rows between the split and the merge differ: the head count ``H`` and the head width ``D``.
steps8 = mha.trace_shapes(batch=2, seq=5, d_model=64, heads=8)
steps4 = mha.trace_shapes(batch=2, seq=5, d_model=64, heads=4)
print("8 heads\n" + mha.format_shape_table(steps8))
print("\n4 heads\n" + mha.format_shape_table(steps4))

shapes8 = {s.name: s.shape for s in steps8}
shapes4 = {s.name: s.shape for s in steps4}
changed = [name for name in shapes8 if shapes8[name] != shapes4[name]]
assert changed == ["Q_heads", "K_heads", "V_heads", "scores", "attn_weights", "context"]
assert shapes4["Q_heads"] == (2, 4, 5, 16)
assert shapes4["attn_weights"] == (2, 4, 5, 5)
assert shapes4["output"] == shapes8["output"] == (2, 5, 64)
for name in changed:
    print(f"{name:12} {shapes8[name]!s:14} -> {shapes4[name]}")

# %%
# Functions used: :func:`mha.check_heads`, :func:`mha.project_qkv`, :func:`mha.split_heads`,
# :func:`mha.scaled_dot_product_attention`, :func:`mha.merge_heads`, :func:`mha.project`,
# :class:`mha.MultiHeadAttention`, :func:`mha.trace_shapes`, :func:`mha.format_shape_table`,
# :func:`mha.get_device`.
