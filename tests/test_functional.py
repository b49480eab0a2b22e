"""The step functions, each against the PyTorch operation it spells out."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import mha


def test_project_equals_linear(device) -> None:
    torch.manual_seed(0)
    linear = nn.Linear(64, 32, device=device)
    x = torch.randn(2, 5, 64, device=device)
    torch.testing.assert_close(mha.project(x, linear.weight, linear.bias), linear(x))
    torch.testing.assert_close(mha.project(x, linear.weight), x @ linear.weight.T)


@pytest.mark.parametrize("bias", [True, False])
def test_project_qkv_packed_equals_separate(device, bias: bool) -> None:
    torch.manual_seed(0)
    layers = [nn.Linear(64, 64, bias=bias, device=device) for _ in range(3)]
    weights = [layer.weight for layer in layers]
    biases = [layer.bias for layer in layers]
    x = torch.randn(2, 5, 64, device=device)
    packed = mha.project_qkv(x, x, x, *weights, *biases)  # self-attention
    separate = mha.project_qkv(x, x.clone(), x.clone(), *weights, *biases)
    for p, s, layer in zip(packed, separate, layers, strict=True):
        assert p.shape == (2, 5, 64)
        torch.testing.assert_close(p, s)
        torch.testing.assert_close(p, layer(x))


def test_split_heads_is_view_then_transpose(device) -> None:
    x = torch.arange(2 * 5 * 64, dtype=torch.float32, device=device).view(2, 5, 64)
    heads = mha.split_heads(x, 8)
    assert heads.shape == (2, 8, 5, 8)
    assert heads.data_ptr() == x.data_ptr() and not heads.is_contiguous()
    assert heads.stride() == (320, 8, 64, 1)
    # head h of token t is columns h*D:(h+1)*D of the projection
    for h in range(8):
        torch.testing.assert_close(heads[:, h], x[:, :, h * 8 : (h + 1) * 8])


@pytest.mark.parametrize("num_heads", [1, 2, 4, 8, 16, 32, 64])
def test_merge_heads_inverts_split_heads(device, num_heads: int) -> None:
    x = torch.randn(2, 5, 64, device=device)
    heads = mha.split_heads(x, num_heads)
    assert heads.shape == (2, num_heads, 5, 64 // num_heads)
    merged = mha.merge_heads(heads)
    assert merged.is_contiguous()
    assert torch.equal(merged, x)
    assert torch.equal(merged, heads.transpose(1, 2).reshape(2, 5, 64))


def sdpa_masks(device) -> dict[str, dict]:
    allowed = torch.rand(2, 8, 5, 7, device=device) > 0.3
    allowed[..., 0] = True
    return {
        "none": {},
        "bool": {"attn_mask": allowed},
        "bool_broadcast": {"attn_mask": allowed[0, 0]},
        "float": {"attn_mask": torch.randn(2, 1, 5, 7, device=device)},
        "causal": {"is_causal": True},
        "scale": {"scale": 0.3},
    }


@pytest.mark.parametrize("case", list(sdpa_masks("cpu")))
def test_explicit_attention_equals_fused(device, case: str) -> None:
    torch.manual_seed(0)
    kwargs = sdpa_masks(device)[case]
    q = torch.randn(2, 8, 5, 8, device=device)
    k, v = torch.randn(2, 2, 8, 7, 8, device=device).unbind(0)
    out, weights = mha.scaled_dot_product_attention(q, k, v, **kwargs)
    assert out.shape == (2, 8, 5, 8) and weights.shape == (2, 8, 5, 7)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, **kwargs))
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 8, 5, device=device))
    torch.testing.assert_close(out, weights @ v)


def test_attention_weights_are_softmax_of_scaled_scores(device) -> None:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 2, 8, 5, 8, device=device).unbind(0)
    _, weights = mha.scaled_dot_product_attention(q, k, v)
    expected = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1)
    torch.testing.assert_close(weights, expected)
    # a causal mask zeroes every weight above the diagonal
    _, causal = mha.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert causal.triu(diagonal=1).abs().sum() == 0
    on_or_below = ~mha.causal_mask(5, device=device)
    assert causal[..., on_or_below].gt(0).all()


def test_boolean_mask_polarity_is_opposite_between_conventions(device) -> None:
    """SDPA: True = may attend. nn.MultiheadAttention and multi_head_attention: True = blocked."""
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 1, 4, 8, device=device).unbind(0)
    blocked = mha.causal_mask(4, device=device)
    _, sdpa_weights = mha.scaled_dot_product_attention(q, k, v, attn_mask=~blocked)
    additive = mha.additive_mask(blocked, q.dtype)
    _, additive_weights = mha.scaled_dot_product_attention(q, k, v, attn_mask=additive)
    torch.testing.assert_close(sdpa_weights, additive_weights)
    assert sdpa_weights[0, 0][blocked].abs().sum() == 0
    # passing the blocked mask to the SDPA convention attends exactly where it should not
    # handing the blocked mask to the SDPA convention inverts it: the first three queries attend
    # only to their future, and the last query, with nothing "allowed", becomes NaN
    _, wrong = mha.scaled_dot_product_attention(q, k, v, attn_mask=blocked)
    assert wrong[0, 0, :3][~blocked[:3]].abs().sum() == 0
    assert wrong[0, 0, 3].isnan().all()


def test_explicit_dropout_zeroes_and_rescales(device) -> None:
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 4, 8, 16, 8, device=device).unbind(0)
    _, clean = mha.scaled_dot_product_attention(q, k, v)
    _, dropped = mha.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    zeros = (dropped == 0).float().mean().item()
    assert 0.4 < zeros < 0.6
    kept = dropped != 0
    torch.testing.assert_close(dropped[kept], 2 * clean[kept])


def test_multi_head_attention_composes_the_steps(device) -> None:
    torch.manual_seed(0)
    x = torch.randn(2, 5, 64, device=device)
    w_q, w_k, w_v, w_o = torch.randn(4, 64, 64, device=device) / 8
    b_q, b_k, b_v, b_o = torch.randn(4, 64, device=device)
    out, weights = mha.multi_head_attention(
        x, x, x, 8, w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o, average_attn_weights=False
    )
    q = mha.split_heads(x @ w_q.T + b_q, 8)
    k = mha.split_heads(x @ w_k.T + b_k, 8)
    v = mha.split_heads(x @ w_v.T + b_v, 8)
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    expected_weights = scores.softmax(-1)
    expected = mha.merge_heads(expected_weights @ v) @ w_o.T + b_o
    torch.testing.assert_close(weights, expected_weights)
    torch.testing.assert_close(out, expected)


def test_causal_mask_and_additive_mask() -> None:
    mask = mha.causal_mask(3, 5)
    assert mask.shape == (3, 5) and mask.dtype == torch.bool
    assert mask.tolist()[0] == [False, True, True, True, True]
    assert mask.tolist()[2] == [False, False, False, True, True]
    additive = mha.additive_mask(mask, torch.float64)
    assert additive.dtype == torch.float64
    assert torch.equal(additive.isinf(), mask) and additive[~mask].eq(0).all()
    float_mask = torch.randn(3, 5)
    assert torch.equal(mha.additive_mask(float_mask, torch.float32), float_mask)
    assert mha.additive_mask(None, torch.float32) is None


@pytest.mark.parametrize(("L", "S"), [(5, 5), (2, 7), (1, 6), (4, 9)])
@pytest.mark.parametrize(
    ("align", "torch_bias"),
    [("top-left", "causal_upper_left"), ("bottom-right", "causal_lower_right")],
)
def test_causal_mask_alignments_match_torch_bias(device, L, S, align, torch_bias) -> None:
    """Each alignment gives the attention of PyTorch's causal bias of that corner."""
    from torch.nn.attention import bias

    torch.manual_seed(0)
    q = torch.randn(2, 3, L, 8, device=device)
    k, v = torch.randn(2, 2, 3, S, 8, device=device)
    allowed = ~mha.causal_mask(L, S, align=align, device=device)  # True = may attend
    ours = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=getattr(bias, torch_bias)(L, S))
    torch.testing.assert_close(ours, theirs)
    assert allowed[-1].all() == (align == "bottom-right" or L == S)  # the last query's row


