r"""
Masks step by step: broadcasting, polarity and empty rows
=========================================================

A causal mask and a padding mask meet in one additive ``(B, H, L, S)`` mask before the
softmax. This example builds that mask by hand and checks it against what
:class:`torch.nn.MultiheadAttention` and :class:`mha.MultiHeadAttention` do with
``key_padding_mask`` of shape ``(B, S)`` and ``attn_mask`` of shape ``(L, S)`` or
``(B*H, L, S)``. Then it reproduces two classic bugs: a boolean mask with the wrong polarity
(``True`` means *blocked* in ``nn.MultiheadAttention`` but *may attend* in
:func:`torch.nn.functional.scaled_dot_product_attention`), and a query whose every key is
masked, which gives NaN on one path and zeros on the other. Each bug is caught by a check and
fixed.
"""

# %%
# Setup
# -----
#
# The lesson's sizes: batch 2, sequences of 5 tokens, ``d_model = 64``, 8 heads. The same
# seed gives PyTorch's module and ours the same parameters. The second sequence is *left*
# padded: its first two tokens are padding, as in batched generation.

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import mha

torch.manual_seed(0)
device = mha.get_device()
B, L, E, H = 2, 5, 64, 8
S = L
theirs = torch.nn.MultiheadAttention(E, H, batch_first=True, device=device)
ours = mha.MultiHeadAttention.from_torch(theirs)
x = torch.randn(B, L, E, device=device)

padding = torch.zeros(B, S, dtype=torch.bool, device=device)  # (B, S), True = padding key
padding[1, :2] = True
causal = mha.causal_mask(L, device=device)  # (L, S), True = blocked
print(padding)
print(causal)

# %%
# How the two masks broadcast
# ---------------------------
#
# Both modules turn a boolean mask into ``-inf`` where it is ``True`` and ``0`` elsewhere,
# then add it to the ``(B, H, L, S)`` scores. ``key_padding_mask`` is per batch item and per
# key: it becomes ``(B, 1, 1, S)``, the same for every head and every query. ``attn_mask`` of
# shape ``(L, S)`` is per query and key: it becomes ``(1, 1, L, S)``, the same for every batch
# item and head. Their sum broadcasts to ``(B, 1, L, S)``.

pad_add = mha.additive_mask(padding, x.dtype)[:, None, None, :]  # (B, 1, 1, S)
causal_add = mha.additive_mask(causal, x.dtype)[None, None]  # (1, 1, L, S)
combined = pad_add + causal_add  # (B, 1, L, S)
assert pad_add.shape == (B, 1, 1, S)
assert causal_add.shape == (1, 1, L, S)
assert combined.shape == (B, 1, L, S)

# The same mask, one entry at a time: key j is blocked for query i of item b when it is in
# the future (j > i) or padding.
explicit = torch.zeros(B, 1, L, S, device=device)
for b in range(B):
    for i in range(L):
        for j in range(S):
            if j > i or padding[b, j]:
                explicit[b, 0, i, j] = float("-inf")
torch.testing.assert_close(combined, explicit)
print(combined[1, 0])

# %%
# The modules apply exactly that mask
# -----------------------------------
#
# Run both modules with the two masks and compare their per-head weights with attention
# computed from our hand-built mask: the same numbers, and exact zeros wherever the mask is
# ``-inf``. (Rows 0 and 1 of the second item are NaN: those queries have no key left. We
# come back to them below and leave them out here.)

kwargs = {"key_padding_mask": padding, "attn_mask": causal, "average_attn_weights": False}
with torch.no_grad():
    out_theirs, w_theirs = theirs(x, x, x, **kwargs)  # (B, L, E), (B, H, L, S)
    out_ours, w_ours = ours(x, x, x, **kwargs)
    q, k, v = mha.project_qkv(
        x, x, x, ours.q_weight, ours.k_weight, ours.v_weight, ours.q_bias, ours.k_bias, ours.v_bias
    )
    q, k, v = (mha.split_heads(t, H) for t in (q, k, v))  # (B, H, L, D)
    _, w_hand = mha.scaled_dot_product_attention(q, k, v, attn_mask=combined)  # (B, H, L, S)

has_key = (combined > float("-inf")).any(dim=-1).expand(B, H, L)  # (B, H, L)
assert w_theirs.shape == w_ours.shape == w_hand.shape == (B, H, L, S)
torch.testing.assert_close(w_ours[has_key], w_theirs[has_key])
torch.testing.assert_close(w_hand[has_key], w_theirs[has_key])
blocked = (combined == float("-inf")).expand(B, H, L, S)
assert (w_theirs[blocked & has_key[..., None]] == 0).all()
print(f"queries with no key left: {(~has_key[:, 0]).nonzero().tolist()}  (batch, query)")

