r"""What multi-head attention costs: parameters, FLOPs and the memory of the weights.

Splitting ``E`` into ``H`` heads of width ``D = E // H`` changes neither the number of
parameters nor the matrix-multiply FLOPs: every head works on a ``D``-wide slice, and the
``H`` slices add up to ``E``. What does grow with ``H`` is the attention-weight tensor
``(B, H, L, S)``: one ``L x S`` matrix per head.

Dimension letters are those of :mod:`mha.functional`: ``B`` batch, ``L`` target length,
``S`` source length, ``E`` model width, ``H`` heads, ``D = E // H`` head width.
"""

from __future__ import annotations

from dataclasses import dataclass

from mha.functional import check_heads

__all__ = [
    "AttentionFlops",
    "attention_flops",
    "attention_weight_elements",
    "parameter_count",
]


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected {name} to be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"expected {name} to be a positive int, got {name}={value}")
    return value


def _widths(embed_dim: int, kdim: int | None, vdim: int | None) -> tuple[int, int]:
    kdim = embed_dim if kdim is None else _check_positive_int(kdim, "kdim")
    vdim = embed_dim if vdim is None else _check_positive_int(vdim, "vdim")
    return kdim, vdim


def parameter_count(
    embed_dim: int,
    num_heads: int,
    *,
    bias: bool = True,
    kdim: int | None = None,
    vdim: int | None = None,
    add_bias_kv: bool = False,
) -> int:
    """Number of learned values in one multi-head attention layer.

    :math:`W^Q` ``(E, E)``, :math:`W^K` ``(E, kdim)``, :math:`W^V` ``(E, vdim)`` and :math:`W^O` ``(E, E)``,
    plus four biases of ``E`` when ``bias`` is true and ``bias_k``, ``bias_v`` of ``E`` each
    when ``add_bias_kv`` is true. ``num_heads`` does not appear in the sum: it only has to
    divide ``embed_dim``.

    Parameters
    ----------
    embed_dim : int
        Model width ``E``.
    num_heads : int
        Number of heads ``H``; must divide ``embed_dim``.
    bias : bool, default=True
        Biases on the four projections.
    kdim, vdim : int, optional
        Widths of ``key`` and ``value``; default ``embed_dim``.
    add_bias_kv : bool, default=False
        A learned extra key and value.

    Returns
    -------
    int
        Equal to ``sum(p.numel() for p in module.parameters())`` for
        :class:`mha.MultiHeadAttention` and :class:`torch.nn.MultiheadAttention` built with
        the same arguments.

    Raises
    ------
    TypeError
        If a width or head count is not an int, or a flag is not a bool.
    ValueError
        If a width or head count is not positive, or ``num_heads`` does not divide
        ``embed_dim``.

    Examples
    --------
    >>> import torch, mha
    >>> mha.parameter_count(64, 8)
    16640
    >>> mha.parameter_count(64, 1) == mha.parameter_count(64, 64)
    True
    >>> module = torch.nn.MultiheadAttention(64, 8)
    >>> sum(p.numel() for p in module.parameters())
    16640
    """
    check_heads(embed_dim, num_heads)
    for name, flag in (("bias", bias), ("add_bias_kv", add_bias_kv)):
        if not isinstance(flag, bool):
            raise TypeError(f"expected {name} to be a bool, got {type(flag).__name__}")
    kdim, vdim = _widths(embed_dim, kdim, vdim)
    E = embed_dim
    weights = E * E + E * kdim + E * vdim + E * E  # W^Q, W^K, W^V, W^O
    biases = 4 * E if bias else 0  # b^Q, b^K, b^V, b^O
    extra_kv = 2 * E if add_bias_kv else 0  # bias_k, bias_v
    return weights + biases + extra_kv


@dataclass(frozen=True)
class AttentionFlops:
    """Matrix-multiply FLOPs of one multi-head attention forward pass, step by step.

    Each field counts ``2 * m * n * k`` per ``(m, k) @ (k, n)`` product, as
    :class:`torch.utils.flop_counter.FlopCounterMode` does. Softmax, scaling, masks and bias
    additions are element-wise and not counted.

    Attributes
    ----------
    projections : int
        Step 1, ``Q = query W^Q``, ``K = key W^K``, ``V = value W^V``:
        ``2 B E (L E + S kdim + S vdim)``.
    scores : int
        Step 3a, ``Q K^T`` for every head: ``2 B H L S D = 2 B L S E``.
    weighted_sum : int
        Step 3b, ``weights @ V`` for every head: ``2 B H L S D = 2 B L S E``.
    output_projection : int
        Step 5, ``out W^O``: ``2 B L E E``.
    """

    projections: int
    scores: int
    weighted_sum: int
    output_projection: int

    @property
    def total(self) -> int:
        """Sum of the four steps."""
        return self.projections + self.scores + self.weighted_sum + self.output_projection


