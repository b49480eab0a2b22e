r"""
view to (B, H, L, D) without the transpose
==========================================

``q.view(B, H, L, D)`` has the right shape, ``(2, 8, 5, 8)``, and raises nothing, but it is
not the split into heads. ``view`` cuts memory in order: the 64 features of token 0, then
those of token 1, and so on, so the first "head" gets the first 40 numbers, all from token
0, the second gets the rest of token 0 and the start of token 1. The correct split views
``(B, L, H, D)`` and then swaps ``L`` and ``H``. We tag every slice of 8 features with its
``(token, head)``, show where each slice ends up, and check that attention computed on the
scrambled heads is wrong: a token can no longer see most of the sequence.
"""

# %%
# Tag every slice with its token and head
# ---------------------------------------
#
# In the lesson's ``(B, L, E) = (2, 5, 64)`` tensor, features ``8 h .. 8 h + 7`` of token
# ``t`` belong to head ``h``. We fill them with the number ``10 t + h`` so that, after any
# view, each 8-number slice tells where it came from.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()

B, L, E, H = 2, 5, 64, 8
D = E // H
token = torch.arange(L, device=device)[:, None]  # (L, 1)
head = torch.arange(E, device=device)[None, :] // D  # (1, E)
tags = (10 * token + head).float().expand(B, L, E).contiguous()  # (B, L, E)
assert tags[0, 3, 8 * 2] == 32  # token 3, head 2

# %%
# The wrong split and the right one
# ---------------------------------
#
# Both have shape ``(B, H, L, D)``; only one is correct.

wrong = tags.view(B, H, L, D)  # no transpose
right = mha.split_heads(tags, H)  # view (B, L, H, D), then transpose
assert wrong.shape == right.shape == (2, 8, 5, 8)
assert not torch.equal(wrong, right)

wrong_tags = wrong[0, :, :, 0].long()  # (H, L): the tag of each slice, batch element 0
right_tags = right[0, :, :, 0].long()  # (H, L)
for w in (wrong, right):  # each 8-number slice holds one tag
    assert torch.equal(w, w[..., :1].expand_as(w))

# %%
# Where every slice ends up
# -------------------------
#
# Correct: position ``l`` of head ``h`` is token ``l``'s slice ``h``. Wrong: ``view`` fills
# ``(H, L)`` in memory order, so position ``l`` of "head" ``h`` is slice number ``5 h + l``
# of the flat sequence, that is token ``(5 h + l) // 8`` and head ``(5 h + l) % 8``.

for h in range(H):
    for pos in range(L):
        assert right_tags[h, pos] == 10 * pos + h
        t, hh = divmod(5 * h + pos, 8)
        assert wrong_tags[h, pos] == 10 * t + hh


def describe(tag_row):
    return "  ".join(f"t{int(tag) // 10}h{int(tag) % 10}" for tag in tag_row)


print("position:      " + "  ".join(f"{pos:<4d}" for pos in range(L)))
for h in range(H):
    print(f"right head {h}:  {describe(right_tags[h])}")
for h in range(H):
    print(f"wrong head {h}:  {describe(wrong_tags[h])}")

# %%
# What the scrambled heads contain
# --------------------------------
#
# Wrong "head" 0 holds five slices of token 0 alone (its heads 0 to 4): as a sequence of
# length 5 it has one token in it. "Head" 1 holds token 0's heads 5, 6, 7 and token 1's heads
# 0, 1: two tokens, five different head slices. Four of the eight wrong heads mix two tokens;
# none holds all five tokens, as every correct head does.

wrong_tokens = wrong_tags // 10  # (H, L)
assert wrong_tags[0].tolist() == [0, 1, 2, 3, 4]  # t0h0 .. t0h4
assert wrong_tags[1].tolist() == [5, 6, 7, 10, 11]  # t0h5 t0h6 t0h7 t1h0 t1h1
tokens_per_head = [len(set(row.tolist())) for row in wrong_tokens]
assert tokens_per_head == [1, 2, 1, 2, 2, 1, 2, 1]
for h in range(H):
    assert (right_tags[h] // 10).tolist() == [0, 1, 2, 3, 4]
print(f"tokens in each wrong head: {tokens_per_head}")

# %%
# Attention on the scrambled heads
# --------------------------------
#
# The full computation with the same projections, once with :func:`mha.split_heads` and
# :func:`mha.merge_heads`, once with the transpose-free views both ways (so that the shapes
# come back right). The outputs differ.

w_q, w_k, w_v = torch.randn(3, E, E, device=device) / E**0.5
x = torch.randn(B, L, E, device=device)  # (B, L, E)


def attend_right(x):
    q, k, v = (mha.project(x, w) for w in (w_q, w_k, w_v))  # (B, L, E)
    heads = [mha.split_heads(t, H) for t in (q, k, v)]  # (B, H, L, D)
    context, _ = mha.scaled_dot_product_attention(*heads)  # (B, H, L, D)
    return mha.merge_heads(context)  # (B, L, E)


def attend_wrong(x):
    q, k, v = (mha.project(x, w) for w in (w_q, w_k, w_v))  # (B, L, E)
    heads = [t.view(B, H, L, D) for t in (q, k, v)]  # (B, H, L, D), scrambled
    context, _ = mha.scaled_dot_product_attention(*heads)  # (B, H, L, D)
    return context.view(B, L, E)  # (B, L, E)


out_right, out_wrong = attend_right(x), attend_wrong(x)
assert out_right.shape == out_wrong.shape == (2, 5, 64)
assert not torch.allclose(out_right, out_wrong)
print(f"largest difference of the outputs: {(out_right - out_wrong).abs().max():.3f}")

# %%
# Token 0 no longer sees the sequence
# -----------------------------------
#
# Token 0's output is the first 64 numbers of the context: wrong heads 0 and 1 (positions
# 0 to 4 and 0 to 2), which contain only tokens 0 and 1. Changing tokens 2, 3 and 4
# therefore leaves token 0's output unchanged in the wrong version, while in the correct one
# every token attends to every other and token 0's output moves.

x_changed = x.clone()
x_changed[:, 2:] = torch.randn(B, L - 2, E, device=device)  # tokens 2, 3, 4 change

torch.testing.assert_close(attend_wrong(x_changed)[:, 0], out_wrong[:, 0])
assert not torch.allclose(attend_right(x_changed)[:, 0], out_right[:, 0])
print("wrong: token 0 unchanged when tokens 2, 3, 4 change; right: token 0 changes")

# %%
# Picture
# -------
#
# Batch element 0: which token fills each (head, position) slot, labelled with its
# ``(token, head)`` tag.

fig, axes = plt.subplots(1, 2, figsize=(7, 4.8), layout="constrained", sharey=True)
panels = [("mha.split_heads(x, 8)", right_tags), ("x.view(B, H, L, D)", wrong_tags)]
for ax, (title, tag_grid) in zip(axes, panels, strict=True):
    ax.imshow((tag_grid // 10).cpu(), cmap="tab10", vmin=0, vmax=9)
    for h in range(H):
        for pos in range(L):
            tag = int(tag_grid[h, pos])
            ax.text(pos, h, f"t{tag // 10}h{tag % 10}", ha="center", va="center", fontsize=10)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("position in the head")
    ax.set_xticks(range(L))
    ax.set_yticks(range(H))
axes[0].set_ylabel("head")
fig.suptitle("colour = source token", fontsize=10)

# %%
# Functions used: :func:`mha.split_heads`, :func:`mha.merge_heads`,
# :func:`mha.project`, :func:`mha.scaled_dot_product_attention`, :func:`mha.get_device`.
