r"""
What two heads learn that one cannot
====================================

A task that needs two relations at once: at every position ``t`` the model must name the
token just before it (``t - 1``) *and* the first token of the sequence (position 0). We train
a tiny model, one :class:`mha.MultiHeadAttention` layer with two heads between token and
position embeddings and a linear readout, on CPU in a few seconds. Before training each head
spreads its attention evenly; after training one head looks at ``t - 1`` and the other at
position 0. Removing a head destroys exactly its relation and leaves the other intact. One
head of the same width, trained the same way, cannot hold both relations as well.
"""

# %%
# The task
# --------
#
# Sequences of ``T = 8`` tokens drawn uniformly from a vocabulary of 16. At position ``t``
# the readout gives two sets of 16 logits: one must name ``x[t - 1]`` ("previous"), the
# other ``x[0]`` ("first"). Attention is causal, so position ``t`` sees positions
# ``0 .. t``; we score positions ``t >= 2``, where the two relations point at different keys.
# Guessing scores a cross-entropy of ``log 16 = 2.77`` and an accuracy of ``1/16``.

import copy
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

import mha

torch.manual_seed(0)
device = mha.get_device()
VOCAB, T, E = 16, 8, 32
RELATIONS = ("previous", "first")


def sample(n, generator):
    return torch.randint(0, VOCAB, (n, T), generator=generator, device=device)  # (n, T)


def targets(x):
    """(n, T - 2) targets per relation, for positions t = 2 .. T - 1."""
    return {"previous": x[:, 1:-1], "first": x[:, :1].expand(-1, T - 2)}


test = sample(1024, torch.Generator(device=device).manual_seed(1234))  # held-out sequences
x = test[:3]
print(x)
print(targets(x)["previous"][0], targets(x)["first"][0])

# %%
# The model
# ---------
#
# Token embedding plus position embedding, one multi-head attention layer with a causal mask,
# and a linear readout of the attention output (no residual path: every bit of information
# about other positions has to come through the heads).


class TwoRelations(nn.Module):
    def __init__(self, num_heads):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, E, device=device)
        self.positions = nn.Embedding(T, E, device=device)
        self.attn = mha.MultiHeadAttention(E, num_heads, batch_first=True, device=device)
        self.readout = nn.Linear(E, 2 * VOCAB, device=device)
        self.register_buffer("mask", mha.causal_mask(T, device=device))  # (T, T), True = blocked

    def embed(self, x):
        return self.tokens(x) + self.positions.weight  # (n, T, E)

    def forward(self, x):
        h = self.embed(x)
        out, weights = self.attn(h, h, h, attn_mask=self.mask, average_attn_weights=False)
        logits = self.readout(out).view(*x.shape, 2, VOCAB)  # (n, T, relation, VOCAB)
        return logits, weights  # weights: (n, H, T, T)


def evaluate(logits, x):
    """Cross-entropy and accuracy per relation on positions t >= 2."""
    result = {}
    for i, name in enumerate(RELATIONS):
        pred = logits[:, 2:, i]  # (n, T - 2, VOCAB)
        target = targets(x)[name]
        loss = F.cross_entropy(pred.reshape(-1, VOCAB), target.reshape(-1)).item()
        accuracy = (pred.argmax(-1) == target).float().mean().item()
        result[name] = (loss, accuracy)
    return result


def attention_mass(weights):
    """Mean weight each head puts on key t - 1 and on key 0, over queries t >= 2."""
    t = torch.arange(2, T, device=weights.device)
    previous = weights[:, :, t, t - 1].mean(dim=(0, 2))  # (H,)
    first = weights[:, :, t, 0].mean(dim=(0, 2))  # (H,)
    return {"previous": previous, "first": first}


