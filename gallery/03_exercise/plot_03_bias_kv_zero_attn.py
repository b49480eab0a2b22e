r"""
Exercise: add_bias_kv and add_zero_attn, two extra keys
=======================================================

:class:`torch.nn.MultiheadAttention` has two options that lengthen the key sequence.
``add_bias_kv=True`` appends one *learned* key and value, ``bias_k`` and ``bias_v``, to every
sequence; ``add_zero_attn=True`` appends a key and a value that are all zeros. With 5 keys,
the attention weights grow from ``(2, 5, 5)`` to ``(2, 5, 6)`` with one option and
``(2, 5, 7)`` with both. We rebuild both extra keys by hand, show that weight on the zero key
scales the output down, and check :class:`mha.MultiHeadAttention` against PyTorch's module
with the same options.
"""

# %%
# The key length: 5, 6, 7
# ------------------------
#
# Four modules from the same seed, with neither, one or both options. Each option adds one
# key, so the last dimension of the weights, ``S``, grows; the output stays ``(B, L, E)``.

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()
x = torch.randn(2, 5, 64, device=device)  # (B, L, E)

expected_s = {(False, False): 5, (True, False): 6, (False, True): 6, (True, True): 7}
for (bias_kv, zero_attn), s in expected_s.items():
    torch.manual_seed(0)
    attn = mha.MultiHeadAttention(
        64, 8, add_bias_kv=bias_kv, add_zero_attn=zero_attn, batch_first=True, device=device
    )
    out, weights = attn(x, x, x)
    assert out.shape == (2, 5, 64)
    assert weights.shape == (2, 5, s)
    print(
        f"add_bias_kv={bias_kv!s:5}  add_zero_attn={zero_attn!s:5}  weights {tuple(weights.shape)}"
    )

# %%
# Both keys, by hand
# ------------------
#
# With both options the module has two extra parameters, ``bias_k`` and ``bias_v`` of shape
# ``(1, 1, E)``. The learned key and value are appended *after* the projection, before the
# heads are split: key 5. The zero key and value are appended per head, after the split:
# key 6. Then attention runs as usual over 7 keys.

torch.manual_seed(0)
attn = mha.MultiHeadAttention(
    64, 8, add_bias_kv=True, add_zero_attn=True, batch_first=True, device=device
)
assert attn.bias_k.shape == attn.bias_v.shape == (1, 1, 64)

Q = mha.project(x, attn.q_weight, attn.q_bias)  # (B, L, E)
K = mha.project(x, attn.k_weight, attn.k_bias)  # (B, S, E)
V = mha.project(x, attn.v_weight, attn.v_bias)  # (B, S, E)
K = torch.cat([K, attn.bias_k.expand(2, 1, 64)], dim=1)  # (B, S + 1, E)
V = torch.cat([V, attn.bias_v.expand(2, 1, 64)], dim=1)  # (B, S + 1, E)
q, k, v = (mha.split_heads(t, 8) for t in (Q, K, V))  # (B, H, L, D), (B, H, 6, D) x 2
zeros = torch.zeros(2, 8, 1, 8, device=device)  # (B, H, 1, D)
k = torch.cat([k, zeros], dim=2)  # (B, H, 7, D)
v = torch.cat([v, zeros], dim=2)  # (B, H, 7, D)
assert k.shape == v.shape == (2, 8, 7, 8)

context, weights = mha.scaled_dot_product_attention(q, k, v)  # (B, H, L, D), (B, H, L, 7)
out = mha.project(mha.merge_heads(context), attn.out_proj.weight, attn.out_proj.bias)

out_module, weights_module = attn(x, x, x, average_attn_weights=False)
assert weights_module.shape == (2, 8, 5, 7)
torch.testing.assert_close(out_module, out)
torch.testing.assert_close(weights_module, weights)

# %%
# The zero key takes weight and gives nothing back
# ------------------------------------------------
#
# The zero key's score is ``q . 0 = 0`` for every query, so its weight is
# ``exp(0) / Z = 1 / Z``: never zero. Its value is zero, so it adds nothing to the context.
# The other weights all shrink by the factor ``1 - w_zero``, and so does the context: the
# context with the zero key is ``(1 - w_zero)`` times the context without it. Weight on the
# zero key is a way for a query to attend to "nothing" and scale its output down.

w_zero = weights[..., 6].detach()  # (B, H, L)
assert w_zero.gt(0).all()

context_no_zero, weights_no_zero = mha.scaled_dot_product_attention(
    q, k[:, :, :6], v[:, :, :6]
)  # attention over the 5 keys and the learned key only
torch.testing.assert_close(context, (1 - w_zero[..., None]) * context_no_zero)
torch.testing.assert_close(weights[..., :6], (1 - w_zero[..., None]) * weights_no_zero)

# %%
# The row where the zero key weighs most
# --------------------------------------
#
# The row where the zero key takes the most weight: its context vector is shorter than the
# one without the zero key by exactly that fraction.

b, h, i = (int(n) for n in torch.unravel_index(w_zero.argmax(), w_zero.shape))
row = weights[b, h, i].detach().cpu()
norm_with = float(context[b, h, i].detach().norm())
norm_without = float(context_no_zero[b, h, i].detach().norm())
assert norm_with < norm_without
print(f"batch {b}, head {h}, query {i}: weights over keys 0-4, bias key, zero key")
print(row.numpy().round(3))
print(f"zero key weight {row[6]:.3f}: context norm {norm_without:.3f} -> {norm_with:.3f}")

