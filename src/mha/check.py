r"""Feedback on a step of multi-head attention that you wrote yourself.

Write your own ``split_heads``, ``merge_heads`` or attention in a notebook, hand the function
to the check of the same name and read the report: whether it matches this package's step on
every input tried and, when it does not, which known mistake it makes and the code that fixes
it, naming the row of the table on the :ref:`Common errors <howto-common-errors>` page where
there is one. The fix is the step written out in the names of your function's parameters
(``num_heads`` if you called it so, ``h`` if that is its name), ending with its ``return``:
put its lines in place of the wrong line and the function runs as printed. With ``fix=False``
the report names the mistake and gives a hint in words instead, for an exercise whose answer
comes later. Show the report as the last expression of a cell or at a Python prompt, or
``print`` it.

Each check probes with three inputs, one seed each, with ``H=3, D=4, E=12`` and
``(B, L, S)`` = ``(2, 5, 7)``, ``(5, 7, 2)``, ``(7, 2, 5)``: every dimension differs (with the
lesson's ``H = D = 8`` a swap of those two axes would pass by coincidence), and no size is
the same on every input, so a function that writes out sizes (the lesson's ``B=2, L=5``) fails.
It compares your result with :func:`mha.split_heads`,
:func:`mha.merge_heads` or :func:`mha.scaled_dot_product_attention` through
:func:`torch.testing.assert_close`. A mistake is recognised by its behaviour, not by reading
your code: the wrong result of each known mistake is computed from the same input and compared
with yours, and an exception or warning raised inside your function is read for the messages
those mistakes produce; a function that returns ``None`` has forgotten its ``return``. When no
known mistake explains a wrong result, the report names the first position that differs in
words, along the axes of the step's output (``batch 0, head 0, token 1, feature 0``), with the
expected value and yours. Nothing your function does escapes the check; only a misuse of the
check itself (``fn`` not callable, an unknown ``lang``) raises.

Messages are in English (``lang="en"``) or Chinese (``lang="zh_CN"``); by default, the
language of :func:`mha.set_language`, else the one the environment variable ``MHA_LANG``
names, else the locale's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``zh_CN.UTF-8``
means Chinese), else English.

Examples
--------
>>> import mha
>>> def my_split(x, num_heads):
...     B, L, E = x.shape
...     return x.view(B, num_heads, L, E // num_heads)  # no transpose
>>> print(mha.check.split_heads(my_split, lang="en"))
✗ my_split does not match mha.split_heads (x: (2, 5, 12), num_heads=3; seed 0).
Mistake: view without the transpose (a row of the table in the how-to guide 'Common errors and how to fix them').
What happened: first differs at batch 0, head 0, token 1, feature 0: expected ..., got ...
Fix: view as (B, L, H, D), then swap L and H with transpose(1, 2). In your function, replace the wrong line with:
    B, L, E = x.shape
    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)
>>> print(mha.check.split_heads(my_split, lang="en", fix=False).message.splitlines()[-1])
Hint: view as (B, L, H, D), then swap L and H with transpose(1, 2).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from mha import functional as _functional
from mha._i18n import N_, _, language, pgettext

__all__ = ["Report", "attention", "merge_heads", "split_heads"]

# probe sizes: every dimension differs, so swapped axes cannot pass by coincidence, and
# (B, L, S) changes with the seed, so sizes written into the function cannot pass either
H, D = 3, 4
E = H * D
PROBES = {0: (2, 5, 7), 1: (5, 7, 2), 2: (7, 2, 5)}  # seed: (B, L, S)
SEEDS = tuple(PROBES)

# the axes of each step's output, by the names the report gives them (keys of _TEXT)
_HEADS = ("batch", "head", "token", "feature")  # (B, H, L, D): split_heads, attention's output
_TOKENS = ("batch", "token", "feature")  # (B, L, E): merge_heads
_WEIGHTS = ("batch", "head", "query", "key")  # (B, H, L, S): attention's weights


@dataclass(frozen=True, repr=False)
class Report:
    """What a check found: shown in full wherever it is shown.

    Its ``repr``, ``str`` and notebook display are all the message, so the report reads the same
    as the last expression of a notebook cell or of a Python prompt, and with ``print``.

    Attributes
    ----------
    ok : bool
        Whether the function matched the reference on every shape and seed tried.
    mistake : str or None
        ``None`` when ``ok``; else the id of the mistake found, such as
        ``"view_without_transpose"``, ``"no_return"`` (the function returned ``None``),
        ``"differs"`` (no known mistake) or ``"raises"`` (an exception that no known mistake
        explains).
    message : str
        The report in words: what is wrong, the mistake's name and the fix (or, with
        ``fix=False``, a hint in words).
    fix : str or None
        The code of the fix, the lines that the message prints indented: the step written out
        in your function's own names, ending with its ``return``, to put in place of the wrong
        line. ``None`` when ``ok``, with ``fix=False``, or when no known mistake explains the
        result (``"differs"``, ``"raises"``).
    """

    ok: bool
    mistake: str | None
    message: str
    fix: str | None = None

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:  # a Python prompt, or a report inside a list: the whole message
        return self.message

    def _repr_pretty_(self, p, cycle: bool) -> None:  # IPython and Jupyter: the whole message
        p.text(self.message)


# ---------------------------------------------------------------------------
# The mistakes, one row each: how to recognise it and what to say
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mistake:
    step: str  # the check that reports it: "split_heads", "merge_heads", "attention", "any"
    id: str
    title: str  # marked with N_, worded by _ when reported
    hint: str  # what to change, in words: the Fix line's first part, the Hint line
    code: tuple[str, ...] | None = None  # the fix's lines (templates); () the step's own code
    in_table: bool = False  # a row of the table of the how-to guide on common errors
    wrong: Callable[..., list] | None = None  # the wrong results, computed from the input
    says: str | None = None  # a regex for what the function raises or warns


def _heads(x: Tensor, h: int) -> Tensor:
    return x.unflatten(-1, (h, -1))  # (B, L, E) -> (B, L, H, D)


def _attend(q: Tensor, k: Tensor, v: Tensor, scale: float | None = None) -> tuple[Tensor, Tensor]:
    return _functional.scaled_dot_product_attention(q, k, v, scale=scale)


def _softmax_over(q: Tensor, k: Tensor, v: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    weights = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).softmax(dim)  # (B, H, L, S)
    return weights @ v, weights  # (B, H, L, D), (B, H, L, S)


def _averaged(q: Tensor, k: Tensor, v: Tensor) -> list[tuple[Tensor, Tensor]]:
    out, weights = _attend(q, k, v)  # (B, H, L, D), (B, H, L, S)
    return [(out, weights.mean(1)), (out, weights.mean(1, keepdim=True))]  # (B, [1,] L, S)


_RESHAPE = r"shape '\[[^\]]*\]' is invalid for input of size \d+"
_DOT_T = r"`x\.T`"  # torch: .T on a tensor of other than 2 dimensions is deprecated

# The code of each fix: the step written out in full, ending with its return, so that it replaces
# the wrong line of any version of the function. {x}, {num_heads}, {q}, {k}, {v} become the
# names of the learner's parameters; {sqrt_d_k} math.sqrt(...) where the function's module
# imported math, else ** 0.5. The other names (B, L, E, ...) are the code's own locals.
_SPLIT = (
    "B, L, E = {x}.shape",
    "return {x}.view(B, L, {num_heads}, E // {num_heads}).transpose(1, 2)",
)
_MERGE_VIEW = (
    "B, H, L, D = {x}.shape",
    "return {x}.transpose(1, 2).contiguous().view(B, L, H * D)",
)
_MERGE = ("B, H, L, D = {x}.shape", "return {x}.transpose(1, 2).reshape(B, L, H * D)")
_ATTEND = (
    "scores = {q} @ {k}.transpose(-2, -1) / {sqrt_d_k}  # (B, H, L, S)",
    "weights = scores.softmax(dim=-1)",
    "return weights @ {v}, weights",
)
_LOCALS = ("B", "L", "E", "H", "D", "scores", "weights")  # the names the code assigns
_CODE = {"split_heads": _SPLIT, "merge_heads": _MERGE, "attention": _ATTEND}
_PARAMETERS = {
    "split_heads": ("x", "num_heads"),
    "merge_heads": ("x",),
    "attention": ("q", "k", "v"),
}
_MISTAKES = (
    _Mistake("split_heads", "view_without_transpose",
             N_("view without the transpose"),
             N_("view as (B, L, H, D), then swap L and H with transpose(1, 2)"),
             _SPLIT, in_table=True,
             wrong=lambda x, h: [_heads(x, h), x.reshape(x.shape[0], h, x.shape[1], -1)]),
    _Mistake("split_heads", "transpose_wrong_axes",
             N_("transpose of the wrong axes"),
             N_("swap axes 1 and 2 (L and H) only"),
             _SPLIT,
             wrong=lambda x, h: [_heads(x, h).transpose(*a) for a in ((1, 3), (2, 3), (0, 2))]),
    _Mistake("split_heads", "transpose_all_axes",
             N_(".T on a 4-D tensor (it reverses every axis, (B, L, H, D) -> (D, H, L, B))"),
             N_("swap only axes 1 and 2 (L and H) with transpose(1, 2)"),
             _SPLIT, says=_DOT_T, wrong=lambda x, h: [_heads(x, h).permute(3, 2, 1, 0)]),
    _Mistake("split_heads", "view_wrong_size",
             N_("a view of the wrong size, from a hard-coded shape"),
             N_("read the sizes from the tensor instead of writing them out, and the width of a "
                "head from {num_heads}"),
             _SPLIT, in_table=True, says=_RESHAPE),
    _Mistake("merge_heads", "view_without_transpose",
             N_("merging with a view, without the transpose"),
             N_("move the head axis back next to D with transpose(1, 2) first"),
             _MERGE_VIEW, in_table=True,
             wrong=lambda x: [x.reshape(x.shape[0], x.shape[2], -1)]),
    _Mistake("merge_heads", "view_after_transpose",
             N_("view after transpose without contiguous()"),
             N_("copy into contiguous memory with .contiguous() before the view (or use "
                ".reshape)"),
             _MERGE_VIEW, in_table=True,
             says="view size is not compatible with input tensor's size"),
    _Mistake("merge_heads", "transpose_wrong_axes",
             N_("transpose of the wrong axes"),
             N_("swap axes 1 and 2 (H and L), so that H and D sit side by side"),
             _MERGE,
             wrong=lambda x: [x.permute(*p).reshape(x.shape[0], x.shape[2], -1)
                              for p in ((0, 3, 2, 1), (0, 1, 3, 2), (0, 2, 3, 1))]),
    _Mistake("merge_heads", "view_wrong_size",
             N_("a view of the wrong size, from a hard-coded shape"),
             N_("read the sizes from the tensor instead of writing them out"),
             _MERGE, in_table=True, says=_RESHAPE),
    _Mistake("attention", "transpose_all_axes",
             N_("k.T on a 4-D tensor (it reverses every axis)"),
             N_("{k}.transpose(-2, -1) swaps only the last two axes ({k}.mT is the same)"),
             _ATTEND, in_table=True, says=_DOT_T),
    _Mistake("attention", "no_scale",
             N_("forgetting the 1/√d_k scale"),
             N_("divide the scores by √d_k"),
             _ATTEND, in_table=True, wrong=lambda q, k, v: [_attend(q, k, v, scale=1.0)]),
    _Mistake("attention", "scale_by_d_k",
             N_("dividing by d_k instead of √d_k"),
             N_("divide by the square root of d_k"),
             _ATTEND, wrong=lambda q, k, v: [_attend(q, k, v, scale=1.0 / q.shape[-1])]),
    _Mistake("attention", "softmax_wrong_axis",
             N_("softmax over the wrong axis"),
             N_("softmax(dim=-1), over the keys: each query's row of weights sums to 1"),
             _ATTEND,
             wrong=lambda q, k, v: [_softmax_over(q, k, v, dim) for dim in (-2, 1, 0)]),
    _Mistake("attention", "weights_averaged",
             N_("weights averaged over the heads"),
             N_("keep the head axis: weights (B, H, L, S), one matrix per head, without .mean(1)"),
             _ATTEND, in_table=True, wrong=_averaged),
    _Mistake("attention", "swapped_outputs",
             N_("output and weights returned in the wrong order"),
             N_("return the output first, then the weights"),
             _ATTEND, wrong=lambda q, k, v: [_attend(q, k, v)[::-1]]),
    _Mistake("attention", "weights_not_returned",
             N_("the weights not returned"),
             N_("return both, the output and the weights"),
             _ATTEND, wrong=lambda q, k, v: [_attend(q, k, v)[0]]),
)  # fmt: skip
# a function right on the first input and of the wrong shape on another writes out its sizes
_WRITTEN_OUT = {m.step: m for m in _MISTAKES if m.id == "view_wrong_size"}
_RAISES = _Mistake("any", "raises", N_("your function raised an exception"),
                   N_("call it on tensors of these shapes and read the traceback; compare each "
                      "line with {ref}"))  # fmt: skip
_NO_RETURN = _Mistake("any", "no_return",
                      N_("no return: the function computes its result but returns None"),
                      N_("end the function with return and the result; a Python function that "
                         "ends without return returns None"),
                      code=())  # the step's code  # fmt: skip
_DIFFERS = _Mistake("any", "differs", N_("differs from the reference"),
                    N_("run {ref} beside your function on the same input and compare the shape "
                       "and values after each line"))  # fmt: skip

# The report's sentences and words, worded by _() when a check fails. A part before a noun
# ("output: ", Chinese adds a possessive) and the separator of a position's axes are
# pgettext's: their English alone does not tell them apart.
_TEXT = {
    "ok": N_("✓ {name} matches {ref} on the shapes and seeds tried ({probe}; seeds {seeds})."),
    "bad": N_("✗ {name} does not match {ref} ({probe}; seed {seed})."),
    "mistake": N_("Mistake: {title}{row}."),
    "row": N_(" (a row of the table in the how-to guide 'Common errors and how to fix them')"),
    "what": N_("What happened: {what}"),
    "fix": N_("Fix: {hint}."),
    "fix_code": N_("Fix: {hint}. In your function, replace the wrong line with:"),
    "hint": N_("Hint: {hint}."),
    "type": N_("{part}expected {want}, got {got}"),
    "dtype": N_("{part}expected dtype {want}, got {got}"),
    "shape": N_("{part}expected shape {want}, got {got}"),
    "value": N_("{part}first differs at {where}: expected {want:.6g}, got {got:.6g}"),
    "tensor": N_("a Tensor of shape {shape}"),
    "sequence": N_("a {type} of {n}"),
    "output": N_("output: "),
    "weights": N_("weights: "),
    # a position in words: one phrase per axis
    "batch": N_("batch {}"),
    "head": N_("head {}"),
    "token": N_("token {}"),
    "feature": N_("feature {}"),
    "query": N_("query token {}"),
    "key": N_("key token {}"),
}


# ---------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------


def _kind(obj: object) -> str:
    if obj is None:
        return "None"
    if isinstance(obj, Tensor):
        return _(_TEXT["tensor"]).format(shape=tuple(obj.shape))
    if isinstance(obj, tuple | list):
        return _(_TEXT["sequence"]).format(type=type(obj).__name__, n=len(obj))
    return type(obj).__name__


@dataclass(frozen=True)
class _Diff:
    """The first difference between a result and the reference, before it is put in words."""

    key: str  # the entry of _TEXT that words it: "type", "dtype", "shape" or "value"
    want: object
    got: object
    part: int | None = None  # 0 or 1 of (output, weights); None for a single tensor
    index: tuple[int, ...] = ()  # "value": the first position that differs


def _compare(got: object, want: object) -> _Diff | None:
    """``None`` when ``got`` equals ``want`` (float32 tolerance), else the first difference."""
    if isinstance(want, tuple):  # (output, weights)
        if not isinstance(got, tuple | list) or len(got) != len(want):
            return _Diff("type", "(output, weights)", got)
        for part, (g, w) in enumerate(zip(got, want, strict=True)):
            diff = _compare(g, w)
            if diff is not None:
                return dataclasses.replace(diff, part=part)
        return None
    if not isinstance(got, Tensor):
        return _Diff("type", "Tensor", got)
    if got.dtype != want.dtype:
        return _Diff("dtype", want.dtype, got.dtype)
    if got.shape != want.shape:
        return _Diff("shape", tuple(want.shape), tuple(got.shape))
    try:
        torch.testing.assert_close(got, want)
    except AssertionError:
        far = ~torch.isclose(got.detach(), want, rtol=1.3e-6, atol=1e-5)  # assert_close's
        index = tuple(far.nonzero()[0].tolist()) if far.any() else (0,) * want.dim()
        return _Diff("value", want[index].item(), got[index].item(), index=index)
    return None


def _describe(diff: _Diff, axes: tuple) -> str:
    """The difference in words, in the current language; ``axes`` names the axes of the
    output, as ``_HEADS`` does, or of each of (output, weights)."""
    part = ""
    if diff.part is not None:
        part, axes = _(_TEXT[("output", "weights")[diff.part]]), axes[diff.part]
    got = _kind(diff.got) if diff.key == "type" else diff.got
    where = ""
    if diff.key == "value":  # "batch 0, head 0, token 1, feature 0"
        words = (_(_TEXT[axis]).format(i) for axis, i in zip(axes, diff.index, strict=True))
        where = pgettext("between the axes of a position", ", ").join(words)
    # "output: " as it is in English; Chinese makes it a possessive before the noun
    part_of = pgettext("a part before a noun", "{}").format(part) if part else part
    message = _(_TEXT[diff.key])
    return message.format(part=part, part_of=part_of, want=diff.want, got=got, where=where)


def _shape(result: object) -> object:
    return result.shape if isinstance(result, Tensor) else None


def _same(got: object, want: object) -> bool:
    try:
        return _compare(got, want) is None
    except Exception:  # noqa: BLE001 - a result that cannot be compared is not this mistake
        return False


def _call(fn: Callable, inputs: tuple) -> tuple[object, Exception | None, list[str]]:
    """``fn`` on copies of the inputs: its result, its exception, the warnings it raised."""
    copies = tuple(t.clone() if isinstance(t, Tensor) else t for t in inputs)
    warn_always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch gives some warnings once per process: get them each time
    try:  # fork_rng: the learner's global RNG state is the same after the check
        with warnings.catch_warnings(record=True) as caught, torch.random.fork_rng(devices=[]):
            warnings.simplefilter("always")
            try:
                result, error = fn(*copies), None
            except Exception as err:  # noqa: BLE001 - diagnosed, never raised
                result, error = None, err
            return result, error, [f"{w.category.__name__}: {w.message}" for w in caught]
    finally:
        torch.set_warn_always(warn_always)


def _diagnose(step: str, inputs: tuple, got: object, error: Exception | None, warned: list[str]):
    """The mistake that explains the result (or the exception), and the message that shows it."""
    if error is None and got is None:  # first: what the code warned of was lost with its result
        return _NO_RETURN, None
    said = warned + ([f"{type(error).__name__}: {error}"] if error is not None else [])
    for mistake in _MISTAKES:
        for message in said:
            if mistake.step == step and mistake.says and re.search(mistake.says, message):
                return mistake, message
    if error is not None:
        return _RAISES, said[-1]
    for mistake in _MISTAKES:
        if (
            mistake.step == step
            and mistake.wrong
            and any(_same(got, wrong) for wrong in mistake.wrong(*inputs))
        ):
            return mistake, None
    return _DIFFERS, None


def _names(fn: Callable, step: str) -> dict[str, str]:
    """The learner's names for the step's parameters (``{"x": "x", "num_heads": "h"}``): those of
    ``fn``'s signature, else, when it has none or takes ``*args``, the documented call's."""
    roles = _PARAMETERS[step]
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin or an odd callable: no signature to read
        parameters = ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    named = [p.name for p in parameters if p.kind in kinds]
    return dict(zip(roles, named if len(named) >= len(roles) else roles, strict=False))


def _fix_code(step: str, mistake: _Mistake, fn: Callable, names: dict[str, str]) -> str | None:
    """The fix's lines in ``fn``'s names: they run where the wrong line stood, as printed."""
    if mistake.code is None:
        return None
    lines = "\n".join(mistake.code or _CODE[step])
    for local in _LOCALS:
        if local in names.values():  # a parameter of that name: the code's own gets a _
            lines = re.sub(rf"\b{local}\b", f"{local}_", lines)
    q = names.get("q", "q")
    sqrt_d_k = (  # math.sqrt as the lesson writes it, where the learner's module has math
        f"math.sqrt({q}.shape[-1])"
        if getattr(fn, "__globals__", {}).get("math") is math
        else f"{q}.shape[-1] ** 0.5"
    )
    return lines.format(sqrt_d_k=sqrt_d_k, **names)


def _shapes(sizes: list[tuple[int, int, int]], shape: Callable[..., tuple]) -> str:
    """The shapes of one input for each (B, L, S) in ``sizes``: ``(2, 5, 12), (5, 7, 12)``."""
    return ", ".join(str(shape(*each)) for each in sizes)


def _check(step: str, fn, lang, fix: bool, make_inputs, reference, ref: str, probe, axes) -> Report:
    with language(lang):
        return _check_in_language(step, fn, fix, make_inputs, reference, ref, probe, axes)


def _check_in_language(step: str, fn, fix: bool, make_inputs, reference, ref, probe, axes):
    if not callable(fn):
        message = _("expected fn to be a callable (your function), got {type}")
        raise TypeError(message.format(type=type(fn).__name__))
    name = getattr(fn, "__name__", type(fn).__name__)
    for seed in SEEDS:
        inputs = make_inputs(torch.Generator().manual_seed(seed), *PROBES[seed])
        want = reference(*inputs)
        got, error, warned = _call(fn, inputs)
        try:
            diff = None if error is not None else _compare(got, want)
            what = None if diff is None else _describe(diff, axes)
        except Exception as err:  # noqa: BLE001 - an odd result that cannot be compared
            what = f"{type(err).__name__}: {err}"
        if error is None and what is None:
            continue
        mistake, said = _diagnose(step, inputs, got, error, warned)
        if mistake is _DIFFERS and seed != SEEDS[0] and _shape(got) != _shape(want):
            # right on the first input's sizes, the wrong shape on these: sizes written out
            mistake = _WRITTEN_OUT.get(step, mistake)
        if said is not None:  # the first sentence of what fn raised or warned
            what = re.split(r"(?<=\.) ", said.strip().splitlines()[0])[0]
        names = _names(fn, step)
        hint = _(mistake.hint).format(ref=ref, **names)
        code = _fix_code(step, mistake, fn, names) if fix else None
        advice = "hint" if not fix else "fix" if code is None else "fix_code"
        lines = [
            _(_TEXT["bad"]).format(name=name, ref=ref, probe=probe([PROBES[seed]]), seed=seed),
            _(_TEXT["mistake"]).format(
                title=_(mistake.title), row=_(_TEXT["row"]) if mistake.in_table else ""
            ),
            _(_TEXT["what"]).format(what=what),
            _(_TEXT[advice]).format(hint=hint),
        ]
        lines += [] if code is None else [f"    {line}" for line in code.splitlines()]
        return Report(False, mistake.id, "\n".join(lines), code)
    seeds = ", ".join(map(str, SEEDS))
    probes = probe(list(PROBES.values()))
    return Report(True, None, _(_TEXT["ok"]).format(name=name, ref=ref, probe=probes, seeds=seeds))


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------


def split_heads(fn: Callable, *, lang: str | None = None, fix: bool = True) -> Report:
    """Check your own ``split_heads`` against :func:`mha.split_heads`.

    ``fn(x, num_heads)`` takes ``x`` of shape ``(B, L, E)`` and returns ``(B, H, L, D)``.

    Parameters
    ----------
    fn : callable
        Your function; it is called as ``fn(x, num_heads)`` on float32 CPU tensors.
    lang : {"en", "zh_CN"}, optional
        Language of the report; defaults to :func:`mha.set_language`'s, else ``MHA_LANG``'s,
        else the locale's, else English.
    fix : bool, default=True
        Whether the report prints the code of the fix (in your function's names); with
        ``False`` it names the mistake and gives a hint in words, for an exercise whose answer
        is still to come.

    Returns
    -------
    Report
        ``ok``, the ``mistake`` found (or ``None``) and the message with the fix.

    Raises
    ------
    TypeError
        If ``fn`` is not callable. Whatever ``fn`` raises is reported instead.
    ValueError
        If ``lang`` is not one of the languages.

    Examples
    --------
    >>> import mha
    >>> def split(x, num_heads):
    ...     B, L, E = x.shape
    ...     return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)
    >>> mha.check.split_heads(split, lang="en")
    ✓ split matches mha.split_heads on the shapes and seeds tried (x: (2, 5, 12), (5, 7, 12),
    (7, 2, 12), num_heads=3; seeds 0, 1, 2).
    >>> def split_lesson_sizes(x, num_heads):
    ...     return x.view(2, 5, 8, 8).transpose(1, 2)  # the lesson's sizes, written out
    >>> mha.check.split_heads(split_lesson_sizes).mistake
    'view_wrong_size'
    """
    return _check(
        "split_heads", fn, lang, fix,
        lambda gen, b, n, s: (torch.randn(b, n, E, generator=gen), H),  # (B, L, E), H
        _functional.split_heads, "mha.split_heads",
        lambda sizes: f"x: {_shapes(sizes, lambda b, n, s: (b, n, E))}, num_heads={H}", _HEADS,
    )  # fmt: skip


def merge_heads(fn: Callable, *, lang: str | None = None, fix: bool = True) -> Report:
    """Check your own ``merge_heads`` against :func:`mha.merge_heads`.

    ``fn(x)`` takes ``x`` of shape ``(B, H, L, D)`` and returns ``(B, L, E)``.

    Parameters
    ----------
    fn : callable
        Your function; it is called as ``fn(x)`` on a float32 CPU tensor.
    lang : {"en", "zh_CN"}, optional
        Language of the report; defaults to :func:`mha.set_language`'s, else ``MHA_LANG``'s,
        else the locale's, else English.
    fix : bool, default=True
        Whether the report prints the code of the fix (in your function's names); with
        ``False`` it names the mistake and gives a hint in words, for an exercise whose answer
        is still to come.

    Returns
    -------
    Report

    Raises
    ------
    TypeError
        If ``fn`` is not callable. Whatever ``fn`` raises is reported instead.
    ValueError
        If ``lang`` is not one of the languages.

    Examples
    --------
    >>> import mha
    >>> def merge(x):
    ...     B, H, L, D = x.shape
    ...     return x.transpose(1, 2).reshape(B, L, H * D)
    >>> mha.check.merge_heads(merge).ok
    True
    >>> def merge_view(x):
    ...     B, H, L, D = x.shape
    ...     return x.transpose(1, 2).view(B, L, H * D)  # not contiguous: view raises
    >>> report = mha.check.merge_heads(merge_view, lang="en")
    >>> report.mistake
    'view_after_transpose'
    >>> print(report)
    ✗ merge_view does not match mha.merge_heads (x: (2, 3, 5, 4); seed 0).
    Mistake: view after transpose without contiguous() (a row of the table in the how-to ...).
    What happened: RuntimeError: view size is not compatible with input tensor's size and ...
    Fix: copy into contiguous memory with .contiguous() before the view (or use .reshape). ...
        B, H, L, D = x.shape
        return x.transpose(1, 2).contiguous().view(B, L, H * D)
    """
    return _check(
        "merge_heads", fn, lang, fix,
        lambda gen, b, n, s: (torch.randn(b, H, n, D, generator=gen),),  # (B, H, L, D)
        _functional.merge_heads, "mha.merge_heads",
        lambda sizes: f"x: {_shapes(sizes, lambda b, n, s: (b, H, n, D))}", _TOKENS,
    )  # fmt: skip


def attention(fn: Callable, *, lang: str | None = None, fix: bool = True) -> Report:
    """Check your attention of all heads at once against :func:`mha.scaled_dot_product_attention`.

    Parameters
    ----------
    fn : callable
        Your function; it is called as ``fn(q, k, v)`` with float32 CPU tensors ``q`` of shape
        ``(B, H, L, D)`` and ``k``, ``v`` of shape ``(B, H, S, D)``, and should return the
        output ``(B, H, L, D)`` and the weights ``(B, H, L, S)``.
    lang : {"en", "zh_CN"}, optional
        Language of the report; defaults to :func:`mha.set_language`'s, else ``MHA_LANG``'s,
        else the locale's, else English.
    fix : bool, default=True
        Whether the report prints the code of the fix (in your function's names); with
        ``False`` it names the mistake and gives a hint in words, for an exercise whose answer
        is still to come.

    Returns
    -------
    Report

    Raises
    ------
    TypeError
        If ``fn`` is not callable. Whatever ``fn`` raises is reported instead.
    ValueError
        If ``lang`` is not one of the languages.

    Examples
    --------
    >>> import math, torch, mha
    >>> def attend(q, k, v):
    ...     weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    ...     return weights @ v, weights
    >>> mha.check.attention(attend).ok
    True
    >>> def attend_unscaled(q, k, v):
    ...     weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    ...     return weights @ v, weights
    >>> mha.check.attention(attend_unscaled, lang="en")
    ✗ attend_unscaled does not match mha.scaled_dot_product_attention (q: (2, 3, 5, 4), ...).
    Mistake: forgetting the 1/√d_k scale (a row of the table in the how-to guide 'Common errors and how to fix them').
    What happened: output: first differs at batch 0, head 0, token 0, feature 0: expected ...
    Fix: divide the scores by √d_k. In your function, replace the wrong line with:
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, L, S)
        weights = scores.softmax(dim=-1)
        return weights @ v, weights
    """
    return _check(
        "attention", fn, lang, fix,
        lambda gen, b, n, s: tuple(torch.randn(b, H, m, D, generator=gen) for m in (n, s, s)),
        _functional.scaled_dot_product_attention, "mha.scaled_dot_product_attention",
        lambda sizes: f"q: {_shapes(sizes, lambda b, n, s: (b, H, n, D))}, "
        f"k, v: {_shapes(sizes, lambda b, n, s: (b, H, s, D))}",
        (_HEADS, _WEIGHTS),
    )  # fmt: skip
