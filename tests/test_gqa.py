"""Grouped-query attention and the KV cache, against PyTorch's own composition.

The reference is written independently of the package: ``F.linear`` for the projections and
``F.scaled_dot_product_attention(..., enable_gqa=True)`` for the attention, with
``torch.nn.attention.bias.causal_lower_right`` for a causal mask over a cache.
"""

from __future__ import annotations

import itertools
import re

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.nn.attention.bias import causal_lower_right

import mha
from mha.__main__ import main

DEVICE = mha.get_device()
TOLERANCE = {
    torch.float64: {"atol": 1e-10, "rtol": 1e-8},
    torch.float32: {"atol": 1e-5, "rtol": 1e-4},
    torch.bfloat16: {"atol": 2e-2, "rtol": 2e-2},
}


def reference(module: mha.GroupedQueryAttention, x, *, is_causal=False, past=None):
    """``F.linear`` + ``F.scaled_dot_product_attention(enable_gqa=True)``; ``past`` is the
    ``(B, P, E)`` input already seen, whose keys the queries of ``x`` also attend to."""
    H, H_kv, D = module.num_heads, module.num_kv_heads, module.head_dim
    B, L, E = x.shape
    context = x if past is None else torch.cat([past, x], dim=1)  # (B, S, E)
    S = context.shape[1]

    def heads(t, n):  # (B, T, n*D) -> (B, n, T, D)
        return t.reshape(B, t.shape[1], n, D).transpose(1, 2)

    q = heads(F.linear(x, module.q_proj.weight, module.q_proj.bias), H)
    k = heads(F.linear(context, module.k_proj.weight, module.k_proj.bias), H_kv)
    v = heads(F.linear(context, module.v_proj.weight, module.v_proj.bias), H_kv)
    mask = causal_lower_right(L, S) if is_causal else None
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    out = out.transpose(1, 2).reshape(B, L, E)
    return F.linear(out, module.out_proj.weight, module.out_proj.bias)


def explicit(module: mha.GroupedQueryAttention, x, *, is_causal=False):
    """The module's steps with the explicit attention (repeat_kv, matmul, softmax, matmul)."""
    q = mha.split_heads(module.q_proj(x), module.num_heads)  # (B, H, L, D)
    k = mha.split_heads(module.k_proj(x), module.num_kv_heads)  # (B, H_kv, S, D)
    v = mha.split_heads(module.v_proj(x), module.num_kv_heads)  # (B, H_kv, S, D)
    out, weights = mha.grouped_query_attention(
        q, k, v, is_causal=is_causal, need_weights=True
    )  # (B, H, L, D), (B, H, L, S)
    return module.out_proj(mha.merge_heads(out)), weights


@st.composite
def configs(draw):
    num_kv_heads = draw(st.integers(1, 4))
    num_heads = num_kv_heads * draw(st.integers(1, 4))
    embed_dim = num_heads * draw(st.integers(1, 4))
    return {
        "embed_dim": embed_dim,
        "num_heads": num_heads,
        "num_kv_heads": num_kv_heads,
        "batch": draw(st.integers(1, 3)),
        "seq": draw(st.integers(1, 7)),
        "bias": draw(st.booleans()),
        "is_causal": draw(st.booleans()),
        "dtype": draw(st.sampled_from([torch.float32, torch.float64, torch.bfloat16])),
        "seed": draw(st.integers(0, 2**16)),
    }


def build(c: dict) -> tuple[mha.GroupedQueryAttention, torch.Tensor]:
    torch.manual_seed(c["seed"])
    module = mha.GroupedQueryAttention(
        c["embed_dim"],
        c["num_heads"],
        c["num_kv_heads"],
        bias=c["bias"],
        device=DEVICE,
        dtype=c["dtype"],
    )
    x = torch.randn(c["batch"], c["seq"], c["embed_dim"], device=DEVICE, dtype=c["dtype"])
    return module, x


# ---------------------------------------------------------------------------
# Parity with PyTorch's composition, fused and explicit paths
# ---------------------------------------------------------------------------


