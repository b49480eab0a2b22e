"""The input checks that more than one module needs, written once, and the language of the
messages a learner reads.

Each check raises the error that says *expected X, got Y* and how to fix it; the layer that owns
a rule calls the check (see :mod:`mha.errors` for why the classes are also PyTorch's). This
module is internal: its names are the package's entry points to these checks, not public API.

The learner-facing messages (these checks', :func:`mha.check_heads`', :func:`mha.split_heads`',
the command line's, :mod:`mha.check`'s) are in English or, under ``MHA_LANG=zh_CN``, in Chinese:
:func:`say` words one from :data:`MESSAGES` in the language :func:`resolve_language` gives. It
runs only when a check fails, so a passing check costs what it did before.
"""

from __future__ import annotations

import contextlib
import contextvars
import operator
import os
from collections.abc import Iterator

import torch
from torch import Tensor

from mha.errors import TypeAssertionError

__all__ = [
    "LANGS",
    "MESSAGES",
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
    "say",
]

# The languages of the learner-facing text (mha.check's reports, the shape table, the CLI, the
# messages below): lang= where a function takes it, else the language set by language() (the
# CLI's --lang), else the environment variable MHA_LANG, else English.
LANGS = ("en", "zh_CN")
_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("mha_lang", default=None)


def resolve_language(lang: str | None) -> str:
    """``lang`` checked, or when None the language of :func:`language`, else ``MHA_LANG`` (an
    unknown value there means English)."""
    if lang is None:
        lang = _LANGUAGE.get() or os.environ.get("MHA_LANG", "en")
        return lang if lang in LANGS else "en"
    if lang not in LANGS:
        raise ValueError(say("lang", langs=LANGS, lang=lang))
    return lang