# %%
# A different mask per head: ``(B*H, L, S)``
# ------------------------------------------
#
# A 3-D ``attn_mask`` gives every (batch item, head) pair its own mask. Its first dimension is
# batch-major: row ``b * H + h`` belongs to item ``b``, head ``h``, so ``view(B, H, L, S)``
# recovers the pairs. Here head ``h`` may look back at most ``h`` positions (a causal window
# of width ``h + 1``), the same for both items.

i, j = torch.arange(L, device=device)[:, None], torch.arange(S, device=device)[None, :]
windows = torch.stack([(j > i) | (j < i - h) for h in range(H)])  # (H, L, S), True = blocked
per_head = windows.repeat(B, 1, 1)  # (B*H, L, S), row b*H + h is windows[h]
assert per_head.shape == (B * H, L, S)
for b in range(B):
    for h in range(H):
        assert per_head[b * H + h].equal(windows[h])
        assert per_head.view(B, H, L, S)[b, h].equal(windows[h])

with torch.no_grad():
    w_theirs3 = theirs(x, x, x, attn_mask=per_head, average_attn_weights=False)[1]
    w_ours3 = ours(x, x, x, attn_mask=per_head, average_attn_weights=False)[1]
torch.testing.assert_close(w_ours3, w_theirs3)
assert (w_theirs3[per_head.view(B, H, L, S)] == 0).all()  # blocked pairs get no weight
assert (w_theirs3[~per_head.view(B, H, L, S)] > 0).all()  # every allowed pair gets some

# %%
# **Figure.** Top row: the combined padding + causal mask of each batch item (dark =
# blocked); in item 1 the first two columns are padding, so queries 0 and 1 have nothing
# left. Bottom row: the per-head windows of heads 0, 1 and 3 from the ``(B*H, L, S)`` mask.

fig, axes = plt.subplots(2, 3, figsize=(7, 5.4), sharex=True, sharey=True, layout="constrained")
panels = [
    (combined[0, 0] == 0, "item 0: causal + padding"),
    (combined[1, 0] == 0, "item 1: causal + padding"),
    (~causal, "causal alone, (L, S)"),
    (~windows[0], "head 0: window 1"),
    (~windows[1], "head 1: window 2"),
    (~windows[3], "head 3: window 4"),
]
for ax, (allowed, title) in zip(axes.flat, panels, strict=True):
    ax.imshow(allowed.float().cpu(), cmap="gray", vmin=0, vmax=1)
    ax.set_title(title, fontsize=10)
for ax in axes[1]:
    ax.set_xlabel("key position j")
for ax in axes[:, 0]:
    ax.set_ylabel("query position i")

# %%
# The polarity trap
# -----------------
#
# A lower-triangular ``True`` mask is the right causal mask for
# :func:`torch.nn.functional.scaled_dot_product_attention` (``True`` = may attend). Given to
# ``nn.MultiheadAttention``, where ``True`` = blocked, it does the opposite: query 0 sees only
# the future, and the last query sees nothing at all (NaN).

allowed = torch.ones(L, S, dtype=torch.bool, device=device).tril()  # True = may attend
with torch.no_grad():
    right, w_right = theirs(x, x, x, attn_mask=causal)
    wrong, w_wrong = theirs(x, x, x, attn_mask=allowed)  # the bug
print(w_wrong[0])
assert (w_wrong[:, 0, 0] == 0).all() and (w_wrong[:, 0, 1:] > 0).all()  # query 0 sees the future
assert w_wrong[:, -1].isnan().all()  # the last query has no key
assert not torch.allclose(wrong[:, :-1], right[:, :-1])

# %%
# A check that catches it: the future must not matter
# ---------------------------------------------------
#
# Whatever the polarity, a causal model's output at position ``t`` must not change when a
# later token changes. Change the last token and compare the outputs before it.


def sees_the_future(module, attn_mask):
    changed = x.clone()
    changed[:, -1] = torch.randn(B, E, device=device)
    with torch.no_grad():
        before = module(x, x, x, attn_mask=attn_mask, need_weights=False)[0]
        after = module(changed, changed, changed, attn_mask=attn_mask, need_weights=False)[0]
    return not torch.allclose(before[:, :-1], after[:, :-1])


assert sees_the_future(theirs, allowed)  # caught
assert sees_the_future(ours, allowed)
assert not sees_the_future(theirs, causal)

# The fix: flip the mask. ``~allowed`` is the blocked mask both modules expect.
fixed = ~allowed
assert fixed.equal(causal)
assert not sees_the_future(theirs, fixed) and not sees_the_future(ours, fixed)
with torch.no_grad():
    torch.testing.assert_close(theirs(x, x, x, attn_mask=fixed)[0], right)

