"""The :class:`MultiHeadAttention` module: a readable drop-in twin of PyTorch's.

Dimension letters are those of :mod:`mha.functional`: ``B`` batch, ``L`` target length,
``S`` source length, ``E`` model width, ``H`` heads, ``D = E // H`` head width.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.modules.linear import NonDynamicallyQuantizableLinear
from torch.nn.parameter import Parameter
from torch.nn.utils import skip_init

from mha.functional import check_heads, check_mha_inputs, multi_head_attention_unchecked

__all__ = ["MultiHeadAttention"]


def _config(module: nn.Module) -> dict:
    """The constructor arguments that rebuild ``module``, ours or PyTorch's: both store the same."""
    weight = module.out_proj.weight
    return {
        "embed_dim": module.embed_dim,
        "num_heads": module.num_heads,
        "dropout": module.dropout,
        "bias": module.in_proj_bias is not None,
        "add_bias_kv": module.bias_k is not None,
        "add_zero_attn": module.add_zero_attn,
        "kdim": module.kdim,
        "vdim": module.vdim,
        "batch_first": module.batch_first,
        "device": weight.device,
        "dtype": weight.dtype,
    }


def _map_inputs(query: Tensor, key: Tensor, value: Tensor, fn) -> tuple[Tensor, Tensor, Tensor]:
    """Apply ``fn`` to each distinct tensor once, so ``query is key is value`` still holds."""
    q = fn(query)
    k = q if key is query else fn(key)
    v = k if value is key else q if value is query else fn(value)
    return q, k, v


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention with the arguments, defaults, results and storage of PyTorch's.

    .. math::

        \mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h) W^O,
        \quad \mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V)

    A drop-in twin of :class:`torch.nn.MultiheadAttention` (torch 2.13): the same
    constructor and ``forward`` arguments and defaults, the same outputs and attention
    weights, the same parameters under the same names and shapes (so ``state_dict`` and
    ``load_state_dict`` work both ways, strictly), the same initial values from the same
    :func:`torch.manual_seed`, and errors that PyTorch's ``except`` clauses catch.

    Storage, as PyTorch's: when ``kdim == vdim == embed_dim`` the three input projections are
    one packed ``in_proj_weight`` of shape ``(3E, E)``, rows ``0:E`` for ``W^Q``, ``E:2E`` for
    ``W^K``, ``2E:3E`` for ``W^V``; otherwise ``q_proj_weight``, ``k_proj_weight`` and
    ``v_proj_weight`` are separate, and the others are ``None``. The lesson's matrices are
    readable by name as views of that storage: :attr:`q_weight`, :attr:`k_weight`,
    :attr:`v_weight` (and :attr:`q_bias`, :attr:`k_bias`, :attr:`v_bias`). Each is stored as
    :class:`torch.nn.Linear` stores a weight, ``(out, in)``: row block ``i*D:(i+1)*D`` of
    ``q_weight`` is head ``i``'s part, the paper's :math:`W_i^Q` transposed.

    What "drop-in" does not cover: :func:`torch.jit.script` (``torch.jit.trace``,
    :func:`torch.compile`, :func:`torch.export.export` and :mod:`torch.func` work), nested
    tensors (rejected with a :class:`TypeError`), and PyTorch's native fast path in evaluation
    mode (this module computes the same values with :func:`torch.nn.functional.linear` and
    :func:`torch.nn.functional.scaled_dot_product_attention`; the two differ only on fully
    masked rows, see Notes). ``mha`` also accepts a few inputs PyTorch rejects (a float mask of
    another dtype is cast to the scores' dtype).

    Parameters
    ----------
    embed_dim : int
        Model width ``E``; the output has this width too.
    num_heads : int
        Number of heads ``H``; must divide ``embed_dim``. Each head has width ``E // H``.
    dropout : float, default=0.0
        Dropout probability on the attention weights, in training mode only.
    bias : bool, default=True
        Add biases to the input and output projections.
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
    in_proj_weight : torch.nn.Parameter of shape (3E, E) or None
        :math:`W^Q`, :math:`W^K`, :math:`W^V` stacked, when ``kdim == vdim == embed_dim``.
    q_proj_weight, k_proj_weight, v_proj_weight : torch.nn.Parameter or None
        ``(E, E)``, ``(E, kdim)``, ``(E, vdim)`` when ``kdim`` or ``vdim`` differs.
    in_proj_bias : torch.nn.Parameter of shape (3E,) or None
    out_proj : torch.nn.Linear
        :math:`W^O` ``(E, E)``.
    bias_k, bias_v : torch.nn.Parameter of shape (1, 1, E) or None
    head_dim : int
        ``D = E // H``.

    Raises
    ------
    TypeError
        If ``embed_dim`` or ``num_heads`` is not an integer.
    ValueError
        If either is not positive, ``dropout`` is outside ``[0, 1]``, or ``embed_dim`` is not
        divisible by ``num_heads`` (a :class:`~mha.errors.ValueAssertionError`, which
        ``except AssertionError`` catches as it catches PyTorch's; the message lists the head
        counts that divide ``embed_dim``).

    See Also
    --------
    multi_head_attention : the same computation as a function.

    Notes
    -----
    With ``need_weights=True`` the explicit path runs (matmul, softmax, matmul) and returns the
    weights; with ``need_weights=False`` the fused
    :func:`torch.nn.functional.scaled_dot_product_attention` runs. Each path equals PyTorch's
    path for the same arguments, and the two agree with each other to rounding except in two
    cases, both shared with PyTorch:

    * a query whose every key is masked: the explicit softmax gives NaN, and the fused kernel
      gives zeros (so the output is the output projection's bias). PyTorch's native fast path
      (evaluation mode, no gradients, batch-first self-attention, an even head count) gives
      NaN there, where this module's fused path gives zeros;
    * ``is_causal=True`` with ``add_bias_kv`` or ``add_zero_attn`` and no
      ``key_padding_mask``: the fused path drops ``attn_mask`` and applies a top-left causal
      mask to the ``S + 1`` keys, which hides the appended key from every query but the
      last, while the explicit path applies ``attn_mask``, which lets every query see it.

    Examples
    --------
    >>> import torch, mha
    >>> _ = torch.manual_seed(0)
    >>> attn = mha.MultiHeadAttention(64, 8, batch_first=True)
    >>> x = torch.randn(2, 5, 64)
    >>> out, weights = attn(x, x, x, average_attn_weights=False)
    >>> out.shape, weights.shape
    (torch.Size([2, 5, 64]), torch.Size([2, 8, 5, 5]))
    >>> attn.in_proj_weight.shape, attn.q_weight.shape
    (torch.Size([192, 64]), torch.Size([64, 64]))

    The same seed gives PyTorch's module the same parameters, hence the same results, and
    checkpoints load both ways:

    >>> _ = torch.manual_seed(0)
    >>> theirs = torch.nn.MultiheadAttention(64, 8, batch_first=True)
    >>> out_t, weights_t = theirs(x, x, x, average_attn_weights=False)
    >>> torch.testing.assert_close(out, out_t)
    >>> torch.testing.assert_close(weights, weights_t)
    >>> theirs.load_state_dict(attn.state_dict())
    <All keys matched successfully>
    """

    # version 2: PyTorch's storage. Version 1 (mha 0.1) kept q_proj, k_proj, v_proj as three
    # nn.Linear layers; _load_from_state_dict converts such checkpoints.
    _version = 2

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
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        head_dim = check_heads(embed_dim, num_heads)
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"expected dropout in [0, 1], got {dropout}")
        # the same attributes, parameters and random draws as PyTorch's, in the same order
        self.embed_dim = embed_dim
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = head_dim

        E = embed_dim
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty((E, E), **factory))  # W^Q
            self.k_proj_weight = Parameter(torch.empty((E, self.kdim), **factory))  # W^K
            self.v_proj_weight = Parameter(torch.empty((E, self.vdim), **factory))  # W^V
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty((3 * E, E), **factory))  # W^Q; W^K; W^V
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * E, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        # W^O; building it draws nn.Linear's default initialisation, as in PyTorch
        self.out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty((1, 1, E), **factory))
            self.bias_v = Parameter(torch.empty((1, 1, E), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Initialise as :class:`torch.nn.MultiheadAttention` does, in the same draw order."""
        if self._qkv_same_embed_dim:
            nn.init.xavier_uniform_(self.in_proj_weight)  # the packed (3E, E) drawn as one
        else:
            nn.init.xavier_uniform_(self.q_proj_weight)
            nn.init.xavier_uniform_(self.k_proj_weight)
            nn.init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            nn.init.constant_(self.in_proj_bias, 0.0)
            nn.init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            nn.init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            nn.init.xavier_normal_(self.bias_v)

    # ------------------------------------------------------------------
    # The lesson's names for the stored parameters
    # ------------------------------------------------------------------

    def _in_proj(self, i: int, separate: str) -> Tensor:
        if self.in_proj_weight is None:
            return getattr(self, separate)
        return self.in_proj_weight[i * self.embed_dim : (i + 1) * self.embed_dim]

    @property
    def q_weight(self) -> Tensor:
        """``W^Q`` ``(E, E)``: rows ``0:E`` of ``in_proj_weight`` (a view), or ``q_proj_weight``."""
        return self._in_proj(0, "q_proj_weight")

    @property
    def k_weight(self) -> Tensor:
        """``W^K`` ``(E, kdim)``: rows ``E:2E`` of ``in_proj_weight`` (a view), or ``k_proj_weight``."""
        return self._in_proj(1, "k_proj_weight")

    @property
    def v_weight(self) -> Tensor:
        """``W^V`` ``(E, vdim)``: rows ``2E:3E`` of ``in_proj_weight`` (a view), or ``v_proj_weight``."""
        return self._in_proj(2, "v_proj_weight")

    def _in_bias(self, i: int) -> Tensor | None:
        if self.in_proj_bias is None:
            return None
        return self.in_proj_bias[i * self.embed_dim : (i + 1) * self.embed_dim]

    @property
    def q_bias(self) -> Tensor | None:
        """``b^Q`` ``(E,)``: entries ``0:E`` of ``in_proj_bias`` (a view), or ``None``."""
        return self._in_bias(0)

    @property
    def k_bias(self) -> Tensor | None:
        """``b^K`` ``(E,)``: entries ``E:2E`` of ``in_proj_bias`` (a view), or ``None``."""
        return self._in_bias(1)

    @property
    def v_bias(self) -> Tensor | None:
        """``b^V`` ``(E,)``: entries ``2E:3E`` of ``in_proj_bias`` (a view), or ``None``."""
        return self._in_bias(2)

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ) -> None:
        """Load PyTorch's keys; convert a checkpoint of mha 0.1 (three ``nn.Linear``) first."""
        if local_metadata.get("version", 1) < 2 and f"{prefix}q_proj.weight" in state_dict:
            old = {n: state_dict.pop(f"{prefix}{n}_proj.weight") for n in "qkv"}
            if self._qkv_same_embed_dim:
                state_dict[f"{prefix}in_proj_weight"] = torch.cat([old[n] for n in "qkv"])
            else:
                for n in "qkv":
                    state_dict[f"{prefix}{n}_proj_weight"] = old[n]
            biases = [state_dict.pop(f"{prefix}{n}_proj.bias", None) for n in "qkv"]
            if all(b is not None for b in biases):
                state_dict[f"{prefix}in_proj_bias"] = torch.cat(biases)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
        )

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
        widths = ((self.embed_dim, "embed_dim"), (self.kdim, "kdim"), (self.vdim, "vdim"))
        batched = check_mha_inputs(
            *(query, key, value, widths, self.num_heads, key_padding_mask, attn_mask, is_causal),
            batch_first=self.batch_first,
            module=True,
        )
        if not batched:
            query, key, value = _map_inputs(query, key, value, lambda x: x.unsqueeze(0))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)  # (1, S)
        elif not self.batch_first:
            query, key, value = _map_inputs(query, key, value, lambda x: x.transpose(0, 1))
        # now (B, L, E), (B, S, kdim), (B, S, vdim)
        out, weights = multi_head_attention_unchecked(
            query,
            key,
            value,
            self.num_heads,
            (self.q_weight, self.k_weight, self.v_weight, self.out_proj.weight),
            (self.q_bias, self.k_bias, self.v_bias, self.out_proj.bias),
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

    @classmethod
    def from_torch(cls, module: nn.MultiheadAttention) -> MultiHeadAttention:
        """Build the twin of a :class:`torch.nn.MultiheadAttention`, copying every parameter.

        The same as constructing with the same arguments and calling
        ``load_state_dict(module.state_dict())``, without drawing random initial values.

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
        ours = skip_init(cls, **_config(module))
        ours.load_state_dict(module.state_dict())
        return ours.train(module.training)

    def to_torch(self) -> nn.MultiheadAttention:
        """Return an equivalent :class:`torch.nn.MultiheadAttention` with copied parameters.

        Returns
        -------
        torch.nn.MultiheadAttention
            Same configuration, device, dtype, training mode and parameter values.

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
        theirs = skip_init(nn.MultiheadAttention, **_config(self))
        theirs.load_state_dict(self.state_dict())
        return theirs.train(self.training)

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, head_dim={self.head_dim}, "
            f"dropout={self.dropout}, batch_first={self.batch_first}"
        )
