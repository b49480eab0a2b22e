r"""
Attention weights of every head, for any number of heads
========================================================

One heatmap per head shows which key (column) each query (row) attends to. The grid of
heatmaps is laid out by a small function from the number of heads alone, so the same code
draws 8 heads, 3 heads or 5 heads; unused cells of the grid are hidden. The input is the
short sentence "the cat sat on the mat" with random (seeded) word embeddings and an
untrained layer, so the patterns show the mechanics, not meaning. All heads share one colour
scale, shown by one colourbar.
"""

import math

import matplotlib.pyplot as plt
import numpy as np
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

# %%
# A grid of heatmaps for any head count
# -------------------------------------
#
# ``plot_heads`` takes the weights of one sequence, ``(H, L, S)``, and lays out
# ``ceil(H / cols)`` rows of ``cols`` heatmaps. Cells past the last head are hidden. The heads
# are numbered from 0, as the code indexes them: the map titled "head 3" is ``weights[3]``.
# Tick labels are the tokens: queries on the left edge of the grid, keys along the bottom of
# each column. One colour scale, from 0 to the largest weight of any head, makes the heads
# comparable.


def plot_heads(weights, query_tokens, key_tokens, cols=4, title=None):
    """Draw ``weights`` of shape (H, L, S) as a grid of heatmaps; return (figure, axes used)."""
    weights = weights.detach().cpu().numpy()
    num_heads = weights.shape[0]
    cols = min(cols, num_heads)
    rows = math.ceil(num_heads / cols)
    cell = min(2.4, 5.8 / cols)  # at most 7 in wide: the text column
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(cell * cols + 1.2, cell * rows + 0.4 * rows + 0.8),
        squeeze=False,
        layout="constrained",
        facecolor="white",
    )
    vmax = float(weights.max())
    used = []
    for index, ax in enumerate(axes.flat):
        if index >= num_heads:
            ax.set_visible(False)
            continue
        image = ax.imshow(weights[index], cmap="viridis", vmin=0.0, vmax=vmax)
        ax.set_title(f"head {index}")  # numbered as the code indexes: weights[index]
        ax.set_xticks(range(len(key_tokens)), key_tokens, rotation=90)
        ax.set_yticks(range(len(query_tokens)), query_tokens)
        if index % cols == 0:
            ax.set_ylabel("query")
        else:
            ax.tick_params(labelleft=False)
        if index + cols < num_heads:  # another head is drawn below this one
            ax.tick_params(labelbottom=False)
        else:
            ax.set_xlabel("key")
        used.append(ax)
    fig.colorbar(image, ax=used, label="attention weight", shrink=0.9)
    if title is not None:
        fig.suptitle(title)
    return fig, used


def check_grid(fig, used, weights, rows, cols):
    """Assert the grid draws head h's weights under the title "head h", one visible heatmap
    per head on one colour scale, every drawn row summing to 1, and the key labels only under
    the last head of each column."""
    num_heads = weights.shape[0]
    assert len(used) == num_heads
    heatmaps = [ax for ax in fig.axes if ax.get_visible() and ax.images]  # not the colourbar
    assert len(heatmaps) == num_heads
    hidden = [ax for ax in fig.axes if not ax.get_visible()]
    assert len(hidden) == rows * cols - num_heads
    assert [ax.get_title() for ax in used] == [f"head {h}" for h in range(num_heads)]
    vmax = weights.max().item()
    for h, ax in enumerate(used):
        drawn = np.asarray(ax.images[0].get_array())  # (L, S), the numbers behind the colours
        np.testing.assert_allclose(drawn, weights[h].cpu().numpy())  # head h is weights[h]
        np.testing.assert_allclose(drawn.sum(axis=-1), 1.0, rtol=1e-5)
        np.testing.assert_allclose(ax.images[0].get_clim(), (0.0, vmax))  # one colour scale
        assert (ax.get_xlabel() == "key") == (h + cols >= num_heads)


# %%
# The input: one short sentence
# -----------------------------
#
# Six tokens, five distinct words. Each word gets a random 64-wide embedding, so the input
# is ``(B, L, E) = (1, 6, 64)``. No positions are added: the layer sees a bag of words.

tokens = ["the", "cat", "sat", "on", "the", "mat"]
vocabulary = sorted(set(tokens))
assert len(tokens) == 6 and len(vocabulary) == 5
ids = torch.tensor([[vocabulary.index(t) for t in tokens]], device=device)  # (B, L)
print(f"tokens: {tokens}")


def attention_weights(d_model, num_heads):
    """Per-head weights (H, L, L) of an untrained self-attention layer on the sentence."""
    embedding = torch.nn.Embedding(len(vocabulary), d_model, device=device)
    attn = mha.MultiHeadAttention(d_model, num_heads, batch_first=True, device=device).eval()
    with torch.no_grad():
        x = embedding(ids)  # (B, L, E)
        _, weights = attn(x, x, x, average_attn_weights=False)  # (B, H, L, S)
    assert x.shape == (1, 6, d_model)
    assert weights.shape == (1, num_heads, len(tokens), len(tokens))
    return weights[0]  # (H, L, S)


# %%
# Eight heads: the lesson's ``d_model = 64, h = 8``
# -------------------------------------------------
#
# A 2 x 4 grid. Each row of each heatmap is one query's distribution over the keys, so it
# sums to 1; the check reads those sums back from the images as drawn.

weights_8 = attention_weights(64, 8)  # (H, L, S)
print(f"weights: {tuple(weights_8.shape)} (H, L, S)")
fig, used = plot_heads(weights_8, tokens, tokens, title="8 heads, d_model = 64")
check_grid(fig, used, weights_8, rows=2, cols=4)

# %%
# Both "the" tokens are the same word with no position, so they have the same query and the
# same key: their rows are equal in every head, and so are their columns.

first, second = 0, 4
assert tokens[first] == tokens[second] == "the"
torch.testing.assert_close(weights_8[:, first], weights_8[:, second])
torch.testing.assert_close(weights_8[:, :, first], weights_8[:, :, second])

# %%
# Three heads: ``d_model = 12, h = 3``
# ------------------------------------
#
# The same function, a different model: three heads of width 4 fit on one row.

weights_3 = attention_weights(12, 3)  # (H, L, S)
fig, used = plot_heads(weights_3, tokens, tokens, title="3 heads, d_model = 12")
check_grid(fig, used, weights_3, rows=1, cols=3)

# %%
# Five heads in rows of three: a hidden cell
# ------------------------------------------
#
# Five heads do not fill a 2 x 3 grid: the sixth cell is hidden rather than left as an
# empty frame, and the key labels move up to the head that ends its column.

weights_5 = attention_weights(20, 5)  # (H, L, S)
fig, used = plot_heads(weights_5, tokens, tokens, cols=3, title="5 heads, d_model = 20")
check_grid(fig, used, weights_5, rows=2, cols=3)

# %%
# Functions used: :class:`mha.MultiHeadAttention` (``average_attn_weights=False`` returns one
# ``(L, S)`` map per head), :func:`mha.get_device`.
