"""The input checks that more than one module needs, written once.

Each check raises the error that says *expected X, got Y* and how to fix it; the layer that owns
a rule calls the check (see :mod:`mha.errors` for why the classes are also PyTorch's). This
module is internal: its names are the package's entry points to these checks, not public API.
"""

from __future__ import annotations

import operator
import os

import torch
from torch import Tensor

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
    "positive_int",
    "resolve_language",
]

# The languages of the learner-facing text (mha.check's reports, the shape table, the CLI):
# lang= where a function takes it, else the environment variable MHA_LANG, else English.
LANGS = ("en", "zh_CN")


def resolve_language(lang: str | None) -> str:
    """``lang`` checked, or ``MHA_LANG`` (an unknown value there means English) when None."""
    if lang is None:
        lang = os.environ.get("MHA_LANG", "en")
        return lang if lang in LANGS else "en"
    if lang not in LANGS:
        raise ValueError(f"expected lang to be one of {LANGS} or None, got {lang!r}")
    return lang


# head counts listed in a message: enough for every model in use, and O(1) to build
_MAX_LISTED_HEADS = 1024


def check_tensor(x: object, name: str, error: type[Exception] = TypeError) -> Tensor:
    if not isinstance(x, Tensor):
        raise error(f"expected {name} to be a torch.Tensor, got {type(x).__name__}")
    if x.is_nested:
        raise TypeError(
            f"expected {name} to be a strided (dense) tensor, got a nested tensor; nested "
            f"tensors are not supported: pad them with torch.nested.to_padded_tensor and mark "
            f"the padding with key_padding_mask"
        )
    return x


def check_dim(x: Tensor, name: str, dims: tuple[int, ...], layout: str, error=ValueError) -> None:
    if x.dim() not in dims:
        expected = " or ".join(f"{d}-D" for d in dims)
        raise error(
            f"expected {name} to be {expected} with layout {layout}, "
            f"got a {x.dim()}-D tensor of shape {tuple(x.shape)}"
        )


def integer(value: object, name: str) -> int:
    """``value`` as an int if it is an integer (a Python, NumPy or 0-d tensor one), not a bool."""
    if isinstance(value, bool):
        raise TypeError(f"expected {name} to be an int, got bool ({value})")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"expected {name} to be an int, got {type(value).__name__}") from None


def positive_int(value: object, name: str) -> int:
    """``value`` as an int if it is a positive integer (see :func:`integer`)."""
    value = integer(value, name)
    if value <= 0:
        raise ValueError(f"expected {name} to be a positive int, got {name}={value}")
    return value


def head_counts(embed_dim: int) -> str:
    """The head counts that divide ``embed_dim``, as text, up to ``_MAX_LISTED_HEADS``."""
    limit = min(embed_dim, _MAX_LISTED_HEADS)
    counts = ", ".join(str(d) for d in range(1, limit + 1) if embed_dim % d == 0)
    return f"head counts that divide {embed_dim}" + (
        f": {counts}" if limit == embed_dim else f" (up to {limit}): {counts}"
    )


def check_kv_heads(num_heads: int, num_kv_heads: int) -> int:
    """``G = num_heads // num_kv_heads`` if ``num_kv_heads`` divides ``num_heads``."""
    num_heads = positive_int(num_heads, "num_heads")
    num_kv_heads = positive_int(num_kv_heads, "num_kv_heads")
    if num_heads % num_kv_heads != 0:
        raise ValueError(
            f"expected num_kv_heads to divide num_heads={num_heads}, got "
            f"num_kv_heads={num_kv_heads}; each key/value head serves a whole group of query "
            f"heads: use one of the {head_counts(num_heads)}"
        )
    return num_heads // num_kv_heads


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected {name} to be a bool, got {type(value).__name__}")
    return value


def check_mask_dtype(mask: Tensor, name: str, true_means: str, error=TypeAssertionError) -> None:
    if mask.dtype != torch.bool and not mask.is_floating_point():
        raise error(
            f"expected {name} to be a bool or floating-point tensor, got dtype {mask.dtype}; "
            f"convert it with {name}.bool() (True = {true_means}) or pass an additive float mask"
        )
