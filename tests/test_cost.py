"""mha.cost against the real modules: parameter counts, counted FLOPs, weight memory."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import mha

# ---------------------------------------------------------------------------
# parameter_count
# ---------------------------------------------------------------------------

CONFIGS = [
    {"embed_dim": 64, "num_heads": 8},
    {"embed_dim": 64, "num_heads": 1},
    {"embed_dim": 64, "num_heads": 64},
    {"embed_dim": 12, "num_heads": 3, "bias": False},
    {"embed_dim": 16, "num_heads": 4, "add_bias_kv": True},
    {"embed_dim": 16, "num_heads": 2, "kdim": 5, "vdim": 7},
    {"embed_dim": 24, "num_heads": 6, "kdim": 10, "bias": False, "add_bias_kv": True},
]


def _numel(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_parameter_count_equals_both_modules(config):
    expected = mha.parameter_count(**config)
    assert expected == _numel(mha.MultiHeadAttention(**config))
    assert expected == _numel(torch.nn.MultiheadAttention(**config))


def test_parameter_count_formula_and_independence_of_heads():
    E = 512
    counts = {h: mha.parameter_count(E, h) for h in (1, 2, 4, 8, 16, 64, 512)}
    assert set(counts.values()) == {4 * E * E + 4 * E}
    assert mha.parameter_count(E, 8, bias=False) == 4 * E * E
    assert mha.parameter_count(E, 8, add_bias_kv=True) == 4 * E * E + 6 * E


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"embed_dim": 64, "num_heads": 6}, ValueError, "divisible by num_heads"),
        ({"embed_dim": 0, "num_heads": 1}, ValueError, "positive"),
        ({"embed_dim": 64.0, "num_heads": 8}, TypeError, "expected embed_dim to be an int"),
        ({"embed_dim": 64, "num_heads": 8, "kdim": 0}, ValueError, "kdim"),
        ({"embed_dim": 64, "num_heads": 8, "vdim": "8"}, TypeError, "vdim"),
        ({"embed_dim": 64, "num_heads": 8, "bias": 1}, TypeError, "bias to be a bool"),
        ({"embed_dim": 64, "num_heads": 8, "add_bias_kv": None}, TypeError, "add_bias_kv"),
    ],
)
def test_parameter_count_rejects_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        mha.parameter_count(**kwargs)


# ---------------------------------------------------------------------------
# attention_flops
# ---------------------------------------------------------------------------


def _counted_flops(module: torch.nn.Module, *inputs: torch.Tensor, **kwargs) -> int:
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        module(*inputs, need_weights=True, **kwargs)
    return counter.get_total_flops()


SIZES = [
    # (B, L, S, E, H, kdim, vdim)
    (2, 5, 5, 64, 8, None, None),
    (2, 5, 5, 64, 1, None, None),
    (2, 5, 5, 64, 64, None, None),
    (1, 3, 9, 32, 4, None, None),
    (3, 4, 6, 24, 6, 10, 7),
    (2, 16, 16, 512, 16, None, None),
]


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("which", ["mha", "torch"])
def test_attention_flops_equal_flop_counter(size, which):
    B, L, S, E, H, kdim, vdim = size
    cls = mha.MultiHeadAttention if which == "mha" else torch.nn.MultiheadAttention
    torch.manual_seed(0)
    module = cls(E, H, kdim=kdim, vdim=vdim, batch_first=True)
    query = torch.randn(B, L, E)
    key = torch.randn(B, S, kdim or E)
    value = torch.randn(B, S, vdim or E)
    if L == S and kdim is None and vdim is None:
        key = value = query  # self-attention: the packed projection path
    flops = mha.attention_flops(B, L, S, E, H, kdim=kdim, vdim=vdim)
    assert flops.total == _counted_flops(module, query, key, value)


@pytest.mark.parametrize("which", ["mha", "torch"])
def test_attention_flops_count_with_mask_and_extra_key(which):
    B, L, E, H = 2, 5, 16, 4
    cls = mha.MultiHeadAttention if which == "mha" else torch.nn.MultiheadAttention
    module = cls(E, H, add_bias_kv=True, batch_first=True)
    x = torch.randn(B, L, E)
    counted = _counted_flops(module, x, x, x, attn_mask=mha.causal_mask(L))
    flops = mha.attention_flops(B, L, L, E, H)
    extra_key = 2 * B * L * E  # bias_k and bias_v: one more key in each batched product
    assert counted == flops.total + 2 * extra_key


def test_attention_flops_steps():
    B, L, S, E, H = 2, 5, 7, 64, 8
    flops = mha.attention_flops(B, L, S, E, H)
    assert dataclasses.astuple(flops) == (
        2 * B * L * E * E + 2 * 2 * B * S * E * E,
        2 * B * L * S * E,
        2 * B * L * S * E,
        2 * B * L * E * E,
    )
    assert flops.total == sum(dataclasses.astuple(flops))
    totals = {mha.attention_flops(B, L, S, E, h) for h in (1, 2, 4, 8, 16, 32, 64)}
    assert totals == {flops}
    with pytest.raises(dataclasses.FrozenInstanceError):
        flops.scores = 0


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((2, 5, 5, 64, 6), {}, ValueError, "divisible by num_heads"),
        ((0, 5, 5, 64, 8), {}, ValueError, "expected batch to be a positive int"),
        ((2, -1, 5, 64, 8), {}, ValueError, "target_len"),
        ((2, 5, 5.0, 64, 8), {}, TypeError, "expected source_len to be an int"),
        ((2, 5, 5, 64, True), {}, TypeError, "num_heads"),
        ((2, 5, 5, 64, 8), {"kdim": 0}, ValueError, "kdim"),
        ((2, 5, 5, 64, 8), {"vdim": 2.5}, TypeError, "vdim"),
    ],
)
def test_attention_flops_rejects_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        mha.attention_flops(*args, **kwargs)


# ---------------------------------------------------------------------------
# attention_weight_elements
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("which", ["mha", "torch"])
def test_attention_weight_elements_equal_returned_weights(num_heads, which):
    B, L, S, E = 2, 5, 7, 64
    cls = mha.MultiHeadAttention if which == "mha" else torch.nn.MultiheadAttention
    module = cls(E, num_heads, batch_first=True)
    query, memory = torch.randn(B, L, E), torch.randn(B, S, E)
    with torch.no_grad():
        _, weights = module(query, memory, memory, average_attn_weights=False)
    assert weights.shape == (B, num_heads, L, S)
    assert mha.attention_weight_elements(B, L, S, num_heads) == weights.numel()


def test_attention_weight_elements_grow_with_heads():
    sizes = [mha.attention_weight_elements(2, 5, 5, h) for h in (1, 2, 4, 8)]
    assert sizes == [50, 100, 200, 400]


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((0, 5, 5, 8), ValueError, "batch"),
        ((2, 5, 5, 0), ValueError, "num_heads"),
        ((2, 5, -5, 8), ValueError, "source_len"),
        ((2, "5", 5, 8), TypeError, "target_len"),
        ((2, 5, 5, False), TypeError, "num_heads"),
    ],
)
def test_attention_weight_elements_rejects_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        mha.attention_weight_elements(*args)