# %%
# The learned key
# ---------------
#
# The learned key works like any other key, except that it is the same for every sequence
# in the batch: its score depends on the query only. A query that puts weight on it receives
# that share of ``bias_v``. Each head sees its own 8-wide slice of ``bias_k``.

w_bias = weights[..., 5].detach()  # (B, H, L)
scores_bias = (q @ attn.bias_k.view(1, 8, 8, 1)) / 8**0.5  # (B, H, L, 1): q . bias_k per head
scores_all = (q @ k.transpose(-2, -1)) / 8**0.5  # (B, H, L, 7)
torch.testing.assert_close(scores_all[..., 5:6], scores_bias)
b, h, i = (int(n) for n in torch.unravel_index(w_bias.argmax(), w_bias.shape))
print(f"largest weight on the learned key: {w_bias[b, h, i]:.3f} (batch {b}, head {h}, query {i})")

# %%
# PyTorch's module with the same options
# --------------------------------------
#
# :meth:`~mha.MultiHeadAttention.from_torch` copies ``bias_k`` and ``bias_v`` too. Outputs
# and weights agree, per head and averaged, and with a ``key_padding_mask`` ``(B, S)`` on the
# 5 real keys (the extra keys are never padded).

theirs = torch.nn.MultiheadAttention(
    64, 8, add_bias_kv=True, add_zero_attn=True, batch_first=True, device=device
)
ours = mha.MultiHeadAttention.from_torch(theirs)
padding = torch.zeros(2, 5, dtype=torch.bool, device=device)
padding[1, 3:] = True  # the second sequence has only 3 real keys

for kwargs in ({}, {"average_attn_weights": False}, {"key_padding_mask": padding}):
    out_t, weights_t = theirs(x, x, x, **kwargs)
    out_o, weights_o = ours(x, x, x, **kwargs)
    torch.testing.assert_close(out_o, out_t)
    torch.testing.assert_close(weights_o, weights_t)
    options = ", ".join(kwargs) or "defaults"
    print(f"{options}: weights {tuple(weights_o.shape)} match")

_, weights_padded = ours(x, x, x, key_padding_mask=padding)
assert weights_padded[1, :, 3:5].eq(0).all()  # padded keys get nothing
assert weights_padded[1, :, 5:].gt(0).all()  # the extra keys still get weight

# %%
# The extreme case: every real key padded
# ---------------------------------------
#
# Without extra keys, a query whose every key is masked has no key to attend to and its
# softmax gives NaN. With ``add_zero_attn`` it attends to the zero key with weight 1: the
# context is zero and the output is just the output bias ``b_O``.

theirs_zero = torch.nn.MultiheadAttention(
    64, 8, add_zero_attn=True, batch_first=True, device=device
)
with torch.no_grad():
    theirs_zero.out_proj.bias.normal_()
ours_zero = mha.MultiHeadAttention.from_torch(theirs_zero)
all_padded = torch.ones(2, 5, dtype=torch.bool, device=device)

out_o, weights_o = ours_zero(x, x, x, key_padding_mask=all_padded)
out_t, weights_t = theirs_zero(x, x, x, key_padding_mask=all_padded)
torch.testing.assert_close(out_o, out_t)
torch.testing.assert_close(weights_o, weights_t)
torch.testing.assert_close(weights_o[..., 5], torch.ones(2, 5, device=device))
torch.testing.assert_close(out_o, ours_zero.out_proj.bias.expand(2, 5, 64))

theirs_plain = torch.nn.MultiheadAttention(64, 8, batch_first=True, device=device)
ours_plain = mha.MultiHeadAttention.from_torch(theirs_plain)
assert theirs_plain(x, x, x, key_padding_mask=all_padded)[0].isnan().all()
assert ours_plain(x, x, x, key_padding_mask=all_padded)[0].isnan().all()
print("all keys padded: zero key weight 1, output = b_O; without it: NaN")

# %%
# The picture
# -----------
#
# Top, the weights of the first sequence averaged over heads: five real keys, the learned
# key and the zero key. Bottom, the weight each head gives the zero key, per query.

labels = ["0", "1", "2", "3", "4", "bias", "zero"]
fig, (ax_avg, ax_zero) = plt.subplots(2, 1, figsize=(7, 6.4), layout="constrained")
image = ax_avg.imshow(weights[0].mean(0).detach().cpu(), vmin=0, cmap="viridis")
ax_avg.set_xticks(range(7), labels)
ax_avg.set_yticks(range(5))
ax_avg.set_xlabel("key")
ax_avg.set_ylabel("query")
ax_avg.set_title("weights, averaged over heads (batch 0)")
fig.colorbar(image, ax=ax_avg, shrink=0.8)
image = ax_zero.imshow(w_zero[0].detach().cpu(), vmin=0, cmap="magma")
ax_zero.set_xticks(range(5))
ax_zero.set_yticks(range(8))
ax_zero.set_xlabel("query")
ax_zero.set_ylabel("head")
ax_zero.set_title("weight on the zero key (batch 0)")
fig.colorbar(image, ax=ax_zero, shrink=0.8)

# %%
# Functions used: :class:`mha.MultiHeadAttention`,
# :meth:`mha.MultiHeadAttention.from_torch`, :attr:`mha.MultiHeadAttention.q_weight`,
# :func:`mha.project`, :func:`mha.split_heads`, :func:`mha.scaled_dot_product_attention`,
# :func:`mha.merge_heads`, :func:`mha.get_device`; compared with
# :class:`torch.nn.MultiheadAttention`.
