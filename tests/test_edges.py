"""Edge inputs: huge, empty, wrongly typed, half precision, and the device variable."""

from __future__ import annotations

import time

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mha
from mha.__main__ import main

PRIME = 1_000_000_007  # a width whose only head counts are 1 and itself


@pytest.mark.parametrize(
    "call",
    [
        lambda: mha.check_heads(PRIME, 2),
        lambda: mha.MultiHeadAttention(PRIME, 2),
        lambda: mha.parameter_count(PRIME, 2),
        lambda: mha.split_heads(torch.empty(1, 1, PRIME, device="meta"), 2),
    ],
    ids=["check_heads", "MultiHeadAttention", "parameter_count", "split_heads"],
)
def test_error_for_a_huge_width_is_immediate(call) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"head counts that divide {PRIME} \\(up to 1024\\): 1$"):
        call()
    assert time.perf_counter() - start < 0.5  # listing every divisor took ~40 s


def test_cli_with_a_huge_width_is_a_usage_error(capsys) -> None:
    """Sizes no machine can hold: exit status 2 and a one-line message, at once (``main``
    in this process; test_trace.py runs ``python -m mha`` itself once)."""
    for args in (
        ["--d-model", str(PRIME), "--heads", "2"],
        ["--seq", str(10**10)],
        ["--d-model", str(2**40), "--heads", "1"],  # the weights (E, E) alone overflow
    ):
        start = time.perf_counter()
        with pytest.raises(SystemExit) as done:  # argparse's usage error, no other exception
            main(args)
        assert done.value.code == 2, args
        assert "error:" in capsys.readouterr().err
        assert time.perf_counter() - start < 30


@pytest.mark.parametrize(
    ("sizes", "names"),
    [
        ((2, 10**10, 64, 8), "the scores"),
        ((2, 5, 2**40, 1), "the weight W\\^Q"),  # 2**80 elements: only the weights overflow
        ((1, 2**20, 2**41, 1), "the weight W\\^Q"),
        ((2**61, 1, 8, 8), "the projections"),  # fits in elements, not in float32 bytes
    ],
)
def test_trace_shapes_rejects_tensors_that_cannot_exist(sizes, names: str) -> None:
    with pytest.raises(ValueError, match=rf"{names} .* more than the 2\*\*63 - 1 bytes"):
        mha.trace_shapes(*sizes)


def test_multi_head_attention_names_a_wrong_weight() -> None:
    x = torch.randn(2, 5, 64)
    w = torch.randn(64, 64)
    with pytest.raises(
        RuntimeError,
        match=r"expected out_weight of shape \(E_out, 64\).*got "
        r"out_weight of shape \(64, 32\)",
    ):
        mha.multi_head_attention(x, x, x, 8, w, w, w, torch.randn(64, 32))
    with pytest.raises(
        ValueError,
        match=r"expected k_weight to have E=32 rows, as q_weight has, "
        r"got k_weight of shape \(64, 64\)",
    ):
        mha.multi_head_attention(x, x, x, 8, torch.randn(32, 64), w, w, w)
    with pytest.raises(ValueError, match=r"expected v_weight to have E=64 rows"):
        mha.multi_head_attention(x, x, x, 8, w, w, torch.randn(32, 64), w)


@pytest.mark.parametrize("bad", [True, 2.0, "2"])
def test_trace_shapes_rejects_non_integer_sizes(bad) -> None:
    with pytest.raises(TypeError, match="expected batch to be an int"):
        mha.trace_shapes(bad, 5, 64, 8)


