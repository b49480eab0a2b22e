r"""
Decoding speed with and without the KV cache
============================================

Generate 384 tokens one at a time, twice: without a cache, each step runs the causal forward
over the whole prefix again and keeps its last row; with :class:`mha.KVCache`, each step
projects one token and attends over the cached keys. Both give the same outputs (asserted at
every step). Without the cache a step costs more the longer the prefix; with it, the cost
grows far less at these sizes. The figure shows the time per generated token.
"""

# %%
# Setup
# -----
#
# ``E = 256``, ``H = 8``, ``H_kv = 2``, one sequence; the inputs of all 384 positions are
# fixed in advance (a real model would feed back its own predictions, which changes nothing
# here). The first 16 tokens are a prompt, prefilled in one call.

import time

import matplotlib.pyplot as plt
import torch

import mha

torch.manual_seed(0)
device = mha.get_device()
B, E, H, H_kv, N, prompt = 1, 256, 8, 2, 384, 16
attn = mha.GroupedQueryAttention(E, H, H_kv, device=device).eval()
x = torch.randn(B, N, E, device=device)


def synchronize():
    if device.type == "cuda":
        torch.cuda.synchronize()


# %%
# Decode both ways
# ----------------
#
# Each step is timed alone. The step without a cache computes all ``t + 1`` outputs of the
# prefix and keeps the last; the cached step computes only that one. They must agree. On the CPU the
# timing runs on one thread: a one-token step is a chain of tiny products, and on a machine
# whose cores are busy with other work, several threads spend more time waiting for each
# other than computing (the thread count is restored afterwards).

threads = torch.get_num_threads()
if device.type == "cpu":
    torch.set_num_threads(1)
no_cache_ms, cache_ms = [], []
cache = mha.KVCache()
with torch.no_grad():
    attn(x[:, :prompt], is_causal=True, cache=cache)  # prefill
    for t in range(prompt, N):
        synchronize()
        start = time.perf_counter()
        recomputed = attn(x[:, : t + 1], is_causal=True)[:, -1:]  # (B, 1, E), prefix again
        synchronize()
        middle = time.perf_counter()
        cached = attn(x[:, t : t + 1], is_causal=True, cache=cache)  # (B, 1, E)
        synchronize()
        end = time.perf_counter()
        torch.testing.assert_close(cached, recomputed, atol=1e-5, rtol=1e-4)
        no_cache_ms.append(1e3 * (middle - start))
        cache_ms.append(1e3 * (end - middle))
torch.set_num_threads(threads)
assert len(cache) == N
assert cache.keys.shape == (B, H_kv, N, E // H)
print(f"{N - prompt} tokens decoded both ways, outputs equal at every step")

# %%
# Time per token
# --------------
#
# On a shared machine a single step can stall for a moment; the least time of each block of
# 16 consecutive steps filters that out, and the cost hardly changes within a block. Read
# the ratios, not the milliseconds: they are those of one run. On the CPU, where this site is
# built, the step without the cache costs several times more at the last block than at the
# first, while the cached step grows far less and ends several times cheaper; the
# assertions check this there (on another device, read the figure).

WINDOW = 16
blocks = range(0, len(cache_ms) - WINDOW + 1, WINDOW)
positions = [prompt + i + WINDOW // 2 for i in blocks]
best_no_cache = [min(no_cache_ms[i : i + WINDOW]) for i in blocks]
best_cache = [min(cache_ms[i : i + WINDOW]) for i in blocks]
assert len(positions) == len(best_cache) == (N - prompt) // WINDOW == 23
print(
    f"last block (position ~{positions[-1]}): without cache {best_no_cache[-1]:.2f} ms, with "
    f"cache {best_cache[-1]:.2f} ms per token, ratio {best_no_cache[-1] / best_cache[-1]:.1f}"
)
print(
    f"first block (position ~{positions[0]}): without cache {best_no_cache[0]:.2f} ms, with "
    f"cache {best_cache[0]:.2f} ms"
)
growth_no_cache = best_no_cache[-1] / best_no_cache[0]
growth_cache = best_cache[-1] / best_cache[0]
print(f"last / first block: without cache {growth_no_cache:.1f}, with cache {growth_cache:.1f}")
if device.type == "cpu":
    assert growth_no_cache > 4  # grows with the prefix
    assert growth_cache < growth_no_cache / 2  # grows far less
    assert best_no_cache[-1] / best_cache[-1] > 4  # several times cheaper at the end

# %%
# Figure
# ------
#
# **Figure.** Time to produce one token against its position, without the cache (recompute
# the prefix) and with it (one token), on the device this page was built on: the least time
# of each block of 16 steps, on one thread on the CPU. The cost without the cache grows with
# the position; with it, it stays low and grows far less.

fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
ax.plot(positions, best_no_cache, "o-", color="C3", label="without cache: recompute the prefix")
ax.plot(positions, best_cache, "s-", color="C0", label="with mha.KVCache: one token")
ax.set(xlabel="position of the generated token", ylabel="ms per token", ylim=(0, None))
ax.set_title(f"E={E}, H={H}, H_kv={H_kv}, B={B}, on {device.type}")
ax.legend(loc="upper left")
ax.grid(True, alpha=0.3)
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :class:`mha.KVCache`,
# :func:`mha.get_device`.
