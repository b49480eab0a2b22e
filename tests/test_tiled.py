"""``mha.tiled_attention`` (the online softmax, block by block) against PyTorch's function.

The reference is :func:`torch.nn.functional.scaled_dot_product_attention` with the same
arguments, and, for the log-sum-exp, :func:`torch.logsumexp` over the whole matrix of scores.
Both are written independently of the package's loop.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

import mha

DEVICE = mha.get_device()


def reference(q, k, v, mask=None, *, causal=None, scale=None, gqa=False):
    """PyTorch's output, and the log-sum-exp of each row of the full scores (B, H, L)."""
    L, S = q.shape[-2], k.shape[-2]
    if causal is not None:  # the boolean mask of that alignment, True = may attend
        mask = ~mha.causal_mask(L, S, align=causal, device=q.device)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale, enable_gqa=gqa)
    G = q.shape[1] // k.shape[1]
    scores = q @ k.repeat_interleave(G, dim=1).transpose(-2, -1)  # (B, H, L, S)
    scores = scores * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else scores + mask
    return out, scores.logsumexp(dim=-1)


@st.composite
def problems(draw):
    """Shapes where every size may differ, block sizes that do and do not divide S, every mask
    kind; fully masked rows come from boolean masks and from bottom-right masks with L > S."""
    H_kv = draw(st.integers(1, 3))
    sizes = {
        "B": draw(st.integers(1, 2)),
        "H_kv": H_kv,
        "H": H_kv * draw(st.integers(1, 3)),
        "L": draw(st.integers(1, 9)),
        "S": draw(st.integers(1, 12)),
        "D": draw(st.integers(1, 8)),
        "D_v": draw(st.integers(1, 8)),
    }
    return {
        **sizes,
        "block": draw(st.integers(1, 13)),
        "mask": draw(st.sampled_from(["none", "top-left", "bottom-right", "bool", "float"])),
        "scale": draw(st.one_of(st.none(), st.floats(0.05, 2.0))),
        "seed": draw(st.integers(0, 2**16)),
    }


def make(p: dict, dtype=torch.float64, device=DEVICE):
    torch.manual_seed(p["seed"])
    B, H, H_kv, L, S = p["B"], p["H"], p["H_kv"], p["L"], p["S"]

    def randn(*shape):
        return torch.randn(*shape, dtype=dtype, device=device, requires_grad=True)

    q, k, v = randn(B, H, L, p["D"]), randn(B, H_kv, S, p["D"]), randn(B, H_kv, S, p["D_v"])
    mask = None
    if p.get("mask") == "bool":  # (B, 1, L, S): some rows may be fully masked
        mask = torch.rand(B, 1, L, S, device=device) > 0.4
    elif p.get("mask") == "float":  # (L, S), with some -inf
        mask = torch.randn(L, S, dtype=dtype, device=device)
        mask = mask.masked_fill(torch.rand(L, S, device=device) < 0.2, -math.inf)
    return q, k, v, mask


@given(problems())
def test_equal_to_pytorch_values_gradients_and_lse(p) -> None:
    q, k, v, mask = make(p)
    causal = p["mask"] if p["mask"] in ("top-left", "bottom-right") else None
    gqa = p["H"] != p["H_kv"]
    want, want_lse = reference(q, k, v, mask, causal=causal, scale=p["scale"], gqa=gqa)
    got, lse = mha.tiled_attention(
        q,
        k,
        v,
        mask,
        is_causal=causal is not None,
        align=causal or "top-left",
        scale=p["scale"],
        enable_gqa=gqa,
        block_size=p["block"],
        return_lse=True,
    )
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(lse, want_lse)
    upstream = torch.randn_like(want)
    want_grads = torch.autograd.grad(want, (q, k, v), upstream)
    got_grads = torch.autograd.grad(got, (q, k, v), upstream)
    for name, g, w in zip("qkv", got_grads, want_grads, strict=True):
        torch.testing.assert_close(g, w, msg=lambda m, name=name: f"grad of {name}: {m}")


