r"""Multi-head attention, one function per step of the lesson.

The computation, for a batch-first input of shape ``(B, L, E)``, numbered as the lesson's
script numbers its steps (its step 1 sets the sizes and makes the input)::

    1) input: query, key, value        (B, L, E), (B, S, E_k), (B, S, E_v)
    2) project       -> q, k, v        (B, L, E), (B, S, E),   (B, S, E)
    3) split heads   -> q, k, v        (B, H, L, D), (B, H, S, D), (B, H, S, D)
    4) attend        -> out, weights   (B, H, L, D), (B, H, L, S)
    5) merge heads   -> out            (B, L, E)
    6) project out   -> out            (B, L, E)

Dimension letters, used in every shape in this package:

=====  =====================================================
``B``  batch size
``L``  target (query) sequence length
``S``  source (key and value) sequence length
``E``  model width ``embed_dim`` (``d_model`` in the paper)
``H``  number of heads ``num_heads`` (``h`` in the paper)
``D``  width of one head, ``E // H`` (``d_k = d_v`` in the paper)
=====  =====================================================

Two mask conventions meet here, and they are opposite for boolean masks:

* :func:`scaled_dot_product_attention` follows
  :func:`torch.nn.functional.scaled_dot_product_attention`: ``True`` means *may attend*.
* :func:`multi_head_attention` and :class:`mha.MultiHeadAttention` follow
  :class:`torch.nn.MultiheadAttention`: ``True`` means *blocked*.

A floating-point mask is added to the scores in both, so it means the same everywhere.
"""

from __future__ import annotations

import math

import torch
import torch.autograd.forward_ad as fwAD
import torch.nn.functional as F
from torch import Tensor

from mha._i18n import N_, _, pgettext
from mha._validation import (
    check_dim,
    check_mask_dtype,
    check_tensor,
    head_counts,
    positive_int,
)
from mha.errors import (
    TypeAttributeError,
    TypeRuntimeError,
    ValueAssertionError,
    ValueRuntimeError,
)

__all__ = [
    "additive_mask",
    "causal_mask",
    "check_heads",
    "merge_heads",
    "multi_head_attention",
    "project",
    "project_qkv",
    "scaled_dot_product_attention",
    "split_heads",
]


def check_heads(embed_dim: int, num_heads: int) -> int:
    """Check that ``embed_dim`` splits evenly into ``num_heads`` heads.

    Parameters
    ----------
    embed_dim : int
        Model width ``E`` (``d_model``).
    num_heads : int
        Number of heads ``H``.

    Returns
    -------
    int
        The width of one head, ``D = embed_dim // num_heads``.

    Raises
    ------
    TypeError
        If either argument is not an integer.
    ValueError
        If either is not positive, or ``embed_dim`` is not divisible by ``num_heads`` (a
        :class:`~mha.errors.ValueAssertionError`, caught by ``except AssertionError`` as
        PyTorch's error is); the message lists the head counts that would work, up to 1024.

    Examples
    --------
    >>> import mha
    >>> mha.check_heads(64, 8)
    8
    >>> mha.check_heads(64, 6)
    Traceback (most recent call last):
        ...
    mha.errors.ValueAssertionError: embed_dim must be divisible by num_heads, got embed_dim=64 ...
    """
    embed_dim = positive_int(embed_dim, "embed_dim")
    num_heads = positive_int(num_heads, "num_heads")
    if embed_dim % num_heads != 0:
        ratio, counts = embed_dim / num_heads, head_counts(embed_dim)
        message = _(
            "embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and "
            "num_heads={num_heads} ({embed_dim} / {num_heads} = {ratio:.4g}); {counts}"
        )
        raise ValueAssertionError(
            message.format(embed_dim=embed_dim, num_heads=num_heads, ratio=ratio, counts=counts)
        )
    return embed_dim // num_heads


def _check_same_length(key: Tensor, value: Tensor, axis: int, error=ValueAssertionError) -> None:
    if key.shape[axis] != value.shape[axis]:
        raise error(
            f"expected key and value to have the same sequence length S, got key "
            f"{tuple(key.shape)} and value {tuple(value.shape)}"
        )


# ---------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------