@given(configs())
def test_parity_with_pytorch(c: dict) -> None:
    """Over E, H, H_kv, L, bias, causal and dtype: fused == explicit == reference."""
    module, x = build(c)
    with torch.no_grad():
        expected = reference(module, x, is_causal=c["is_causal"])
        fused = module(x, is_causal=c["is_causal"])
        out, weights = explicit(module, x, is_causal=c["is_causal"])
    B, L, H = c["batch"], c["seq"], c["num_heads"]
    assert fused.shape == out.shape == (B, L, c["embed_dim"])
    assert weights.shape == (B, H, L, L)
    torch.testing.assert_close(fused, expected, **TOLERANCE[c["dtype"]])
    torch.testing.assert_close(out, expected, **TOLERANCE[c["dtype"]])
    if c["is_causal"]:  # no weight above the diagonal
        assert not weights.float().triu(1).any()


@settings(max_examples=200)  # each example runs up to 8 calls
@given(configs(), st.data())
def test_cache_equals_full_forward_for_random_chunks(c: dict, data) -> None:
    """A prefill in random chunks, then token by token, equals one causal forward."""
    c = {**c, "seq": data.draw(st.integers(1, 12), label="seq"), "is_causal": True}
    module, x = build(c)
    cuts = data.draw(st.sets(st.integers(1, 11), max_size=6), label="cuts")
    cuts = sorted(cut for cut in cuts if cut < c["seq"])
    bounds = [0, *cuts, c["seq"]]
    cache = mha.KVCache()
    with torch.no_grad():
        full = module(x, is_causal=True)
        chunks = [
            module(x[:, a:b], is_causal=True, cache=cache) for a, b in itertools.pairwise(bounds)
        ]
    assert len(cache) == c["seq"]
    assert cache.keys.shape == (c["batch"], c["num_kv_heads"], c["seq"], module.head_dim)
    torch.testing.assert_close(torch.cat(chunks, dim=1), full, **TOLERANCE[c["dtype"]])


@settings(max_examples=200)
@given(configs(), st.data())
def test_cache_with_reference_over_past(c: dict, data) -> None:
    """One call after P cached positions equals the reference with a bottom-right mask."""
    module, x = build(c)
    past_len = data.draw(st.integers(1, 6), label="past")
    past = torch.randn(c["batch"], past_len, c["embed_dim"], device=DEVICE, dtype=c["dtype"])
    cache = mha.KVCache()
    with torch.no_grad():
        module(past, cache=cache)
        out = module(x, is_causal=c["is_causal"], cache=cache)
        expected = reference(module, x, is_causal=c["is_causal"], past=past)
    assert len(cache) == past_len + c["seq"]
    torch.testing.assert_close(out, expected, **TOLERANCE[c["dtype"]])


def test_paths_agree_with_a_cache_and_return_weights() -> None:
    torch.manual_seed(0)
    q = torch.randn(2, 8, 3, 8, device=DEVICE)  # (B, H, L, D)
    k, v = torch.randn(2, 2, 2, 7, 8, device=DEVICE).unbind(0)  # (B, H_kv, S, D)
    fused, none = mha.grouped_query_attention(q, k, v, is_causal=True)
    out, weights = mha.grouped_query_attention(q, k, v, is_causal=True, need_weights=True)
    assert none is None and weights.shape == (2, 8, 3, 7)
    torch.testing.assert_close(fused, out)
    # bottom right: query i (absolute 4 + i) sees keys 0 .. 4 + i
    visible = (weights > 0).sum(-1)  # (B, H, L)
    assert (visible == torch.tensor([5, 6, 7], device=DEVICE)).all()


def test_the_top_left_trap() -> None:
    """``is_causal=True`` in PyTorch's function hides every cached key from a one-token query
    (top-left alignment); the cache's bottom-right alignment is what the full forward does."""
    torch.manual_seed(0)
    module = mha.GroupedQueryAttention(64, 8, 2, device=DEVICE)
    x = torch.randn(2, 5, 64, device=DEVICE)
    cache = mha.KVCache()
    with torch.no_grad():
        full = module(x, is_causal=True)
        module(x[:, :4], is_causal=True, cache=cache)
        last = module(x[:, 4:], is_causal=True, cache=cache)
        q = mha.split_heads(module.q_proj(x[:, 4:]), 8)  # (B, H, 1, D)
        wrong = F.scaled_dot_product_attention(
            q, cache.keys, cache.values, is_causal=True, enable_gqa=True
        )  # top-left: the query sees key 0 only
        wrong = module.out_proj(mha.merge_heads(wrong))
        first_value = module.out_proj(
            mha.merge_heads(mha.repeat_kv(cache.values[:, :, :1], 8))
        )  # (B, 1, E): attending to key 0 alone
    torch.testing.assert_close(last, full[:, 4:])
    torch.testing.assert_close(wrong, first_value)
    assert not torch.allclose(wrong, full[:, 4:])


