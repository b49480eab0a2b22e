"""MultiHeadAttention: initialisation, conversions, both execution paths, dropout, dtypes."""

from __future__ import annotations

import pytest
import torch
from configs import CONFIGS, config_id
from torch import nn

import mha


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_same_seed_gives_pytorchs_parameters(device, config: dict) -> None:
    torch.manual_seed(123)
    theirs = nn.MultiheadAttention(16, 4, device=device, **config)
    after_theirs = torch.rand(1)
    torch.manual_seed(123)
    ours = mha.MultiHeadAttention(16, 4, device=device, **config)
    after_ours = torch.rand(1)
    expected = dict(theirs.named_parameters())
    actual = dict(ours.named_parameters())
    assert list(actual) == list(expected)  # the same names in the same order: optimizers load
    for name, value in expected.items():
        torch.testing.assert_close(actual[name], value, rtol=0, atol=0, msg=name)
    # the same number of random draws: the generator is left in the same state
    assert after_ours.item() == after_theirs.item()
    # and the draws are not degenerate: weights are random, biases start at zero
    assert ours.q_weight.std() > 0
    if ours.q_bias is not None:
        assert ours.q_bias.abs().sum() == 0


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_round_trips_copy_every_parameter(device, config: dict) -> None:
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, device=device, **config)
    with torch.no_grad():
        for p in theirs.parameters():
            p.normal_()  # every parameter distinct, biases included
    ours = mha.MultiHeadAttention.from_torch(theirs)
    back = ours.to_torch()
    assert isinstance(back, nn.MultiheadAttention)
    for name, value in theirs.state_dict().items():
        torch.testing.assert_close(back.state_dict()[name], value, rtol=0, atol=0, msg=name)
    for name, value in theirs.state_dict().items():
        torch.testing.assert_close(ours.state_dict()[name], value, rtol=0, atol=0, msg=name)
    # conversions copy: changing one module leaves the other alone
    with torch.no_grad():
        ours.q_weight.zero_()
    assert back.out_proj.weight.abs().sum() > 0
    assert theirs.state_dict().keys() == ours.state_dict().keys()
    for module in (theirs, back):
        w_q = module.in_proj_weight[:16] if module._qkv_same_embed_dim else module.q_proj_weight
        assert not torch.equal(w_q, ours.q_weight)


def test_conversion_keeps_dtype_device_and_mode(device) -> None:
    theirs = nn.MultiheadAttention(8, 2, dtype=torch.float64, device=device).eval()
    ours = mha.MultiHeadAttention.from_torch(theirs)
    assert ours.in_proj_weight.dtype == torch.float64
    assert ours.in_proj_weight.device.type == device.type
    assert not ours.training
    back = ours.train().to_torch()
    assert back.in_proj_weight.dtype == torch.float64 and back.training


def test_repr_names_each_setting() -> None:
    """Sizes where the head count and the head width differ, so that swapping them shows."""
    attn = mha.MultiHeadAttention(12, 3, dropout=0.1, batch_first=True)
    assert repr(attn).splitlines()[1].strip() == (
        "embed_dim=12, num_heads=3, head_dim=4, dropout=0.1, batch_first=True"
    )


def test_from_torch_rejects_other_modules() -> None:
    with pytest.raises(TypeError, match=r"expected a torch\.nn\.MultiheadAttention, got Linear"):
        mha.MultiHeadAttention.from_torch(nn.Linear(4, 4))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_dtype_and_device_arguments(device, dtype: torch.dtype) -> None:
    attn = mha.MultiHeadAttention(8, 2, kdim=4, add_bias_kv=True, device=device, dtype=dtype)
    for name, p in attn.named_parameters():
        assert p.dtype == dtype, name
        assert p.device.type == device.type, name
    x = torch.randn(3, 2, 8, device=device, dtype=dtype)
    k = torch.randn(4, 2, 4, device=device, dtype=dtype)
    v = torch.randn(4, 2, 8, device=device, dtype=dtype)
    out, weights = attn(x, k, v)
    assert out.dtype == dtype and out.shape == (3, 2, 8)
    assert weights.shape == (2, 3, 5)