def train(model, seed=0, steps=150, batch=64):
    """Adam on fresh random batches; the same seed gives the same batches."""
    generator = torch.Generator(device=device).manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        x = sample(batch, generator)
        logits, _ = model(x)
        loss = sum(
            F.cross_entropy(logits[:, 1:, i].reshape(-1, VOCAB), y.reshape(-1))
            for i, y in enumerate((x[:, :-1], x[:, :1].expand(-1, T - 1)))
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model.eval(), losses


torch.manual_seed(0)
model = TwoRelations(num_heads=2)
untrained = copy.deepcopy(model).eval()

# %%
# Before training: attention is spread out
# ----------------------------------------
#
# With random parameters the scores are small, so each query spreads its weight over the
# ``t + 1`` keys it may see: neither head prefers ``t - 1`` or position 0.

with torch.no_grad():
    _, weights_before = untrained(test)
mass_before = attention_mass(weights_before)
for h in range(2):
    print(
        f"head {h}: mass on t-1 {mass_before['previous'][h]:.2f}, "
        f"on position 0 {mass_before['first'][h]:.2f}"
    )
assert weights_before.shape == (1024, 2, T, T)
assert all(m.max() < 0.4 for m in mass_before.values())

# %%
# Train
# -----
#
# 150 steps of Adam on batches of 64 fresh sequences. We tried seeds 0 to 7 of this setup: in
# every one the two heads split the relations between them, and the assertions below hold
# for all of them (which head takes which relation changes with the seed).

model, curve_two = train(model)
with torch.no_grad():
    logits, weights_after = model(test)
scores = evaluate(logits, test)
for name, (loss, accuracy) in scores.items():
    print(f"two heads, {name:8s}: loss {loss:.4f}, accuracy {accuracy:.3f}")
assert all(accuracy > 0.99 and loss < 0.05 for loss, accuracy in scores.values())

# %%
# After training: one head per relation
# -------------------------------------
#
# The attention mass of each head on key ``t - 1`` and on key 0. Each head now puts almost all
# of its weight on one relation and almost none on the other, and the two heads chose
# different relations.

mass_after = attention_mass(weights_after)
specialty = {}
for h in range(2):
    m_prev, m_first = mass_after["previous"][h].item(), mass_after["first"][h].item()
    specialty[h] = "previous" if m_prev > m_first else "first"
    print(f"head {h}: mass on t-1 {m_prev:.3f}, on position 0 {m_first:.3f} -> {specialty[h]}")
    assert max(m_prev, m_first) > 0.95
    assert min(m_prev, m_first) < 0.05
assert set(specialty.values()) == set(RELATIONS)

# %%
# **Figure.** Attention weights averaged over 1,024 test sequences, query position down,
# key position across, one column per head. Top: before training, a smooth causal triangle.
# Bottom: after training, one head is a sub-diagonal (``t - 1``), the other the first column
# (position 0).

fig, axes = plt.subplots(2, 2, figsize=(7, 6.5), layout="constrained")
for row, (label, w) in enumerate((("before", weights_before), ("after", weights_after))):
    for h in range(2):
        ax = axes[row, h]
        image = ax.imshow(w[:, h].mean(0).cpu(), vmin=0, vmax=1, cmap="viridis")
        ax.set(title=f"head {h}, {label} training", xlabel="key position", ylabel="query position")
fig.colorbar(image, ax=axes, shrink=0.8, label="mean attention weight")

# %%
# Ablation: remove one head at a time
# -----------------------------------
#
# To remove head ``h`` we zero its ``D``-wide slice of the concatenated heads, just before
# the output projection ``W^O``. We rebuild the forward pass from the lesson's steps to do it,
# and check first that with nothing removed it is the module's own output, and that removing a
# head is the same as zeroing that head's ``D`` columns of ``W^O``.

attn = model.attn
D = attn.head_dim
not_blocked = ~model.mask  # True = may attend: the convention of scaled_dot_product_attention


def forward_without(x, head=None):
    h = model.embed(x)
    q, k, v = mha.project_qkv(
        h, h, h, attn.q_weight, attn.k_weight, attn.v_weight, attn.q_bias, attn.k_bias, attn.v_bias
    )  # (n, T, E) each
    q, k, v = (mha.split_heads(t, attn.num_heads) for t in (q, k, v))  # (n, H, T, D)
    heads, _ = mha.scaled_dot_product_attention(q, k, v, attn_mask=not_blocked)  # (n, H, T, D)
    if head is not None:
        keep = torch.ones(attn.num_heads, 1, 1, device=x.device)
        keep[head] = 0.0
        heads = heads * keep  # (n, H, T, D), head `head` is zero
    out = mha.project(mha.merge_heads(heads), attn.out_proj.weight, attn.out_proj.bias)
    return model.readout(out).view(*x.shape, 2, VOCAB)


with torch.no_grad():
    torch.testing.assert_close(forward_without(test), logits)
    ablated = {}
    for h in range(2):
        ablated[h] = forward_without(test, head=h)
        zeroed = copy.deepcopy(model)
        zeroed.attn.out_proj.weight[:, h * D : (h + 1) * D] = 0.0
        torch.testing.assert_close(ablated[h], zeroed(test)[0])

# %%
# Each head carries one relation
# ------------------------------
#
# Without the head that looks at ``t - 1``, the "previous" loss jumps above chance
# (``log 16 = 2.77``) and its accuracy falls to guessing, while "first" stays perfect; and the
# other way round. So the two heads carry different relations, each needed for its own.

ablation = {h: evaluate(ablated[h], test) for h in range(2)}
print("  removed |  previous loss / acc |  first loss / acc")
print("     none | " + " | ".join(f"{scores[r][0]:9.3f} / {scores[r][1]:.2f}" for r in RELATIONS))
for h in range(2):
    cells = " | ".join(f"{ablation[h][r][0]:9.3f} / {ablation[h][r][1]:.2f}" for r in RELATIONS)
    print(f"   head {h} | {cells}")
chance = math.log(VOCAB)
for h, relation in specialty.items():
    other = "first" if relation == "previous" else "previous"
    loss_lost, accuracy_lost = ablation[h][relation]
    loss_kept, accuracy_kept = ablation[h][other]
    assert loss_lost > chance and accuracy_lost < 0.15  # its relation is gone
    assert loss_kept < 0.05 and accuracy_kept > 0.99  # the other is untouched

# %%
# **Figure.** Test loss per relation with nothing removed and with each head removed; the
# dashed line is the loss of guessing. Look at which bar jumps for each removed head.

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
conditions = {"none": scores, "head 0": ablation[0], "head 1": ablation[1]}
for i, relation in enumerate(RELATIONS):
    values = [c[relation][0] for c in conditions.values()]
    label = {"previous": "previous (key t-1)", "first": "first (key 0)"}[relation]
    ax.bar([j + 0.38 * i for j in range(3)], values, width=0.38, label=label)
ax.axhline(chance, color="gray", ls="--", label="guessing, log 16")
ax.set_xticks([j + 0.19 for j in range(3)], [f"removed: {c}" for c in conditions])
ax.set(ylabel="test cross-entropy", title="Ablating one head at a time")
ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)  # off the data

