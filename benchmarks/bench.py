"""Speed and memory of ``mha.MultiHeadAttention`` against ``torch.nn.MultiheadAttention``.

Run with ``nox -s bench`` or directly, the site's figure library (``docs/_ext``) on the path::

    PYTHONPATH=docs/_ext python benchmarks/bench.py [OUT_DIR] [--update-docs] [--repeats N] [--quick]
    PYTHONPATH=docs/_ext python benchmarks/bench.py --plot docs/_static/bench/results.json   # redraw only

Both modules hold the same weights (``MultiHeadAttention.from_torch``) and run in this one
process on the device of ``mha.get_device()``. Each measurement alternates the two modules,
torch first then ours, then ours first, and so on, and reports the median of the paired time
ratios ``ours / torch``: on a shared, noisy machine only ratios measured side by side mean
something, never absolute times from different runs.

Written to ``OUT_DIR`` (default ``benchmarks/results/``): ``results.json``, ``speed.png`` and
``memory.png``. ``--update-docs`` copies them to ``docs/_static/bench/`` for the Performance
page. The exit status is 1 when a speed goal is missed.

Speed goals (ratio ``ours / torch``, at every shape, for ``batch_first=True`` and ``False``):

* inference, ``need_weights=False``, eval mode, no grad: at most 0.75 with ``batch_first=True``,
  where PyTorch's module takes its native fast path; at most 1.1 with ``batch_first=False``,
  where PyTorch's module already runs the same two kernels (``F.linear`` and
  ``F.scaled_dot_product_attention``) and only parity is possible;
* training step, forward and backward, ``need_weights=False``: at most 1.1;
* per-head weights, ``need_weights=True, average_attn_weights=False``: at most 1.3.

Memory: the peak memory of one forward pass at growing sequence length, for the fused path
(``need_weights=False``) and the explicit one (``need_weights=True``). On the CPU each point
runs in a fresh subprocess and reads the peak resident set size; on a GPU it reads
``torch.cuda.max_memory_allocated``.

Grouped-query attention and the KV cache (``--gqa`` runs this part alone, about a minute, and
writes ``gqa.json``, ``gqa.png`` and ``gqa@2x.png``):

* one cached decode step at ``S = 2048``, ``E = 512``, ``H = 8``, ``H_kv = 2`` costs at most
  1/20 of recomputing the whole sequence (a goal: the exit status is 1 when it is missed);
* the cache holds exactly ``2 * B * H_kv * S * D * bytes`` in keys and values;
* the cache's design: growing by ``torch.cat`` on every step against the preallocated buffer
  that doubles (what :class:`mha.KVCache` does), timed decoding 2048 tokens;
* the fused GQA forward against ``mha.MultiHeadAttention`` of the same width, a ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gettext
import itertools
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import site_figures  # docs/_ext: the Chinese font, the glyph check, the phone's width
import torch

import mha
from mha.cost import attention_flops

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results"
DOCS_OUT = ROOT / "docs" / "_static" / "bench"

# (B, L, E, H): batch, sequence length, model width, heads
SHAPES = [(8, 256, 512, 8), (4, 1024, 512, 8), (1, 4096, 256, 4)]
GOALS = {"inference": 0.75, "training": 1.10, "weights": 1.30}  # with batch_first=True
# batch_first=False: PyTorch composes the same kernels as mha does, so the goal there is parity
SEQUENCE_FIRST_GOALS = {"inference": 1.10, "training": 1.10, "weights": 1.30}


def goal(mode: str, batch_first: bool) -> float:
    """The largest acceptable ratio ``ours / torch`` for ``mode`` in that layout."""
    return (GOALS if batch_first else SEQUENCE_FIRST_GOALS)[mode]


def N_(label: str) -> str:  # gettext's name for it
    """``label`` itself, marked for the charts' catalog (:func:`tr` words it)."""
    return label


# each mode's panel title in the speed chart: the mode, then what it runs (MODES)
TITLES = {
    "inference": N_("inference: eval, no grad, need_weights=False"),
    "training": N_("training: forward + backward, need_weights=False"),
    "weights": N_("weights: eval, no grad, need_weights=True, average_attn_weights=False"),
}
MODES = {mode: title.partition(": ")[2] for mode, title in TITLES.items()}
LAYOUTS = (True, False)  # batch_first: both are measured, each against its goal
# memory: one sequence, E = 256, H = 4, eval, no grad
MEMORY_LENGTHS = [1024, 2048, 4096, 8192]
MEMORY_SHAPE = {"batch": 1, "embed_dim": 256, "num_heads": 4}


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------


