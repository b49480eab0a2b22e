"""The lesson's shape table, produced by running the real steps on shape-only tensors.

The table's headers and step names, and the errors, are in the reader's language
(:mod:`mha._i18n`): ``lang=``, else the command line's ``--lang``, else
:func:`mha.set_language`, else ``MHA_LANG``, else the locale, else English.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

import torch

from mha._i18n import N_, _, language, pgettext
from mha._validation import check_kv_heads, positive_int
from mha.functional import (
    check_heads,
    merge_heads,
    project,
    project_qkv,
    scaled_dot_product_attention,
    split_heads,
)
from mha.gqa import repeat_kv

__all__ = ["ShapeStep", "format_shape_table", "trace_shapes"]

_MAX_BYTES = 2**63 - 1  # a tensor's size in bytes is an int64
_FLOAT32_BYTES = 4


@dataclass(frozen=True)
class ShapeStep:
    """One row of the shape table.

    Attributes
    ----------
    step : str
        The lesson's step, such as ``"3) split heads"``.
    name : str
        The tensor produced, such as ``"Q_heads"``.
    shape : tuple of int
        Its shape for the sizes traced.
    letters : str
        The same shape in dimension letters, such as ``"(B, H, L, D)"``.
    """

    step: str
    name: str
    shape: tuple[int, ...]
    letters: str


def trace_shapes(
    batch: int,
    target_len: int,
    embed_dim: int,
    num_heads: int,
    *,
    source_len: int | None = None,
    num_kv_heads: int | None = None,
) -> list[ShapeStep]:
    """Trace the shape of every tensor through multi-head attention.

    The steps are the package's own functions run on ``meta`` tensors (shapes without data),
    so the table cannot drift from the code: if a step changed a shape, the trace would too.
    In cross-attention (``source_len`` given) the table starts with the ``key`` and ``value``
    inputs ``(B, S, E)`` as well as ``x``. With ``num_kv_heads`` (grouped-query attention, as
    :class:`mha.GroupedQueryAttention`) ``K`` and ``V`` have ``H_kv`` heads, and a step
    ``3b) repeat kv`` (:func:`mha.repeat_kv`) shows them repeated to ``H`` heads.

    Parameters
    ----------
    batch : int
        ``B``.
    target_len : int
        Query length ``L``.
    embed_dim : int
        Model width ``E``.
    num_heads : int
        Number of heads ``H``; must divide ``embed_dim``.
    source_len : int, optional
        Key/value length ``S`` for cross-attention; defaults to ``target_len``.
    num_kv_heads : int, optional
        Key/value heads ``H_kv``; must divide ``num_heads``. Defaults to ``num_heads``.

    Returns
    -------
    list of ShapeStep
        In execution order, from the input to the output.

    Raises
    ------
    TypeError
        If a size is not an integer (``True`` is not a size).
    ValueError
        If a size is not positive, ``num_heads`` does not divide ``embed_dim``, ``num_kv_heads`` does
        not divide ``num_heads``, or a tensor would take more than ``2**63 - 1`` bytes in float32.

    See Also
    --------
    format_shape_table : render the list as text.

    Examples
    --------
    >>> import mha
    >>> steps = mha.trace_shapes(batch=2, target_len=5, embed_dim=64, num_heads=8)
    >>> [(s.name, s.shape) for s in steps if s.step.startswith("3")]
    [('Q_heads', (2, 8, 5, 8)), ('K_heads', (2, 8, 5, 8)), ('V_heads', (2, 8, 5, 8))]
    >>> steps[0].shape == steps[-1].shape == (2, 5, 64)
    True
    >>> gqa = mha.trace_shapes(batch=2, target_len=5, embed_dim=64, num_heads=8, num_kv_heads=2)
    >>> [(s.name, s.letters, s.shape) for s in gqa if s.name.startswith("K")]
    [('K', '(B, S, H_kv*D)', (2, 5, 16)), ('K_heads', '(B, H_kv, S, D)', (2, 2, 5, 8)),
     ('K_repeated', '(B, H, S, D)', (2, 8, 5, 8))]
    """
    batch = positive_int(batch, "batch")
    target_len = positive_int(target_len, "target_len")
    cross = source_len is not None  # cross-attention: key and value are inputs of their own
    source_len = target_len if source_len is None else positive_int(source_len, "source_len")
    d = check_heads(embed_dim, num_heads)
    kv = (
        num_heads if num_kv_heads is None else num_heads // check_kv_heads(num_heads, num_kv_heads)
    )  # H_kv
    # the largest tensors: the weights (E, E), the packed projection (B, L|S, 3E), the scores
    # (B, H, L, S); each, in float32, must have a byte count that an int64 holds
    longest = max(target_len, source_len)
    sizes = {  # keys: the tensors' names in the message
        N_("the weight W^Q (E, E)"): embed_dim * embed_dim,
        N_("the projections (B, max(L, S), 3 E)"): batch * longest * 3 * embed_dim,
        N_("the scores (B, H, L, S)"): batch * num_heads * target_len * source_len,
    }
    what, largest = max(sizes.items(), key=lambda item: item[1])
    if largest * _FLOAT32_BYTES > _MAX_BYTES:
        message = _(
            "expected sizes whose tensors can exist, got batch={batch}, target_len={target_len}, "
            "source_len={source_len}, embed_dim={embed_dim}, num_heads={num_heads}: {what} would "
            "hold {elements:.3e} elements, {bytes:.3e} bytes in float32, more than the 2**63 - 1 "
            "bytes PyTorch can address; choose smaller sizes"
        )
        raise ValueError(
            message.format(batch=batch, target_len=target_len, source_len=source_len,
                           embed_dim=embed_dim, num_heads=num_heads, what=_(what),
                           elements=largest, bytes=largest * _FLOAT32_BYTES)
        )  # fmt: skip
    meta = {"device": "meta"}
    x = torch.empty(batch, target_len, embed_dim, **meta)  # (B, L, E)
    memory = x if source_len == target_len else torch.empty(batch, source_len, embed_dim, **meta)
    w = torch.empty(embed_dim, embed_dim, **meta)
    w_kv = torch.empty(kv * d, embed_dim, **meta)  # (H_kv*D, E): w itself when H_kv = H

    q, k, v = project_qkv(x, memory, memory, w, w_kv, w_kv)
    q_h = split_heads(q, num_heads)  # (B, H, L, D)
    k_h, v_h = split_heads(k, kv), split_heads(v, kv)  # (B, H_kv, S, D)
    k_r, v_r = repeat_kv(k_h, num_heads), repeat_kv(v_h, num_heads)  # (B, H, S, D)
    scores = q_h @ k_r.transpose(-2, -1) / math.sqrt(q_h.shape[-1])
    context, weights = scaled_dot_product_attention(q_h, k_r, v_r)
    concat = merge_heads(context)
    out = project(concat, w)

    kv_letters = "(B, S, E)" if num_kv_heads is None else "(B, S, H_kv*D)"
    kv_head_letters = "(B, H, S, D)" if num_kv_heads is None else "(B, H_kv, S, D)"
    rows = [
        ("1) input", "x", x, "(B, L, E)"),
        *(
            [("1) input", "key", memory, "(B, S, E)"), ("1) input", "value", memory, "(B, S, E)")]
            if cross
            else []
        ),
        ("2) project", "Q", q, "(B, L, E)"),
        ("2) project", "K", k, kv_letters),
        ("2) project", "V", v, kv_letters),
        ("3) split heads", "Q_heads", q_h, "(B, H, L, D)"),
        ("3) split heads", "K_heads", k_h, kv_head_letters),
        ("3) split heads", "V_heads", v_h, kv_head_letters),
        *(
            [
                ("3b) repeat kv", "K_repeated", k_r, "(B, H, S, D)"),
                ("3b) repeat kv", "V_repeated", v_r, "(B, H, S, D)"),
            ]
            if num_kv_heads is not None
            else []
        ),
        ("4) attend", "scores", scores, "(B, H, L, S)"),
        ("4) attend", "attn_weights", weights, "(B, H, L, S)"),
        ("4) attend", "context", context, "(B, H, L, D)"),
        ("5) merge heads", "concat", concat, "(B, L, E)"),
        ("6) project out", "output", out, "(B, L, E)"),
    ]
    return [ShapeStep(step, name, tuple(t.shape), letters) for step, name, t, letters in rows]


def format_shape_table(steps: list[ShapeStep], *, lang: str | None = None) -> str:
    """Render traced steps as a fixed-width text table.

    Parameters
    ----------
    steps : list of ShapeStep
        As returned by :func:`trace_shapes`.
    lang : {"en", "zh_CN"}, optional
        The language of the headers and the step names; by default the command line's
        ``--lang``, else :func:`mha.set_language`'s, else the environment variable
        ``MHA_LANG``, else the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``),
        else English. Tensor names, letters and shapes are code, the same in both.

    Returns
    -------
    str
        One line per tensor: step, name, letters and shape.

    Examples
    --------
    >>> import mha
    >>> print(mha.format_shape_table(mha.trace_shapes(2, 5, 64, 8), lang="en"))
    step            tensor        letters       shape
    --------------  ------------  ------------  ------------
    1) input        x             (B, L, E)     (2, 5, 64)
    2) project      Q             (B, L, E)     (2, 5, 64)
    ...
    4) attend       scores        (B, H, L, S)  (2, 8, 5, 5)
    ...
    6) project out  output        (B, L, E)     (2, 5, 64)

    ``lang="zh_CN"`` gives the same table with Chinese headers and step names, its columns
    aligned for a terminal (a Chinese character takes two columns).
    """
    with language(lang):
        words = _words()
    header = tuple(words[h] for h in ("step", "tensor", "letters", "shape"))
    cells = [header] + [(_step_name(s.step, words), s.name, s.letters, str(s.shape)) for s in steps]
    widths = [max(_width(row[i]) for row in cells) for i in range(len(header))]
    lines = [
        "  ".join(c + " " * (w - _width(c)) for c, w in zip(row, widths, strict=True))
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _words() -> dict[str, str]:
    """The table's headers and step names in the current language; the steps keep their
    numbers ("3) split heads")."""
    return {
        "step": pgettext("shape table", "step"),
        "tensor": pgettext("shape table", "tensor"),
        "letters": pgettext("shape table", "letters"),
        "shape": pgettext("shape table", "shape"),
        "input": pgettext("shape table", "input"),
        "project": pgettext("shape table", "project"),
        "split heads": pgettext("shape table", "split heads"),
        "repeat kv": pgettext("shape table", "repeat kv"),
        "attend": pgettext("shape table", "attend"),
        "merge heads": pgettext("shape table", "merge heads"),
        "project out": pgettext("shape table", "project out"),
    }


def _step_name(step: str, words: dict[str, str]) -> str:
    number, _sep, name = step.partition(") ")
    return f"{number}) {words.get(name, name)}"


def _width(text: str) -> int:
    """Columns a terminal gives ``text``: two for each CJK character."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
