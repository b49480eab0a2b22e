r"""
The input: a batch of token vectors
===================================

Multi-head attention starts from one tensor ``x`` of shape ``(2, 5, 64)``: a batch of 2
sequences, each of 5 tokens, each token a vector of 64 numbers. This example builds it from
token ids, gives its three axes the letters ``B``, ``L`` and ``E`` used on every page, and
checks what indexing along each axis returns.
"""

import torch

import mha

# sphinx_gallery_thumbnail_path = "_static/thumbnails/shapes_01_inputs.png"

torch.manual_seed(0)
device = mha.get_device()


def show(name, tensor, letters):
    """Print a tensor's shape beside its dimension letters, its strides and contiguity."""
    print(
        f"{name:<18} {tuple(tensor.shape)!s:<14} {letters:<14} "
        f"stride {tensor.stride()!s:<16} contiguous={tensor.is_contiguous()}"
    )


# %%
# The sizes of the lesson
# -----------------------
#
# Every example in this gallery uses the same small sizes: a batch of ``B = 2`` sequences of
# ``L = 5`` tokens, a model width ``E = 64`` (``d_model`` in the paper) and ``H = 8`` heads.
# Each head then works on ``D = E // H = 8`` numbers per token (``d_k`` in the paper);
# :func:`mha.check_heads` computes it and refuses a head count that does not divide ``E``.

B, L, E, H = 2, 5, 64, 8
D = mha.check_heads(E, H)
assert D == 8
print(f"B={B}  L={L}  E={E}  H={H}  D=E/H={D}")
try:
    mha.check_heads(E, 6)  # 6 does not divide 64
except ValueError as err:
    print(f"6 heads: {err}")
else:
    raise AssertionError("6 heads should be refused")

# %%
# From token ids to vectors
# -------------------------
#
# A sentence reaches the model as integers, one per token: a ``(B, L)`` tensor of ids. An
# embedding table of shape ``(vocabulary, E)`` turns each id into a row of 64 numbers, so
# the ids ``(2, 5)`` become the input ``x`` of shape ``(2, 5, 64)``.

vocabulary = 10
token_ids = torch.randint(vocabulary, (B, L), device=device)  # (B, L)
embedding = torch.nn.Embedding(vocabulary, E, device=device)  # weight (vocabulary, E)
x = embedding(token_ids)  # (B, L, E)

assert token_ids.shape == (2, 5)
assert embedding.weight.shape == (10, 64)
assert x.shape == (2, 5, 64)
show("token_ids", token_ids, "(B, L)")
show("embedding.weight", embedding.weight, "(vocabulary, E)")
show("x", x, "(B, L, E)")

# %%
# Each token's vector is simply a row of the table: token ``l`` of sequence ``b`` is row
# ``token_ids[b, l]``.

for b in range(B):
    for t in range(L):
        assert torch.equal(x[b, t], embedding.weight[token_ids[b, t]])

# %%
# What each axis means
# --------------------
#
# Indexing one axis removes it and leaves the others:
#
# * ``x[b]`` is one whole sequence, ``(L, E) = (5, 64)``;
# * ``x[b, t]`` is one token's vector, ``(E,) = (64,)``;
# * ``x[:, t]`` is token ``t`` of every sequence, ``(B, E) = (2, 64)``;
# * ``x[..., e]`` is feature ``e`` of every token, ``(B, L) = (2, 5)``.

show("x[0]", x[0], "(L, E)")
show("x[0, 2]", x[0, 2], "(E,)")
show("x[:, 2]", x[:, 2], "(B, E)")
show("x[..., 0]", x[..., 0], "(B, L)")

assert x[0].shape == (5, 64)
assert x[0, 2].shape == (64,)
assert x[:, 2].shape == (2, 64)
assert x[..., 0].shape == (2, 5)

# %%
# Naming the axes once
# --------------------
#
# The code in :mod:`mha` unpacks the shape into letters once and tags every later tensor
# with the letters of its shape, as in ``# (B, H, L, D)``. The same letters appear in the
# shape table at the end of this gallery and in every docstring.

B, L, E = x.shape  # (B, L, E)
assert (B, L, E) == (2, 5, 64)
letters = {"B": "batch", "L": "target (query) length", "E": "model width d_model"}
for letter, size in zip(letters, x.shape, strict=True):
    print(f"{letter} = {size:2d}  {letters[letter]}")

# %%
# Query, key and value are the same tensor here
# ---------------------------------------------
#
# In *self*-attention the sequence attends to itself: ``query``, ``key`` and ``value`` are
# all ``x``, so the source length ``S`` (keys and values) equals the target length ``L``.
# In cross-attention the keys and values come from another sequence, with its own ``S``.

query = key = value = x
S = key.shape[1]
assert query is key is value
assert S == L == 5

# %%
# Batch first, or sequence first
# ------------------------------
#
# The lesson writes ``(B, L, E)``. :class:`torch.nn.MultiheadAttention` (and its twin
# :class:`mha.MultiHeadAttention`) expect ``(L, B, E)`` unless ``batch_first=True``. The
# same data in that layout is a transpose of the first two axes:

x_seq_first = x.transpose(0, 1)  # (L, B, E)
assert x_seq_first.shape == (5, 2, 64)
assert torch.equal(x_seq_first[3, 1], x[1, 3])
show("x.transpose(0, 1)", x_seq_first, "(L, B, E)")

attn = mha.MultiHeadAttention(E, H, batch_first=True, device=device)
out, _ = attn(x, x, x)
assert out.shape == x.shape == (2, 5, 64)

# %%
# Functions used: :func:`mha.get_device`, :func:`mha.check_heads`,
# :class:`mha.MultiHeadAttention`. Next: the query, key and value projections.