def test_equal_heads_is_multi_head_attention() -> None:
    """``num_kv_heads == num_heads`` is MultiHeadAttention holding the same weights."""
    torch.manual_seed(0)
    gqa = mha.GroupedQueryAttention(64, 8, 8, bias=True, device=DEVICE)
    ours = mha.MultiHeadAttention(64, 8, batch_first=True, device=DEVICE)
    with torch.no_grad():
        ours.in_proj_weight.copy_(
            torch.cat([gqa.q_proj.weight, gqa.k_proj.weight, gqa.v_proj.weight])
        )
        ours.in_proj_bias.copy_(torch.cat([gqa.q_proj.bias, gqa.k_proj.bias, gqa.v_proj.bias]))
        ours.out_proj.load_state_dict(gqa.out_proj.state_dict())
    x = torch.randn(2, 5, 64, device=DEVICE)
    causal = mha.causal_mask(5, device=DEVICE)
    torch.testing.assert_close(gqa(x), ours(x, x, x, need_weights=False)[0])
    torch.testing.assert_close(gqa(x, is_causal=True), ours(x, x, x, attn_mask=causal)[0])


def test_module_layout() -> None:
    attn = mha.GroupedQueryAttention(64, 8, 2)
    assert (attn.num_heads, attn.num_kv_heads, attn.head_dim) == (8, 2, 8)
    assert attn.q_proj.weight.shape == attn.out_proj.weight.shape == (64, 64)
    assert attn.k_proj.weight.shape == attn.v_proj.weight.shape == (16, 64)  # (H_kv*D, E)
    assert all(isinstance(m, torch.nn.Linear) for m in attn.children())
    assert all(m.bias is None for m in attn.children())
    assert attn.k_proj.bias is None
    assert mha.GroupedQueryAttention(64, 8, 1, bias=True).k_proj.bias.shape == (8,)
    assert "num_kv_heads=2" in repr(attn)
    assert attn(torch.randn(2, 5, 64)).shape == (2, 5, 64)


