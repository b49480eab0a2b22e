r"""
Decoding speed with and without the KV cache
============================================

Generate 384 tokens one at a time, twice: without a cache, each step runs the causal forward
over the whole prefix again and keeps its last row; with :class:`mha.KVCache`, each step
projects one token and attends over the cached keys. Both give the same outputs (asserted at
every step). Without the cache a step costs time proportional to the prefix length; with it,
nearly constant time at these sizes. The figure shows the time per generated token.
"""

# %%
# Setup
# -----
# ``E = 256``, ``H = 8``, ``H_kv = 2``, one sequence; the inputs of all 384 positions are
# fixed in advance (a real model would feed back its own predictions, which changes nothing
# here). The first 16 tokens are a prompt, prefilled in one call.
import statistics
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
# Each step is timed alone. The step without a cache computes all ``t`` outputs of the prefix
# and keeps the last; the cached step computes only that one. They must agree.
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
assert len(cache) == N
assert cache.keys.shape == (B, H_kv, N, E // H)
print(f"{N - prompt} tokens decoded both ways, outputs equal at every step")

# %%
# Time per token
# --------------
# Medians over the last 64 steps (the times of one run on a shared machine: read the ratio,
# not the milliseconds).
late_no_cache = statistics.median(no_cache_ms[-64:])
late_cache = statistics.median(cache_ms[-64:])
print(
    f"last 64 steps, median: without cache {late_no_cache:.2f} ms, with cache "
    f"{late_cache:.2f} ms per token, ratio {late_no_cache / late_cache:.1f}"
)
print(f"total: without cache {sum(no_cache_ms):.0f} ms, with cache {sum(cache_ms):.0f} ms")


# %%
# Figure
# ------
# **Figure.** Time to produce one token against its position, without the cache (recompute
# the prefix) and with it (one token), on the device this page was built on; lines are
# running medians over 16 steps, dots the single steps. The cost without the cache grows
# with the position; with it, it stays low.
def running_median(values, window=16):
    return [statistics.median(values[max(0, i - window + 1) : i + 1]) for i in range(len(values))]


positions = list(range(prompt, N))
fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
for values, label, color in (
    (no_cache_ms, "without cache: recompute the prefix", "C3"),
    (cache_ms, "with mha.KVCache: one token", "C0"),
):
    ax.plot(positions, values, ".", color=color, alpha=0.25, markersize=3)
    ax.plot(positions, running_median(values), color=color, label=label)
ax.set(xlabel="position of the generated token", ylabel="ms per token", ylim=(0, None))
ax.set_title(f"E={E}, H={H}, H_kv={H_kv}, B={B}, on {device.type}")
ax.legend(loc="upper left")
ax.grid(True, alpha=0.3)
plt.show()

# %%
# Functions used: :class:`mha.GroupedQueryAttention`, :class:`mha.KVCache`,
# :func:`mha.get_device`.
