"""Code written for torch.nn.MultiheadAttention works unchanged on mha.MultiHeadAttention.

Checkpoints load strictly both ways, the packed parameters behave the same when read, assigned
or initialised, and every input error PyTorch raises is caught by the same ``except`` clause.
"""

from __future__ import annotations

import pytest
import torch
from configs import STORAGE_CONFIGS as CONFIGS
from configs import config_id
from torch import nn

import mha


def inputs(config: dict, batch_first: bool, device) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(1)
    shape = (lambda L, E: (2, L, E)) if batch_first else (lambda L, E: (L, 2, E))
    q = torch.randn(shape(5, 16), generator=gen)
    k = torch.randn(shape(7, config.get("kdim", 16)), generator=gen)
    v = torch.randn(shape(7, config.get("vdim", 16)), generator=gen)
    return q.to(device), k.to(device), v.to(device)


def randomised(module: nn.Module, seed: int) -> nn.Module:
    """Every parameter drawn anew (biases too), so that no value is left at its default."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    return module


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_checkpoints_load_strictly_both_ways(device, config: dict, batch_first: bool) -> None:
    theirs = randomised(nn.MultiheadAttention(16, 4, batch_first=batch_first, **config), 0)
    ours = randomised(mha.MultiHeadAttention(16, 4, batch_first=batch_first, **config), 1)
    theirs, ours = theirs.to(device), ours.to(device)
    x = inputs(config, batch_first, device)
    assert {k: v.shape for k, v in ours.state_dict().items()} == {
        k: v.shape for k, v in theirs.state_dict().items()
    }

    ours.load_state_dict(theirs.state_dict())  # strict: raises on any missing or extra key
    out_t, w_t = theirs(*x)
    out_o, w_o = ours(*x)
    torch.testing.assert_close(out_o, out_t)
    torch.testing.assert_close(w_o, w_t)

    randomised(ours, 2)
    theirs.load_state_dict(ours.state_dict())
    torch.testing.assert_close(theirs(*x)[0], ours(*x)[0])


def test_checkpoint_saved_to_a_file_loads_in_the_other_module(tmp_path) -> None:
    theirs = randomised(nn.MultiheadAttention(16, 4), 0)
    torch.save(theirs.state_dict(), tmp_path / "attn.pt")
    ours = mha.MultiHeadAttention(16, 4)
    ours.load_state_dict(torch.load(tmp_path / "attn.pt", weights_only=True))
    x = torch.randn(5, 2, 16)
    torch.testing.assert_close(ours(x, x, x)[0], theirs(x, x, x)[0])


def test_checkpoint_of_mha_0_1_is_converted() -> None:
    """mha 0.1 stored q_proj, k_proj, v_proj as nn.Linear layers; such checkpoints still load."""
    ours = randomised(mha.MultiHeadAttention(16, 4), 0)
    old = {"out_proj.weight": ours.out_proj.weight, "out_proj.bias": ours.out_proj.bias}
    for n in "qkv":
        old[f"{n}_proj.weight"] = getattr(ours, f"{n}_weight").detach().clone()
        old[f"{n}_proj.bias"] = getattr(ours, f"{n}_bias").detach().clone()
    old = type(ours.state_dict())(old)
    old._metadata = {"": {"version": 1}}  # what mha 0.1 wrote
    fresh = mha.MultiHeadAttention(16, 4)
    fresh.load_state_dict(old)
    for name, value in ours.state_dict().items():
        torch.testing.assert_close(fresh.state_dict()[name], value, rtol=0, atol=0)


@pytest.mark.parametrize("config", [{}, {"kdim": 12, "vdim": 20}], ids=config_id)
def test_assigning_and_initialising_parameters_acts_as_on_torch(config: dict) -> None:
    torch.manual_seed(0)
    theirs = nn.MultiheadAttention(16, 4, **config)
    torch.manual_seed(0)
    ours = mha.MultiHeadAttention(16, 4, **config)
    x = inputs(config, False, "cpu")
    before = ours(*x)[0]
    names = (
        ["in_proj_weight"] if not config else ["q_proj_weight", "k_proj_weight", "v_proj_weight"]
    )
    for i, name in enumerate(names):
        # assignment registers the new parameter, and forward uses it
        shape = getattr(theirs, name).shape
        new = torch.randn(shape, generator=torch.Generator().manual_seed(i))
        setattr(theirs, name, nn.Parameter(new.clone()))
        setattr(ours, name, nn.Parameter(new.clone()))
        assert dict(ours.named_parameters())[name] is getattr(ours, name)
    after = ours(*x)[0]
    assert not torch.allclose(after, before)
    torch.testing.assert_close(after, theirs(*x)[0])
    # in-place initialisation, from the same seed, gives the same values and outputs
    torch.manual_seed(5)
    for name in names:
        nn.init.xavier_uniform_(getattr(theirs, name))
    nn.init.normal_(theirs.in_proj_bias)
    torch.manual_seed(5)
    for name in names:
        nn.init.xavier_uniform_(getattr(ours, name))
    nn.init.normal_(ours.in_proj_bias)
    torch.testing.assert_close(ours(*x)[0], theirs(*x)[0])
    # the lesson's names are views of that storage
    E = 16
    w_q = ours.in_proj_weight[:E] if not config else ours.q_proj_weight
    assert ours.q_weight.data_ptr() == w_q.data_ptr()
    assert ours.v_bias.data_ptr() == ours.in_proj_bias[2 * E :].data_ptr()


def test_same_attributes_as_torch() -> None:
    theirs = nn.MultiheadAttention(16, 4, kdim=12)
    ours = mha.MultiHeadAttention(16, 4, kdim=12)
    for name in ("embed_dim", "kdim", "vdim", "num_heads", "dropout", "batch_first", "head_dim"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours._qkv_same_embed_dim is theirs._qkv_same_embed_dim is False
    for name in ("in_proj_weight", "bias_k", "bias_v"):
        assert getattr(ours, name) is None and getattr(theirs, name) is None
    assert type(ours.out_proj) is type(theirs.out_proj)


# ---------------------------------------------------------------------------
# Exceptions: each input error PyTorch raises is caught by the clause that catches PyTorch's
# ---------------------------------------------------------------------------

x3 = torch.randn(2, 5, 16)
blocked = torch.zeros(5, 5, dtype=torch.bool)

# (id, constructor kwargs, forward args, forward kwargs)
MODULE_ERRORS = [
    ("not divisible", {"embed_dim": 16, "num_heads": 3}, None, None),
    ("zero heads", {"embed_dim": 16, "num_heads": 0}, None, None),
    ("negative width", {"embed_dim": -16, "num_heads": 4}, None, None),
    ("wrong width", {}, (torch.randn(2, 5, 8),) * 3, {}),
    ("4-D query", {}, (x3[None],) * 3, {}),
    ("ranks differ", {}, (x3, x3[0], x3[0]), {}),
    ("key/value length", {}, (x3, x3, x3[:, :4]), {}),
    ("key/value batch", {}, (x3, x3[:1], x3), {}),
    ("query/key batch", {}, (x3, x3[:1], x3[:1]), {}),
    ("padding mask shape", {}, (x3, x3, x3), {"key_padding_mask": blocked[:2, :4]}),
    ("2-D attn_mask shape", {}, (x3, x3, x3), {"attn_mask": blocked[:4]}),
    ("3-D attn_mask shape", {}, (x3, x3, x3), {"attn_mask": blocked.expand(3, 5, 5)}),
    ("integer attn_mask", {}, (x3, x3, x3), {"attn_mask": blocked.long()}),
    ("integer padding mask", {}, (x3, x3, x3), {"key_padding_mask": blocked[:2].long()}),
    ("is_causal alone", {}, (x3, x3, x3), {"is_causal": True}),
    ("list query", {}, ([[1.0]], x3, x3), {}),
    ("list key", {}, (x3, [[1.0]], x3), {}),
    ("list attn_mask", {}, (x3, x3, x3), {"attn_mask": [[True]]}),
]


@pytest.mark.parametrize(("ctor", "args", "kwargs"), [c[1:] for c in MODULE_ERRORS],
                         ids=[c[0] for c in MODULE_ERRORS])  # fmt: skip
def test_errors_are_caught_as_torchs(ctor: dict, args, kwargs) -> None:
    ctor = {"embed_dim": 16, "num_heads": 4, "batch_first": True, **ctor}

    def build_and_call(cls):
        cls(**ctor)(*args, **kwargs)

    with pytest.raises(Exception) as theirs:  # noqa: PT011 - any class: the point is which
        build_and_call(nn.MultiheadAttention)
    with pytest.raises(type(theirs.value)) as ours:
        build_and_call(mha.MultiHeadAttention)
    # ours is also the Python exception for the mistake, and says what it got
    assert isinstance(ours.value, (ValueError, TypeError))
    assert " got " in str(ours.value)


q4 = torch.randn(2, 4, 5, 8)

FUNCTION_ERRORS = [
    ("D differs", (q4, torch.randn(2, 4, 5, 4), q4), {}),
    ("1-D inputs", (torch.randn(5),) * 3, {}),
    ("dropout", (q4, q4, q4), {"dropout_p": 2.0}),
    ("integer mask", (q4, q4, q4), {"attn_mask": blocked.long()}),
]


@pytest.mark.parametrize(("args", "kwargs"), [c[1:] for c in FUNCTION_ERRORS],
                         ids=[c[0] for c in FUNCTION_ERRORS])  # fmt: skip
def test_step_errors_are_caught_as_torchs(args, kwargs) -> None:
    with pytest.raises(Exception) as theirs:  # noqa: PT011
        torch.nn.functional.scaled_dot_product_attention(*args, **kwargs)
    with pytest.raises(type(theirs.value)):
        mha.scaled_dot_product_attention(*args, **kwargs)


def test_linear_errors_are_caught_as_torchs() -> None:
    for weight, bias in ((torch.randn(3, 7), None), ([[1.0]], None)):
        with pytest.raises(Exception) as theirs:  # noqa: PT011
            torch.nn.functional.linear(x3, weight, bias)
        with pytest.raises(type(theirs.value)):
            mha.project(x3, weight, bias)
