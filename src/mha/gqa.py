r"""After the lesson: grouped-query attention, multi-query attention and the KV cache.

In grouped-query attention (GQA) the queries keep ``H`` heads, but the keys and values have
only ``H_kv`` heads, each shared by a group of ``G = H / H_kv`` query heads. ``H_kv = H`` is
multi-head attention; ``H_kv = 1`` is multi-query attention (MQA). A KV cache keeps the keys
and values of the positions already seen, so that generating one more token projects only
that token.

Dimension letters, as in :mod:`mha.functional`, plus two:

========  =====================================================================
``B``     batch size
``L``     query length of this call (1 when decoding token by token)
``S``     key and value length: every cached position plus this call's ``L``
``E``     model width ``embed_dim``
``H``     query heads ``num_heads``
``H_kv``  key and value heads ``num_kv_heads``; divides ``H``
``G``     query heads per key/value head, ``H // H_kv``
``D``     width of one head, ``E // H`` (queries, keys and values alike)
========  =====================================================================

Causal attention with a cache aligns to the *bottom right*: this call's ``L`` queries are the
last ``L`` of the ``S`` positions, and a query at absolute position ``p`` sees the keys at
positions ``<= p``. ``F.scaled_dot_product_attention(is_causal=True)`` aligns to the top left
(query ``i`` sees keys ``<= i``), which is the same only when ``L == S``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mha._validation import (
    check_bool,
    check_dim,
    check_kv_heads,
    check_tensor,
    integer,
    positive_int,
)
from mha.functional import (
    causal_mask,
    check_heads,
    merge_heads,
    scaled_dot_product_attention,
    split_heads,
)

__all__ = ["GroupedQueryAttention", "KVCache", "grouped_query_attention", "repeat_kv"]


# ---------------------------------------------------------------------------
# Sharing key/value heads
# ---------------------------------------------------------------------------


def repeat_kv(x: Tensor, num_heads: int) -> Tensor:
    """Repeat each key/value head for its group of query heads, ``(B, H_kv, S, D) -> (B, H, S, D)``.

    Key/value head ``j`` serves query heads ``j*G`` to ``(j+1)*G - 1`` with ``G = H / H_kv``:
    head ``j`` appears ``G`` times in a row, the grouping of
    ``F.scaled_dot_product_attention(..., enable_gqa=True)`` and of
    ``torch.repeat_interleave`` along the head dimension.

    Parameters
    ----------
    x : Tensor of shape (B, H_kv, S, D)
        Keys or values with ``H_kv`` heads.
    num_heads : int
        Number of query heads ``H``; a multiple of ``H_kv``.

    Returns
    -------
    Tensor of shape (B, H, S, D)
        A new, contiguous tensor: it **copies** (``G`` times the memory of ``x``), unless
        ``G == 1``, where ``x`` itself is returned. The fused path never calls it: with
        ``enable_gqa=True``, PyTorch's flash kernel (the CPU default in torch 2.13) reads
        each key/value head in place for its whole group; its math fallback repeats them.

    Raises
    ------
    TypeError
        If ``x`` is not a tensor or ``num_heads`` not an int.
    ValueError
        If ``x`` is not 4-D, or ``num_heads`` is not a positive multiple of ``x.shape[1]``.

    See Also
    --------
    GroupedQueryAttention : the module that shares key/value heads.

    Examples
    --------
    >>> import torch, mha
    >>> kv = torch.arange(2.0).view(1, 2, 1, 1)  # (B, H_kv, S, D) = (1, 2, 1, 1): heads 0 and 1
    >>> mha.repeat_kv(kv, 8).flatten().tolist()  # G = 4 query heads per key/value head
    [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    >>> mha.repeat_kv(torch.randn(2, 2, 5, 8), 8).shape
    torch.Size([2, 8, 5, 8])
    """
    check_tensor(x, "x")
    check_dim(x, "x", (4,), "(B, H_kv, S, D)")
    num_heads = positive_int(num_heads, "num_heads")
    B, H_kv, S, D = x.shape
    if num_heads % H_kv != 0:
        raise ValueError(
            f"expected num_heads to be a multiple of the {H_kv} key/value heads of x, got "
            f"num_heads={num_heads} for x of shape {tuple(x.shape)} (B, H_kv, S, D); pass the "
            f"query head count H of the layer, a multiple of H_kv"
        )
    G = num_heads // H_kv
    if G == 1:
        return x
    # (B, H_kv, 1, S, D) -> (B, H_kv, G, S, D) as a view, then one copy into (B, H, S, D)
    return x[:, :, None].expand(B, H_kv, G, S, D).contiguous().view(B, num_heads, S, D)


# ---------------------------------------------------------------------------
# The KV cache
# ---------------------------------------------------------------------------


class KVCache:
    """The keys and values of every position seen so far, for one batch of sequences.

    Starts empty. Passed to :meth:`GroupedQueryAttention.forward` as ``cache=``, it is
    extended in place with that call's keys and values, and the call attends over every
    cached position. Use one cache per batch of sequences and per layer.

    The storage is a preallocated buffer of shape ``(B, H_kv, capacity, D)`` whose capacity
    doubles when it is full, so one decoding step copies only its own keys and values
    (amortised; ``torch.cat`` on every step copies the whole cache each time). ``nox -s bench
    -- --gqa`` measures both (see the Performance page). ``keys`` and ``values`` are
    views of the first ``len(cache)`` positions of the buffer, of shape ``(B, H_kv, S, D)``
    with ``S = len(cache)``, or ``None`` while the cache is empty.

    Notes
    -----
    A cache is for inference: run under ``torch.no_grad()`` or
    ``torch.inference_mode()``. Each step writes into the buffer in place, which autograd
    refuses to differentiate through once an earlier step's keys have been used.

    Examples
    --------
    >>> import torch, mha
    >>> cache = mha.KVCache()
    >>> len(cache), cache.keys
    (0, None)
    >>> keys, values = cache.append(torch.zeros(2, 2, 5, 8), torch.ones(2, 2, 5, 8))
    >>> keys = cache.append(torch.zeros(2, 2, 1, 8), torch.ones(2, 2, 1, 8))[0]
    >>> len(cache), tuple(cache.keys.shape), tuple(keys.shape)  # (B, H_kv, S, D)
    (6, (2, 2, 6, 8), (2, 2, 6, 8))
    """

    def __init__(self) -> None:
        self._k: Tensor | None = None  # (B, H_kv, capacity, D)
        self._v: Tensor | None = None  # (B, H_kv, capacity, D)
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def __repr__(self) -> str:
        if self._k is None:
            return "KVCache(empty)"
        B, H_kv, capacity, D = self._k.shape
        return (
            f"KVCache(B={B}, H_kv={H_kv}, S={self._length}, D={D}, capacity={capacity}, "
            f"dtype={self._k.dtype}, device={self._k.device})"
        )

    @property
    def keys(self) -> Tensor | None:
        """Cached keys ``(B, H_kv, S, D)``, a view of the buffer; ``None`` while empty."""
        return None if self._k is None else self._k[:, :, : self._length]

    @property
    def values(self) -> Tensor | None:
        """Cached values ``(B, H_kv, S, D)``, a view of the buffer; ``None`` while empty."""
        return None if self._v is None else self._v[:, :, : self._length]

    @property
    def capacity(self) -> int:
        """Positions the buffer holds before it must grow; 0 while the cache is empty."""
        return 0 if self._k is None else self._k.shape[2]

    def crop(self, length: int) -> None:
        """Keep the first ``length`` positions and forget the rest; the buffer stays allocated.

        For example, to drop draft tokens that were not accepted, or to run the same decoding
        step again from the same prefix.

        Raises
        ------
        TypeError
            If ``length`` is not an integer.
        ValueError
            If ``length`` is negative or more than ``len(self)``.

        Examples
        --------
        >>> import torch, mha
        >>> cache = mha.KVCache()
        >>> _ = cache.append(torch.zeros(1, 2, 5, 8), torch.zeros(1, 2, 5, 8))
        >>> cache.crop(3)
        >>> len(cache), tuple(cache.keys.shape), cache.capacity
        (3, (1, 2, 3, 8), 16)
        """
        length = integer(length, "length")
        if not 0 <= length <= self._length:
            raise ValueError(
                f"expected 0 <= length <= len(cache) = {self._length}, got length={length}; "
                f"crop only forgets positions, append adds them"
            )
        self._length = length

    def _check(self, keys: object, values: object) -> tuple[Tensor, Tensor]:
        for name, t in (("keys", keys), ("values", values)):
            check_tensor(t, name)
            check_dim(t, name, (4,), "(B, H_kv, L, D)")
        if keys.shape != values.shape or keys.dtype != values.dtype:
            raise ValueError(
                f"expected keys and values of the same shape (B, H_kv, L, D) and dtype, got "
                f"keys {tuple(keys.shape)} {keys.dtype} and values {tuple(values.shape)} "
                f"{values.dtype}"
            )
        if self._k is not None:
            B, H_kv, _, D = self._k.shape
            new = keys.shape
            if (new[0], new[1], new[3]) != (B, H_kv, D) or keys.dtype != self._k.dtype:
                raise ValueError(
                    f"expected keys of shape (B, H_kv, L, D) = ({B}, {H_kv}, L, {D}) and dtype "
                    f"{self._k.dtype}, as already cached, got {tuple(new)} {keys.dtype}; use a "
                    f"new mha.KVCache() for another batch, layer or model"
                )
            if keys.device != self._k.device:
                raise ValueError(
                    f"expected keys on {self._k.device}, where the cache is, got {keys.device}"
                )
        return keys, values

    def append(self, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
        """Add ``L`` positions; return every cached key and value, this call's included.

        Parameters
        ----------
        keys, values : Tensor of shape (B, H_kv, L, D)
            This call's keys and values, for positions ``len(self)`` to ``len(self) + L - 1``.

        Returns
        -------
        keys, values : Tensor of shape (B, H_kv, S, D)
            ``S = len(self)`` after the call; views of the cache's buffer.

        Raises
        ------
        TypeError
            If ``keys`` or ``values`` is not a tensor.
        ValueError
            If they are not 4-D, differ in shape or dtype, or do not match what is already
            cached (``B``, ``H_kv``, ``D``, dtype, device).
        """
        keys, values = self._check(keys, values)
        B, H_kv, L, D = keys.shape
        start, end = self._length, self._length + L
        if self._k is None or end > self._k.shape[2]:  # grow: double, or fit this call
            capacity = max(end, 2 * (0 if self._k is None else self._k.shape[2]), 16)
            buffers = [keys.new_empty(B, H_kv, capacity, D) for _ in range(2)]
            if self._k is not None:  # copy what is cached into the larger buffers
                buffers[0][:, :, :start] = self._k[:, :, :start]
                buffers[1][:, :, :start] = self._v[:, :, :start]
            self._k, self._v = buffers  # (B, H_kv, capacity, D) each
        self._k[:, :, start:end] = keys  # write this call's positions only
        self._v[:, :, start:end] = values
        self._length = end
        return self.keys, self.values  # (B, H_kv, S, D) each


# ---------------------------------------------------------------------------
# 4) attend, with H_kv key/value heads
# ---------------------------------------------------------------------------


def grouped_query_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    *,
    is_causal: bool = False,
    need_weights: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Step 4 with shared key/value heads: ``H`` query heads attend over ``H_kv`` kv heads.

    Query head ``h`` uses key/value head ``h // G``, ``G = H / H_kv``.

    Two paths, chosen by ``need_weights``:

    * ``need_weights=False`` (fused): one call to
      :func:`torch.nn.functional.scaled_dot_product_attention` with ``enable_gqa=True``,
      which returns no weights. PyTorch's flash kernel (the CPU default in torch 2.13)
      reads each key/value head in place for its group and never stores the weights; its
      math fallback repeats the heads and computes the weights internally.
    * ``need_weights=True`` (explicit): :func:`repeat_kv` copies the keys and values to ``H``
      heads, then :func:`mha.scaled_dot_product_attention` computes the scores, softmax and
      weighted sum and returns the weights.

    Parameters
    ----------
    query : Tensor of shape (B, H, L, D)
    key, value : Tensor of shape (B, H_kv, S, D)
        ``H_kv`` divides ``H``.
    is_causal : bool, default=False
        Causal attention aligned to the bottom right: the ``L`` queries are the last ``L`` of
        the ``S`` positions, and query ``i`` sees the keys ``0`` to ``i + S - L``. With
        ``L == S`` this is the usual causal mask.
    need_weights : bool, default=False
        Run the explicit path and return the weights.

    Returns
    -------
    output : Tensor of shape (B, H, L, D)
    weights : Tensor of shape (B, H, L, S) or None
        ``None`` when ``need_weights=False``.

    Raises
    ------
    TypeError
        If an input is not a tensor or a flag not a bool.
    ValueError
        If an input is not 4-D, the shapes do not fit (batch, ``D``, ``S``), ``H_kv`` does
        not divide ``H``, or ``is_causal=True`` with fewer keys than queries (``S < L``).

    See Also
    --------
    repeat_kv : the explicit path's grouping.
    GroupedQueryAttention : the module around this step.

    Examples
    --------
    >>> import torch, mha
    >>> _ = torch.manual_seed(0)
    >>> q = torch.randn(2, 8, 5, 8)  # (B, H, L, D)
    >>> k, v = torch.randn(2, 2, 2, 5, 8).unbind(0)  # (B, H_kv, S, D) each, H_kv = 2
    >>> fused, _ = mha.grouped_query_attention(q, k, v, is_causal=True)
    >>> explicit, weights = mha.grouped_query_attention(q, k, v, is_causal=True, need_weights=True)
    >>> fused.shape, weights.shape
    (torch.Size([2, 8, 5, 8]), torch.Size([2, 8, 5, 5]))
    >>> torch.testing.assert_close(fused, explicit)
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, name)
        check_dim(t, name, (4,), "(B, H, L, D)" if name == "query" else "(B, H_kv, S, D)")
    check_bool(is_causal, "is_causal")
    check_bool(need_weights, "need_weights")
    B, H, L, D = query.shape
    if key.shape != value.shape or key.shape[0] != B or key.shape[3] != D:
        raise ValueError(
            f"expected key and value of shape (B, H_kv, S, D) = ({B}, H_kv, S, {D}) for query "
            f"{tuple(query.shape)} (B, H, L, D), got key {tuple(key.shape)} and value "
            f"{tuple(value.shape)}"
        )
    H_kv, S = key.shape[1], key.shape[2]
    check_kv_heads(H, H_kv)
    if is_causal and S < L:
        raise ValueError(
            f"expected at least as many keys as queries with is_causal=True (the queries are "
            f"the last L of S positions), got L={L} and S={S}"
        )
    # the mask, True = may attend; none needed when every key is visible to every query
    if is_causal and L > 1:  # (L, S), True = may attend: the queries are the last L of S
        mask = ~causal_mask(L, S, align="bottom-right", device=query.device)
    else:
        mask = None

    if need_weights:  # explicit: copy the kv heads to H, then matmul, softmax, matmul
        k = repeat_kv(key, H)  # (B, H, S, D)
        v = repeat_kv(value, H)  # (B, H, S, D)
        return scaled_dot_product_attention(query, k, v, mask)  # (B, H, L, D), (B, H, L, S)
    # fused: the kernel maps query head h to kv head h // G itself; is_causal=True there is
    # top-left, equal to bottom-right only when L == S
    square = L == S
    out = F.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=None if square else mask,
        is_causal=is_causal and square and L > 1,
        enable_gqa=True,
    )  # (B, H, L, D)
    return out, None


# ---------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------


class GroupedQueryAttention(nn.Module):
    r"""Batch-first self-attention with ``H`` query heads and ``H_kv`` key/value heads.

    The attention of LLaMA-, Mistral- and Qwen-style models. ``num_kv_heads == num_heads`` is
    multi-head attention (equal to :class:`mha.MultiHeadAttention` holding the same weights);
    ``num_kv_heads == 1`` is multi-query attention. Keys and values are projected to
    ``H_kv * D`` columns instead of ``E``, so their weights and a KV cache are ``G = H / H_kv``
    times smaller; each key/value head serves ``G`` query heads (see :func:`repeat_kv`).

    Parameters
    ----------
    embed_dim : int
        Model width ``E``.
    num_heads : int
        Query heads ``H``; must divide ``embed_dim``. Each head has width ``D = E // H``.
    num_kv_heads : int
        Key/value heads ``H_kv``; must divide ``num_heads``.
    bias : bool, default=False
        Biases on the four projections (LLaMA has none).
    device, dtype : optional
        Where and in which dtype to create the parameters.

    Attributes
    ----------
    q_proj : torch.nn.Linear
        ``W^Q``, ``E -> E``.
    k_proj, v_proj : torch.nn.Linear
        ``W^K`` and ``W^V``, ``E -> H_kv * D``.
    out_proj : torch.nn.Linear
        ``W^O``, ``E -> E``.
    num_heads, num_kv_heads, head_dim : int
        ``H``, ``H_kv`` and ``D``.

    Raises
    ------
    TypeError
        If a size is not an int, or ``bias`` not a bool.
    ValueError
        If a size is not positive, ``num_heads`` does not divide ``embed_dim``, or
        ``num_kv_heads`` does not divide ``num_heads`` (the message lists the valid counts).

    See Also
    --------
    KVCache : pass one as ``cache=`` to decode token by token.
    grouped_query_attention : the attention step, explicit or fused.

    Notes
    -----
    ``forward`` runs the fused path (:func:`torch.nn.functional.scaled_dot_product_attention`
    with ``enable_gqa=True``). The explicit path, which also returns the attention weights, is
    :func:`grouped_query_attention` with ``need_weights=True`` on the projected heads; the
    tests hold the two equal.

    Not covered: masks other than causal (padding, for instance), dropout, rotary position
    embeddings and cross-attention; a :class:`KVCache` is for inference only.

    Examples
    --------
    >>> import torch, mha
    >>> _ = torch.manual_seed(0)
    >>> attn = mha.GroupedQueryAttention(64, 8, 2)  # E = 64, H = 8, H_kv = 2: G = 4, D = 8
    >>> attn.k_proj.weight.shape  # (H_kv * D, E)
    torch.Size([16, 64])
    >>> x = torch.randn(2, 5, 64)  # (B, L, E)
    >>> full = attn(x, is_causal=True)  # (B, L, E)
    >>> cache = mha.KVCache()
    >>> with torch.no_grad():  # decode token by token: the same numbers
    ...     steps = [attn(x[:, i : i + 1], is_causal=True, cache=cache) for i in range(5)]
    >>> len(cache), tuple(cache.keys.shape)  # (B, H_kv, S, D)
    (5, (2, 2, 5, 8))
    >>> torch.testing.assert_close(torch.cat(steps, dim=1), full)
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        num_kv_heads: int,
        *,
        bias: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        D = check_heads(embed_dim, num_heads)
        check_kv_heads(num_heads, num_kv_heads)
        check_bool(bias, "bias")
        E, H_kv = int(embed_dim), int(num_kv_heads)
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = E
        self.num_heads = int(num_heads)
        self.num_kv_heads = H_kv
        self.head_dim = D
        self.q_proj = nn.Linear(E, E, bias=bias, **factory)  # W^Q (E, E)
        self.k_proj = nn.Linear(E, H_kv * D, bias=bias, **factory)  # W^K (H_kv*D, E)
        self.v_proj = nn.Linear(E, H_kv * D, bias=bias, **factory)  # W^V (H_kv*D, E)
        self.out_proj = nn.Linear(E, E, bias=bias, **factory)  # W^O (E, E)

    def forward(
        self, x: Tensor, *, is_causal: bool = False, cache: KVCache | None = None
    ) -> Tensor:
        """Attend from every position of ``x`` (and of ``cache``) to every allowed key.

        Parameters
        ----------
        x : Tensor of shape (B, L, E)
            This call's positions.
        is_causal : bool, default=False
            A query at absolute position ``p`` sees only keys at positions ``<= p``. With a
            cache the call's queries are the last ``L`` positions (bottom-right alignment),
            so decoding token by token, or a prefill in chunks, equals one causal forward
            over the whole sequence.
        cache : KVCache, optional
            Extended in place with this call's keys and values; the call attends over every
            cached position too.

        Returns
        -------
        Tensor of shape (B, L, E)

        Raises
        ------
        TypeError
            If ``x`` is not a tensor, ``is_causal`` not a bool or ``cache`` not a
            :class:`KVCache`.
        ValueError
            If ``x`` is not ``(B, L, E)`` with ``E = embed_dim``, or does not fit what
            ``cache`` already holds.
        """
        check_tensor(x, "x")
        check_dim(x, "x", (3,), "(B, L, E)")
        check_bool(is_causal, "is_causal")
        if cache is not None and not isinstance(cache, KVCache):
            raise TypeError(
                f"expected cache to be an mha.KVCache or None, got {type(cache).__name__}"
            )
        if x.shape[-1] != self.embed_dim:
            raise ValueError(
                f"expected x's last dimension to be embed_dim={self.embed_dim}, got x of shape "
                f"{tuple(x.shape)}"
            )
        H, H_kv = self.num_heads, self.num_kv_heads

        # 2) project
        q = self.q_proj(x)  # (B, L, E)
        k = self.k_proj(x)  # (B, L, H_kv*D)
        v = self.v_proj(x)  # (B, L, H_kv*D)

        # 3) split heads
        q = split_heads(q, H)  # (B, H, L, D)
        k = split_heads(k, H_kv)  # (B, H_kv, L, D)
        v = split_heads(v, H_kv)  # (B, H_kv, L, D)
        if cache is not None:  # every position so far, this call's last
            k, v = cache.append(k, v)  # (B, H_kv, S, D), S = cached + L

        # 4) attend (fused, enable_gqa: query head h reads kv head h // G)
        out, _ = grouped_query_attention(q, k, v, is_causal=is_causal)  # (B, H, L, D)

        # 5) merge heads, 6) project out
        return self.out_proj(merge_heads(out))  # (B, L, E)

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
            f"num_kv_heads={self.num_kv_heads}, head_dim={self.head_dim}"
        )
