"""Property-based parity with torch.nn.MultiheadAttention over its whole configuration space.

Each example draws a configuration (sizes, heads, layout, biases, extra keys, cross-attention
widths, every mask kind, the causal hint, weights or not, dtype), builds PyTorch's module and
``mha.MultiHeadAttention.from_torch`` of it, runs both on the same inputs and compares outputs,
attention weights and the gradients with respect to every input and parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch import nn

import mha

DEVICE = mha.get_device()
MASK_KINDS = ("none", "bool", "float")
ATTN_MASK_KINDS = ("none", "bool2d", "float2d", "bool3d", "float3d", "causal_bool", "causal_float")


@dataclass(frozen=True)
class Config:
    embed_dim: int
    num_heads: int
    batch: int
    target_len: int
    source_len: int
    batched: bool
    batch_first: bool
    bias: bool
    add_bias_kv: bool
    add_zero_attn: bool
    kdim: int | None
    vdim: int | None
    self_attention: bool
    key_padding_mask: str
    attn_mask: str
    is_causal: bool
    need_weights: bool
    average_attn_weights: bool
    dtype: torch.dtype
    seed: int


@st.composite
def configs(draw) -> Config:
    num_heads = draw(st.integers(1, 4))
    embed_dim = num_heads * draw(st.integers(1, 4))
    kdim = draw(st.one_of(st.none(), st.integers(1, 6)))
    vdim = draw(st.one_of(st.none(), st.integers(1, 6)))
    target_len = draw(st.integers(1, 5))
    same_width = kdim in (None, embed_dim) and vdim in (None, embed_dim)
    self_attention = same_width and draw(st.booleans())
    source_len = target_len if self_attention else draw(st.integers(1, 5))
    attn_mask = draw(st.sampled_from(ATTN_MASK_KINDS))
    key_padding_mask = draw(st.sampled_from(MASK_KINDS))
    if attn_mask != "none" and key_padding_mask != "none":
        # PyTorch deprecates mixing a bool and a float mask: keep the kinds equal
        key_padding_mask = "bool" if attn_mask.startswith(("bool", "causal_bool")) else "float"
    return Config(
        embed_dim=embed_dim,
        num_heads=num_heads,
        batch=draw(st.integers(1, 3)),
        target_len=target_len,
        source_len=source_len,
        batched=draw(st.booleans()),
        batch_first=draw(st.booleans()),
        bias=draw(st.booleans()),
        add_bias_kv=draw(st.booleans()),
        add_zero_attn=draw(st.booleans()),
        kdim=kdim,
        vdim=vdim,
        self_attention=self_attention,
        key_padding_mask=key_padding_mask,
        attn_mask=attn_mask,
        is_causal=attn_mask.startswith("causal") and draw(st.booleans()),
        need_weights=draw(st.booleans()),
        average_attn_weights=draw(st.booleans()),
        dtype=draw(st.sampled_from([torch.float32, torch.float64])),
        seed=draw(st.integers(0, 2**31 - 1)),
    )


def make_mask(kind: str, shape: tuple[int, ...], dtype: torch.dtype, gen: torch.Generator):
    """A random mask of ``kind`` in nn.MultiheadAttention's convention; key 0 always allowed."""
    if kind == "none":
        return None
    if kind.startswith("causal"):
        blocked = mha.causal_mask(shape[-2], shape[-1])
    else:
        blocked = torch.rand(shape, generator=gen) < 0.4
    blocked[..., 0] = False  # every query keeps at least one key: no fully masked row
    if "bool" in kind:
        return blocked.to(DEVICE)
    noise = torch.randn(shape, generator=gen, dtype=dtype)
    return noise.masked_fill(blocked, float("-inf")).to(DEVICE)


def make_inputs(cfg: Config, gen: torch.Generator):
    kdim = cfg.kdim or cfg.embed_dim
    vdim = cfg.vdim or cfg.embed_dim

    def shape(length: int, width: int) -> tuple[int, ...]:
        if not cfg.batched:
            return (length, width)
        return (cfg.batch, length, width) if cfg.batch_first else (length, cfg.batch, width)

    def tensor(*size: int) -> torch.Tensor:
        return torch.randn(size, generator=gen, dtype=cfg.dtype).to(DEVICE).requires_grad_()

    query = tensor(*shape(cfg.target_len, cfg.embed_dim))
    if cfg.self_attention:
        key = value = query
    else:
        key = tensor(*shape(cfg.source_len, kdim))
        value = tensor(*shape(cfg.source_len, vdim))
    kpm_shape = (cfg.batch, cfg.source_len) if cfg.batched else (cfg.source_len,)
    key_padding_mask = make_mask(cfg.key_padding_mask, kpm_shape, cfg.dtype, gen)
    heads_batch = cfg.batch * cfg.num_heads if cfg.batched else cfg.num_heads
    if cfg.attn_mask.endswith("3d"):
        mask_shape = (heads_batch, cfg.target_len, cfg.source_len)
    else:
        mask_shape = (cfg.target_len, cfg.source_len)
    attn_mask = make_mask(cfg.attn_mask, mask_shape, cfg.dtype, gen)
    return query, key, value, key_padding_mask, attn_mask