def causal_mask(
    target_len: int,
    source_len: int | None = None,
    *,
    align: str = "top-left",
    device: torch.device | str | None = None,
) -> Tensor:
    """Boolean causal mask in :class:`torch.nn.MultiheadAttention`'s convention.

    ``True`` marks a *blocked* pair. Two alignments, which differ only when ``L != S``:

    * ``"top-left"`` (default): query ``i`` may attend to keys ``j <= i``, as
      ``is_causal=True`` in :func:`torch.nn.functional.scaled_dot_product_attention` and
      :func:`torch.nn.attention.bias.causal_upper_left`.
    * ``"bottom-right"``: query ``i`` may attend to keys ``j <= i + S - L``, so the last query
      sees every key: the ``L`` queries are the last ``L`` of ``S`` positions, as when new
      tokens follow ``S - L`` cached ones (:func:`torch.nn.attention.bias.causal_lower_right`).

    Parameters
    ----------
    target_len : int
        Query length ``L``.
    source_len : int, optional
        Key length ``S``; defaults to ``target_len``.
    align : {"top-left", "bottom-right"}, default "top-left"
        Which corner the diagonal starts from.
    device : torch.device or str, optional
        Where to create the mask.

    Returns
    -------
    Tensor of shape (L, S), dtype bool
        ``True`` above the diagonal (blocked), ``False`` on and below it.

    Raises
    ------
    ValueError
        If ``align`` is neither ``"top-left"`` nor ``"bottom-right"``.

    See Also
    --------
    additive_mask : turn it into the float mask that is added to the scores.

    Examples
    --------
    >>> import mha
    >>> mha.causal_mask(3)
    tensor([[False,  True,  True],
            [False, False,  True],
            [False, False, False]])
    >>> mha.causal_mask(2, 4, align="bottom-right")  # 2 new queries after 2 cached keys
    tensor([[False, False, False,  True],
            [False, False, False, False]])
    """
    source_len = target_len if source_len is None else source_len
    if align not in ("top-left", "bottom-right"):
        raise ValueError(
            f'expected align to be "top-left" or "bottom-right", got {align!r}; "bottom-right" '
            f"lets the last query see every key (queries that follow cached keys)"
        )
    first_blocked = 1 if align == "top-left" else 1 + source_len - target_len  # for query 0
    ones = torch.ones(target_len, source_len, dtype=torch.bool, device=device)
    return ones.triu(diagonal=first_blocked)  # (L, S)


def additive_mask(mask: Tensor | None, dtype: torch.dtype, *, name: str = "mask") -> Tensor | None:
    """Turn a mask in :class:`torch.nn.MultiheadAttention`'s convention into an additive one.

    A boolean mask becomes ``-inf`` where it is ``True`` (blocked) and ``0`` elsewhere; a float
    mask is returned as it is, cast to ``dtype``. Adding the result to the scores before the
    softmax gives blocked positions zero weight.

    Parameters
    ----------
    mask : Tensor or None
        Boolean (``True`` = blocked) or floating-point (added to the scores) mask.
    dtype : torch.dtype
        Floating-point dtype of the scores.
    name : str, default="mask"
        Name used in error messages.

    Returns
    -------
    Tensor or None
        A float mask of the same shape, or ``None`` when ``mask`` is ``None``.

    Raises
    ------
    TypeError
        If the mask is neither boolean nor floating point.

    Examples
    --------
    >>> import torch, mha
    >>> mha.additive_mask(torch.tensor([False, True]), torch.float32)
    tensor([0., -inf])
    """
    if mask is None:
        return None
    check_tensor(mask, name)
    check_mask_dtype(mask, name, N_("blocked"))
    return _additive_mask(mask, dtype)


def _additive_mask(mask: Tensor, dtype: torch.dtype) -> Tensor:
    if mask.dtype == torch.bool:
        return torch.zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))
    return mask.to(dtype)


# ---------------------------------------------------------------------------
# 2) project
# ---------------------------------------------------------------------------