MASKS = {
    "none": dict,
    "causal": lambda: {"attn_mask": mha.causal_mask(6), "is_causal": True},
    "padding": lambda: {"key_padding_mask": torch.tensor([[False] * 5 + [True]] * 3)},
    "float3d": lambda: {"attn_mask": torch.randn(3 * 4, 6, 6)},
    "both": lambda: {
        "attn_mask": mha.causal_mask(6),
        "key_padding_mask": torch.tensor([[False] * 4 + [True] * 2] * 3),
        "is_causal": True,
    },
}


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("config", CONFIGS[:5], ids=config_id)
def test_fused_path_equals_explicit_path(device, mask: str, config: dict) -> None:
    torch.manual_seed(0)
    attn = mha.MultiHeadAttention(16, 4, batch_first=True, device=device, **config)
    kdim, vdim = config.get("kdim", 16), config.get("vdim", 16)
    x = torch.randn(3, 6, 16, device=device)
    k, v = torch.randn(3, 6, kdim, device=device), torch.randn(3, 6, vdim, device=device)
    kwargs = {
        name: t.to(device) if isinstance(t, torch.Tensor) else t
        for name, t in MASKS[mask]().items()
    }
    if (config.get("add_bias_kv") or config.get("add_zero_attn")) and kwargs.get("is_causal"):
        kwargs["is_causal"] = False  # the hint would drop the extra key's mask column
    explicit, weights = attn(x, k, v, need_weights=True, **kwargs)
    fused, none = attn(x, k, v, need_weights=False, **kwargs)
    assert none is None and weights is not None
    torch.testing.assert_close(fused, explicit)


def test_fully_masked_row_matches_pytorch_on_each_path(device) -> None:
    """A query whose every key is blocked: NaN from the softmax, zeros from the fused kernel."""
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(8, 2, batch_first=True, device=device)
    ours = mha.MultiHeadAttention.from_torch(theirs)
    x = torch.randn(1, 3, 8, device=device)
    blocked = torch.zeros(3, 3, dtype=torch.bool, device=device)
    blocked[1] = True  # query 1 sees nothing
    for need_weights in (True, False):
        out_t, _ = theirs(x, x, x, attn_mask=blocked, need_weights=need_weights)
        out_o, _ = ours(x, x, x, attn_mask=blocked, need_weights=need_weights)
        torch.testing.assert_close(out_o, out_t, equal_nan=True)
        assert out_o[0, 1].isnan().all() == need_weights
        assert not out_o[0, [0, 2]].isnan().any()


@pytest.mark.parametrize("need_weights", [True, False])
def test_dropout_in_training_matches_pytorch_draw_for_draw(device, need_weights: bool) -> None:
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, dropout=0.5, batch_first=True, device=device)
    ours = mha.MultiHeadAttention.from_torch(theirs)
    x = torch.randn(2, 5, 16, device=device)
    outputs = []
    for module in (theirs, ours):
        torch.manual_seed(7)
        outputs.append(module(x, x, x, need_weights=need_weights))
    torch.testing.assert_close(outputs[1][0], outputs[0][0])
    # dropout really acts in training: some weights are zeroed, the output changes
    ours.eval()
    out_eval, weights_eval = ours(x, x, x)
    assert not torch.allclose(outputs[1][0], out_eval)
    if need_weights:
        assert (outputs[1][1] == 0).sum() > (weights_eval == 0).sum()
    # and in eval mode it is off: two calls agree
    torch.testing.assert_close(ours(x, x, x)[0], out_eval)