def test_positive_int_rule_is_the_same_everywhere() -> None:
    """0 is a ValueError and True a TypeError in every function that takes a size."""
    for call in (
        lambda n: mha.check_heads(64, n),
        lambda n: mha.split_heads(torch.randn(2, 5, 64), n),
        lambda n: mha.trace_shapes(2, 5, 64, n),
        lambda n: mha.parameter_count(64, n),
        lambda n: mha.MultiHeadAttention(64, n),
    ):
        with pytest.raises(ValueError, match="expected num_heads to be a positive int"):
            call(0)
        with pytest.raises(TypeError, match="expected num_heads to be an int"):
            call(True)


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize(("B", "L"), [(0, 5), (2, 0)], ids=["empty batch", "empty query"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_empty_inputs_give_empty_outputs(B, L, batch_first, need_weights) -> None:
    """Empty outputs of the right shapes, as PyTorch gives (where it does not crash itself:
    an empty batch without weights fails a reshape inside torch 2.13)."""
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, batch_first=batch_first)
    ours = mha.MultiHeadAttention.from_torch(theirs)
    q = torch.randn((B, L, 16) if batch_first else (L, B, 16))
    kv = torch.randn((B, 5, 16) if batch_first else (5, B, 16))
    mask = torch.zeros(B * 4, L, 5, dtype=torch.bool)
    out_o, w_o = ours(q, kv, kv, attn_mask=mask, need_weights=need_weights)
    assert out_o.shape == q.shape
    assert w_o is None if not need_weights else w_o.shape == (B, L, 5)
    if B == 0 and not need_weights:
        with pytest.raises(RuntimeError, match="cannot reshape tensor of 0 elements"):
            theirs(q, kv, kv, attn_mask=mask, need_weights=need_weights)
        return
    out_t, w_t = theirs(q, kv, kv, attn_mask=mask, need_weights=need_weights)
    torch.testing.assert_close(out_o, out_t)
    if need_weights:
        torch.testing.assert_close(w_o, w_t)


def test_project_names_a_wrong_argument() -> None:
    x = torch.randn(2, 5, 8)
    w = torch.randn(8, 8)
    with pytest.raises(TypeError, match=r"expected k_weight to be a torch\.Tensor, got list"):
        mha.project_qkv(x, x, x, w, [[1.0]], w)
    with pytest.raises(TypeError, match=r"expected query to be a torch\.Tensor, got NoneType"):
        mha.project_qkv(None, x, x, w, w, w)
    with pytest.raises(ValueError, match=r"expected key's last dimension to equal k_weight"):
        mha.project_qkv(x, x[..., :4], x, w, w, w)
    with pytest.raises(TypeError, match=r"expected bias to be a torch\.Tensor, got list"):
        mha.project(x, w, [0.0])
    with pytest.raises(ValueError, match=r"got x of shape \(\)"):
        mha.project(torch.tensor(1.0), w)


def test_half_precision_scores_do_not_overflow() -> None:
    """q . k beyond 65504: PyTorch's kernel accumulates in float32, and so do we."""
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 4, 64, generator=gen) for _ in range(3))
    q, k = q * 300, k * 300  # scores ~ 300 * 300 * 8 before the scale, far past float16
    half = [t.half() for t in (q, k, v)]
    out, weights = mha.scaled_dot_product_attention(*half)
    assert out.dtype == weights.dtype == torch.float16
    assert not out.isnan().any()
    torch.testing.assert_close(out, F.scaled_dot_product_attention(*half))
    # and equal, to half precision, to the computation in float32
    torch.testing.assert_close(out.float(), mha.scaled_dot_product_attention(q, k, v)[0],
                               atol=2e-3, rtol=2e-3)  # fmt: skip


@pytest.mark.parametrize("mask_dtype", [torch.float64, torch.float16])
def test_a_float_mask_of_another_dtype_is_cast_everywhere(mask_dtype) -> None:
    """One rule for float masks: added to the scores in their dtype, whatever its own."""
    torch.manual_seed(0)
    q = torch.randn(2, 4, 5, 8)
    mask32 = torch.randn(5, 5)
    mask = mask32.to(mask_dtype)
    expected = mha.scaled_dot_product_attention(q, q, q, attn_mask=mask.float())[0]
    torch.testing.assert_close(mha.scaled_dot_product_attention(q, q, q, attn_mask=mask)[0],
                               expected)  # fmt: skip
    attn = mha.MultiHeadAttention(32, 4, batch_first=True)
    x = torch.randn(2, 5, 32)
    torch.testing.assert_close(attn(x, x, x, attn_mask=mask)[0],
                               attn(x, x, x, attn_mask=mask.float())[0])  # fmt: skip


def test_half_bias_with_double_weights_runs_as_on_torch() -> None:
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(8, 2, batch_first=True, dtype=torch.float64)
    theirs.in_proj_bias = nn.Parameter(torch.randn(24).half().double().half())
    ours = mha.MultiHeadAttention.from_torch(theirs)
    ours.in_proj_bias = nn.Parameter(theirs.in_proj_bias.detach().clone())
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    out_t, w_t = theirs(x, x, x)
    out_o, w_o = ours(x, x, x)
    torch.testing.assert_close(out_o, out_t)
    torch.testing.assert_close(w_o, w_t)


@pytest.mark.parametrize("name", ["mps", "xpu", "cuda:99"])
def test_mha_device_must_be_usable_here(monkeypatch, name: str) -> None:
    monkeypatch.setenv("MHA_DEVICE", name)
    if name.startswith("cuda") and torch.cuda.is_available():
        name = f"cuda:{torch.cuda.device_count()}"
        monkeypatch.setenv("MHA_DEVICE", name)
    with pytest.raises(ValueError, match=f"MHA_DEVICE='{name}' names a device this machine"):
        mha.get_device()


def test_fused_and_explicit_paths_differ_with_causal_hint_and_extra_key_as_in_torch() -> None:
    """is_causal=True with add_bias_kv / add_zero_attn: each path equals PyTorch's same path,
    and the two paths differ, in PyTorch as here (the docstring's Notes say why)."""
    for extra in ({"add_bias_kv": True}, {"add_zero_attn": True}):
        torch.manual_seed(0)
        theirs = nn.MultiheadAttention(16, 4, batch_first=True, **extra)
        ours = mha.MultiHeadAttention.from_torch(theirs)
        x = torch.randn(2, 5, 16)
        causal = mha.causal_mask(5)
        paths = {}
        for need_weights in (True, False):
            kwargs = {"attn_mask": causal, "is_causal": True, "need_weights": need_weights}
            out_t, _ = theirs(x, x, x, **kwargs)
            out_o, _ = ours(x, x, x, **kwargs)
            torch.testing.assert_close(out_o, out_t)
            paths[need_weights] = out_o
        assert (paths[True] - paths[False]).abs().max() > 0.05