def fresh_inputs(inputs):
    """The same values as new leaves, keeping ``query is key is value`` where it held."""
    query, key, value, kpm, mask = inputs
    leaf = {id(t): t.detach().clone().requires_grad_() for t in (query, key, value)}
    return leaf[id(query)], leaf[id(key)], leaf[id(value)], kpm, mask


def run(module: nn.Module, cfg: Config, inputs, probes):
    """Forward on fresh leaves, then gradients of a random linear loss w.r.t. inputs and params."""
    query, key, value, key_padding_mask, attn_mask = fresh_inputs(inputs)
    out, weights = module(
        query,
        key,
        value,
        key_padding_mask=key_padding_mask,
        need_weights=cfg.need_weights,
        attn_mask=attn_mask,
        average_attn_weights=cfg.average_attn_weights,
        is_causal=cfg.is_causal,
    )
    loss = (out * probes[0]).sum()
    if weights is not None:
        loss = loss + (weights * probes[1][: weights.numel()].view_as(weights)).sum()
    leaves = list({id(t): t for t in (query, key, value)}.values())
    params = dict(module.named_parameters())
    grads = torch.autograd.grad(loss, [*leaves, *params.values()])
    return out, weights, grads[: len(leaves)], dict(zip(params, grads[len(leaves) :], strict=True))


@given(cfg=configs())
def test_matches_torch_multihead_attention(cfg: Config) -> None:
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    theirs = nn.MultiheadAttention(
        cfg.embed_dim,
        cfg.num_heads,
        bias=cfg.bias,
        add_bias_kv=cfg.add_bias_kv,
        add_zero_attn=cfg.add_zero_attn,
        kdim=cfg.kdim,
        vdim=cfg.vdim,
        batch_first=cfg.batch_first,
        device=DEVICE,
        dtype=cfg.dtype,
    )
    with torch.no_grad():  # nonzero biases, so that their effect and gradients are tested
        for p in theirs.parameters():
            p.add_(0.1 * torch.randn(p.shape, generator=gen, dtype=cfg.dtype).to(DEVICE))
    ours = mha.MultiHeadAttention.from_torch(theirs)
    inputs = make_inputs(cfg, gen)
    out_shape = (*inputs[0].shape[:-1], cfg.embed_dim)
    max_weights = cfg.batch * cfg.num_heads * cfg.target_len * (cfg.source_len + 2)
    probes = (
        torch.randn(out_shape, generator=gen, dtype=cfg.dtype).to(DEVICE),
        torch.randn(max_weights, generator=gen, dtype=cfg.dtype).to(DEVICE),
    )

    out_t, weights_t, input_grads_t, param_grads_t = run(theirs, cfg, inputs, probes)
    out_o, weights_o, input_grads_o, param_grads_o = run(ours, cfg, inputs, probes)

    torch.testing.assert_close(out_o, out_t)
    if cfg.need_weights:
        torch.testing.assert_close(weights_o, weights_t)
    else:
        assert weights_o is None and weights_t is None
    for grad_o, grad_t in zip(input_grads_o, input_grads_t, strict=True):
        torch.testing.assert_close(grad_o, grad_t)
    # the same parameters under the same names, in the same order
    assert list(param_grads_o) == list(param_grads_t)
    for name, grad in param_grads_t.items():
        torch.testing.assert_close(param_grads_o[name], grad, msg=lambda m, n=name: f"{n}: {m}")


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("mask", ["none", "bool", "float"])
def test_matches_torch_fast_path_in_inference(device, batch_first: bool, mask: str) -> None:
    """Eval mode without gradients sends PyTorch to its native fast path; we agree with it too."""
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(64, 8, batch_first=batch_first, device=device).eval()
    ours = mha.MultiHeadAttention.from_torch(theirs)
    x = torch.randn((2, 7, 64) if batch_first else (7, 2, 64), device=device)
    kpm = make_mask(mask, (2, 7), torch.float32, torch.Generator().manual_seed(1))
    kpm = None if kpm is None else kpm.to(device)
    with torch.no_grad():
        for need_weights in (True, False):
            out_t, w_t = theirs(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
            out_o, w_o = ours(x, x, x, key_padding_mask=kpm, need_weights=need_weights)
            torch.testing.assert_close(out_o, out_t)
            if need_weights:
                torch.testing.assert_close(w_o, w_t)
