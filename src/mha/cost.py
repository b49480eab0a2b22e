r"""What multi-head attention costs: parameters, FLOPs and the memory of the weights.

Splitting ``E`` into ``H`` heads of width ``D = E // H`` changes neither the number of
parameters nor the matrix-multiply FLOPs: every head works on a ``D``-wide slice, and the
``H`` slices add up to ``E``. What does grow with ``H`` is the attention-weight tensor
``(B, H, L, S)``: one ``L x S`` matrix per head.

Dimension letters are those of :mod:`mha.functional`: ``B`` batch, ``L`` target length,
``S`` source length, ``E`` model width, ``H`` heads, ``D = E // H`` head width; and those of
:mod:`mha.gqa`: ``H_kv`` key/value heads. With ``H_kv < H`` (grouped-query attention) the key
and value projections and the KV cache shrink by ``G = H / H_kv``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from mha._validation import check_bool, check_kv_heads, positive_int
from mha.functional import check_heads

__all__ = [
    "AttentionFlops",
    "LargestTensor",
    "attention_flops",
    "attention_weight_elements",
    "kv_cache_bytes",
    "parameter_count",
]


def _widths(embed_dim: int, kdim: int | None, vdim: int | None) -> tuple[int, int]:
    kdim = embed_dim if kdim is None else positive_int(kdim, "kdim")
    vdim = embed_dim if vdim is None else positive_int(vdim, "vdim")
    return kdim, vdim


def parameter_count(
    embed_dim: int,
    num_heads: int,
    *,
    bias: bool = True,
    kdim: int | None = None,
    vdim: int | None = None,
    add_bias_kv: bool = False,
    num_kv_heads: int | None = None,
) -> int:
    """Number of learned values in one multi-head attention layer.

    :math:`W^Q` ``(E, E)``, :math:`W^K` ``(E, kdim)``, :math:`W^V` ``(E, vdim)`` and :math:`W^O` ``(E, E)``,
    plus four biases of ``E`` when ``bias`` is true and ``bias_k``, ``bias_v`` of ``E`` each
    when ``add_bias_kv`` is true. ``num_heads`` does not appear in the sum: it only has to
    divide ``embed_dim``.

    With ``num_kv_heads`` (grouped-query attention, :class:`mha.GroupedQueryAttention`) the
    keys and values have ``H_kv * D`` columns instead of ``E``: ``W^K`` is
    ``(H_kv * D, kdim)``, ``W^V`` ``(H_kv * D, vdim)``, and their biases (and ``bias_k``,
    ``bias_v``) ``H_kv * D``.

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
    num_kv_heads : int, optional
        Key/value heads ``H_kv``; must divide ``num_heads``. Default ``num_heads``.

    Returns
    -------
    int
        Equal to ``sum(p.numel() for p in module.parameters())`` for
        :class:`mha.MultiHeadAttention` and :class:`torch.nn.MultiheadAttention` built with
        the same arguments, and for :class:`mha.GroupedQueryAttention` with ``num_kv_heads``.

    Raises
    ------
    TypeError
        If a width or head count is not an int, or a flag is not a bool.
    ValueError
        If a width or head count is not positive, ``num_heads`` does not divide
        ``embed_dim``, or ``num_kv_heads`` does not divide ``num_heads``.

    Examples
    --------
    >>> import torch, mha
    >>> mha.parameter_count(64, 8)
    16640
    >>> gqa = mha.GroupedQueryAttention(64, 8, 2)  # K and V: 2 heads of 8 columns
    >>> mha.parameter_count(64, 8, bias=False, num_kv_heads=2)
    10240
    >>> sum(p.numel() for p in gqa.parameters())
    10240
    >>> mha.parameter_count(64, 1) == mha.parameter_count(64, 64)
    True
    >>> module = torch.nn.MultiheadAttention(64, 8)
    >>> sum(p.numel() for p in module.parameters())
    16640
    """
    D = check_heads(embed_dim, num_heads)
    G = 1 if num_kv_heads is None else check_kv_heads(num_heads, num_kv_heads)
    for name, flag in (("bias", bias), ("add_bias_kv", add_bias_kv)):
        check_bool(flag, name)
    kdim, vdim = _widths(embed_dim, kdim, vdim)
    E = embed_dim
    E_kv = (num_heads // G) * D  # columns of K and V: H_kv * D, which is E when H_kv = H
    weights = E * E + E_kv * kdim + E_kv * vdim + E * E  # W^Q, W^K, W^V, W^O
    biases = 2 * E + 2 * E_kv if bias else 0  # b^Q, b^K, b^V, b^O
    extra_kv = 2 * E_kv if add_bias_kv else 0  # bias_k, bias_v
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
        Step 2, ``Q = query W^Q``, ``K = key W^K``, ``V = value W^V``:
        ``2 B E (L E + S kdim + S vdim)``.
    scores : int
        Step 4a, ``Q K^T`` for every head: ``2 B H L S D = 2 B L S E``.
    weighted_sum : int
        Step 4b, ``weights @ V`` for every head: ``2 B H L S D = 2 B L S E``.
    output_projection : int
        Step 6, ``out W^O``: ``2 B L E E``.
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
    B = positive_int(batch, "batch")
    L = positive_int(target_len, "target_len")
    S = positive_int(source_len, "source_len")
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


def attention_weight_elements(batch: int, target_len: int, source_len: int, num_heads: int) -> int:
    """Number of elements in the attention weights, ``B * H * L * S``.

    The explicit path keeps one ``L x S`` matrix of scores and one of weights per head, so this
    memory grows linearly with ``H`` even though parameters and FLOPs do not. Multiply by the
    element size (4 bytes for float32) for bytes.

    Parameters
    ----------
    batch : int
        ``B``.
    target_len : int
        Query length ``L``.
    source_len : int
        Key length ``S``.
    num_heads : int
        ``H``.

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
    >>> mha.attention_weight_elements(2, 5, 5, 8)
    400
    >>> module = mha.MultiHeadAttention(64, 8, batch_first=True)
    >>> x = torch.randn(2, 5, 64)
    >>> module(x, x, x, average_attn_weights=False)[1].numel()
    400
    """
    B = positive_int(batch, "batch")
    L = positive_int(target_len, "target_len")
    S = positive_int(source_len, "source_len")
    H = positive_int(num_heads, "num_heads")
    return B * H * L * S


def kv_cache_bytes(
    batch: int,
    source_len: int,
    embed_dim: int,
    num_heads: int,
    num_kv_heads: int | None = None,
    *,
    dtype: torch.dtype = torch.float32,
) -> int:
    """Bytes of the keys and values a KV cache holds, ``2 * B * H_kv * S * D * bytes``.

    One layer's :class:`mha.KVCache` after ``S`` positions: keys and values of shape
    ``(B, H_kv, S, D)`` each. It shrinks with ``H_kv``: grouped-query attention with
    ``H_kv = H / G`` stores ``G`` times less than multi-head attention; multi-query
    (``H_kv = 1``) ``H`` times less. Multiply by the number of layers for a model.

    Parameters
    ----------
    batch : int
        ``B``.
    source_len : int
        Cached positions ``S``.
    embed_dim : int
        Model width ``E``.
    num_heads : int
        Query heads ``H``; must divide ``embed_dim``. ``D = E // H``.
    num_kv_heads : int, optional
        Key/value heads ``H_kv``; must divide ``num_heads``. Default ``num_heads``.
    dtype : torch.dtype, default=torch.float32
        The cache's element type (``torch.bfloat16``: 2 bytes).

    Returns
    -------
    int
        ``keys.nbytes + values.nbytes`` of the cache: its buffer may hold spare capacity
        beyond that (see :class:`mha.KVCache`).

    Raises
    ------
    TypeError
        If a size is not an int, or ``dtype`` not a :class:`torch.dtype`.
    ValueError
        If a size is not positive, ``num_heads`` does not divide ``embed_dim`` or
        ``num_kv_heads`` does not divide ``num_heads``.

    Examples
    --------
    >>> import torch, mha
    >>> mha.kv_cache_bytes(1, 32768, 4096, 32, 32, dtype=torch.bfloat16) / 2**30  # GiB
    0.5
    >>> mha.kv_cache_bytes(1, 32768, 4096, 32, 8, dtype=torch.bfloat16) / 2**30
    0.125
    >>> attn, cache = mha.GroupedQueryAttention(64, 8, 2), mha.KVCache()
    >>> with torch.no_grad():
    ...     _ = attn(torch.randn(2, 5, 64), cache=cache)
    >>> cache.keys.nbytes + cache.values.nbytes == mha.kv_cache_bytes(2, 5, 64, 8, 2)
    True
    """
    B = positive_int(batch, "batch")
    S = positive_int(source_len, "source_len")
    D = check_heads(embed_dim, num_heads)
    G = 1 if num_kv_heads is None else check_kv_heads(num_heads, num_kv_heads)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(
            f"expected dtype to be a torch.dtype such as torch.float32, got {type(dtype).__name__}"
        )
    H_kv = num_heads // G
    return 2 * B * H_kv * S * D * dtype.itemsize  # keys and values, (B, H_kv, S, D) each


class LargestTensor(TorchDispatchMode):
    """Measure the largest tensor that PyTorch creates inside a ``with`` block.

    Every operation that PyTorch runs inside the block passes through this mode (a
    ``TorchDispatchMode``, PyTorch's hook under every operator). Each result that has memory of
    its own is counted; a view of an input or a result written into an input (``out=``, an
    in-place operation) shares that input's memory and is not. Works on real tensors, on any
    device (on ``meta`` no tensor has an address, so nothing is told apart).

    Attributes
    ----------
    numel : int
        Elements of the largest tensor created, 0 if none was.
    nbytes : int
        Its size in bytes.

    Examples
    --------
    >>> import torch, mha
    >>> q, k, v = torch.randn(3, 1, 1, 512, 64).unbind(0)  # (B, H, L, D) each, L = S = 512
    >>> with mha.LargestTensor() as explicit:
    ...     _ = mha.scaled_dot_product_attention(q, k, v)
    >>> explicit.numel  # the (L, S) scores
    262144
    >>> with mha.LargestTensor() as tiled:
    ...     _ = mha.tiled_attention(q, k, v, block_size=128)
    >>> tiled.numel, tiled.nbytes  # the scores of one block of keys, (L, C)
    (65536, 262144)
    """

    def __init__(self) -> None:
        super().__init__()
        self.numel = 0
        self.nbytes = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        inputs = {t.untyped_storage().data_ptr() for t in _tensors((args, kwargs))}
        out = func(*args, **kwargs)
        for t in _tensors(out):
            if t.untyped_storage().data_ptr() not in inputs and t.numel() > self.numel:
                self.numel, self.nbytes = t.numel(), t.numel() * t.element_size()
        return out


def _tensors(obj: object):
    """The tensors in ``obj``, a tensor or nested tuples, lists and dicts of them."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)