def machine(device: torch.device) -> dict:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "date": dt.date.today().isoformat(),
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else cpu,
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "mha": mha.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "dtype": "float32",
    }


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn: Callable[[], object], device: torch.device) -> float:
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    return time.perf_counter() - start


def matmul_roofline(device: torch.device, repeats: int) -> dict:
    """Dense float32 matrix product ``(n, n) @ (n, n)``: the best this device does."""
    n = 4096 if device.type == "cuda" else 2048
    a, b = torch.randn(2, n, n, device=device).unbind(0)
    a @ b  # warm up
    times = [timed(lambda: a @ b, device) for _ in range(repeats)]
    flop = 2 * n**3
    return {"n": n, "gflop": flop / 1e9, "gflops": flop / statistics.median(times) / 1e9}


# ---------------------------------------------------------------------------
# Speed: ours against torch's, side by side
# ---------------------------------------------------------------------------


def make_step(module: torch.nn.Module, x: torch.Tensor, mode: str) -> Callable[[], object]:
    """One call of ``module`` in ``mode``, on self-attention input ``x``."""
    if mode == "training":
        module.train()
        x = x.detach().requires_grad_(True)

        def step() -> None:
            module.zero_grad(set_to_none=True)
            x.grad = None
            out, _ = module(x, x, x, need_weights=False)
            out.sum().backward()

        return step

    module.eval()
    need_weights = mode == "weights"

    @torch.no_grad()
    def step() -> object:
        return module(x, x, x, need_weights=need_weights, average_attn_weights=False)

    return step


def compare(
    theirs: Callable[[], object], ours: Callable[[], object], device: torch.device, repeats: int
) -> dict:
    """Alternate the two calls; return their median times and the median paired ratio."""
    theirs()
    ours()  # warm up both
    t_theirs, t_ours, ratios = [], [], []
    for i in range(repeats):
        if i % 2 == 0:
            a = timed(theirs, device)
            b = timed(ours, device)
        else:
            b = timed(ours, device)
            a = timed(theirs, device)
        t_theirs.append(a)
        t_ours.append(b)
        ratios.append(b / a)
    return {
        "torch_ms": 1e3 * statistics.median(t_theirs),
        "ours_ms": 1e3 * statistics.median(t_ours),
        "ratio": statistics.median(ratios),
        "ratio_of_minimums": min(t_ours) / min(t_theirs),
        "ratios": ratios,
    }