@pytest.mark.parametrize("batch_first", [True, False])
def test_unbatched_input_equals_a_batch_of_one(device, batch_first: bool) -> None:
    torch.manual_seed(0)
    attn = mha.MultiHeadAttention(16, 4, batch_first=batch_first, device=device)
    x = torch.randn(5, 16, device=device)
    mask = torch.randn(4, 5, 5, device=device)
    out, weights = attn(x, x, x, attn_mask=mask, average_attn_weights=False)
    assert out.shape == (5, 16) and weights.shape == (4, 5, 5)
    batch = x.unsqueeze(0 if batch_first else 1)
    out_b, weights_b = attn(batch, batch, batch, attn_mask=mask, average_attn_weights=False)
    torch.testing.assert_close(out, out_b.squeeze(0 if batch_first else 1))
    torch.testing.assert_close(weights, weights_b.squeeze(0))


def test_weights_average_over_heads(device) -> None:
    torch.manual_seed(0)
    attn = mha.MultiHeadAttention(64, 8, batch_first=True, device=device)
    x = torch.randn(2, 5, 64, device=device)
    _, per_head = attn(x, x, x, average_attn_weights=False)
    _, averaged = attn(x, x, x)
    assert per_head.shape == (2, 8, 5, 5) and averaged.shape == (2, 5, 5)
    torch.testing.assert_close(averaged, per_head.mean(dim=1))
    torch.testing.assert_close(per_head.sum(-1), torch.ones(2, 8, 5, device=device))


def test_layout_batch_first_false_is_sequence_first(device) -> None:
    torch.manual_seed(0)
    seq_first = mha.MultiHeadAttention(16, 4, device=device)
    batch_first = mha.MultiHeadAttention(16, 4, batch_first=True, device=device)
    batch_first.load_state_dict(seq_first.state_dict())
    x = torch.randn(2, 5, 16, device=device)  # (B, L, E)
    out_bf, _ = batch_first(x, x, x)
    xt = x.transpose(0, 1)  # (L, B, E)
    out_sf, _ = seq_first(xt, xt, xt)
    assert out_sf.shape == (5, 2, 16)
    torch.testing.assert_close(out_sf.transpose(0, 1), out_bf)


def test_self_attention_projects_as_cross_attention(device) -> None:
    """q is k is v: the same three (E, E) products as cross-attention, with the same result
    (stacking the weights into one (3E, E) product met no speed goal that three products miss:
    the Performance page's "Where the speed comes from")."""
    torch.manual_seed(0)
    attn = mha.MultiHeadAttention(16, 4, batch_first=True, device=device)
    x = torch.randn(2, 5, 16, device=device)
    products = []
    linear = torch.nn.functional.linear

    def counting_linear(input, weight, bias=None):
        products.append(tuple(weight.shape))
        return linear(input, weight, bias)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.nn.functional, "linear", counting_linear)
        packed, _ = attn(x, x, x)
        assert products == [(16, 16)] * 4  # W^Q, W^K, W^V, then W^O
        products.clear()
        separate, _ = attn(x, x.clone(), x.clone())
        assert products == [(16, 16)] * 4  # cross-attention: three products, then W^O
    torch.testing.assert_close(packed, separate)


def test_fully_masked_row_on_pytorchs_native_fast_path() -> None:
    """The one documented difference: PyTorch's native fast path gives NaN, our fused path zeros.

    Checked on the CPU, where it was measured; other devices' fast kernels may differ.
    """
    device = torch.device("cpu")
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(8, 2, batch_first=True, device=device).eval()
    ours = mha.MultiHeadAttention.from_torch(theirs)
    x = torch.randn(1, 3, 8, device=device)
    blocked = torch.zeros(3, 3, dtype=torch.bool, device=device)
    blocked[1] = True
    with torch.no_grad():
        out_t, _ = theirs(x, x, x, attn_mask=blocked, need_weights=False)
        out_o, _ = ours(x, x, x, attn_mask=blocked, need_weights=False)
    assert out_t[0, 1].isnan().all()
    torch.testing.assert_close(out_o[0, 1], ours.out_proj.bias)  # zero context, then the bias
    torch.testing.assert_close(out_o[0, [0, 2]], out_t[0, [0, 2]])