@contextlib.contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Messages in ``lang`` (None: ``MHA_LANG``) inside the block, whatever ``MHA_LANG`` says."""
    token = _LANGUAGE.set(resolve_language(lang))
    try:
        yield _LANGUAGE.get()
    finally:
        _LANGUAGE.reset(token)


# Each message in English and in Chinese, the same {fields} in both. Chinese: full-width
# punctuation, no space after "：", the glossary's terms (docs/locale/GLOSSARY.md); code, names
# and numbers stay as they are.
MESSAGES = {
    "lang": (
        "expected lang to be one of {langs} or None, got {lang!r}",
        "lang 应为 {langs} 之一或 None，实际为 {lang!r}",
    ),
    "tensor": (
        "expected {name} to be a torch.Tensor, got {type}",
        "{name} 应为 torch.Tensor，实际为 {type}",
    ),
    "nested": (
        (
            "expected {name} to be a strided (dense) tensor, got a nested tensor; nested tensors are "
            "not supported: pad them with torch.nested.to_padded_tensor and mark the padding with "
            "key_padding_mask"
        ),
        (
            "{name} 应为普通的稠密张量，实际为嵌套张量；不支持嵌套张量："
            "请用 torch.nested.to_padded_tensor 填充，再用 key_padding_mask 标出填充的位置"
        ),
    ),
    "dim": (
        "expected {name} to be {dims} with layout {layout}, got a {got}-D tensor of shape {shape}",
        "{name} 应为 {dims}张量，布局为 {layout}，实际为形状 {shape} 的 {got} 维张量",
    ),
    "dims": ("{n}-D", "{n} 维"),  # one number of dimensions, joined by "or"
    "or": (" or ", "或 "),
    "or_shape": (" or ", " 或 "),  # between two shapes a mask may have
    "unbatched": (" or unbatched {layout}", "，或无批量维度的 {layout}"),
    "int_bool": (
        "expected {name} to be an int, got bool ({value})",
        "{name} 应为 int，实际为 bool（{value}）",
    ),
    "int": ("expected {name} to be an int, got {type}", "{name} 应为 int，实际为 {type}"),
    "positive": (
        "expected {name} to be a positive int, got {name}={value}",
        "{name} 应为正整数，实际为 {name}={value}",
    ),
    "head_counts": (
        "head counts that divide {embed_dim}: {counts}",
        "能整除 {embed_dim} 的头数有 {counts}",
    ),
    "head_counts_up_to": (
        "head counts that divide {embed_dim} (up to {limit}): {counts}",
        "能整除 {embed_dim} 的头数（列到 {limit} 为止）有 {counts}",
    ),
    "heads": (
        (
            "embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and "
            "num_heads={num_heads} ({embed_dim} / {num_heads} = {ratio:.4g}); {counts}"
        ),
        (
            "头数 num_heads 应能整除模型维度 embed_dim，当前 embed_dim={embed_dim}、"
            "num_heads={num_heads}（{embed_dim} / {num_heads} = {ratio:.4g}）；{counts}"
        ),
    ),
    "split": (
        (
            "split_heads expected the last dimension of x to be divisible by num_heads={num_heads}, "
            "got x of shape {shape} (last dimension {last}); project to a width that {num_heads} "
            "divides, or use one of the {counts}"
        ),
        (
            "split_heads 的 num_heads={num_heads} 应能整除 x 的最后一个维度，当前 x 的形状为 "
            "{shape}（最后一个维度为 {last}）；请投影到 {num_heads} 能整除的维度，或者换一个头数"
            "（{counts}）"
        ),
    ),
    "kv_heads": (
        (
            "expected num_kv_heads to divide num_heads={num_heads}, got "
            "num_kv_heads={num_kv_heads}; each key/value head serves a whole group of query heads: "
            "use one of the {counts}"
        ),
        (
            "num_kv_heads 应能整除 num_heads={num_heads}，实际为 num_kv_heads={num_kv_heads}；"
            "每个键/值头供一整组查询头使用，请换一个键/值头数（{counts}）"
        ),
    ),
    "sizes": (
        (
            "expected sizes whose tensors can exist, got batch={batch}, target_len={target_len}, "
            "source_len={source_len}, embed_dim={embed_dim}, num_heads={num_heads}: {what} would "
            "hold {elements:.3e} elements, {bytes:.3e} bytes in float32, more than the 2**63 - 1 "
            "bytes PyTorch can address; choose smaller sizes"
        ),
        (
            "这些大小下的张量无法创建：batch={batch}、target_len={target_len}、"
            "source_len={source_len}、embed_dim={embed_dim}、num_heads={num_heads}，其中{what} 将有 "
            "{elements:.3e} 个元素，float32 下占 {bytes:.3e} 字节，超过了 PyTorch 能寻址的 "
            "2**63 - 1 字节；请选用更小的大小"
        ),
    ),
    "weight": ("the weight W^Q (E, E)", "权重 W^Q (E, E)"),
    "projections": ("the projections (B, max(L, S), 3 E)", "投影 (B, max(L, S), 3 E)"),
    "scores": ("the scores (B, H, L, S)", "注意力分数 (B, H, L, S)"),
    "bool": ("expected {name} to be a bool, got {type}", "{name} 应为 bool，实际为 {type}"),
    "mask_dtype": (
        (
            "expected {name} to be a bool or floating-point tensor, got dtype {dtype}; convert it "
            "with {name}.bool() (True = {true_means}) or pass an additive float mask"
        ),
        (
            "{name} 应为 bool 或浮点张量，实际的数据类型为 {dtype}；请用 {name}.bool() 转换"
            "（True 表示{true_means}），或者传入加性的浮点掩码"
        ),
    ),
    # MultiHeadAttention's inputs (functional.check_mha_inputs)
    "same_dims": (
        (
            "expected query, key and value to have the same number of dimensions, got {q}-D, {k}-D "
            "and {v}-D"
        ),
        "query、key 和 value 的维数应相同，实际为 {q} 维、{k} 维和 {v} 维",
    ),
    "width": (
        "expected {name}'s last dimension to be {arg}={width}, got {name} of shape {shape}",
        "{name} 的最后一个维度应为 {arg}={width}，实际 {name} 的形状为 {shape}",
    ),
    "batch": (
        (
            "expected query, key and value to share the batch size (dimension {axis} of {layout}), "
            "got query {q}, key {k}, value {v}"
        ),
        (
            "query、key 和 value 的批量大小应相同（{layout} 的第 {axis} 维），实际 query 为 {q}，"
            "key 为 {k}，value 为 {v}"
        ),
    ),
    "mask_shape": (
        "expected {name} of shape {options} for query {q} and key {k}, got {got}",
        "对形状为 {q} 的 query 和 {k} 的 key，{name} 的形状应为 {options}，实际为 {got}",
    ),
    "batch_first": (
        (
            "; with batch_first={now} the batch is dimension {axis} of {layout}, but the inputs fit "
            "batch_first={other}: construct the module with batch_first={other} or transpose the "
            "inputs"
        ),
        (
            "；batch_first={now} 时批量是 {layout} 的第 {axis} 维，而这些输入符合 batch_first={other}："
            "请用 batch_first={other} 构造模块，或者转置输入"
        ),
    ),
    "causal_needs_mask": (
        (
            "is_causal=True is a hint that attn_mask is causal and needs attn_mask, got "
            "attn_mask=None; pass attn_mask=mha.causal_mask(L, S) as well"
        ),
        (
            "is_causal=True 只是提示 attn_mask 是因果掩码，仍需要传入 attn_mask，实际为 "
            "attn_mask=None；请同时传入 attn_mask=mha.causal_mask(L, S)"
        ),
    ),
    # what True means in a boolean mask (check_mask_dtype's true_means)
    "blocked": ("blocked", "屏蔽这个位置"),
    "may attend": ("may attend", "可以关注这个位置"),
    "ignore this key": ("ignore this key", "忽略这个键"),
    "callable": (
        "expected fn to be a callable (your function), got {type}",
        "fn 应为可调用对象（你的函数），实际为 {type}",
    ),
    # the command line (python -m mha): argparse's lines around a usage error
    "usage": ("usage: ", "用法："),
    "error": ("{prog}: error: {message}\n", "{prog}：错误：{message}\n"),
    "argument": ("argument {name}: {message}", "参数 {name}：{message}"),
    "cli_int": ("expected an int, got {value!r}", "应为整数，实际为 {value!r}"),
    "cli_choice": (
        "expected one of {choices}, got {value}",
        "应为 {choices} 之一，实际为 {value}",
    ),
    "cli_unknown": ("unrecognized arguments: {names}", "无法识别的参数：{names}"),
    "cli_value": ("expected one value", "需要一个值"),
}


def say(key: str, /, **fields: object) -> str:
    """The message ``key`` of :data:`MESSAGES` in the current language, its fields filled in."""
    english, chinese = MESSAGES[key]
    return (chinese if resolve_language(None) == "zh_CN" else english).format(**fields)


# head counts listed in a message: enough for every model in use, and O(1) to build
_MAX_LISTED_HEADS = 1024


def check_tensor(x: object, name: str, error: type[Exception] = TypeError) -> Tensor:
    if not isinstance(x, Tensor):
        raise error(say("tensor", name=name, type=type(x).__name__))
    if x.is_nested:
        raise TypeError(say("nested", name=name))
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
        expected = say("or").join(say("dims", n=d) for d in dims)
        if unbatched is not None:
            layout += say("unbatched", layout=unbatched)
        shape = tuple(x.shape)
        raise error(say("dim", name=name, dims=expected, layout=layout, got=x.dim(), shape=shape))


def integer(value: object, name: str) -> int:
    """``value`` as an int if it is an integer (a Python, NumPy or 0-d tensor one), not a bool."""
    if isinstance(value, bool):
        raise TypeError(say("int_bool", name=name, value=value))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(say("int", name=name, type=type(value).__name__)) from None


def positive_int(value: object, name: str) -> int:
    """``value`` as an int if it is a positive integer (see :func:`integer`)."""
    value = integer(value, name)
    if value <= 0:
        raise ValueError(say("positive", name=name, value=value))
    return value


def head_counts(embed_dim: int) -> str:
    """The head counts that divide ``embed_dim``, as text, up to ``_MAX_LISTED_HEADS``."""
    limit = min(embed_dim, _MAX_LISTED_HEADS)
    counts = ", ".join(str(d) for d in range(1, limit + 1) if embed_dim % d == 0)
    key = "head_counts" if limit == embed_dim else "head_counts_up_to"
    return say(key, embed_dim=embed_dim, limit=limit, counts=counts)


def check_kv_heads(num_heads: int, num_kv_heads: int) -> int:
    """``G = num_heads // num_kv_heads`` if ``num_kv_heads`` divides ``num_heads``."""
    num_heads = positive_int(num_heads, "num_heads")
    num_kv_heads = positive_int(num_kv_heads, "num_kv_heads")
    if num_heads % num_kv_heads != 0:
        counts = head_counts(num_heads)
        raise ValueError(
            say("kv_heads", num_heads=num_heads, num_kv_heads=num_kv_heads, counts=counts)
        )
    return num_heads // num_kv_heads


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(say("bool", name=name, type=type(value).__name__))
    return value


def check_mask_dtype(mask: Tensor, name: str, true_means: str, error=TypeAssertionError) -> None:
    if mask.dtype != torch.bool and not mask.is_floating_point():
        raise error(say("mask_dtype", name=name, dtype=mask.dtype, true_means=say(true_means)))