def test_causal_mask_alignments_differ_only_when_lengths_differ() -> None:
    assert torch.equal(mha.causal_mask(4), mha.causal_mask(4, align="bottom-right"))
    top_left, bottom_right = (mha.causal_mask(1, 5, align=a) for a in ("top-left", "bottom-right"))
    assert top_left.tolist() == [[False, True, True, True, True]]  # one query sees key 0 only
    assert bottom_right.tolist() == [[False] * 5]  # one new query sees every key
    with pytest.raises(ValueError, match='expected align to be "top-left" or "bottom-right"'):
        mha.causal_mask(3, align="lower-right")


def test_modules_share_checks_only_through_the_validation_module() -> None:
    """No module of the package imports another's private (underscore) names."""
    import re
    from pathlib import Path

    source = Path(mha.__file__).parent
    private = re.compile(r"^from mha\.\w+ import .*\b_\w+", re.MULTILINE)
    private_block = re.compile(r"^from mha\.\w+ import \(([^)]*)\)", re.MULTILINE)
    found = []
    for path in sorted(source.glob("*.py")):
        text = path.read_text()
        found += [f"{path.name}: {m.group(0)}" for m in private.finditer(text)]
        for block in private_block.finditer(text):
            names = [n.strip() for n in block.group(1).split(",") if n.strip()]
            found += [f"{path.name}: {n}" for n in names if n.startswith("_")]
    assert not found, found
