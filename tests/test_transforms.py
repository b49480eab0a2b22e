"""PyTorch's transforms over the steps and the module: torch.func, compile, export, tracing.

TorchScript (``torch.jit.script``) and nested tensors are non-goals, stated in the docs.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, jacrev, jvp, vmap

import mha

B, H, L, S, D = 2, 4, 5, 6, 8
E = H * D


def qkv(seed: int = 0, dtype=torch.float64) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=gen, dtype=dtype) for shape in
                 ((B, H, L, D), (B, H, S, D), (B, H, S, D)))  # fmt: skip


# forward-mode AD loads PyTorch's own decompositions with torch.jit.script on first use, and
# torch 2.13 warns that torch.jit.script is deprecated: a warning about PyTorch, not about mha
TORCH_JVP_WARNING = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning"
)


def sdpa_out(q, k, v):
    return mha.scaled_dot_product_attention(q, k, v)[0]


def test_vmap_over_attention_equals_the_batched_call() -> None:
    q, k, v = qkv()
    per_example = vmap(sdpa_out)(q, k, v)  # vmap over B: each call sees (H, L, D)
    torch.testing.assert_close(per_example, sdpa_out(q, k, v))
    torch.testing.assert_close(per_example, F.scaled_dot_product_attention(q, k, v))


def test_grad_and_jacrev_equal_autograd() -> None:
    q, k, v = qkv()

    def loss(q):
        return sdpa_out(q, k, v).pow(2).sum()

    q_ref = q.clone().requires_grad_()
    (expected,) = torch.autograd.grad(
        F.scaled_dot_product_attention(q_ref, k, v).pow(2).sum(), q_ref
    )
    torch.testing.assert_close(grad(loss)(q), expected)
    k, v = k[:1, :1], v[:1, :1]
    jac = jacrev(lambda q: sdpa_out(q, k, v))(q[:1, :1])  # (1, 1, L, D, 1, 1, L, D)
    assert jac.shape == (1, 1, L, D, 1, 1, L, D)
    ref = torch.autograd.functional.jacobian(
        lambda q: F.scaled_dot_product_attention(q, k, v), q[:1, :1]
    )
    torch.testing.assert_close(jac, ref)


def reference(q, k, v):
    """The formula in plain operations (PyTorch's fused kernel has no forward-mode rule here)."""
    return torch.softmax(q @ k.transpose(-2, -1) / D**0.5, dim=-1) @ v


@TORCH_JVP_WARNING
def test_jvp_equals_the_formula() -> None:
    q, k, v = qkv()
    tangent = torch.randn_like(q)
    out, out_dot = jvp(lambda q: sdpa_out(q, k, v), (q,), (tangent,))
    ref, ref_dot = jvp(lambda q: reference(q, k, v), (q,), (tangent,))
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(out_dot, ref_dot)


@TORCH_JVP_WARNING
def test_forward_mode_autograd_dual_tensors() -> None:
    import torch.autograd.forward_ad as fwAD

    q, k, v = qkv()
    tangent = torch.randn_like(q)
    with fwAD.dual_level():
        out = sdpa_out(fwAD.make_dual(q, tangent), k, v)
        out_dot = fwAD.unpack_dual(out).tangent
    _, ref_dot = jvp(lambda q: reference(q, k, v), (q,), (tangent,))
    torch.testing.assert_close(out_dot, ref_dot)


@pytest.mark.parametrize(
    "step",
    [
        lambda x: mha.split_heads(x, H),
        lambda x: mha.merge_heads(mha.split_heads(x, H)),
        lambda x: mha.project(x, torch.eye(E, dtype=x.dtype) * 2),
        lambda x: mha.project_qkv(x, x, x, *(torch.eye(E, dtype=x.dtype),) * 3)[1],
    ],
    ids=["split_heads", "merge_heads", "project", "project_qkv"],
)
def test_vmap_over_every_step(step) -> None:
    x = torch.randn(3, B, L, E, dtype=torch.float64)  # an extra leading dimension to map over
    mapped = vmap(step)(x)
    torch.testing.assert_close(mapped, torch.stack([step(xi) for xi in x]))


def make_module(**kwargs) -> mha.MultiHeadAttention:
    torch.manual_seed(0)
    return mha.MultiHeadAttention(E, H, batch_first=True, **kwargs).eval()


def test_functional_call_and_grad_over_parameters() -> None:
    attn = make_module()
    theirs = attn.to_torch()
    x = torch.randn(B, L, E)
    params = {k: v.detach() for k, v in attn.named_parameters()}

    def loss(params, x):
        return functional_call(attn, params, (x, x, x))[0].pow(2).sum()

    grads = grad(loss)(params, x)
    theirs_loss = theirs(x, x, x)[0].pow(2).sum()
    expected = dict(zip(params, torch.autograd.grad(theirs_loss, list(theirs.parameters())),
                        strict=True))  # fmt: skip
    assert grads.keys() == expected.keys()
    for name in grads:
        torch.testing.assert_close(grads[name], expected[name], msg=name)
    # vmap over a batch of inputs through the module
    xs = torch.randn(3, B, L, E)
    mapped = vmap(lambda x: functional_call(attn, params, (x, x, x))[0])(xs)
    torch.testing.assert_close(mapped, torch.stack([attn(x, x, x)[0] for x in xs]))


@pytest.mark.parametrize("need_weights", [True, False])
def test_compile_fullgraph(need_weights: bool) -> None:
    attn = make_module()
    x = torch.randn(B, L, E)
    torch._dynamo.reset()
    # aot_eager: Dynamo must capture the whole forward in one graph (fullgraph) and AOTAutograd
    # must functionalise it; only the C++ code generation of inductor is left out, for time
    compiled = torch.compile(attn, fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        out_c, w_c = compiled(x, x, x, need_weights=need_weights)
        out, w = attn(x, x, x, need_weights=need_weights)
    torch.testing.assert_close(out_c, out)
    if need_weights:
        torch.testing.assert_close(w_c, w)


def test_export() -> None:
    attn = make_module()
    x = torch.randn(B, L, E)
    exported = torch.export.export(attn, (x, x, x))
    out, w = exported.module()(x, x, x)
    torch.testing.assert_close(out, attn(x, x, x)[0])
    torch.testing.assert_close(w, attn(x, x, x)[1])


def test_jit_trace() -> None:
    attn = make_module()
    x = torch.randn(B, L, E)
    with warnings.catch_warnings():
        # tracing records one shape; PyTorch warns that shape checks become constants, and
        # that torch.jit.trace itself is deprecated (it still works, and users still call it)
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        traced = torch.jit.trace(attn, (x, x, x))
    y = torch.randn(B, L, E)
    torch.testing.assert_close(traced(y, y, y)[0], attn(y, y, y)[0])


def test_nested_tensors_get_a_clear_error() -> None:
    attn = make_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nested tensors are a prototype
        nested = torch.nested.nested_tensor([torch.randn(3, E), torch.randn(5, E)])
    with pytest.raises(TypeError, match=r"nested tensor.*to_padded_tensor"):
        attn(nested, nested, nested)