def check_same_output(theirs: torch.nn.Module, ours: torch.nn.Module, x: torch.Tensor) -> None:
    """Both modules must compute the same thing before their speed is compared."""
    theirs.eval()
    ours.eval()
    with torch.no_grad():
        out_t, w_t = theirs(x, x, x, average_attn_weights=False)
        out_o, w_o = ours(x, x, x, average_attn_weights=False)
        fused_t, _ = theirs(x, x, x, need_weights=False)
        fused_o, _ = ours(x, x, x, need_weights=False)
    torch.testing.assert_close(out_o, out_t, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(w_o, w_t, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(fused_o, fused_t, atol=1e-4, rtol=1e-4)


def speed(device: torch.device, repeats: int, shapes: list, roofline: float) -> list[dict]:
    rows = []
    for B, L, E, H in shapes:
        flops = attention_flops(B, L, L, E, H).total  # matrix products of one forward
        for batch_first in LAYOUTS:
            torch.manual_seed(0)
            theirs = torch.nn.MultiheadAttention(E, H, batch_first=batch_first, device=device)
            ours = mha.MultiHeadAttention.from_torch(theirs)
            torch.manual_seed(1)
            x = torch.randn((B, L, E) if batch_first else (L, B, E), device=device)
            check_same_output(theirs, ours, x)
            for mode in MODES:
                r = compare(make_step(theirs, x, mode), make_step(ours, x, mode), device, repeats)
                # a training step: the forward, then a backward of twice its products
                gflop = (3 if mode == "training" else 1) * flops / 1e9
                row = {
                    "B": B,
                    "L": L,
                    "E": E,
                    "H": H,
                    "batch_first": batch_first,
                    "mode": mode,
                    "gflop": gflop,
                    **r,
                    "torch_gflops": gflop / (r["torch_ms"] / 1e3),
                    "ours_gflops": gflop / (r["ours_ms"] / 1e3),
                    "ours_of_roofline": gflop / (r["ours_ms"] / 1e3) / roofline,
                    "goal": goal(mode, batch_first),
                    "passed": r["ratio"] <= goal(mode, batch_first),
                }
                rows.append(row)
                print(
                    f"  (B, L, E, H) = {(B, L, E, H)!s:18} batch_first={batch_first!s:5} "
                    f"{mode:9}  torch {row['torch_ms']:8.1f} ms  ours {row['ours_ms']:8.1f} ms  "
                    f"ratio {row['ratio']:.2f} (goal <= {row['goal']:.2f}) "
                    f"{'ok' if row['passed'] else 'MISSED'}  ours {row['ours_gflops']:5.1f} GFLOP/s",
                    flush=True,
                )
    return rows


# ---------------------------------------------------------------------------
# Memory: one forward pass at growing sequence length
# ---------------------------------------------------------------------------


def _memory_inputs(seq_len: int, device: torch.device) -> tuple[torch.nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    B, E, H = (MEMORY_SHAPE[k] for k in ("batch", "embed_dim", "num_heads"))
    module = mha.MultiHeadAttention(E, H, batch_first=True, device=device).eval()
    return module, torch.randn(B, seq_len, E, device=device)


def _rss_mib(field: str) -> float:
    """``VmRSS`` (now) or ``VmHWM`` (peak since the last reset) of this process, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"no {field} in /proc/self/status")


def memory_point(seq_len: int, need_weights: bool, device: torch.device) -> float:
    """Peak memory (MiB) one forward pass adds to what its inputs and parameters hold."""
    module, x = _memory_inputs(seq_len, device)
    with torch.no_grad():
        module(x[:, :16], x[:, :16], x[:, :16], need_weights=need_weights)  # load the kernels
        if device.type == "cuda":
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
            before = torch.cuda.memory_allocated(device)
            module(x, x, x, need_weights=need_weights)
            torch.cuda.synchronize(device)
            return (torch.cuda.max_memory_allocated(device) - before) / 2**20
        # Linux: writing 5 to clear_refs resets the peak resident set size (VmHWM) to now
        Path("/proc/self/clear_refs").write_text("5")
        before = _rss_mib("VmRSS")
        module(x, x, x, need_weights=need_weights)
        return _rss_mib("VmHWM") - before


def memory(device: torch.device, lengths: list[int]) -> dict | None:
    if device.type == "cpu" and not Path("/proc/self/clear_refs").exists():
        print("  skipped: the peak RSS of a CPU process is read from Linux's /proc")
        return None
    points = []
    for need_weights, path in ((False, "fused"), (True, "explicit")):
        for seq_len in lengths:
            if device.type == "cuda":
                mib = memory_point(seq_len, need_weights, device)
            else:  # a fresh process per point: the peak RSS of a process never goes down
                cmd = [sys.executable, __file__, "--memory-point", str(seq_len), path]
                done = subprocess.run(cmd, capture_output=True, text=True, check=True)
                mib = float(done.stdout.strip().splitlines()[-1])
            points.append({"path": path, "L": seq_len, "peak_mib": mib})
            print(f"  {path:8} L = {seq_len:5}: {mib:8.1f} MiB", flush=True)
    growth = {}
    for path in ("fused", "explicit"):
        mibs = [p["peak_mib"] for p in points if p["path"] == path]
        # exponent k of peak ~ L**k over the last doubling of L
        growth[path] = math.log2(max(mibs[-1], 1e-3) / max(mibs[-2], 1e-3))
    return {
        "what": "peak memory added by one forward pass (eval, no grad)",
        "measure": "torch.cuda.max_memory_allocated"
        if device.type == "cuda"
        else "peak resident set size (VmHWM after a reset), one subprocess per point",
        **MEMORY_SHAPE,
        "points": points,
        "growth_exponent": growth,
    }


# ---------------------------------------------------------------------------
# Grouped-query attention and the KV cache
# ---------------------------------------------------------------------------

GQA_SHAPE = {"batch": 1, "seq": 2048, "embed_dim": 512, "num_heads": 8, "num_kv_heads": 2}
GQA_DECODE_GOAL = 1 / 20  # one cached decode step / recomputing the whole sequence
GQA_FORWARD_SHAPE = (4, 1024, 512, 8, 2)  # (B, L, E, H, H_kv) for the forward ratio


class ConcatCache(mha.KVCache):
    """The alternative design: ``torch.cat`` the new keys and values on every step."""

    def append(self, keys: torch.Tensor, values: torch.Tensor):
        keys, values = self._check(keys, values)
        if self._k is None:
            self._k, self._v = keys, values
        else:
            self._k = torch.cat([self._k, keys], dim=2)  # (B, H_kv, S, D): copies all of it
            self._v = torch.cat([self._v, values], dim=2)
        self._length = self._k.shape[2]
        return self._k, self._v


def _median_ms(fn: Callable[[], object], device: torch.device, repeats: int) -> float:
    fn()  # warm up
    return 1e3 * statistics.median(timed(fn, device) for _ in range(repeats))


def gqa(device: torch.device, repeats: int) -> dict:
    """Decode step against recomputing, the cache's bytes and design, GQA against MHA."""
    B, S, E, H, H_kv = (GQA_SHAPE[k] for k in GQA_SHAPE)
    D = E // H
    torch.manual_seed(0)
    attn = mha.GroupedQueryAttention(E, H, H_kv, device=device).eval()
    x = torch.randn(B, S, E, device=device)

    # 1) one decode step with S - 1 cached positions, against the full causal forward
    cache = mha.KVCache()
    with torch.no_grad():
        attn(x[:, : S - 1], is_causal=True, cache=cache)  # prefill S - 1 positions
        full = attn(x, is_causal=True)  # (B, S, E)
        step = attn(x[:, S - 1 :], is_causal=True, cache=cache)  # (B, 1, E)
    torch.testing.assert_close(step, full[:, -1:], atol=1e-4, rtol=1e-4)
    assert len(cache) == S

    @torch.no_grad()
    def decode_step() -> None:
        cache.crop(S - 1)  # forget the last position: every step sees S - 1 cached
        attn(x[:, S - 1 :], is_causal=True, cache=cache)

    @torch.no_grad()
    def recompute() -> None:
        attn(x, is_causal=True)

    pair = compare(recompute, decode_step, device, max(repeats, 9))
    decode = {
        "recompute_ms": pair["torch_ms"],
        "step_ms": pair["ours_ms"],
        "ratio": pair["ratio"],
        "goal": GQA_DECODE_GOAL,
        "passed": pair["ratio"] <= GQA_DECODE_GOAL,
    }
    print(
        f"  decode step at S={S}: {decode['step_ms']:.3f} ms, recompute {decode['recompute_ms']:.1f} "
        f"ms, ratio {decode['ratio']:.4f} = 1/{1 / decode['ratio']:.0f} (goal <= 1/20) "
        f"{'ok' if decode['passed'] else 'MISSED'}",
        flush=True,
    )

    # 2) the cache's bytes: exactly 2 * B * H_kv * S * D * bytes per element
    cached = cache.keys.nbytes + cache.values.nbytes
    formula = 2 * B * H_kv * S * D * cache.keys.element_size()
    assert cached == formula == mha.kv_cache_bytes(B, S, E, H, H_kv)
    buffer = 2 * B * H_kv * cache.capacity * D * cache.keys.element_size()  # keys and values
    full_mha = mha.kv_cache_bytes(B, S, E, H)
    memory = {
        "cache_bytes": cached,
        "formula_bytes": formula,
        "buffer_bytes": buffer,
        "mha_cache_bytes": full_mha,
        "capacity": cache.capacity,
    }
    print(f"  cache: {cached} bytes = 2*B*H_kv*S*D*4; buffer {buffer} bytes; MHA {full_mha}")

    # 3) the cache's design: decode S tokens one by one, attention included and append alone
    design = {}
    k_new = torch.randn(B, H_kv, 1, D, device=device)
    for name, make in (("preallocated", mha.KVCache), ("concatenate", ConcatCache)):

        def decode_all(make=make) -> None:
            c = make()
            with torch.no_grad():
                for t in range(S):
                    attn(x[:, t : t + 1], is_causal=True, cache=c)

        def append_all(make=make) -> None:
            c = make()
            for _ in range(S):
                c.append(k_new, k_new)

        design[name] = {
            "decode_all_ms": _median_ms(decode_all, device, 3),
            "append_all_ms": _median_ms(append_all, device, 3),
        }
        print(
            f"  {name:12}: decode {S} tokens {design[name]['decode_all_ms']:.0f} ms, "
            f"appends alone {design[name]['append_all_ms']:.0f} ms",
            flush=True,
        )
    design["chosen"] = "preallocated"

    # 4) fused GQA forward against MultiHeadAttention of the same width, in one run
    fB, fL, fE, fH, fH_kv = GQA_FORWARD_SHAPE
    torch.manual_seed(0)
    gqa_module = mha.GroupedQueryAttention(fE, fH, fH_kv, bias=True, device=device).eval()
    mha_module = mha.MultiHeadAttention(fE, fH, batch_first=True, device=device).eval()
    xf = torch.randn(fB, fL, fE, device=device)
    with torch.no_grad():
        forward = compare(
            lambda: mha_module(xf, xf, xf, need_weights=False),
            lambda: gqa_module(xf),
            device,
            repeats,
        )
    forward = {"B": fB, "L": fL, "E": fE, "H": fH, "H_kv": fH_kv, **forward}
    print(
        f"  forward (B, L, E, H, H_kv) = {GQA_FORWARD_SHAPE}: GQA {forward['ours_ms']:.1f} ms, "
        f"MHA {forward['torch_ms']:.1f} ms, ratio GQA / MHA {forward['ratio']:.2f}",
        flush=True,
    )
    return {
        **GQA_SHAPE,
        "head_dim": D,
        "decode": decode,
        "memory": memory,
        "design": design,
        "forward": forward,
    }


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


# Each figure is drawn twice: for the site's text column (7 in wide, panels stacked, text at
# 10 pt or more, legends off the data) and for a phone (``*_phone.png``, 4.2 in: 420 px, shown
# at 358 px or more on a 390 px phone, side-by-side panels stacked, long titles wrapped).
# Each is saved at 1x (100 dpi) and 2x (``@2x``) for high-DPI screens.
FIGURE_WIDTH = 7.0
FIGURE_DPI = 100
# file-name suffix -> width in inches; the phone's width is the gallery's (docs/_ext/site_figures.py)
SIZES = {"": FIGURE_WIDTH, site_figures.PHONE: site_figures.PHONE_WIDTH}


# The charts' labels in the site's other languages: gettext catalogs of their own domain,
# benchmarks/locale/<language>/LC_MESSAGES/bench.po (the English label, a format string where the
# label has values -> its translation, with the same fields), each compiled to the bench.mo
# beside it by nox -s translations -- update. Names (ms, mha / torch, batch_first=True, the
# machine) stay as they are.
LOCALE = ROOT / "benchmarks" / "locale"
# the files of a language other than English: name.<language>.png
LANGUAGES = ["en", *sorted(p.parents[1].name for p in LOCALE.glob("*/LC_MESSAGES/bench.mo"))]


def figure_names(stem: str) -> list[str]:
    """The files of one figure: both sizes, each at 1x and 2x, in English and in each of the
    site's other languages (``speed.zh_CN.png``)."""
    tags = ["" if lang == "en" else f".{lang}" for lang in LANGUAGES]
    return [f"{stem}{suffix}{scale}{tag}.png" for tag in tags for suffix in SIZES
            for scale in ("", "@2x")]  # fmt: skip


@functools.cache
def _catalog(language: str) -> gettext.NullTranslations:
    if language == "en":
        return gettext.NullTranslations()
    return gettext.translation("bench", LOCALE, languages=[language])


def tr(label: str, language: str, **values) -> str:
    """``label`` in ``language`` (its catalog, :data:`LOCALE`), its fields filled with
    ``values``."""
    return _catalog(language).gettext(label).format(**values)


def _save(fig, out: Path, name: str, language: str) -> None:
    """Save ``name.png`` and ``name@2x.png`` (``name.zh_CN.png``, ... in another language),
    failing where a character would be drawn as a box."""
    lacking = site_figures.lacking_glyphs(fig)
    if lacking:
        raise RuntimeError(
            f"expected every character of {name} in its fonts, got none for {lacking}"
        )
    tag = "" if language == "en" else f".{language}"
    fig.savefig(out / f"{name}{tag}.png", dpi=FIGURE_DPI)
    fig.savefig(out / f"{name}@2x{tag}.png", dpi=2 * FIGURE_DPI)


def _wrap(text: str, width: float) -> str:
    """``text`` on lines that fit ``width`` inches at 10 pt (about 13 characters an inch)."""
    import textwrap

    return textwrap.fill(text, int(width * 13))


def _pyplot(language: str = "en"):
    """pyplot with the charts' sizes, and in a language other than English a Chinese font (the
    site's, ``docs/_fonts``, where the machine has none of ``site_figures.CJK_FONTS``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcdefaults()
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "legend.fontsize": 10})
    if language != "en":
        site_figures.register_font()
        plt.rcParams["font.sans-serif"] = site_figures.CJK_FONTS
    return plt


def plot_gqa(results: dict, out: Path) -> None:
    """Draw ``gqa.png`` and ``gqa_phone.png`` (and their ``@2x`` versions) into ``out``."""
    g = results["gqa"]
    for (suffix, width), lang in itertools.product(SIZES.items(), LANGUAGES):
        plt = _pyplot(lang)
        phone = width < FIGURE_WIDTH
        fig, (left, right) = plt.subplots(
            2 if phone else 1,
            1 if phone else 2,
            figsize=(width, 6.4 if phone else 3.4),
            layout="constrained",
        )
        bars = [g["decode"]["recompute_ms"], g["decode"]["step_ms"]]
        left.bar(
            [tr("recompute\nS tokens", lang), tr("cached\nstep", lang)], bars, color=["C3", "C0"]
        )
        left.set_yscale("log")
        title = tr(
            "Decode at S={seq}: 1/{ratio:.0f}", lang, seq=g["seq"], ratio=1 / g["decode"]["ratio"]
        )
        left.set(ylabel="ms", title=title)
        names = [N_("preallocated"), N_("concatenate")]
        seconds = [g["design"][n]["decode_all_ms"] / 1e3 for n in names]
        right.bar([tr(n, lang) for n in names], seconds, color=["C0", "C1"])
        right.set(ylabel="s", title=tr("Decode {seq} tokens, by cache", lang, seq=g["seq"]))
        title = tr("E={E}, H={H}, H_kv={H_kv}; {device}", lang, E=g["embed_dim"],
                  H=g["num_heads"], H_kv=g["num_kv_heads"],
                  device=results["machine"]["device_name"][:40])  # fmt: skip
        fig.suptitle(_wrap(title, width), fontsize=10)
        _save(fig, out, f"gqa{suffix}", lang)
        plt.close(fig)


def plot(results: dict, out: Path) -> None:
    """Draw ``speed`` and ``memory``, each for the column and for a phone, 1x and 2x, into ``out``."""
    for (suffix, width), lang in itertools.product(SIZES.items(), LANGUAGES):
        _plot_speed(results, out, f"speed{suffix}", width, lang)
        if results["memory"] is not None:
            _plot_memory(results, out, f"memory{suffix}", width, lang)


def _plot_speed(results: dict, out: Path, name: str, width: float, lang: str) -> None:
    from matplotlib.patches import Patch

    plt = _pyplot(lang)
    phone = width < FIGURE_WIDTH
    rows = results["speed"]
    colours = {True: "C0", False: "C1"}
    fig, axes = plt.subplots(
        len(MODES),
        1,
        figsize=(width, 2.6 * len(MODES) + (2.0 if phone else 0.9)),
        sharex=True,
        layout="constrained",
    )
    top = max(max(r["ratio"] for r in rows), *(goal(m, bf) for m in MODES for bf in LAYOUTS))
    for ax, mode in zip(axes, MODES, strict=True):
        shapes = [r for r in rows if r["mode"] == mode and r["batch_first"]]
        labels = [
            f"({r['B']}, {r['L']},{chr(10) if phone else ' '}{r['E']}, {r['H']})" for r in shapes
        ]
        bar_width = 0.38
        for i, batch_first in enumerate(LAYOUTS):
            mine = [r for r in rows if r["mode"] == mode and r["batch_first"] == batch_first]
            xs = [j + (i - 0.5) * bar_width for j in range(len(mine))]
            bars = ax.bar(
                xs,
                [r["ratio"] for r in mine],
                bar_width,
                color=colours[batch_first],
                hatch=["" if r["passed"] else "///" for r in mine],
                edgecolor="black",
                linewidth=0.6,
            )
            ax.bar_label(bars, [f"{r['ratio']:.2f}" for r in mine], padding=2)
        ax.axhline(1.0, color="grey", lw=1)
        goals = {batch_first: goal(mode, batch_first) for batch_first in LAYOUTS}
        for batch_first, style in ((True, "--"), (False, ":")):
            ax.axhline(goals[batch_first], color="C3", ls=style, lw=1.5)
        # the goals' values, right of the panel (outside the data)
        text = {goals[True]: tr("goal", lang), goals[False]: tr("goal", lang)}
        if goals[True] != goals[False]:
            text = {goals[True]: tr("goal (True)", lang), goals[False]: tr("goal (False)", lang)}
        for value, label in text.items():
            ax.annotate(
                f"{label}{chr(10) if phone else ' '}{value:g}",
                xy=(1, value),
                xycoords=("axes fraction", "data"),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                color="C3",
            )
        ax.set_ylim(0, 1.2 * top)
        # the panel is the figure less the axis labels and the goals' values
        ax.set_title(_wrap(tr(TITLES[mode], lang), width - 1.6), loc="left")
        ax.set_ylabel("mha / torch")
    axes[-1].set_xticks(range(len(labels)), labels)
    axes[-1].set_xlabel("(B, L, E, H)")
    handles = [
        Patch(facecolor=colours[bf], edgecolor="black", label=f"batch_first={bf}") for bf in LAYOUTS
    ]
    handles.append(
        Patch(facecolor="white", edgecolor="black", hatch="///", label=tr("misses its goal", lang))
    )
    machine = results["machine"]
    fig.legend(
        handles=handles,
        loc="outside upper center",
        ncols=1 if phone else 3,
        frameon=False,
        title=_wrap(
            tr("time ratio mha / torch, lower is faster: {device}, torch {torch}", lang,
              device=machine["device_name"], torch=machine["torch"]),
            width,
        ),
    )  # fmt: skip
    _save(fig, out, name, lang)
    plt.close(fig)


def _plot_memory(results: dict, out: Path, name: str, width: float, lang: str) -> None:
    plt = _pyplot(lang)
    phone = width < FIGURE_WIDTH
    mem = results["memory"]
    fig, ax = plt.subplots(figsize=(width, 4.8 if phone else 4.2), layout="constrained")
    for path, marker in ((N_("fused"), "o"), (N_("explicit"), "s")):
        pts = [p for p in mem["points"] if p["path"] == path]
        k = mem["growth_exponent"][path]
        ax.loglog(
            [p["L"] for p in pts],
            [max(p["peak_mib"], 0.1) for p in pts],
            marker=marker,
            base=2,
            label=tr(
                "{path} (need_weights={weights}): ~L^{k:.1f}",
                lang,
                path=tr(path, lang),
                weights=path == "explicit",
                k=k,
            ),
        )
    ax.set_xlabel(tr("sequence length L", lang))
    ax.set_ylabel(tr("peak memory of one forward (MiB)", lang))
    title = tr("B={B}, E={E}, H={H}; {device}", lang, B=mem["batch"], E=mem["embed_dim"],
              H=mem["num_heads"], device=results["machine"]["device"])  # fmt: skip
    ax.set_title(_wrap(title, width), loc="left")
    ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="outside upper center", ncols=1 if phone else 2, frameon=False)
    _save(fig, out, name, lang)
    plt.close(fig)


def _copy_to_docs(out: Path, names: list[str]) -> None:
    """Copy the named results and figures from ``out`` to the Performance page's folder."""
    DOCS_OUT.mkdir(parents=True, exist_ok=True)
    for name in names:
        if (out / name).is_file():
            shutil.copy2(out / name, DOCS_OUT / name)
    print(f"copied to {DOCS_OUT}")


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--update-docs", action="store_true", help=f"copy results to {DOCS_OUT}")
    parser.add_argument("--repeats", type=int, default=5, help="timed pairs per measurement")
    parser.add_argument("--quick", action="store_true", help="first shape only, no memory")
    parser.add_argument(
        "--gqa", action="store_true", help="only the grouped-query attention and KV-cache part"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads (default: torch's); 1 on a machine whose cores are busy",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="RESULTS_JSON",
        help="only redraw the figures of a results.json, beside it; measure nothing",
    )
    parser.add_argument("--memory-point", nargs=2, metavar=("L", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.plot:  # redraw from a results.json or gqa.json: no measurement
        results = json.loads(args.plot.read_text())
        (plot_gqa if "gqa" in results else plot)(results, args.plot.parent)
        print(f"drew the figures of {args.plot} beside it")
        return 0
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    device = mha.get_device()
    if args.memory_point:  # the child process of one memory measurement
        seq_len, path = int(args.memory_point[0]), args.memory_point[1]
        print(memory_point(seq_len, path == "explicit", device))
        return 0

    started = time.perf_counter()
    info = machine(device)
    if args.gqa:
        return main_gqa(args, device, info, started)
    print(
        f"mha {info['mha']}, torch {info['torch']} on {info['device_name']} ({device}), "
        f"{info['torch_threads']} threads"
    )
    roofline = matmul_roofline(device, args.repeats)
    print(f"roofline: dense {roofline['n']}^3 matmul {roofline['gflops']:.1f} GFLOP/s")
    shapes = SHAPES[:1] if args.quick else SHAPES
    rows = speed(device, args.repeats, shapes, roofline["gflops"])
    mem = None if args.quick else memory(device, MEMORY_LENGTHS)
    passed = all(r["passed"] for r in rows)
    results = {
        "machine": info,
        "roofline": roofline,
        "goals": {"batch_first=True": GOALS, "batch_first=False": SEQUENCE_FIRST_GOALS},
        "modes": MODES,
        "repeats": args.repeats,
        "speed": rows,
        "memory": mem,
        "passed": passed,
        "seconds": time.perf_counter() - started,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, args.out)
    print(f"wrote {args.out} in {results['seconds']:.0f} s")
    if args.update_docs:
        _copy_to_docs(args.out, ["results.json", *figure_names("speed"), *figure_names("memory")])
    missed = [r for r in rows if not r["passed"]]
    for r in missed:
        print(
            f"goal missed: {r['mode']} at (B, L, E, H) = {(r['B'], r['L'], r['E'], r['H'])}, "
            f"batch_first={r['batch_first']}: ratio {r['ratio']:.2f} > {r['goal']:.2f}",
            file=sys.stderr,
        )
    return 0 if passed else 1


def main_gqa(args: argparse.Namespace, device: torch.device, info: dict, started: float) -> int:
    """``--gqa``: the grouped-query attention part alone, into gqa.json and gqa.png."""
    print(
        f"mha {info['mha']}, torch {info['torch']} on {info['device_name']} ({device}), "
        f"{info['torch_threads']} threads, load average {os.getloadavg()[0]:.1f}"
    )
    info["load_average"] = os.getloadavg()[0]
    results = {"machine": info, "repeats": args.repeats, "gqa": gqa(device, args.repeats)}
    results["passed"] = results["gqa"]["decode"]["passed"]
    results["seconds"] = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gqa.json").write_text(json.dumps(results, indent=1) + "\n")
    plot_gqa(results, args.out)
    print(f"wrote {args.out} in {results['seconds']:.0f} s")
    if args.update_docs:
        _copy_to_docs(args.out, ["gqa.json", *figure_names("gqa")])
    if not results["passed"]:
        decode = results["gqa"]["decode"]
        print(
            f"goal missed: a cached decode step costs {decode['ratio']:.4f} of recomputing the "
            f"sequence, more than 1/20",
            file=sys.stderr,
        )
    return 0 if results["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