# %%
# One head of the same width
# --------------------------
#
# The same model with one head of width 32, trained with the same seed, steps and data. A
# single softmax must either pick one relation or share its weight between the two keys, and
# a shared weight mixes the two tokens. Over seeds 0 to 7 it shared its weight (0.42 to 0.47
# on each key) and reached 72 % to 93 % accuracy per relation, never above 86 % on its worse
# one; its total test loss stayed between 0.6 and 1.2 while two heads went below 0.001.

torch.manual_seed(0)
one_head, curve_one = train(TwoRelations(num_heads=1))
with torch.no_grad():
    logits_one, weights_one = one_head(test)
scores_one = evaluate(logits_one, test)
mass_one = attention_mass(weights_one)
for name, (loss, accuracy) in scores_one.items():
    print(f"one head, {name:8s}: loss {loss:.4f}, accuracy {accuracy:.3f}")
print(f"one head: mass on t-1 {mass_one['previous'][0]:.2f}, on 0 {mass_one['first'][0]:.2f}")
total_two = sum(loss for loss, _ in scores.values())
total_one = sum(loss for loss, _ in scores_one.values())
print(f"total test loss: two heads {total_two:.4f}, one head {total_one:.4f}")
assert total_two < 0.001
assert total_one > 0.5
assert min(accuracy for _, accuracy in scores_one.values()) < 0.86  # its worse relation
assert all(0.4 < m[0] < 0.5 for m in mass_one.values())  # shared, not chosen

# %%
# **Figure.** Training loss (sum over both relations) per step. Look at where each curve
# ends: two heads reach zero, one head stalls.

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.semilogy(curve_two, label="2 heads of width 16")
ax.semilogy(curve_one, label="1 head of width 32")
ax.set(xlabel="training step", ylabel="training loss (both relations)", title="Same width")
ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)  # off the data

# %%
# Functions used: :class:`mha.MultiHeadAttention`, :func:`mha.causal_mask`,
# :func:`mha.project_qkv`, :func:`mha.split_heads`, :func:`mha.scaled_dot_product_attention`,
# :func:`mha.merge_heads`, :func:`mha.project`.