def attention_flops(
    batch: int,
    target_len: int,
    source_len: int,
    embed_dim: int,
    num_heads: int,
    *,
    kdim: int | None = None,
    vdim: int | None = None,
) -> AttentionFlops:
    """Matrix-multiply FLOPs of a multi-head attention forward pass.

    The count of the explicit path (``need_weights=True``), which computes the scores and the
    weighted sum with batched matrix products. For a fixed ``embed_dim`` the result does not
    depend on ``num_heads``: ``H`` heads of width ``D`` do ``H * D = E`` columns of work.

    Parameters
    ----------
    batch : int
        ``B``.
    target_len : int
        Query length ``L``.
    source_len : int
        Key and value length ``S`` of the inputs. An appended ``bias_k`` or zero key is not
        counted here; it adds ``2 B L E`` to each of ``scores`` and ``weighted_sum``.
    embed_dim : int
        Model width ``E``.
    num_heads : int
        Number of heads ``H``; must divide ``embed_dim``.
    kdim, vdim : int, optional
        Widths of ``key`` and ``value``; default ``embed_dim``.

    Returns
    -------
    AttentionFlops
        FLOPs per step and their ``total``; equal to what
        :class:`torch.utils.flop_counter.FlopCounterMode` counts for
        :class:`torch.nn.MultiheadAttention` and :class:`mha.MultiHeadAttention`.

    Raises
    ------
    TypeError
        If an argument is not an int.
    ValueError
        If an argument is not positive, or ``num_heads`` does not divide ``embed_dim``.

    See Also
    --------
    attention_weight_elements : the part of the cost that does grow with ``H``.

    Examples
    --------
    >>> import torch, mha
    >>> from torch.utils.flop_counter import FlopCounterMode
    >>> flops = mha.attention_flops(2, 5, 5, 64, 8)
    >>> flops.scores, flops.total
    (6400, 340480)
    >>> mha.attention_flops(2, 5, 5, 64, 1).total == flops.total
    True
    >>> module = mha.MultiHeadAttention(64, 8, batch_first=True)
    >>> x = torch.randn(2, 5, 64)
    >>> with FlopCounterMode(display=False) as counter, torch.no_grad():
    ...     _ = module(x, x, x, need_weights=True)
    >>> counter.get_total_flops()
    340480
    """
    B = _check_positive_int(batch, "batch")
    L = _check_positive_int(target_len, "target_len")
    S = _check_positive_int(source_len, "source_len")
    check_heads(embed_dim, num_heads)
    kdim, vdim = _widths(embed_dim, kdim, vdim)
    E, H = embed_dim, num_heads
    D = E // H
    return AttentionFlops(
        projections=2 * B * L * E * E + 2 * B * S * kdim * E + 2 * B * S * vdim * E,
        scores=2 * B * H * L * S * D,  # (B*H) x (L, D) @ (D, S)
        weighted_sum=2 * B * H * L * S * D,  # (B*H) x (L, S) @ (S, D)
        output_projection=2 * B * L * E * E,
    )


def attention_weight_elements(batch: int, num_heads: int, target_len: int, source_len: int) -> int:
    """Number of elements in the attention weights, ``B * H * L * S``.

    The explicit path keeps one ``L x S`` matrix of scores and one of weights per head, so this
    memory grows linearly with ``H`` even though parameters and FLOPs do not. Multiply by the
    element size (4 bytes for float32) for bytes.

    Parameters
    ----------
    batch : int
        ``B``.
    num_heads : int
        ``H``.
    target_len : int
        Query length ``L``.
    source_len : int
        Key length ``S``.

    Returns
    -------
    int
        ``B * H * L * S``, the ``numel()`` of the weights returned with
        ``need_weights=True, average_attn_weights=False``.

    Raises
    ------
    TypeError
        If an argument is not an int.
    ValueError
        If an argument is not positive.

    Examples
    --------
    >>> import torch, mha
    >>> mha.attention_weight_elements(2, 8, 5, 5)
    400
    >>> module = mha.MultiHeadAttention(64, 8, batch_first=True)
    >>> x = torch.randn(2, 5, 64)
    >>> module(x, x, x, average_attn_weights=False)[1].numel()
    400
    """
    B = _check_positive_int(batch, "batch")
    H = _check_positive_int(num_heads, "num_heads")
    L = _check_positive_int(target_len, "target_len")
    S = _check_positive_int(source_len, "source_len")
    return B * H * L * S