# ---------------------------------------------------------------------------
# repeat_kv and the cache
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kv_heads", "heads"), [(1, 8), (2, 8), (4, 8), (8, 8), (3, 6)])
def test_repeat_kv_grouping(kv_heads: int, heads: int) -> None:
    x = torch.randn(2, kv_heads, 5, 4, device=DEVICE)  # (B, H_kv, S, D)
    out = mha.repeat_kv(x, heads)  # (B, H, S, D)
    assert out.shape == (2, heads, 5, 4)
    torch.testing.assert_close(out, x.repeat_interleave(heads // kv_heads, dim=1), atol=0, rtol=0)
    group = heads // kv_heads
    for h in range(heads):  # query head h reads kv head h // G
        assert out[:, h].equal(x[:, h // group])
    if group == 1:
        assert out is x
    else:  # a copy, not a view
        assert out.is_contiguous() and out.untyped_storage().data_ptr() != x.data_ptr()


def test_cache_grows_and_keeps_what_it_holds() -> None:
    cache = mha.KVCache()
    assert len(cache) == 0 and cache.keys is None and cache.values is None
    assert repr(cache) == "KVCache(empty)"
    k = torch.randn(2, 2, 40, 8, device=DEVICE)
    v = torch.randn(2, 2, 40, 8, device=DEVICE)
    for start, end in [(0, 3), (3, 4), (4, 20), (20, 40)]:
        keys, values = cache.append(k[:, :, start:end], v[:, :, start:end])
        assert len(cache) == end
        assert keys.shape == values.shape == (2, 2, end, 8)
        assert keys.equal(k[:, :, :end]) and values.equal(v[:, :, :end])
    assert "S=40" in repr(cache) and "capacity=64" in repr(cache)  # 16 -> 32 -> 64
    assert cache.keys.nbytes + cache.values.nbytes == mha.kv_cache_bytes(2, 40, 16, 2, 2)


# ---------------------------------------------------------------------------
# Cost: parameters and cache bytes against the real tensors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kv_heads", [1, 2, 4, 8])
@pytest.mark.parametrize("bias", [False, True])
def test_parameter_count_against_numel(kv_heads: int, bias: bool) -> None:
    attn = mha.GroupedQueryAttention(64, 8, kv_heads, bias=bias)
    counted = sum(p.numel() for p in attn.parameters())
    assert mha.parameter_count(64, 8, bias=bias, num_kv_heads=kv_heads) == counted
    D = 8
    assert counted == 2 * 64 * 64 + 2 * kv_heads * D * 64 + (2 * 64 + 2 * kv_heads * D) * bias
    if kv_heads == 8:  # multi-head attention: the same count as PyTorch's module
        torch_mha = torch.nn.MultiheadAttention(64, 8, bias=bias)
        assert counted == sum(p.numel() for p in torch_mha.parameters())


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("kv_heads", [1, 2, 8])
def test_kv_cache_bytes_against_the_cache(dtype: torch.dtype, kv_heads: int) -> None:
    attn = mha.GroupedQueryAttention(64, 8, kv_heads, device=DEVICE, dtype=dtype)
    cache = mha.KVCache()
    with torch.no_grad():
        for n in (5, 1, 1, 10):
            attn(torch.randn(3, n, 64, device=DEVICE, dtype=dtype), is_causal=True, cache=cache)
    real = cache.keys.nbytes + cache.values.nbytes
    assert real == mha.kv_cache_bytes(3, 17, 64, 8, kv_heads, dtype=dtype)
    assert real == 2 * 3 * kv_heads * 17 * 8 * dtype.itemsize


def test_kv_cache_bytes_llama_like() -> None:
    """E = 4096, H = 32, 32k tokens in bfloat16: 512 MiB per layer with 32 kv heads."""
    full = mha.kv_cache_bytes(1, 32768, 4096, 32, dtype=torch.bfloat16)
    assert full == 2**29
    for kv in (1, 2, 4, 8, 16, 32):
        assert mha.kv_cache_bytes(1, 32768, 4096, 32, kv, dtype=torch.bfloat16) * 32 // kv == full


# ---------------------------------------------------------------------------
# Trace and command line
# ---------------------------------------------------------------------------


def test_trace_with_kv_heads() -> None:
    steps = {s.name: s for s in mha.trace_shapes(2, 5, 64, 8, num_kv_heads=2)}
    assert steps["K"].shape == steps["V"].shape == (2, 5, 16)
    assert steps["K_heads"].shape == steps["V_heads"].shape == (2, 2, 5, 8)
    assert steps["K_heads"].letters == "(B, H_kv, S, D)"
    assert steps["K_repeated"].shape == (2, 8, 5, 8)
    assert steps["K_repeated"].step == "3b) repeat kv"
    assert steps["scores"].shape == (2, 8, 5, 5)
    assert "K_repeated" not in {s.name for s in mha.trace_shapes(2, 5, 64, 8)}


def test_trace_agrees_with_the_module() -> None:
    steps = {s.name: s.shape for s in mha.trace_shapes(3, 4, 64, 8, num_kv_heads=4)}
    attn = mha.GroupedQueryAttention(64, 8, 4)
    x = torch.randn(3, 4, 64)
    assert attn.k_proj(x).shape == steps["K"]
    assert mha.split_heads(attn.k_proj(x), 4).shape == steps["K_heads"]
    assert attn(x).shape == steps["output"]


def test_trace_cross_attention_lists_key_and_value() -> None:
    steps = mha.trace_shapes(2, 5, 64, 8, source_len=7)
    assert [s.name for s in steps[:3]] == ["x", "key", "value"]
    assert steps[1].shape == steps[2].shape == (2, 7, 64)
    assert steps[1].letters == "(B, S, E)"
    assert [s.name for s in mha.trace_shapes(2, 5, 64, 8)][:2] == ["x", "Q"]


def test_cli_kv_heads(capsys) -> None:
    assert main(["--heads", "8", "--kv-heads", "2"]) == 0
    out = capsys.readouterr().out
    assert "H_kv=2  G=H/H_kv=4" in out
    assert re.search(r"K_heads\s+\(B, H_kv, S, D\)\s+\(2, 2, 5, 8\)", out)
    assert re.search(r"V_repeated\s+\(B, H, S, D\)\s+\(2, 8, 5, 8\)", out)


def test_cli_bad_kv_heads_exit_with_a_message(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--heads", "8", "--kv-heads", "3"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "expected num_kv_heads to divide num_heads=8, got num_kv_heads=3" in err
    assert "1, 2, 4, 8" in err


def test_cli_cross_attention_with_kv_heads(capsys) -> None:
    assert main(["--kv-heads", "2", "--source-seq", "7"]) == 0
    out = capsys.readouterr().out
    assert "(2, 2, 7, 8)" in out and "(2, 7, 64)" in out


# ---------------------------------------------------------------------------
# Every error
# ---------------------------------------------------------------------------


def test_kv_heads_must_divide_heads() -> None:
    with pytest.raises(ValueError, match="expected num_kv_heads to divide num_heads=8") as err:
        mha.GroupedQueryAttention(64, 8, 3)
    assert "got num_kv_heads=3" in str(err.value)
    assert "head counts that divide 8: 1, 2, 4, 8" in str(err.value)
    with pytest.raises(ValueError, match="num_kv_heads=16"):
        mha.GroupedQueryAttention(64, 8, 16)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((64, 6, 2), {}, ValueError, "embed_dim must be divisible by num_heads"),
        ((64, 8, 0), {}, ValueError, "expected num_kv_heads to be a positive int"),
        ((64, 8, 2.0), {}, TypeError, "expected num_kv_heads to be an int, got float"),
        ((64, 8, 2), {"bias": 1}, TypeError, "expected bias to be a bool, got int"),
    ],
)
def test_constructor_errors(args, kwargs, error, match: str) -> None:
    with pytest.raises(error, match=match):
        mha.GroupedQueryAttention(*args, **kwargs)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda m: m([[1.0]]), TypeError, "expected x to be a torch.Tensor, got list"),
        (lambda m: m(torch.randn(5, 64)), ValueError, r"expected x to be 3-D .*\(B, L, E\)"),
        (
            lambda m: m(torch.randn(2, 5, 32)),
            ValueError,
            r"expected x's last dimension to be embed_dim=64, got x of shape \(2, 5, 32\)",
        ),
        (lambda m: m(torch.randn(2, 5, 64), is_causal=1), TypeError, "is_causal to be a bool"),
        (
            lambda m: m(torch.randn(2, 5, 64), cache={}),
            TypeError,
            "expected cache to be an mha.KVCache or None, got dict",
        ),
    ],
)
def test_forward_errors(call, error, match: str) -> None:
    with pytest.raises(error, match=match):
        call(mha.GroupedQueryAttention(64, 8, 2))


