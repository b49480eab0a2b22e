"""The input checks that more than one module needs, written once.

Each check raises the error that says *expected X, got Y* and how to fix it; the layer that owns
a rule calls the check (see :mod:`mha.errors` for why the classes are also PyTorch's). This
module is internal: its names are the package's entry points to these checks, not public API.

Their messages, like every learner-facing message of the package (:func:`mha.check_heads`',
:func:`mha.split_heads`', the command line's, :mod:`mha.check`'s, the shape table), are worded
by :mod:`mha._i18n` in the reader's language: ``lang=`` where a function takes it, else the
command line's ``--lang``, else :func:`mha.set_language`, else the environment variable
``MHA_LANG``, else the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else
English. A message is worded only when a check fails, so a passing check costs what it did
before.
"""

from __future__ import annotations

import operator

import torch
from torch import Tensor

from mha._i18n import LANGS, _, language, pgettext, resolve_language
from mha.errors import TypeAssertionError

__all__ = [
    "LANGS",
    "check_bool",
    "check_dim",
    "check_kv_heads",
    "check_mask_dtype",
    "check_tensor",
    "head_counts",
    "integer",
    "language",
    "positive_int",
    "resolve_language",
]

# Chinese (mha/locale/zh_CN/LC_MESSAGES/mha.po): full-width punctuation, no space after a
# full-width colon, the glossary's terms (docs/locale/GLOSSARY.md); code, names and numbers
# stay as they are.

# head counts listed in a message: enough for every model in use, and O(1) to build
_MAX_LISTED_HEADS = 1024


def check_tensor(x: object, name: str, error: type[Exception] = TypeError) -> Tensor:
    if not isinstance(x, Tensor):
        message = _("expected {name} to be a torch.Tensor, got {type}")
        raise error(message.format(name=name, type=type(x).__name__))
    if x.is_nested:
        raise TypeError(
            _(
                "expected {name} to be a strided (dense) tensor, got a nested tensor; nested "
                "tensors are not supported: pad them with torch.nested.to_padded_tensor and mark "
                "the padding with key_padding_mask"
            ).format(name=name)
        )
    return x


def check_dim(
    x: Tensor,
    name: str,
    dims: tuple[int, ...],
    layout: str,
    error=ValueError,
    unbatched: str | None = None,
) -> None:
    """``x`` has one of ``dims`` dimensions, in ``layout`` (or ``unbatched``, without B)."""
    if x.dim() not in dims:
        # one number of dimensions, "3-D", joined by "or"
        either = pgettext("between numbers of dimensions", " or ")
        expected = either.join(_("{n}-D").format(n=d) for d in dims)
        if unbatched is not None:
            layout += _(" or unbatched {layout}").format(layout=unbatched)
        shape = tuple(x.shape)
        message = _(
            "expected {name} to be {dims} with layout {layout}, got a {got}-D tensor of shape "
            "{shape}"
        )
        raise error(
            message.format(name=name, dims=expected, layout=layout, got=x.dim(), shape=shape)
        )


def integer(value: object, name: str) -> int:
    """``value`` as an int if it is an integer (a Python, NumPy or 0-d tensor one), not a bool."""
    if isinstance(value, bool):
        message = _("expected {name} to be an int, got bool ({value})")
        raise TypeError(message.format(name=name, value=value))
    try:
        return operator.index(value)
    except TypeError:
        message = _("expected {name} to be an int, got {type}")
        raise TypeError(message.format(name=name, type=type(value).__name__)) from None


def positive_int(value: object, name: str) -> int:
    """``value`` as an int if it is a positive integer (see :func:`integer`)."""
    value = integer(value, name)
    if value <= 0:
        message = _("expected {name} to be a positive int, got {name}={value}")
        raise ValueError(message.format(name=name, value=value))
    return value


def head_counts(embed_dim: int) -> str:
    """The head counts that divide ``embed_dim``, as text, up to ``_MAX_LISTED_HEADS``."""
    limit = min(embed_dim, _MAX_LISTED_HEADS)
    counts = ", ".join(str(d) for d in range(1, limit + 1) if embed_dim % d == 0)
    message = (
        _("head counts that divide {embed_dim}: {counts}")
        if limit == embed_dim
        else _("head counts that divide {embed_dim} (up to {limit}): {counts}")
    )
    return message.format(embed_dim=embed_dim, limit=limit, counts=counts)


def check_kv_heads(num_heads: int, num_kv_heads: int) -> int:
    """``G = num_heads // num_kv_heads`` if ``num_kv_heads`` divides ``num_heads``."""
    num_heads = positive_int(num_heads, "num_heads")
    num_kv_heads = positive_int(num_kv_heads, "num_kv_heads")
    if num_heads % num_kv_heads != 0:
        counts = head_counts(num_heads)
        message = _(
            "expected num_kv_heads to divide num_heads={num_heads}, got "
            "num_kv_heads={num_kv_heads}; each key/value head serves a whole group of query "
            "heads: use one of the {counts}"
        )
        raise ValueError(
            message.format(num_heads=num_heads, num_kv_heads=num_kv_heads, counts=counts)
        )
    return num_heads // num_kv_heads


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        message = _("expected {name} to be a bool, got {type}")
        raise TypeError(message.format(name=name, type=type(value).__name__))
    return value


def check_mask_dtype(mask: Tensor, name: str, true_means: str, error=TypeAssertionError) -> None:
    """``mask`` is bool or floating point; ``true_means`` (marked with ``N_``: "blocked", "may
    attend", "ignore this key") says what True means in it."""
    if mask.dtype != torch.bool and not mask.is_floating_point():
        message = _(
            "expected {name} to be a bool or floating-point tensor, got dtype {dtype}; convert "
            "it with {name}.bool() (True = {true_means}) or pass an additive float mask"
        )
        raise error(message.format(name=name, dtype=mask.dtype, true_means=_(true_means)))