@pytest.mark.parametrize("block", [1, 2, 3, 4, 6, 7, 12, 100])
def test_every_block_size_gives_the_same_output(block: int) -> None:
    """S = 12: blocks that divide it (1, 2, 3, 4, 6, 12) and that do not (7, 100)."""
    q, k, v, _ = make({"B": 2, "H": 3, "H_kv": 3, "L": 5, "S": 12, "D": 4, "D_v": 6, "seed": 1})
    want, _ = reference(q, k, v)
    torch.testing.assert_close(mha.tiled_attention(q, k, v, block_size=block), want)


def test_one_query() -> None:
    q, k, v, _ = make({"B": 1, "H": 2, "H_kv": 1, "L": 1, "S": 9, "D": 4, "D_v": 4, "seed": 2})
    got = mha.tiled_attention(q, k, v, is_causal=True, align="bottom-right", enable_gqa=True)
    want, _ = reference(q, k, v, causal="bottom-right", gqa=True)  # the last query sees all
    assert got.shape == (1, 2, 1, 4)
    torch.testing.assert_close(got, want)


def test_fully_masked_rows_are_zero_as_in_pytorch() -> None:
    q, k, v, _ = make({"B": 1, "H": 1, "H_kv": 1, "L": 3, "S": 5, "D": 4, "D_v": 4, "seed": 3})
    mask = torch.ones(3, 5, dtype=torch.bool, device=DEVICE)
    mask[1] = False  # query 1 may attend to nothing
    out, lse = mha.tiled_attention(q, k, v, mask, block_size=2, return_lse=True)
    want, _ = reference(q, k, v, mask)
    torch.testing.assert_close(out, want)
    assert out[0, 0, 1].eq(0).all() and want[0, 0, 1].eq(0).all()
    assert lse[0, 0, 1] == -math.inf and lse[0, 0, [0, 2]].isfinite().all()


def test_a_float_mask_of_another_dtype_is_added_in_the_scores_dtype() -> None:
    """As the lesson's step 4 does (PyTorch's function rejects such a mask)."""
    q, k, v, _ = make({"B": 1, "H": 2, "H_kv": 2, "L": 4, "S": 6, "D": 4, "D_v": 4, "seed": 6})
    q, k, v = (t.detach().float() for t in (q, k, v))
    mask = torch.randn(4, 6, dtype=torch.float64, device=DEVICE)
    got, lse = mha.tiled_attention(q, k, v, mask, block_size=4, return_lse=True)
    assert got.dtype == lse.dtype == torch.float32  # the statistics too, not promoted
    torch.testing.assert_close(got, mha.scaled_dot_product_attention(q, k, v, mask)[0])


