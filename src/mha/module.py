"""The :class:`MultiHeadAttention` module: a readable drop-in twin of PyTorch's.

Dimension letters are those of :mod:`mha.functional`: ``B`` batch, ``L`` target length,
``S`` source length, ``E`` model width, ``H`` heads, ``D = E // H`` head width.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils import skip_init

from mha.functional import _check_dim, _check_tensor, check_heads, multi_head_attention

__all__ = ["MultiHeadAttention"]


def _map_inputs(query: Tensor, key: Tensor, value: Tensor, fn) -> tuple[Tensor, Tensor, Tensor]:
    """Apply ``fn`` to each distinct tensor once, so ``query is key is value`` still holds."""
    q = fn(query)
    k = q if key is query else fn(key)
    v = k if value is key else q if value is query else fn(value)
    return q, k, v


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention with the arguments, defaults and results of PyTorch's.

    :math:`\operatorname{MultiHead}(Q, K, V) = \operatorname{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W^O` with
    :math:`\mathrm{head}_i = \operatorname{Attention}(Q W_i^Q, K W_i^K, V W_i^V)`. A twin of
    :class:`torch.nn.MultiheadAttention` (torch 2.13): the same constructor and ``forward``
    arguments, the same outputs and attention weights, and, from the same
    :func:`torch.manual_seed`, the same initial parameters. The difference is in storage:
    :math:`W^Q`, :math:`W^K`, :math:`W^V` and :math:`W^O` are four :class:`torch.nn.Linear` layers
    (``q_proj``, ``k_proj``, ``v_proj``, ``out_proj``), as the lesson writes them, instead of
    one packed ``in_proj_weight``. :meth:`from_torch` and :meth:`to_torch` convert.

    Parameters
    ----------
    embed_dim : int
        Model width ``E``; the output has this width too.
    num_heads : int
        Number of heads ``H``; must divide ``embed_dim``. Each head has width ``E // H``.
    dropout : float, default=0.0
        Dropout probability on the attention weights, in training mode only.
    bias : bool, default=True
        Add biases to the four projections.
    add_bias_kv : bool, default=False
        Learn one extra key and value (``bias_k``, ``bias_v``) appended to every sequence.
    add_zero_attn : bool, default=False
        Append an all-zero key and value per head, so a query can attend to "nothing".
    kdim, vdim : int, optional
        Widths of ``key`` and ``value``; default ``embed_dim``.
    batch_first : bool, default=False
        Inputs and output are ``(B, L, E)`` when ``True``, ``(L, B, E)`` when ``False``
        (PyTorch's default).
    device, dtype : optional
        Where and in which dtype to create the parameters.

    Attributes
    ----------
    q_proj, k_proj, v_proj : torch.nn.Linear
        :math:`W^Q` ``(E, E)``, :math:`W^K` ``(E, kdim)``, :math:`W^V` ``(E, vdim)``.
    out_proj : torch.nn.Linear
        :math:`W^O` ``(E, E)``.
    bias_k, bias_v : torch.nn.Parameter of shape (1, 1, E) or None
    head_dim : int
        ``D = E // H``.

    Raises
    ------
    ValueError
        If ``embed_dim`` is not divisible by ``num_heads`` (the message lists the head counts
        that are), or either is not positive.

    See Also
    --------
    multi_head_attention : the same computation as a function.

    Notes
    -----
    With ``need_weights=True`` the explicit path runs (matmul, softmax, matmul) and returns the
    weights; with ``need_weights=False`` the fused
    :func:`torch.nn.functional.scaled_dot_product_attention` runs. They agree to rounding,
    except on a query whose every key is masked: the explicit softmax gives NaN there, as
    PyTorch's explicit path does, and the fused kernel gives zeros (so the output is the
    output projection's bias), as PyTorch's does when it calls the same kernel. PyTorch has a
    third path, its native fast path (evaluation mode, no gradients, batch-first
    self-attention, an even head count): it gives NaN for such a row, where this module's fused
    path gives zeros. Outside fully masked rows, results agree on every path.

    Examples
    --------
    >>> import torch, mha
    >>> _ = torch.manual_seed(0)
    >>> attn = mha.MultiHeadAttention(64, 8, batch_first=True)
    >>> x = torch.randn(2, 5, 64)
    >>> out, weights = attn(x, x, x, average_attn_weights=False)
    >>> out.shape, weights.shape
    (torch.Size([2, 5, 64]), torch.Size([2, 8, 5, 5]))

    The same seed gives PyTorch's module the same parameters, hence the same results:

    >>> _ = torch.manual_seed(0)
    >>> theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True)
    >>> out_t, weights_t = theirs(x, x, x, average_attn_weights=False)
    >>> torch.testing.assert_close(out, out_t)
    >>> torch.testing.assert_close(weights, weights_t)
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.head_dim = check_heads(embed_dim, num_heads)
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"expected dropout in [0, 1], got {dropout}")
        # skip_init builds on the meta device, then moves to this one: no random draws
        device = torch.get_default_device() if device is None else device
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.add_zero_attn = add_zero_attn
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim

        # W^Q, W^K, W^V, W^O; created uninitialised, then drawn in PyTorch's order below
        self.q_proj = skip_init(nn.Linear, embed_dim, embed_dim, bias=bias, **factory)
        self.k_proj = skip_init(nn.Linear, self.kdim, embed_dim, bias=bias, **factory)
        self.v_proj = skip_init(nn.Linear, self.vdim, embed_dim, bias=bias, **factory)
        self.out_proj = skip_init(nn.Linear, embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = nn.Parameter(torch.empty(1, 1, embed_dim, **factory))
            self.bias_v = nn.Parameter(torch.empty(1, 1, embed_dim, **factory))
        else:
            self.bias_k = self.bias_v = None
        self._reset_parameters()

    @torch.no_grad()
    def _reset_parameters(self) -> None:
        """Initialise as :class:`torch.nn.MultiheadAttention` does, in the same draw order."""
        # 1) PyTorch builds out_proj as an nn.Linear first, which draws its default init
        self.out_proj.reset_parameters()
        # 2) Xavier-uniform input projections; the packed (3E, E) matrix is drawn as one
        if self._qkv_same_embed_dim:
            packed = self.q_proj.weight.new_empty(3 * self.embed_dim, self.embed_dim)  # (3E, E)
            nn.init.xavier_uniform_(packed)
            for proj, w in zip(self.projections(), packed.chunk(3), strict=True):
                proj.weight.copy_(w)
        else:
            for proj in self.projections():
                nn.init.xavier_uniform_(proj.weight)
        # 3) biases start at zero
        if self.out_proj.bias is not None:
            for proj in (*self.projections(), self.out_proj):
                nn.init.zeros_(proj.bias)
        # 4) the extra key and value
        if self.bias_k is not None:
            nn.init.xavier_normal_(self.bias_k)
            nn.init.xavier_normal_(self.bias_v)

    def projections(self) -> tuple[nn.Linear, nn.Linear, nn.Linear]:
        """Return the input projections ``(q_proj, k_proj, v_proj)``.

        Returns
        -------
        tuple of torch.nn.Linear
            :math:`W^Q`, :math:`W^K`, :math:`W^V`.

        Examples
        --------
        >>> import mha
        >>> [p.weight.shape for p in mha.MultiHeadAttention(64, 8, kdim=32).projections()]
        [torch.Size([64, 64]), torch.Size([64, 32]), torch.Size([64, 64])]
        """
        return self.q_proj, self.k_proj, self.v_proj

    # ------------------------------------------------------------------
    # Input layout checks
    # ------------------------------------------------------------------

    def _expected_mask_shapes(
        self, query: Tensor, key: Tensor, batch_axis: int | None
    ) -> dict[str, dict[str, tuple[int, ...]]]:
        """Shapes the masks may have, by name then in letters, with the batch on ``batch_axis``.

        ``batch_axis=None`` means unbatched inputs.
        """
        if batch_axis is None:
            L, S = query.shape[0], key.shape[0]
            return {
                "key_padding_mask": {"(S,)": (S,)},
                "attn_mask": {"(L, S)": (L, S), "(H, L, S)": (self.num_heads, L, S)},
            }
        seq_axis = 1 - batch_axis
        B, L, S = query.shape[batch_axis], query.shape[seq_axis], key.shape[seq_axis]
        return {
            "key_padding_mask": {"(B, S)": (B, S)},
            "attn_mask": {"(L, S)": (L, S), "(B*H, L, S)": (B * self.num_heads, L, S)},
        }

    def _check_inputs(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None,
        attn_mask: Tensor | None,
    ) -> bool:
        """Validate the inputs in the module's layout; return whether they are batched."""
        layout = "(B, L, E)" if self.batch_first else "(L, B, E)"
        for name, t in (("query", query), ("key", key), ("value", value)):
            _check_tensor(t, name)
            _check_dim(t, name, (2, 3), f"{layout} or unbatched (L, E)")
        if not query.dim() == key.dim() == value.dim():
            raise ValueError(
                f"expected query, key and value to have the same number of dimensions, got "
                f"{query.dim()}-D, {key.dim()}-D and {value.dim()}-D"
            )
        for name, t, width, arg in (
            ("query", query, self.embed_dim, "embed_dim"),
            ("key", key, self.kdim, "kdim"),
            ("value", value, self.vdim, "vdim"),
        ):
            if t.shape[-1] != width:
                raise ValueError(
                    f"expected {name}'s last dimension to be {arg}={width}, got {name} of shape "
                    f"{tuple(t.shape)}"
                )
        batched = query.dim() == 3
        batch_axis = (0 if self.batch_first else 1) if batched else None
        other_axis = None if batch_axis is None else 1 - batch_axis
        hint = (
            f"; with batch_first={self.batch_first} the batch is dimension {batch_axis} of "
            f"{layout}, but the inputs fit batch_first={not self.batch_first}: construct the "
            f"module with batch_first={not self.batch_first} or transpose the inputs"
        )
        if (
            batched
            and not query.shape[batch_axis] == key.shape[batch_axis] == value.shape[batch_axis]
        ):
            fits_other = (
                query.shape[other_axis] == key.shape[other_axis] == value.shape[other_axis]
                and key.shape[batch_axis] == value.shape[batch_axis]
            )
            raise ValueError(
                f"expected query, key and value to share the batch size (dimension {batch_axis} "
                f"of {layout}), got query {tuple(query.shape)}, key {tuple(key.shape)}, value "
                f"{tuple(value.shape)}" + (hint if fits_other else "")
            )
        seq_axis = 0 if batch_axis is None else other_axis
        if key.shape[seq_axis] != value.shape[seq_axis]:
            raise ValueError(
                f"expected key and value to have the same sequence length S, got key "
                f"{tuple(key.shape)} and value {tuple(value.shape)}"
            )
        expected = self._expected_mask_shapes(query, key, batch_axis)
        alternative = self._expected_mask_shapes(query, key, other_axis) if batched else None
        for name, mask in (("key_padding_mask", key_padding_mask), ("attn_mask", attn_mask)):
            if mask is None:
                continue
            _check_tensor(mask, name)
            if tuple(mask.shape) not in expected[name].values():
                fits_other = alternative is not None and (
                    tuple(mask.shape) in alternative[name].values()
                )
                options = " or ".join(f"{k} = {v}" for k, v in expected[name].items())
                raise ValueError(
                    f"expected {name} of shape {options} for query {tuple(query.shape)} and key "
                    f"{tuple(key.shape)}, got {tuple(mask.shape)}" + (hint if fits_other else "")
                )
        return batched

    # ------------------------------------------------------------------
    # Forward
    # ------------------------------------------------------------------

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """Attend from ``query`` to ``key``/``value``.

        Parameters
        ----------
        query : Tensor of shape (L, B, E), (B, L, E) if batch_first, or (L, E) unbatched
        key : Tensor of shape (S, B, kdim), (B, S, kdim) if batch_first, or (S, kdim)
        value : Tensor of shape (S, B, vdim), (B, S, vdim) if batch_first, or (S, vdim)
        key_padding_mask : Tensor of shape (B, S) or (S,), optional
            Keys to ignore: boolean ``True`` = ignore, or a float mask added to the scores.
        need_weights : bool, default=True
            Also return the attention weights (explicit path). ``False`` runs the fused
            :func:`torch.nn.functional.scaled_dot_product_attention` and returns ``None``.
        attn_mask : Tensor of shape (L, S), (B*H, L, S) or (H, L, S) unbatched, optional
            Blocked query-key pairs: boolean ``True`` = blocked, or a float mask added.
        average_attn_weights : bool, default=True
            Average the weights over heads, ``(B, L, S)``; ``False`` gives ``(B, H, L, S)``.
        is_causal : bool, default=False
            Hint that ``attn_mask`` is the causal mask (it must be given too).

        Returns
        -------
        attn_output : Tensor of shape (L, B, E), (B, L, E) if batch_first, or (L, E)
        attn_weights : Tensor of shape (B, L, S), (B, H, L, S), (L, S) or (H, L, S), or None
            ``S`` includes the extra key of ``add_bias_kv`` and ``add_zero_attn``.

        Raises
        ------
        TypeError
            If a mask is neither boolean nor floating point.
        ValueError
            If shapes do not fit the module, naming ``batch_first`` when the inputs fit the
            other layout.

        Examples
        --------
        >>> import torch, mha
        >>> attn = mha.MultiHeadAttention(64, 8)  # batch_first=False: (L, B, E)
        >>> x = torch.randn(5, 2, 64)
        >>> out, weights = attn(x, x, x, attn_mask=mha.causal_mask(5))
        >>> out.shape, weights.shape
        (torch.Size([5, 2, 64]), torch.Size([2, 5, 5]))
        >>> bool(weights[0, 0, 1:].eq(0).all())  # the first query sees only the first key
        True
        """
        batched = self._check_inputs(query, key, value, key_padding_mask, attn_mask)
        if not batched:
            query, key, value = _map_inputs(query, key, value, lambda x: x.unsqueeze(0))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)  # (1, S)
        elif not self.batch_first:
            query, key, value = _map_inputs(query, key, value, lambda x: x.transpose(0, 1))
        # now (B, L, E), (B, S, kdim), (B, S, vdim)
        q_proj, k_proj, v_proj = self.projections()
        out, weights = multi_head_attention(
            query,
            key,
            value,
            self.num_heads,
            q_proj.weight,
            k_proj.weight,
            v_proj.weight,
            self.out_proj.weight,
            q_proj.bias,
            k_proj.bias,
            v_proj.bias,
            self.out_proj.bias,
            bias_k=self.bias_k,
            bias_v=self.bias_v,
            add_zero_attn=self.add_zero_attn,
            key_padding_mask=key_padding_mask,
            attn_mask=attn_mask,
            need_weights=need_weights,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
            dropout_p=self.dropout if self.training else 0.0,
        )  # (B, L, E), (B, [H,] L, S)
        if not batched:
            return out.squeeze(0), None if weights is None else weights.squeeze(0)
        if not self.batch_first:
            out = out.transpose(0, 1)  # (L, B, E)
        return out, weights

    # ------------------------------------------------------------------
    # Conversion to and from torch.nn.MultiheadAttention
    # ------------------------------------------------------------------

    def _config(self) -> dict:
        p = self.q_proj.weight
        return {
            "embed_dim": self.embed_dim,
            "num_heads": self.num_heads,
            "dropout": self.dropout,
            "bias": self.q_proj.bias is not None,
            "add_bias_kv": self.bias_k is not None,
            "add_zero_attn": self.add_zero_attn,
            "kdim": self.kdim,
            "vdim": self.vdim,
            "batch_first": self.batch_first,
            "device": p.device,
            "dtype": p.dtype,
        }

    @classmethod
    @torch.no_grad()
    def from_torch(cls, module: nn.MultiheadAttention) -> MultiHeadAttention:
        """Build the twin of a :class:`torch.nn.MultiheadAttention`, copying every parameter.

        Parameters
        ----------
        module : torch.nn.MultiheadAttention

        Returns
        -------
        MultiHeadAttention
            Same configuration, device, dtype, training mode and parameter values.

        Raises
        ------
        TypeError
            If ``module`` is not a :class:`torch.nn.MultiheadAttention`.

        Examples
        --------
        >>> import torch, mha
        >>> theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True)
        >>> ours = mha.MultiHeadAttention.from_torch(theirs)
        >>> x = torch.randn(2, 5, 64)
        >>> torch.testing.assert_close(ours(x, x, x)[0], theirs(x, x, x)[0])
        """
        if not isinstance(module, nn.MultiheadAttention):
            raise TypeError(f"expected a torch.nn.MultiheadAttention, got {type(module).__name__}")
        weight = module.out_proj.weight
        ours = skip_init(
            cls,
            module.embed_dim,
            module.num_heads,
            dropout=module.dropout,
            bias=module.in_proj_bias is not None,
            add_bias_kv=module.bias_k is not None,
            add_zero_attn=module.add_zero_attn,
            kdim=module.kdim,
            vdim=module.vdim,
            batch_first=module.batch_first,
            device=weight.device,
            dtype=weight.dtype,
        )
        if module._qkv_same_embed_dim:
            weights = module.in_proj_weight.chunk(3)  # (3E, E) -> 3 x (E, E)
        else:
            weights = (module.q_proj_weight, module.k_proj_weight, module.v_proj_weight)
        biases = (None,) * 3 if module.in_proj_bias is None else module.in_proj_bias.chunk(3)
        for proj, w, b in zip(ours.projections(), weights, biases, strict=True):
            proj.weight.copy_(w)
            if b is not None:
                proj.bias.copy_(b)
        ours.out_proj.load_state_dict(module.out_proj.state_dict())
        if module.bias_k is not None:
            ours.bias_k.copy_(module.bias_k)
            ours.bias_v.copy_(module.bias_v)
        return ours.train(module.training)

    @torch.no_grad()
    def to_torch(self) -> nn.MultiheadAttention:
        """Return an equivalent :class:`torch.nn.MultiheadAttention` with copied parameters.

        Returns
        -------
        torch.nn.MultiheadAttention
            Same configuration, device, dtype, training mode and parameter values; the input
            projections are packed into ``in_proj_weight`` when ``kdim == vdim == embed_dim``.

        Examples
        --------
        >>> import torch, mha
        >>> ours = mha.MultiHeadAttention(64, 8)
        >>> theirs = ours.to_torch()
        >>> theirs.in_proj_weight.shape
        torch.Size([192, 64])
        >>> x = torch.randn(5, 2, 64)
        >>> torch.testing.assert_close(theirs(x, x, x)[0], ours(x, x, x)[0])
        """
        theirs = skip_init(nn.MultiheadAttention, **self._config())
        weights = [proj.weight for proj in self.projections()]
        if theirs._qkv_same_embed_dim:
            theirs.in_proj_weight.copy_(torch.cat(weights))  # 3 x (E, E) -> (3E, E)
        else:
            theirs.q_proj_weight.copy_(weights[0])
            theirs.k_proj_weight.copy_(weights[1])
            theirs.v_proj_weight.copy_(weights[2])
        if theirs.in_proj_bias is not None:
            theirs.in_proj_bias.copy_(torch.cat([proj.bias for proj in self.projections()]))
        theirs.out_proj.load_state_dict(self.out_proj.state_dict())
        if self.bias_k is not None:
            theirs.bias_k.copy_(self.bias_k)
            theirs.bias_v.copy_(self.bias_v)
        return theirs.train(self.training)

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, head_dim={self.head_dim}, "
            f"dropout={self.dropout}, batch_first={self.batch_first}"
        )
