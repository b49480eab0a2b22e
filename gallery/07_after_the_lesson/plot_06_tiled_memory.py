r"""
Tiled attention: the memory it saves, the time it costs
=======================================================

:func:`mha.tiled_attention` computes the lesson's attention one block of keys at a time with
the online softmax of FlashAttention (Dao et al., 2022; tutorial page 8 walks through it by
hand). Here, measured: the largest tensor each way creates for one head from 512 to 8,192
tokens, drawn against the length; what autograd keeps when gradients are needed; and the time
against PyTorch's function and the lesson's step 4 on this machine.
"""

# %%
# The same output
# ---------------
#
# First, that both ways compute the same thing: one head of width 64 over 512 tokens, the
# lesson's step 4 against the loop in blocks of 128 keys.

import time

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import mha

torch.manual_seed(0)
device = mha.get_device()
C, D = 128, 64  # keys per block, head width
q, k, v = torch.randn(3, 1, 1, 512, D, device=device).unbind(0)  # (B, H, L, D) each
step_4, _ = mha.scaled_dot_product_attention(q, k, v)  # (B, H, L, D)
out = mha.tiled_attention(q, k, v, block_size=C)  # (B, H, L, D)
assert out.shape == step_4.shape == (1, 1, 512, D)
torch.testing.assert_close(out, step_4)

# %%
# Memory: the largest tensor each way creates
# -------------------------------------------
#
# :class:`mha.LargestTensor` watches every operation PyTorch runs and records the largest
# tensor created (a view of a tensor, or a result written into an existing one, takes no
# memory of its own and does not count). One head, ``B = H = 1``, ``D = 64``, ``L = S`` from
# 512 to 8,192, float32, the default block of ``C = 128`` keys. The lesson's step creates the
# ``(L, S)`` scores, so its largest tensor grows as ``L * S``; the tiled loop creates the
# ``(L, C)`` scores of one block and ``(L, D)`` tensors (the scaled queries, the output), so
# with ``C >= D`` its largest grows as ``L * C``.

lengths = [512, 1024, 2048, 4096, 8192]
explicit_mib, tiled_mib = [], []
print("  L = S  step 4 MiB  tiled MiB  ratio")
for n in lengths:
    q, k, v = torch.randn(3, 1, 1, n, D, device=device).unbind(0)  # (B, H, L, D) each
    with torch.no_grad(), mha.LargestTensor() as explicit:
        mha.scaled_dot_product_attention(q, k, v)
    with torch.no_grad(), mha.LargestTensor() as tiled:
        mha.tiled_attention(q, k, v, block_size=C)
    assert explicit.numel == n * n  # the (L, S) scores
    assert tiled.numel == n * C  # the (L, C) scores of one block
    explicit_mib.append(explicit.nbytes / 2**20)
    tiled_mib.append(tiled.nbytes / 2**20)
    ratio = explicit.numel // tiled.numel
    print(f"{n:7d} {explicit_mib[-1]:11.2f} {tiled_mib[-1]:10.2f} {ratio:6d}")
    assert ratio == n // C
assert explicit_mib[-1] == 256 and tiled_mib[-1] == 4  # at L = S = 8192

# %%
# **Figure.** The largest tensor created, in MiB, against the length ``L = S`` (both axes
# logarithmic). Doubling the length quadruples the lesson's step (slope 2) and doubles the
# tiled loop (slope 1); at 8,192 tokens they are 256 MiB and 4 MiB, 64 times apart.

fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
ax.plot(lengths, explicit_mib, "o-", label="lesson's step 4: scores (L, S)")
ax.plot(lengths, tiled_mib, "s-", label="tiled: one block of scores (L, C), C = 128")
ax.set_xscale("log", base=2)
ax.set_yscale("log", base=2)
ax.set_xticks(lengths, [f"{n:,}" for n in lengths])
mib_ticks = [0.25, 1, 4, 16, 64, 256]
ax.set_yticks(mib_ticks, [f"{t:g}" for t in mib_ticks])
ax.set(xlabel="sequence length L = S", ylabel="largest tensor (MiB)")
ax.set_title("Largest tensor created, one head, float32")
ax.grid(True, alpha=0.3)
ax.legend(loc="upper left")
plt.show()

# %%
# Training needs more
# -------------------
#
# That is the forward pass alone. To compute gradients, autograd keeps what the backward pass
# will need, and in the tiled loop that includes each block's weights: at ``L = S = 1024``
# what it keeps adds up to more than the ``L * S`` elements of the whole matrix. Besides its
# inputs, FlashAttention's backward pass keeps only the output and the log-sum-exp of each row,
# and recomputes each block's weights from them.

n = 1024
q, k, v = torch.randn(3, 1, 1, n, D, device=device, requires_grad=True).unbind(0)
saved = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t.numel()) or t, lambda t: t):
    mha.tiled_attention(q, k, v, block_size=C)
print(f"saved for backward: {sum(saved):,} elements\nL * S:              {n * n:,}")
assert sum(saved) > n * n  # every block's (L, C) weights, and more

# %%
# Time on this machine
# --------------------
#
# Fewer bytes stored is not fewer operations: the loop computes the same products plus the
# rescaling, and each of its operations runs as a separate *kernel* (one compiled routine)
# that writes its result to main memory and reads it back for the next. FlashAttention *fuses*
# the whole loop into one GPU kernel that keeps each block in the GPU's small, fast on-chip
# memory. PyTorch's function runs a fused kernel of its own on the CPU (its flash kernel: on
# the CPU, asserted below, it creates nothing of the size of ``(L, S)``). Eight heads of 64 at ``L = S = 1024``, the best of 5 runs of each, taken in turns; the Python
# loop is slower than PyTorch's function (asserted). The lesson's step 4 is printed beside
# them, unasserted: on one machine it is faster than the loop, on another slower.


def best_times(fns, repeat=5):
    """The fastest of ``repeat`` runs of each function, in milliseconds. The runs take turns,
    so a busy moment of the machine slows every function alike, not one alone."""
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            fn()
            if device.type == "cuda":
                torch.cuda.synchronize()
            times[name].append(time.perf_counter() - start)
    return {name: 1000 * min(runs) for name, runs in times.items()}


n = 1024
q, k, v = torch.randn(3, 1, 8, n, 64, device=device).unbind(0)  # (B, H, L, D) each
with torch.no_grad():
    with mha.LargestTensor() as fused:
        F.scaled_dot_product_attention(q, k, v)
    timings = best_times(
        {
            "PyTorch's function": lambda: F.scaled_dot_product_attention(q, k, v),
            "lesson's step 4": lambda: mha.scaled_dot_product_attention(q, k, v),
            "tiled, in Python": lambda: mha.tiled_attention(q, k, v),
        }
    )
fastest, _, tiled = timings.values()  # in the order given: each name is a printed label
for name, ms in timings.items():
    print(f"{name:18} {ms:7.1f} ms {ms / fastest:5.1f} x")
assert tiled > fastest
if device.type == "cpu":
    assert fused.numel < n * n

# %%
# Functions used: :func:`mha.tiled_attention`, :func:`mha.scaled_dot_product_attention`,
# :class:`mha.LargestTensor`.