def test_cache_from_another_batch_or_layer() -> None:
    cache = mha.KVCache()
    with torch.no_grad():
        mha.GroupedQueryAttention(64, 8, 2)(torch.randn(2, 5, 64), cache=cache)
        with pytest.raises(ValueError, match=r"\(B, H_kv, L, D\) = \(2, 2, L, 8\)") as err:
            mha.GroupedQueryAttention(64, 8, 2)(torch.randn(3, 1, 64), cache=cache)
        assert "got (3, 2, 1, 8)" in str(err.value) and "new mha.KVCache()" in str(err.value)
        with pytest.raises(ValueError, match=r"= \(2, 2, L, 8\)"):  # 4 kv heads, not 2
            mha.GroupedQueryAttention(64, 8, 4)(torch.randn(2, 1, 64), cache=cache)
        with pytest.raises(ValueError, match=r"dtype torch\.float32, as already cached"):
            mha.GroupedQueryAttention(64, 8, 2, dtype=torch.float64)(
                torch.randn(2, 1, 64, dtype=torch.float64), cache=cache
            )
    assert len(cache) == 5  # a refused call adds nothing


@pytest.mark.parametrize(
    ("keys", "values", "error", "match"),
    [
        ("k", torch.zeros(1, 1, 1, 1), TypeError, "expected keys to be a torch.Tensor, got str"),
        (torch.zeros(1, 1, 1), torch.zeros(1, 1, 1), ValueError, "expected keys to be 4-D"),
        (
            torch.zeros(1, 1, 2, 4),
            torch.zeros(1, 1, 3, 4),
            ValueError,
            r"expected keys and values of the same shape .* got keys \(1, 1, 2, 4\)",
        ),
    ],
)
def test_cache_append_errors(keys, values, error, match: str) -> None:
    with pytest.raises(error, match=match):
        mha.KVCache().append(keys, values)