def project(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    r"""Apply one linear projection, :math:`y = x W^\top + b`, as :class:`torch.nn.Linear` does.

    Used for each of :math:`W^Q`, :math:`W^K`, :math:`W^V` and the output projection :math:`W^O`.

    Parameters
    ----------
    x : Tensor of shape (..., E_in)
        Input.
    weight : Tensor of shape (E_out, E_in)
        Projection matrix, stored as :class:`torch.nn.Linear` stores it.
    bias : Tensor of shape (E_out,), optional
        Bias added after the matrix product.

    Returns
    -------
    Tensor of shape (..., E_out)

    Raises
    ------
    TypeError
        If ``x``, ``weight`` or ``bias`` is not a tensor.
    ValueError
        If ``x`` is 0-D or its last dimension is not ``weight.shape[1]``
        (:class:`~mha.errors.ValueRuntimeError`, as :func:`torch.nn.functional.linear` raises
        :class:`RuntimeError`).

    Notes
    -----
    The projection acts on each position alone, so it may run in whatever order the positions
    lie in memory. A batch-first ``(B, L, E)`` view of a sequence-first ``(L, B, E)`` tensor
    (what :class:`mha.MultiHeadAttention` sees with ``batch_first=False``) is projected as the
    ``(L, B, E)`` tensor it is: one matrix product over all ``L * B`` rows, with no copy,
    instead of ``B`` separate products. The result is the same ``(B, L, E_out)`` tensor.

    Examples
    --------
    >>> import torch, mha
    >>> x = torch.ones(2, 5, 4)
    >>> mha.project(x, torch.eye(4)).equal(x)
    True
    >>> mha.project(x, torch.ones(3, 4), torch.zeros(3)).shape
    torch.Size([2, 5, 3])
    """
    check_tensor(x, "x")
    check_tensor(weight, "weight")
    if bias is not None:
        check_tensor(bias, "bias")
    _check_projection(x, weight, "x", "weight")
    return _project(x, weight, bias)


def _check_projection(x: Tensor, weight: Tensor, x_name: str, weight_name: str) -> None:
    if weight.dim() != 2 or x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueRuntimeError(  # F.linear raises RuntimeError here
            f"expected {x_name}'s last dimension to equal {weight_name}.shape[1] "
            f"({weight_name} has shape (E_out, E_in)), got {x_name} of shape "
            f"{tuple(x.shape)} and {weight_name} of shape {tuple(weight.shape)}"
        )


def _project(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    if bias is not None and bias.dtype != weight.dtype:
        # F.linear needs one dtype; PyTorch's module adds such a bias with type promotion
        return _project(x, weight, None) + bias
    return F.linear(x, weight, bias)


def project_qkv(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    q_weight: Tensor,
    k_weight: Tensor,
    v_weight: Tensor,
    q_bias: Tensor | None = None,
    k_bias: Tensor | None = None,
    v_bias: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    r"""Step 2: project the inputs to queries, keys and values.

    ``Q = query W_Q^T + b_Q``, ``K = key W_K^T + b_K``, ``V = value W_V^T + b_V``: three
    matrix products, in self-attention as in cross-attention.

    Parameters
    ----------
    query : Tensor of shape (B, L, E)
    key : Tensor of shape (B, S, E_k)
    value : Tensor of shape (B, S, E_v)
    q_weight : Tensor of shape (E, E)
    k_weight : Tensor of shape (E, E_k)
    v_weight : Tensor of shape (E, E_v)
    q_bias, k_bias, v_bias : Tensor of shape (E,), optional

    Returns
    -------
    q : Tensor of shape (B, L, E)
    k : Tensor of shape (B, S, E)
    v : Tensor of shape (B, S, E)

    Raises
    ------
    TypeError
        If a weight or bias is not a tensor.
    ValueError
        If an input's last dimension does not fit its weight (see :func:`project`).

    See Also
    --------
    split_heads : the next step.

    Examples
    --------
    >>> import torch, mha
    >>> x = torch.randn(2, 5, 64)
    >>> w = torch.randn(64, 64)
    >>> q, k, v = mha.project_qkv(x, x, x, w, w, w)
    >>> q.shape, k.shape, v.shape
    (torch.Size([2, 5, 64]), torch.Size([2, 5, 64]), torch.Size([2, 5, 64]))
    """
    for name, t in zip(
        ("query", "key", "value", "q_weight", "k_weight", "v_weight", "q_bias", "k_bias", "v_bias"),
        (query, key, value, q_weight, k_weight, v_weight, q_bias, k_bias, v_bias),
        strict=True,
    ):
        if t is not None or not name.endswith("bias"):
            check_tensor(t, name)
    for x, w, name in (
        (query, q_weight, "query"),
        (key, k_weight, "key"),
        (value, v_weight, "value"),
    ):
        _check_projection(x, w, name, f"{name[0]}_weight")
    return _project_qkv(query, key, value, q_weight, k_weight, v_weight, q_bias, k_bias, v_bias)


def _project_qkv(query, key, value, q_weight, k_weight, v_weight, q_bias, k_bias, v_bias):
    q = _project(query, q_weight, q_bias)  # (B, L, E)
    k = _project(key, k_weight, k_bias)  # (B, S, E)
    v = _project(value, v_weight, v_bias)  # (B, S, E)
    return q, k, v


# ---------------------------------------------------------------------------
# 3) split heads, 5) merge heads
# ---------------------------------------------------------------------------


def split_heads(x: Tensor, num_heads: int) -> Tensor:
    """Step 3: split the last dimension into heads, ``(B, L, H*D) -> (B, H, L, D)``.

    A ``view`` cuts the last dimension into ``H`` blocks of ``D``, then a ``transpose`` moves
    the head dimension in front of the sequence so that every head is one independent
    ``(L, D)`` matrix. Nothing is copied: the result is a non-contiguous view of ``x``.

    Parameters
    ----------
    x : Tensor of shape (B, L, E)
        Projected queries, keys or values, ``E = H * D``.
    num_heads : int
        Number of heads ``H``; must divide ``E``.

    Returns
    -------
    Tensor of shape (B, H, L, D)
        A view of ``x`` (shares its storage).

    Raises
    ------
    TypeError
        If ``x`` is not a tensor or ``num_heads`` not an int.
    ValueError
        If ``x`` is not 3-D, ``num_heads`` is not positive, or the last dimension of ``x`` is
        not divisible by ``num_heads`` (:class:`~mha.errors.ValueRuntimeError`, as the
        lesson's ``view`` raises :class:`RuntimeError`).

    See Also
    --------
    merge_heads : the inverse.

    Examples
    --------
    >>> import torch, mha
    >>> x = torch.randn(2, 5, 64)
    >>> heads = mha.split_heads(x, 8)
    >>> heads.shape
    torch.Size([2, 8, 5, 8])
    >>> heads.is_contiguous(), heads.data_ptr() == x.data_ptr()
    (False, True)
    >>> mha.split_heads(torch.randn(2, 5, 60), 8)
    Traceback (most recent call last):
        ...
    mha.errors.ValueRuntimeError: split_heads expected the last dimension of x to be divisible ...
    """
    check_tensor(x, "x")
    check_dim(x, "x", (3,), "(B, L, E)")
    num_heads = positive_int(num_heads, "num_heads")
    E = x.shape[-1]
    if E % num_heads != 0:  # the lesson's x.view(B, L, H, D) raises RuntimeError here
        shape, counts = tuple(x.shape), head_counts(E)
        message = _(
            "split_heads expected the last dimension of x to be divisible by "
            "num_heads={num_heads}, got x of shape {shape} (last dimension {last}); project to "
            "a width that {num_heads} divides, or use one of the {counts}"
        )
        raise ValueRuntimeError(
            message.format(num_heads=num_heads, shape=shape, last=E, counts=counts)
        )
    return _split_heads(x, num_heads)


def _split_heads(x: Tensor, num_heads: int) -> Tensor:
    B, L, E = x.shape
    D = E // num_heads
    return x.view(B, L, num_heads, D).transpose(1, 2)  # (B, L, H, D) -> (B, H, L, D)


def merge_heads(x: Tensor) -> Tensor:
    """Step 5: concatenate the heads again, ``(B, H, L, D) -> (B, L, H*D)``.

    The inverse of :func:`split_heads`: ``transpose`` the sequence back in front of the heads,
    make the memory ``contiguous`` (the transposed tensor cannot be viewed otherwise), then
    ``view`` the last two dimensions as one. This is :math:`\\operatorname{Concat}(\\mathrm{head}_1, \\dots, \\mathrm{head}_h)`.

    Parameters
    ----------
    x : Tensor of shape (B, H, L, D)

    Returns
    -------
    Tensor of shape (B, L, H*D)
        Contiguous.

    Raises
    ------
    TypeError
        If ``x`` is not a tensor.
    ValueError
        If ``x`` is not 4-D.

    See Also
    --------
    split_heads : the inverse.

    Examples
    --------
    >>> import torch, mha
    >>> x = torch.randn(2, 5, 64)
    >>> merged = mha.merge_heads(mha.split_heads(x, 8))
    >>> merged.shape, merged.is_contiguous(), merged.equal(x)
    (torch.Size([2, 5, 64]), True, True)
    """
    check_tensor(x, "x")
    check_dim(x, "x", (4,), "(B, H, L, D)")
    return _merge_heads(x)


def _merge_heads(x: Tensor) -> Tensor:
    B, H, L, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * D)  # (B, L, H, D) -> (B, L, E)


# ---------------------------------------------------------------------------
# 4) attend
# ---------------------------------------------------------------------------


def _may_overwrite(scores: Tensor) -> bool:
    """Whether ``scores`` may be normalised in place: no autograd (reverse or forward mode),
    no :mod:`torch.func` transform and no compiler records it."""
    return not (
        scores.requires_grad
        or torch.compiler.is_compiling()
        or torch.jit.is_tracing()
        or torch._C._are_functorch_transforms_active()
        or fwAD.unpack_dual(scores).tangent is not None
    )


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    r"""Step 4: :math:`\operatorname{softmax}(Q K^\top / \sqrt{D} + \text{mask})\, V` for all heads at once.

    The explicit twin of :func:`torch.nn.functional.scaled_dot_product_attention`: the same
    arguments and mask convention, but it also returns the attention weights. Every head is
    computed by the same batched matrix product; there is no loop over heads.

    Parameters
    ----------
    query : Tensor of shape (..., L, D)
    key : Tensor of shape (..., S, D)
    value : Tensor of shape (..., S, D_v)
    attn_mask : Tensor broadcastable to (..., L, S), optional
        Boolean: ``True`` means *may attend* (the opposite of
        :class:`torch.nn.MultiheadAttention`). Float: added to the scores, in the scores'
        dtype whatever its own (PyTorch's function rejects a float mask of another dtype).
    dropout_p : float, default=0.0
        Probability of zeroing an attention weight (applied whenever it is positive, as in
        PyTorch's function; pass ``0.0`` in evaluation).
    is_causal : bool, default=False
        Apply a top-left causal mask; cannot be combined with ``attn_mask``.
    scale : float, optional
        Factor applied to the scores; defaults to :math:`1 / \sqrt{D}`.

    Returns
    -------
    output : Tensor of shape (..., L, D_v)
    weights : Tensor of shape (..., L, S)
        The attention probabilities (after dropout, when there is dropout). Each row sums to 1;
        a row whose every key is masked is NaN.

    Raises
    ------
    TypeError
        If an input is not a tensor, or the mask is neither boolean nor floating point.
    ValueError
        If the inner dimensions do not fit, ``dropout_p`` is outside ``[0, 1]``, or both
        ``attn_mask`` and ``is_causal`` are given. Shape and type errors derive from
        :class:`RuntimeError` too, as PyTorch's function raises (see :mod:`mha.errors`).

    See Also
    --------
    torch.nn.functional.scaled_dot_product_attention : the fused kernel, same output.

    Notes
    -----
    The queries are multiplied by the scale before the product, as PyTorch's
    multi-head attention does, so results agree to rounding. For float16 and bfloat16 inputs
    the scores, the softmax and the weighted sum run in float32 and the results are cast back,
    as PyTorch's kernels accumulate in float32: scores beyond the half-precision range (65504)
    do not overflow into NaN.

    Without autograd or a :mod:`torch.func` transform, the softmax overwrites the scores in
    place, sparing one ``(..., L, S)`` buffer; :func:`torch.func.vmap`, ``grad``, ``jvp``,
    ``jacrev``, :func:`torch.compile` and :func:`torch.jit.trace` work on this function.

    Examples
    --------
    >>> import torch, torch.nn.functional as F, mha
    >>> _ = torch.manual_seed(0)
    >>> q, k, v = torch.randn(3, 2, 8, 5, 8).unbind(0)  # (B, H, L, D) each
    >>> out, weights = mha.scaled_dot_product_attention(q, k, v)
    >>> out.shape, weights.shape
    (torch.Size([2, 8, 5, 8]), torch.Size([2, 8, 5, 5]))
    >>> torch.testing.assert_close(weights.sum(-1), torch.ones(2, 8, 5))
    >>> torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, name)
        if t.dim() < 2:
            raise ValueRuntimeError(
                f"expected {name} to be at least 2-D (..., seq, dim), got {t.dim()}-D"
            )
    if query.shape[-1] != key.shape[-1]:
        raise ValueRuntimeError(
            f"expected query and key to have the same last dimension D, got query "
            f"{tuple(query.shape)} and key {tuple(key.shape)}"
        )
    _check_same_length(key, value, -2, ValueRuntimeError)
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueRuntimeError(f"expected dropout_p in [0, 1], got {dropout_p}")
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        if attn_mask is not None:
            raise ValueRuntimeError("expected either attn_mask or is_causal=True, got both")
        attn_mask = ~causal_mask(L, S, device=query.device)  # (L, S), True = may attend
    # a float mask is added in the scores' dtype (float32 for half precision), whatever its own
    compute = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    if attn_mask is not None:
        check_tensor(attn_mask, "attn_mask")
        check_mask_dtype(attn_mask, "attn_mask", N_("may attend"), TypeRuntimeError)
        attn_mask = _additive_mask(
            ~attn_mask if attn_mask.dtype == torch.bool else attn_mask, compute
        )
    return _attend(query, key, value, attn_mask, dropout_p, scale)


def _attend(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """softmax(Q K^T * scale + attn_mask) V on checked inputs; ``attn_mask`` is additive."""
    # half precision: scores and softmax in float32, as PyTorch's kernels accumulate
    compute = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    # keys as contiguous rows: the product then reads key^T as a view, without a strided copy
    q, k = query.to(compute) * scale, key.to(compute).contiguous()
    scores = q @ k.transpose(-2, -1)  # (..., L, S)
    if attn_mask is not None:
        scores = scores + attn_mask  # (..., L, S)
    if _may_overwrite(scores):  # nothing records the scores: normalise them in place
        weights = torch.softmax(scores, dim=-1, out=scores)  # spares an (..., L, S) buffer
    else:
        weights = torch.softmax(scores, dim=-1)  # (..., L, S), rows sum to 1
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    if compute != query.dtype:
        out = weights @ value.to(compute)  # (..., L, D_v)
        return out.to(value.dtype), weights.to(query.dtype)
    return weights @ value, weights  # (..., L, D_v), (..., L, S)


# ---------------------------------------------------------------------------
# All steps together
# ---------------------------------------------------------------------------


def _mask_shapes(
    query: Tensor, key: Tensor, num_heads: int, batch_axis: int | None
) -> dict[str, dict[str, tuple[int, ...]]]:
    """The shapes each mask may have, in letters and in sizes; ``batch_axis=None``: unbatched."""
    if batch_axis is None:
        L, S = query.shape[0], key.shape[0]
        return {
            "key_padding_mask": {"(S,)": (S,)},
            "attn_mask": {"(L, S)": (L, S), "(H, L, S)": (num_heads, L, S)},
        }
    seq_axis = 1 - batch_axis
    B, L, S = query.shape[batch_axis], query.shape[seq_axis], key.shape[seq_axis]
    return {
        "key_padding_mask": {"(B, S)": (B, S)},
        "attn_mask": {"(L, S)": (L, S), "(B*H, L, S)": (B * num_heads, L, S)},
    }


def check_mha_inputs(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    widths: tuple[tuple[int, str], tuple[int, str], tuple[int, str]],
    num_heads: int,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    is_causal: bool,
    *,
    batch_first: bool = True,
    module: bool = False,
) -> bool:
    """Check the inputs of multi-head attention in their layout; return whether they are batched.

    Internal entry point (not in ``__all__``), shared by :func:`multi_head_attention` and
    :class:`mha.MultiHeadAttention`.

    ``widths`` gives, for query, key and value, the width expected and the argument that sets
    it (``(64, "embed_dim")``). The layout is ``(B, L, E)`` when ``batch_first``, else
    ``(L, B, E)``. ``module=True`` (the module's call) also allows unbatched ``(L, E)`` inputs
    and, when the shapes fit the other layout, says to change ``batch_first``.
    """
    layout = "(B, L, E)" if batch_first else "(L, B, E)"
    dims = (2, 3) if module else (3,)
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, name, TypeAttributeError)
        check_dim(t, name, dims, layout, ValueAssertionError, "(L, E)" if module else None)
    if not query.dim() == key.dim() == value.dim():
        message = _(
            "expected query, key and value to have the same number of dimensions, got {q}-D, "
            "{k}-D and {v}-D"
        )
        raise ValueAssertionError(message.format(q=query.dim(), k=key.dim(), v=value.dim()))
    for name, t, (width, arg) in zip(
        ("query", "key", "value"), (query, key, value), widths, strict=True
    ):
        if t.shape[-1] != width:
            message = _(
                "expected {name}'s last dimension to be {arg}={width}, got {name} of shape {shape}"
            )
            raise ValueAssertionError(
                message.format(name=name, arg=arg, width=width, shape=tuple(t.shape))
            )
    batched = query.dim() == 3
    batch_axis = (0 if batch_first else 1) if batched else None
    other_axis = None if batch_axis is None else 1 - batch_axis

    def hint() -> str:  # worded only for an error
        message = _(
            "; with batch_first={now} the batch is dimension {axis} of {layout}, but the inputs "
            "fit batch_first={other}: construct the module with batch_first={other} or "
            "transpose the inputs"
        )
        return message.format(
            now=batch_first, axis=batch_axis, layout=layout, other=not batch_first
        )

    if batched and not query.shape[batch_axis] == key.shape[batch_axis] == value.shape[batch_axis]:
        fits_other = (
            query.shape[other_axis] == key.shape[other_axis] == value.shape[other_axis]
            and key.shape[batch_axis] == value.shape[batch_axis]
        )
        # PyTorch asserts that key and value match, and fails a reshape on the query
        error = (
            ValueAssertionError
            if key.shape[batch_axis] != value.shape[batch_axis]
            else ValueRuntimeError
        )
        shapes = {"q": tuple(query.shape), "k": tuple(key.shape), "v": tuple(value.shape)}
        message = _(
            "expected query, key and value to share the batch size (dimension {axis} of "
            "{layout}), got query {q}, key {k}, value {v}"
        )
        raise error(
            message.format(axis=batch_axis, layout=layout, **shapes)
            + (hint() if fits_other and module else "")
        )
    _check_same_length(key, value, 0 if batch_axis is None else other_axis)
    expected = _mask_shapes(query, key, num_heads, batch_axis)
    alternative = _mask_shapes(query, key, num_heads, other_axis) if batched else None
    for name, mask, true_means, error in (
        ("key_padding_mask", key_padding_mask, N_("ignore this key"), ValueAssertionError),
        ("attn_mask", attn_mask, N_("blocked"), ValueRuntimeError),
    ):
        if mask is None:
            continue
        check_tensor(mask, name)
        check_mask_dtype(mask, name, true_means)
        if tuple(mask.shape) not in expected[name].values():
            fits_other = (
                module
                and alternative is not None
                and (tuple(mask.shape) in alternative[name].values())
            )
            either = pgettext("between shapes", " or ")
            options = either.join(f"{k} = {v}" for k, v in expected[name].items())
            q, k = tuple(query.shape), tuple(key.shape)
            message = _("expected {name} of shape {options} for query {q} and key {k}, got {got}")
            raise error(
                message.format(name=name, options=options, q=q, k=k, got=tuple(mask.shape))
                + (hint() if fits_other else "")
            )
    if is_causal and attn_mask is None:
        raise ValueRuntimeError(
            _(
                "is_causal=True is a hint that attn_mask is causal and needs attn_mask, got "
                "attn_mask=None; pass attn_mask=mha.causal_mask(L, S) as well"
            )
        )
    return batched


def _append_to_keys(
    k: Tensor, v: Tensor, extra_k: Tensor, extra_v: Tensor, masks: list[Tensor | None]
) -> tuple[Tensor, Tensor, list[Tensor | None]]:
    """Append one key/value position (``S -> S + 1``); masks get an allowed column."""
    k = torch.cat([k, extra_k], dim=-2)  # (..., S + 1, D)
    v = torch.cat([v, extra_v], dim=-2)  # (..., S + 1, D)
    masks = [None if m is None else F.pad(m, (0, 1)) for m in masks]
    return k, v, masks


def _combine_masks(attn: Tensor | None, padding: Tensor | None) -> Tensor | None:
    """Sum of two additive masks, either of which may be absent."""
    if attn is None or padding is None:
        return padding if attn is None else attn
    return attn + padding


def multi_head_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    num_heads: int,
    q_weight: Tensor,
    k_weight: Tensor,
    v_weight: Tensor,
    out_weight: Tensor,
    q_bias: Tensor | None = None,
    k_bias: Tensor | None = None,
    v_bias: Tensor | None = None,
    out_bias: Tensor | None = None,
    *,
    bias_k: Tensor | None = None,
    bias_v: Tensor | None = None,
    add_zero_attn: bool = False,
    key_padding_mask: Tensor | None = None,
    attn_mask: Tensor | None = None,
    need_weights: bool = True,
    average_attn_weights: bool = True,
    is_causal: bool = False,
    dropout_p: float = 0.0,
) -> tuple[Tensor, Tensor | None]:
    r"""All five steps in one call, from the inputs to the projected output.

    .. math::

        \operatorname{MultiHead}(Q, K, V) = \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W^O,
        \quad \mathrm{head}_i = \operatorname{Attention}(Q W_i^Q, K W_i^K, V W_i^V)

    Inputs are batch first; masks follow
    :class:`torch.nn.MultiheadAttention` (boolean ``True`` = blocked, float = added).

    Parameters
    ----------
    query : Tensor of shape (B, L, E)
    key : Tensor of shape (B, S, E_k)
    value : Tensor of shape (B, S, E_v)
    num_heads : int
        ``H``; must divide ``E``.
    q_weight, k_weight, v_weight : Tensor of shape (E, E), (E, E_k), (E, E_v)
        :math:`W^Q`, :math:`W^K`, :math:`W^V` as :class:`torch.nn.Linear` stores them.
    out_weight : Tensor of shape (E, E)
        :math:`W^O`.
    q_bias, k_bias, v_bias, out_bias : Tensor of shape (E,), optional
    bias_k, bias_v : Tensor of shape (1, 1, E), optional
        A learned key and value appended after projection (``S -> S + 1``).
    add_zero_attn : bool, default=False
        Append an all-zero key and value per head (``S -> S + 1``).
    key_padding_mask : Tensor of shape (B, S), optional
        ``True`` (or ``-inf``) marks padding keys to ignore.
    attn_mask : Tensor of shape (L, S) or (B*H, L, S), optional
        ``True`` (or ``-inf``) marks blocked query-key pairs.
    need_weights : bool, default=True
        Return the attention weights; computed by the explicit path. ``False`` uses the fused
        :func:`torch.nn.functional.scaled_dot_product_attention`.
    average_attn_weights : bool, default=True
        Average the returned weights over heads: ``(B, L, S)`` instead of ``(B, H, L, S)``.
    is_causal : bool, default=False
        Hint that ``attn_mask`` is the causal mask, as in PyTorch: it needs ``attn_mask`` and
        lets the fused path skip reading it.
    dropout_p : float, default=0.0
        Dropout on the attention weights (pass ``0.0`` in evaluation).

    Returns
    -------
    output : Tensor of shape (B, L, E)
    weights : Tensor of shape (B, L, S) or (B, H, L, S), or None
        ``S`` counts the extra key of ``bias_k`` and ``add_zero_attn``.

    Raises
    ------
    TypeError
        If an input is not a tensor, or a mask is neither boolean nor floating point.
    ValueError
        If a shape does not fit, or ``is_causal`` is given without ``attn_mask``. Each error
        is also of the class PyTorch's module raises for the same input (see
        :mod:`mha.errors`).

    See Also
    --------
    MultiHeadAttention : the module, with PyTorch's layouts and parameters.

    Examples
    --------
    >>> import torch, mha
    >>> _ = torch.manual_seed(0)
    >>> x = torch.randn(2, 5, 64)
    >>> w_q, w_k, w_v, w_o = torch.randn(4, 64, 64) / 8
    >>> out, weights = mha.multi_head_attention(x, x, x, 8, w_q, w_k, w_v, w_o,
    ...                                         average_attn_weights=False)
    >>> out.shape, weights.shape
    (torch.Size([2, 5, 64]), torch.Size([2, 8, 5, 5]))
    """
    for name, w in (("q_weight", q_weight), ("k_weight", k_weight), ("v_weight", v_weight)):
        check_tensor(w, name)
        check_dim(w, name, (2,), "(E, E_in)")
    embed_dim = q_weight.shape[0]
    check_heads(embed_dim, num_heads)
    for name, w in (("k_weight", k_weight), ("v_weight", v_weight)):
        if w.shape[0] != embed_dim:  # each head's keys and values are as wide as its queries
            raise ValueRuntimeError(
                f"expected {name} to have E={embed_dim} rows, as q_weight has, got {name} of "
                f"shape {tuple(w.shape)}: every projection gives each of the {num_heads} heads "
                f"{embed_dim // num_heads} features; give {name} the shape ({embed_dim}, E_in)"
            )
    check_tensor(out_weight, "out_weight")
    check_dim(out_weight, "out_weight", (2,), f"(E_out, {embed_dim})")
    if out_weight.shape[1] != embed_dim:  # its columns take the merged heads
        raise ValueRuntimeError(
            f"expected out_weight of shape (E_out, {embed_dim}), its columns one per feature of "
            f"the merged heads, got out_weight of shape {tuple(out_weight.shape)}: it is stored "
            f"as a torch.nn.Linear weight, (out, in); for the paper's W^O of shape "
            f"({embed_dim}, E_out), pass its transpose"
        )
    widths = tuple(
        (w.shape[1], f"{n}_weight.shape[1]")
        for n, w in zip("qkv", (q_weight, k_weight, v_weight), strict=True)
    )
    check_mha_inputs(query, key, value, widths, num_heads, key_padding_mask, attn_mask, is_causal)
    if (bias_k is None) != (bias_v is None):
        raise ValueError("expected bias_k and bias_v to be given together, got only one")
    return multi_head_attention_unchecked(
        query,
        key,
        value,
        num_heads,
        (q_weight, k_weight, v_weight, out_weight),
        (q_bias, k_bias, v_bias, out_bias),
        bias_k=bias_k,
        bias_v=bias_v,
        add_zero_attn=add_zero_attn,
        key_padding_mask=key_padding_mask,
        attn_mask=attn_mask,
        need_weights=need_weights,
        average_attn_weights=average_attn_weights,
        is_causal=is_causal,
        dropout_p=dropout_p,
    )


def multi_head_attention_unchecked(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    num_heads: int,
    weights: tuple[Tensor, Tensor, Tensor, Tensor],
    biases: tuple[Tensor | None, Tensor | None, Tensor | None, Tensor | None],
    *,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    need_weights: bool,
    average_attn_weights: bool,
    is_causal: bool,
    dropout_p: float,
) -> tuple[Tensor, Tensor | None]:
    """The five steps on checked batch-first inputs: the package's internal entry point
    (not in ``__all__``) that :func:`multi_head_attention` and :class:`mha.MultiHeadAttention`
    call after :func:`check_mha_inputs`, each in its own layout. Each step is the public
    function of its name without its checks: ``_project_qkv``, ``_split_heads``, ``_attend``,
    ``_merge_heads``, ``_project``."""
    q_weight, k_weight, v_weight, out_weight = weights
    q_bias, k_bias, v_bias, out_bias = biases
    B, L, _E = query.shape
    H = num_heads

    # 2) project
    q, k, v = _project_qkv(
        query, key, value, q_weight, k_weight, v_weight, q_bias, k_bias, v_bias
    )  # (B, L, E), (B, S, E), (B, S, E)

    # masks as float, added to the scores: padding (B, 1, 1, S), attention (1|B, 1|H, L, S)
    padding = None if key_padding_mask is None else _additive_mask(key_padding_mask, q.dtype)
    padding = None if padding is None else padding[:, None, None, :]  # (B, 1, 1, S)
    scores_mask = None if attn_mask is None else _additive_mask(attn_mask, q.dtype)
    if scores_mask is not None and scores_mask.dim() == 3:
        scores_mask = scores_mask.view(
            B, H, L, scores_mask.shape[-1]
        )  # (B*H, L, S) -> (B, H, L, S)
    elif scores_mask is not None:
        scores_mask = scores_mask[None, None]  # (L, S) -> (1, 1, L, S)
    if bias_k is not None:  # learned extra key/value, appended before the heads split
        k, v, (padding, scores_mask) = _append_to_keys(
            k, v, bias_k.expand(B, 1, -1), bias_v.expand(B, 1, -1), [padding, scores_mask]
        )  # (B, S + 1, E)

    # 3) split heads
    q = _split_heads(q, H)  # (B, H, L, D)
    k = _split_heads(k, H)  # (B, H, S, D)
    v = _split_heads(v, H)  # (B, H, S, D)
    if add_zero_attn:  # an all-zero key/value per head
        zeros = k.new_zeros(B, H, 1, k.shape[-1])  # (B, H, 1, D)
        k, v, (padding, scores_mask) = _append_to_keys(k, v, zeros, zeros, [padding, scores_mask])

    mask = _combine_masks(scores_mask, padding)  # broadcastable to (B, H, L, S), or None

    # 4) attend
    if need_weights:
        out, weights = _attend(q, k, v, mask, dropout_p)  # (B, H, L, D), (B, H, L, S)
    else:
        causal_only = is_causal and key_padding_mask is None
        out = F.scaled_dot_product_attention(
            q, k, v, None if causal_only else mask, dropout_p, is_causal=causal_only
        )  # (B, H, L, D)
        weights = None

    # 5) merge heads
    out = _merge_heads(out)  # (B, L, E)

    # 6) project out
    out = _project(out, out_weight, out_bias)  # (B, L, E)

    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)  # (B, L, S)
    return out, weights
