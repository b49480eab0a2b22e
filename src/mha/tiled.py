r"""After the lesson: attention computed block by block, without the ``L x S`` matrix.

The lesson's step 4 computes every score ``Q K^T / sqrt(D)``, ``L x S`` of them per head,
then their softmax, then the weighted sum of the values. FlashAttention (Dao et al., 2022)
gives the same output while it holds the scores of only one block of keys at a time. It
walks over the keys block by block and keeps three numbers per query row:

- ``m``, the largest score seen so far (the running maximum);
- ``l``, the sum of ``exp(score - m)`` over the keys seen so far (the running sum);
- ``acc``, the sum of ``exp(score - m) * value`` over the same keys (the accumulator).

When a block raises the maximum from ``m`` to ``m_new``, ``l`` and ``acc`` are multiplied by
``exp(m - m_new)``, so that every term is again measured against the same maximum. After the
last block, ``acc / l`` is exactly the softmax-weighted sum of the values. This is the
*online softmax* (Milakov and Gimelshein, 2018). Subtracting the maximum keeps every
``exp`` at most 1, so large scores cannot overflow.

Dimension letters as in :mod:`mha.functional` and :mod:`mha.gqa` (``B``, ``H``, ``H_kv``,
``G``, ``L``, ``S``, ``D``), plus ``C``: the number of keys in one block, ``block_size``
(``B_c`` in the paper).

Sources: T. Dao, D. Y. Fu, S. Ermon, A. Rudra and C. Ré, "FlashAttention: Fast and
Memory-Efficient Exact Attention with IO-Awareness", NeurIPS 2022, arXiv:2205.14135
(Algorithm 1); M. Milakov and N. Gimelshein, "Online normalizer calculation for softmax",
arXiv:1805.02867, 2018.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from mha._i18n import N_
from mha._validation import check_bool, check_dim, check_mask_dtype, check_tensor, positive_int
from mha.errors import TypeRuntimeError, ValueRuntimeError

__all__ = ["tiled_attention"]


def tiled_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    *,
    is_causal: bool = False,
    align: str = "top-left",
    scale: float | None = None,
    enable_gqa: bool = False,
    block_size: int = 128,
    return_lse: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    r"""Step 4 one block of keys at a time, with the online softmax of FlashAttention.

    The same output as :func:`torch.nn.functional.scaled_dot_product_attention` (and as
    :func:`mha.scaled_dot_product_attention`), computed in one loop over blocks of
    ``block_size`` keys. Each step creates the scores of one block, ``(B, H, L, C)``, never
    the ``(B, H, L, S)`` matrix: the memory of the scores grows as ``L * C``, not ``L * S``.

    Parameters
    ----------
    query : Tensor of shape (B, H, L, D)
    key : Tensor of shape (B, H, S, D), or (B, H_kv, S, D) with ``enable_gqa=True``
    value : Tensor of shape (B, H, S, D_v), or (B, H_kv, S, D_v) with ``enable_gqa=True``
    attn_mask : Tensor broadcastable to (B, H, L, S), optional
        As in PyTorch's function: boolean ``True`` means *may attend*; a float mask is added
        to the scores.
    is_causal : bool, default=False
        Causal attention: query ``i`` sees only the keys up to its own position. Cannot be
        combined with ``attn_mask``. Key blocks that no query may see are skipped.
    align : {"top-left", "bottom-right"}, default "top-left"
        With ``is_causal=True``, where the diagonal starts, as in :func:`mha.causal_mask`:
        ``"top-left"`` (query ``i`` sees keys ``j <= i``, PyTorch's ``is_causal=True``) or
        ``"bottom-right"`` (keys ``j <= i + S - L``: the queries are the last ``L`` of ``S``
        positions, as after a KV cache).
    scale : float, optional
        Factor applied to the scores; defaults to :math:`1 / \sqrt{D}`.
    enable_gqa : bool, default=False
        Grouped-query attention: ``H_kv`` key/value heads, each shared by ``G = H / H_kv``
        query heads (query head ``h`` uses key/value head ``h // G``), read in place without
        repeating them.
    block_size : int, default=128
        Keys per block, ``C``. Any positive size works; the last block may be shorter.
    return_lse : bool, default=False
        Also return the log-sum-exp of each row of scores, ``m + log(l)``: what FlashAttention
        saves for its backward pass.

    Returns
    -------
    output : Tensor of shape (B, H, L, D_v)
        In the dtype of ``value``. A row whose every key is masked is zero, as PyTorch's
        function returns it (torch 2.13).
    lse : Tensor of shape (B, H, L)
        Only with ``return_lse=True``: ``log(sum(exp(scores)))`` of each row, in float32 for
        half-precision inputs; ``-inf`` for a row whose every key is masked.

    Raises
    ------
    TypeError
        If an input is not a tensor, the mask is neither boolean nor floating point, or a
        flag is not a bool (shape and type errors derive from :class:`RuntimeError` too, as
        PyTorch's function raises).
    ValueError
        If an input is not 4-D, the shapes do not fit (batch, ``D``, ``S``, heads), the mask
        does not broadcast to ``(B, H, L, S)``, both ``attn_mask`` and ``is_causal`` are
        given, ``align`` is unknown or given without ``is_causal``, or ``block_size`` is not
        a positive int.

    See Also
    --------
    scaled_dot_product_attention : the lesson's step 4, with the whole ``(L, S)`` matrix.
    causal_mask : the two alignments of a causal mask.

    Notes
    -----
    The loop follows Algorithm 1 of FlashAttention (Dao et al., 2022, arXiv:2205.14135) over
    the blocks of keys (its outer loop); its inner loop over blocks of queries runs here as
    one batched product over all ``L`` queries. Where the paper divides the output by ``l`` at every step (line 12), this
    function divides once at the end, as FlashAttention-2 does: the result is the same.

    For half-precision inputs the scores, the statistics and the accumulator are float32.
    There is no dropout. With autograd, each block's weights are kept for the backward pass,
    so training memory grows as ``L * S`` again: FlashAttention's backward pass instead
    recomputes them block by block from the saved log-sum-exp. The loop runs in Python, one
    small kernel per operation; fused kernels do it all in one (tutorial page 8, and the
    gallery example "Tiled attention: the memory it saves, the time it costs").

    Examples
    --------
    >>> import torch, torch.nn.functional as F, mha
    >>> _ = torch.manual_seed(0)
    >>> q = torch.randn(2, 8, 5, 8)  # (B, H, L, D)
    >>> k, v = torch.randn(2, 2, 8, 12, 8).unbind(0)  # (B, H, S, D), S = 12
    >>> out = mha.tiled_attention(q, k, v, block_size=5)  # blocks of 5, 5 and 2 keys
    >>> out.shape
    torch.Size([2, 8, 5, 8])
    >>> torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))
    >>> out, lse = mha.tiled_attention(q, k, v, block_size=5, return_lse=True)
    >>> torch.testing.assert_close(lse, (q @ k.transpose(-2, -1) / 8**0.5).logsumexp(-1))
    """
    # -- checks, once, before any work ------------------------------------------------------
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, name, TypeRuntimeError)
        check_dim(
            t, name, (4,), "(B, H, L, D)" if name == "query" else "(B, H, S, D)", ValueRuntimeError
        )
    is_causal = check_bool(is_causal, "is_causal")
    enable_gqa = check_bool(enable_gqa, "enable_gqa")
    return_lse = check_bool(return_lse, "return_lse")
    block_size = positive_int(block_size, "block_size")
    B, H, L, D = query.shape
    H_kv, S = key.shape[1], key.shape[2]
    if key.shape[0] != B or key.shape[3] != D:
        raise ValueRuntimeError(
            f"expected key of shape (B, H, S, D) = ({B}, H, S, {D}) for query "
            f"{tuple(query.shape)} (B, H, L, D), got key {tuple(key.shape)}"
        )
    if value.shape[:3] != key.shape[:3]:
        raise ValueRuntimeError(
            f"expected value to have the batch, heads and length of key, {tuple(key.shape[:3])}"
            f" (B, H, S), got value {tuple(value.shape)}"
        )
    if H_kv != H and not (enable_gqa and H % H_kv == 0):
        fix = (
            f"pass enable_gqa=True to share each of the {H_kv} key/value heads among "
            f"{H // H_kv} query heads"
            if H % H_kv == 0 and not enable_gqa
            else "the key/value heads must divide the query heads"
        )
        raise ValueRuntimeError(
            f"expected key and value with {H} heads like query {tuple(query.shape)}, got "
            f"{H_kv} (key {tuple(key.shape)}); {fix}"
        )
    if align not in ("top-left", "bottom-right"):
        raise ValueError(f'expected align to be "top-left" or "bottom-right", got {align!r}')
    if align != "top-left" and not is_causal:
        raise ValueError(f"align={align!r} applies to a causal mask: pass is_causal=True too")
    if attn_mask is not None:
        if is_causal:
            raise ValueRuntimeError("expected either attn_mask or is_causal=True, got both")
        check_tensor(attn_mask, "attn_mask", TypeRuntimeError)
        check_mask_dtype(attn_mask, "attn_mask", N_("may attend"), TypeRuntimeError)
        try:
            fits = torch.broadcast_shapes(attn_mask.shape, (B, H, L, S)) == (B, H, L, S)
        except RuntimeError:
            fits = False
        if not fits:
            raise ValueRuntimeError(
                f"expected attn_mask broadcastable to (B, H, L, S) = {(B, H, L, S)}, got shape "
                f"{tuple(attn_mask.shape)}"
            )
        attn_mask = attn_mask.expand(B, H, L, S)  # a view: nothing is copied
    G = H // H_kv
    # half precision: scores, statistics and accumulator in float32, as PyTorch's kernels
    compute = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    scale = 1.0 / math.sqrt(D) if scale is None else scale

    # -- Algorithm 1, lines 1-4: the queries of each key/value head side by side, and the
    # running statistics of every query row: m = -inf, l = 0, acc = 0 ----------------------
    q = (query.to(compute) * scale).reshape(B, H_kv, G, L, D)  # (B, H_kv, G, L, D)
    k = key.to(compute).unsqueeze(2)  # (B, H_kv, 1, S, D): one key head for G query heads
    v = value.to(compute).unsqueeze(2)  # (B, H_kv, 1, S, D_v)
    m = q.new_full((B, H_kv, G, L, 1), -math.inf)  # running maximum of the scores
    l = q.new_zeros((B, H_kv, G, L, 1))  # running sum of exp(score - m)
    acc = q.new_zeros((B, H_kv, G, L, value.shape[-1]))  # running sum of exp(score - m) * value
    if is_causal:
        offset = 0 if align == "top-left" else S - L  # query i sees keys j <= i + offset
        visible = torch.arange(L, device=query.device)[:, None] + offset  # (L, 1)
        stop = min(S, L + offset)  # keys after this one are hidden from every query
    else:
        stop = S

    # -- line 5: for each block of C keys ------------------------------------------------
    for start in range(0, stop, block_size):
        end = min(start + block_size, stop)
        k_j, v_j = k[..., start:end, :], v[..., start:end, :]  # line 6: (B, H_kv, 1, C, D)
        s = q @ k_j.transpose(-2, -1)  # line 9: the block's scores, (B, H_kv, G, L, C)
        if is_causal:
            keys = torch.arange(start, end, device=query.device)  # (C,)
            s = s.masked_fill(keys > visible, -math.inf)  # (L, C) broadcast over B, H
        elif attn_mask is not None:
            block = attn_mask[..., start:end].reshape(B, H_kv, G, L, end - start)
            if block.dtype == torch.bool:
                s = s.masked_fill(~block, -math.inf)
            else:  # added in the scores' dtype, whatever its own (as the lesson's step 4)
                s = s + block.to(s.dtype)
        # lines 10-11: the new maximum. It only shifts every exponent by the same amount,
        # which cancels in acc / l, so no gradient flows through it (detach)
        m_new = torch.maximum(m, s.detach().amax(dim=-1, keepdim=True))  # (B, H_kv, G, L, 1)
        # a row that has seen no visible key yet keeps m = -inf: shift by 0 there, so that
        # exp(-inf - shift) is 0 and not exp(-inf + inf) = NaN
        shift = m_new.masked_fill(m_new == -math.inf, 0.0)
        p = torch.exp(s - shift)  # line 10: unnormalised weights of the block, (..., L, C)
        rescale = torch.exp(m - shift)  # exp(m - m_new): 1 unless the maximum grew
        l = rescale * l + p.sum(dim=-1, keepdim=True)  # line 11: the running sum
        acc = rescale * acc + p @ v_j  # line 12, before the division: (B, H_kv, G, L, D_v)
        m = m_new  # line 13

    # -- the division by l, once, at the end (line 12 divides at every step) --------------
    # a row with no visible key has l = 0 and acc = 0: its output is 0, as PyTorch's
    out = acc / torch.where(l == 0, 1.0, l)  # (B, H_kv, G, L, D_v)
    out = out.reshape(B, H, L, value.shape[-1]).to(value.dtype)  # (B, H, L, D_v)
    if return_lse:
        return out, (m + torch.log(l)).reshape(B, H, L)  # (B, H, L)
    return out