def test_cache_on_another_device() -> None:
    cache = mha.KVCache()
    cache.append(torch.zeros(1, 1, 1, 4, device="meta"), torch.zeros(1, 1, 1, 4, device="meta"))
    with pytest.raises(ValueError, match="expected keys on meta, where the cache is, got cpu"):
        cache.append(torch.zeros(1, 1, 1, 4), torch.zeros(1, 1, 1, 4))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mha.repeat_kv([1.0], 8), TypeError, "expected x to be a torch.Tensor"),
        (lambda: mha.repeat_kv(torch.randn(2, 5, 8), 8), ValueError, "expected x to be 4-D"),
        (lambda: mha.repeat_kv(torch.randn(1, 2, 5, 8), 0), ValueError, "positive int"),
        (
            lambda: mha.repeat_kv(torch.randn(1, 3, 5, 8), 8),
            ValueError,
            r"expected num_heads to be a multiple of the 3 key/value heads of x, got num_heads=8",
        ),
    ],
)
def test_repeat_kv_errors(call, error, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


Q = torch.zeros(2, 8, 3, 4)  # (B, H, L, D)
KV = torch.zeros(2, 2, 5, 4)  # (B, H_kv, S, D)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mha.grouped_query_attention(Q, "k", KV), TypeError, "expected key to be a"),
        (
            lambda: mha.grouped_query_attention(Q[0], KV, KV),
            ValueError,
            r"expected query to be 4-D with layout \(B, H, L, D\)",
        ),
        (
            lambda: mha.grouped_query_attention(Q, KV, KV[:, :, :4]),
            ValueError,
            r"expected key and value of shape \(B, H_kv, S, D\) = \(2, H_kv, S, 4\)",
        ),
        (
            lambda: mha.grouped_query_attention(Q, KV[:1], KV[:1]),
            ValueError,
            r"= \(2, H_kv, S, 4\)",
        ),
        (
            lambda: mha.grouped_query_attention(Q, KV[:, :, :, :2], KV[:, :, :, :2]),
            ValueError,
            r"= \(2, H_kv, S, 4\)",
        ),
        (
            lambda: mha.grouped_query_attention(
                Q, torch.zeros(2, 3, 5, 4), torch.zeros(2, 3, 5, 4)
            ),
            ValueError,
            "expected num_kv_heads to divide num_heads=8, got num_kv_heads=3",
        ),
        (
            lambda: mha.grouped_query_attention(Q, KV[:, :, :2], KV[:, :, :2], is_causal=True),
            ValueError,
            "expected at least as many keys as queries with is_causal=True .* got L=3 and S=2",
        ),
        (
            lambda: mha.grouped_query_attention(Q, KV, KV, need_weights="yes"),
            TypeError,
            "expected need_weights to be a bool, got str",
        ),
    ],
)
def test_grouped_query_attention_errors(call, error, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: mha.parameter_count(64, 8, num_kv_heads=3),
            ValueError,
            "expected num_kv_heads to divide num_heads=8",
        ),
        (
            lambda: mha.kv_cache_bytes(1, 16, 64, 8, 3),
            ValueError,
            "expected num_kv_heads to divide num_heads=8",
        ),
        (lambda: mha.kv_cache_bytes(0, 16, 64, 8), ValueError, "expected batch to be a positive"),
        (lambda: mha.kv_cache_bytes(1, 16, 64, 6), ValueError, "embed_dim must be divisible"),
        (
            lambda: mha.kv_cache_bytes(1, 16, 64, 8, dtype="float32"),
            TypeError,
            "expected dtype to be a torch.dtype such as torch.float32, got str",
        ),
        (
            lambda: mha.trace_shapes(2, 5, 64, 8, num_kv_heads=3),
            ValueError,
            "expected num_kv_heads to divide num_heads=8",
        ),
    ],
)
def test_cost_and_trace_errors(call, error, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_cache_crop_and_capacity() -> None:
    """crop forgets positions without freeing the buffer; a step re-run from the same prefix
    gives the same output."""
    torch.manual_seed(0)
    attn = mha.GroupedQueryAttention(32, 4, 2, device=DEVICE).eval()
    x = torch.randn(1, 6, 32, device=DEVICE)
    cache = mha.KVCache()
    assert cache.capacity == 0
    with torch.no_grad():
        attn(x[:, :5], is_causal=True, cache=cache)
        first = attn(x[:, 5:], is_causal=True, cache=cache)
        assert (len(cache), cache.capacity) == (6, 16)
        cache.crop(5)
        assert len(cache) == 5 and cache.keys.shape[2] == 5 and cache.capacity == 16
        again = attn(x[:, 5:], is_causal=True, cache=cache)
    torch.testing.assert_close(again, first)
    for bad, error in ((7, ValueError), (-1, ValueError), (2.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match="expected"):
            cache.crop(bad)