def test_large_scores_do_not_overflow() -> None:
    """Scores near 1000 in float32: exp(1000) is inf, exp(score - max) is not."""
    q = torch.full((1, 1, 2, 1), 100.0, device=DEVICE)  # (B, H, L, D) with D = 1
    k = torch.linspace(9.0, 10.0, 6, device=DEVICE).view(1, 1, 6, 1)  # scores 900 to 1000
    v = torch.randn(1, 1, 6, 3, device=DEVICE)
    assert torch.exp(q @ k.transpose(-2, -1)).isinf().any()  # the naive softmax would fail
    got = mha.tiled_attention(q, k, v, scale=1.0, block_size=2)
    assert got.isfinite().all()
    torch.testing.assert_close(got, F.scaled_dot_product_attention(q, k, v, scale=1.0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_accumulates_in_float32(dtype) -> None:
    q, k, v, _ = make({"B": 2, "H": 4, "H_kv": 2, "L": 6, "S": 11, "D": 8, "D_v": 8, "seed": 4})
    q, k, v = (t.detach() * 30 for t in (q, k, v))  # scores far beyond float16's 65504
    got, lse = mha.tiled_attention(
        q.to(dtype), k.to(dtype), v.to(dtype), enable_gqa=True, block_size=4, return_lse=True
    )
    assert got.dtype == dtype and lse.dtype == torch.float32
    want, want_lse = reference(*(t.to(dtype).double() for t in (q, k, v)), gqa=True)
    torch.testing.assert_close(got.double(), want, atol=0.5, rtol=2e-2)
    torch.testing.assert_close(lse.double(), want_lse, rtol=1e-3, atol=0.0)


def test_causal_skips_the_blocks_no_query_sees() -> None:
    """Top-left, L = 4 of S = 64: keys 4 and later are never read, so NaN there changes nothing."""
    q, k, v, _ = make({"B": 1, "H": 2, "H_kv": 2, "L": 4, "S": 64, "D": 4, "D_v": 4, "seed": 5})
    k, v = k.detach().clone(), v.detach().clone()
    want, _ = reference(q, k, v, causal="top-left")
    k[:, :, 4:], v[:, :, 4:] = math.nan, math.nan
    torch.testing.assert_close(mha.tiled_attention(q, k, v, is_causal=True, block_size=4), want)


def test_the_scores_of_one_block_are_the_largest_tensor() -> None:
    """What the loop creates grows with L * C, where the explicit step creates L * S."""
    L = S = 256
    q, k, v = torch.randn(3, 1, 1, L, 16, device=DEVICE).unbind(0)  # (B, H, L, D) each
    with mha.LargestTensor() as tiled:
        mha.tiled_attention(q, k, v, block_size=32)
    with mha.LargestTensor() as explicit:
        mha.scaled_dot_product_attention(q, k, v)
    assert explicit.numel == L * S
    assert tiled.numel == L * 32


ERRORS = [
    # (arguments changed from a valid call, exception, words in the message)
    ({"query": "not a tensor"}, TypeError, "expected query to be a torch.Tensor, got str"),
    ({"key": torch.zeros(2, 5, 4)}, ValueError, "expected key to be 4-D"),
    ({"key": torch.zeros(2, 4, 7, 3)}, ValueError, "(B, H, S, D) = (2, H, S, 8)"),
    ({"value": torch.zeros(2, 4, 6, 8)}, ValueError, "batch, heads and length of key"),
    ({"key": torch.zeros(2, 2, 7, 8), "value": torch.zeros(2, 2, 7, 8)}, ValueError, "enable_gqa"),
    (
        {"key": torch.zeros(2, 3, 7, 8), "value": torch.zeros(2, 3, 7, 8), "enable_gqa": True},
        ValueError,
        "must divide",
    ),
    ({"attn_mask": torch.ones(5, 6, dtype=torch.bool)}, ValueError, "broadcastable to"),
    ({"attn_mask": torch.ones(5, 7, dtype=torch.int64)}, TypeError, "bool or floating-point"),
    ({"attn_mask": torch.ones(5, 7, dtype=torch.bool), "is_causal": True}, ValueError, "both"),
    ({"is_causal": 1}, TypeError, "expected is_causal to be a bool"),
    ({"align": "top-right", "is_causal": True}, ValueError, '"top-left" or "bottom-right"'),
    ({"align": "bottom-right"}, ValueError, "pass is_causal=True too"),
    ({"block_size": 0}, ValueError, "expected block_size to be a positive int"),
]


@pytest.mark.parametrize(("change", "error", "words"), ERRORS)
def test_errors_say_expected_and_got(change, error, words) -> None:
    args = {
        "query": torch.zeros(2, 4, 5, 8),
        "key": torch.zeros(2, 4, 7, 8),
        "value": torch.zeros(2, 4, 7, 8),
    }
    args.update(change)
    with pytest.raises(error) as raised:
        mha.tiled_attention(**args)
    assert words in str(raised.value)
    if "tensor" in words or "4-D" in words or "(B" in words:
        assert isinstance(raised.value, RuntimeError)  # what PyTorch's function raises