# The other direction: our blocked mask given to F.scaled_dot_product_attention lets each
# query see only the future; its negation equals ``is_causal=True``.
reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, L, D)
flipped = F.scaled_dot_product_attention(q, k, v, attn_mask=causal)  # the bug
assert not torch.allclose(flipped[..., :-1, :], reference[..., :-1, :])
torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=~causal), reference)

# %%
# A query with no key: NaN or zeros
# ---------------------------------
#
# In the left-padded item, queries 0 and 1 may only see keys 0 and 1 (causal), and both are
# padding. Every score in their row is ``-inf``, and the softmax divides 0 by 0:

print(torch.softmax(torch.full((3,), float("-inf")), dim=-1))
assert torch.softmax(torch.full((3,), float("-inf")), dim=-1).isnan().all()

# %%
# The explicit path (``need_weights=True``) returns NaN for those rows, in weights and in
# output, in both modules. The fused path (``need_weights=False``, through
# :func:`torch.nn.functional.scaled_dot_product_attention`) returns a zero attention output
# instead, so after the output projection the row equals ``W^O``'s bias. We give the bias
# random values to make that visible.

with torch.no_grad():
    theirs.out_proj.bias.normal_()
    ours = mha.MultiHeadAttention.from_torch(theirs)
masks = {"key_padding_mask": padding, "attn_mask": causal}
empty = ~has_key[:, 0]  # (B, L): True for the queries with no key, item 1 queries 0 and 1
assert empty.nonzero().tolist() == [[1, 0], [1, 1]]
for name, module in (("torch", theirs), ("mha", ours)):
    with torch.no_grad():  # training mode, as both modules start
        explicit_out, explicit_w = module(x, x, x, need_weights=True, **masks)
        fused_out, _ = module(x, x, x, need_weights=False, **masks)
    assert explicit_out[empty].isnan().all() and explicit_w[empty].isnan().all()
    assert not explicit_out[~empty].isnan().any()
    bias = module.out_proj.bias.detach()  # (E,)
    torch.testing.assert_close(fused_out[empty], bias.expand(2, E))
    torch.testing.assert_close(fused_out[~empty], explicit_out[~empty])
    print(f"{name}: explicit row {explicit_out[1, 0, :3]}, fused row {fused_out[1, 0, :3]}")

# %%
# Not even the fused answer is guaranteed: in evaluation mode with gradients off,
# ``nn.MultiheadAttention`` switches to its own native "fast path", and on the CPU the same
# rows are NaN there again. Which of NaN and zeros you get is an accident of the code path.

theirs.eval()
with torch.no_grad():
    fast_out, _ = theirs(x, x, x, need_weights=False, **masks)
theirs.train()
print(f"torch fast path, {device.type}: row {fast_out[1, 0, :3]}")
if device.type == "cpu":
    assert fast_out[empty].isnan().all()

# %%
# The fix: every query keeps one key
# ----------------------------------
#
# Let each query always see its own position, padding or not: unblock the diagonal of the
# combined mask (given as a ``(B*H, L, S)`` ``attn_mask``). A padding query then attends to
# itself, a finite but meaningless row, which we zero with the padding mask of the queries
# (``padding`` is also the mask of the queries in self-attention). Real queries see exactly
# the keys they saw before, so their outputs do not change.

blocked = causal[None] | padding[:, None, :]  # (B, L, S), True = blocked
blocked = blocked & ~torch.eye(L, S, dtype=torch.bool, device=device)  # always see yourself
safe_mask = blocked.repeat_interleave(H, dim=0)  # (B*H, L, S), row b*H + h
assert safe_mask.view(B, H, L, S)[1, 0].equal(blocked[1])
assert (~safe_mask).any(dim=-1).all()  # every query keeps at least one key

with torch.no_grad():
    before, _ = theirs(x, x, x, **masks)
    results = []
    for module in (theirs, ours):
        for need_weights in (True, False):
            out, _ = module(x, x, x, attn_mask=safe_mask, need_weights=need_weights)
            out = out.masked_fill(padding[..., None], 0.0)  # drop the padding queries
            results.append(out)
for out in results:
    assert not out.isnan().any()
    torch.testing.assert_close(out[~empty], before[~empty])  # real queries unchanged
    assert (out[padding] == 0).all()
    torch.testing.assert_close(out, results[0])
print("no NaN; real queries unchanged; explicit, fused, torch and mha agree")

# %%
# Functions used: :func:`mha.causal_mask`, :func:`mha.additive_mask`,
# :func:`mha.project_qkv`, :func:`mha.split_heads`, :func:`mha.scaled_dot_product_attention`,
# :class:`mha.MultiHeadAttention` (``key_padding_mask``, ``attn_mask``, ``need_weights``).
