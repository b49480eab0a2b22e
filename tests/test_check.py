"""mha.check: each known mistake, written on purpose as a learner would, is named; correct
variants pass; anything else is "differs"; the learner's exceptions never escape."""

from __future__ import annotations

import builtins
import math
import re
import sys
import warnings

import pytest
import torch
import torch.nn.functional as F

import mha
from mha import _i18n, check

CJK = re.compile(r"[\u4e00-\u9fff]")


# ---------------------------------------------------------------------------
# Learner functions: correct ones
# ---------------------------------------------------------------------------


def split_view_transpose(x, h):
    B, L, E = x.shape
    return x.view(B, L, h, E // h).transpose(1, 2)


def split_reshape_permute(x, h):
    B, L, _ = x.shape
    return x.reshape(B, L, h, -1).permute(0, 2, 1, 3)


def split_stack_chunks(x, h):
    return torch.stack(x.chunk(h, -1), 1)


def merge_contiguous_view(x):
    B, H, L, D = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * D)


def merge_reshape(x):
    B, _, L, _ = x.shape
    return x.transpose(1, 2).reshape(B, L, -1)


def merge_permute_reshape(x):
    B, H, L, D = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * D)


def merge_cat_unbind(x):
    return torch.cat(x.unbind(1), -1)


def attend_manual(q, k, v):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return weights @ v, weights


def attend_einsum(q, k, v):
    scores = torch.einsum("bhld,bhsd->bhls", q, k) / math.sqrt(q.shape[-1])
    weights = scores.softmax(-1)
    return torch.einsum("bhls,bhsd->bhld", weights, v), weights


def attend_fused(q, k, v):
    weights = (q @ k.mT * q.shape[-1] ** -0.5).softmax(-1)
    return F.scaled_dot_product_attention(q, k, v), weights


CORRECT = [
    (check.split_heads, split_view_transpose),
    (check.split_heads, split_reshape_permute),
    (check.split_heads, split_stack_chunks),
    (check.merge_heads, merge_contiguous_view),
    (check.merge_heads, merge_reshape),
    (check.merge_heads, merge_permute_reshape),
    (check.merge_heads, merge_cat_unbind),
    (check.attention, attend_manual),
    (check.attention, attend_einsum),
    (check.attention, attend_fused),
    (check.attention, mha.scaled_dot_product_attention),
]


# ---------------------------------------------------------------------------
# Learner functions: each known mistake, on purpose
# ---------------------------------------------------------------------------


def _scores(q, k, scale):
    return q @ k.transpose(-2, -1) * scale  # (B, H, L, S)


def _attend_with(weights_of):
    def attend(q, k, v):
        weights = weights_of(q, k)
        return weights @ v, weights

    return attend


_attend_with_dot_t = _attend_with(lambda q, k: (q @ k.T / math.sqrt(q.shape[-1])).softmax(-1))


def split_dot_t(x, num_heads):  # torch warns that .T on a 4-D tensor is deprecated
    B, L, E = x.shape
    return x.view(B, L, num_heads, E // num_heads).T  # (D, H, L, B)


def split_permute_all(x, num_heads):  # the same axes reversed, without the warning
    B, L, E = x.shape
    return x.view(B, L, num_heads, E // num_heads).permute(3, 2, 1, 0)  # (D, H, L, B)


# (check, mistake id, learner function, a piece of the fix the report must show)
MISTAKES = [
    (check.split_heads, "view_without_transpose",
     lambda x, h: x.view(x.shape[0], h, x.shape[1], -1), "x.view(B, L, h, E // h).transpose(1, 2)"),
    (check.split_heads, "view_without_transpose",
     lambda x, h: x.view(*x.shape[:2], h, -1), "x.view(B, L, h, E // h).transpose(1, 2)"),
    (check.split_heads, "transpose_wrong_axes",
     lambda x, h: x.view(*x.shape[:2], h, -1).transpose(1, 3), ".transpose(1, 2)"),
    (check.split_heads, "transpose_wrong_axes",
     lambda x, h: x.view(*x.shape[:2], h, -1).transpose(2, 3), ".transpose(1, 2)"),
    (check.split_heads, "view_wrong_size",
     lambda x, h: x.view(2, 5, 8, 8).transpose(1, 2), "B, L, E = x.shape"),
    (check.split_heads, "view_wrong_size",  # the lesson's B, L written out: right on seed 0
     lambda x, h: x.view(2, 5, h, -1).transpose(1, 2), "B, L, E = x.shape"),
    (check.split_heads, "transpose_all_axes", split_dot_t, ".transpose(1, 2)"),
    (check.split_heads, "transpose_all_axes", split_permute_all, ".transpose(1, 2)"),
    (check.merge_heads, "view_without_transpose",
     lambda x: x.reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2).contiguous().view("),
    (check.merge_heads, "view_after_transpose",
     lambda x: x.transpose(1, 2).view(x.shape[0], x.shape[2], -1), ".contiguous().view(B, L, H * D)"),
    (check.merge_heads, "transpose_wrong_axes",
     lambda x: x.transpose(1, 3).reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2)"),
    (check.merge_heads, "transpose_wrong_axes",
     lambda x: x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2)"),
    (check.merge_heads, "view_wrong_size",
     lambda x: x.transpose(1, 2).reshape(2, 5, 64), "B, H, L, D = x.shape"),
    (check.merge_heads, "view_wrong_size",  # the lesson's B, L written out: right on seed 0
     lambda x: x.transpose(1, 2).reshape(2, 5, -1), "B, H, L, D = x.shape"),
    (check.attention, "no_scale",
     _attend_with(lambda q, k: _scores(q, k, 1.0).softmax(-1)), "/ math.sqrt(q.shape[-1])"),
    (check.attention, "scale_by_d_k",
     _attend_with(lambda q, k: _scores(q, k, 1 / q.shape[-1]).softmax(-1)), "/ math.sqrt(q.shape[-1])"),
    (check.attention, "softmax_wrong_axis",
     _attend_with(lambda q, k: _scores(q, k, q.shape[-1] ** -0.5).softmax(-2)), "softmax(dim=-1)"),
    (check.attention, "softmax_wrong_axis",
     _attend_with(lambda q, k: _scores(q, k, q.shape[-1] ** -0.5).softmax(1)), "softmax(dim=-1)"),
    (check.attention, "softmax_wrong_axis",  # no dim: torch warns and picks dim=1 for 4-D
     _attend_with(lambda q, k: F.softmax(_scores(q, k, q.shape[-1] ** -0.5))), "softmax(dim=-1)"),
    (check.attention, "transpose_all_axes", _attend_with_dot_t, "k.transpose(-2, -1)"),
    (check.attention, "weights_averaged",
     lambda q, k, v: (attend_manual(q, k, v)[0], attend_manual(q, k, v)[1].mean(1)),
     "(B, H, L, S)"),
    (check.attention, "weights_averaged",
     lambda q, k, v: (attend_manual(q, k, v)[0], attend_manual(q, k, v)[1].mean(1, True)),
     "(B, H, L, S)"),
    (check.attention, "swapped_outputs",
     lambda q, k, v: attend_manual(q, k, v)[::-1], "return weights @ v, weights"),
    (check.attention, "weights_not_returned",
     lambda q, k, v: attend_manual(q, k, v)[0], "return weights @ v, weights"),
]  # fmt: skip
MISTAKE_IDS = [f"{c.__name__}-{m}-{i}" for i, (c, m, _, _) in enumerate(MISTAKES)]


def split_no_return(x, num_heads):
    B, L, E = x.shape
    x.view(B, L, num_heads, E // num_heads).transpose(1, 2)  # computed, never returned


def merge_no_return(x):
    B, H, L, D = x.shape
    x.transpose(1, 2).reshape(B, L, H * D)


def attend_no_return(q, k, v):
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    output = weights @ v  # noqa: F841 - the mistake under test


def split_no_return_with_dot_t(x, num_heads):  # two mistakes: the missing return comes first
    B, L, E = x.shape
    x.view(B, L, num_heads, E // num_heads).T  # noqa: B018 - the mistake under test


# (check, learner function, what it returned in words (en, zh), the fix's return line)
NO_RETURN = [
    (check.split_heads, split_no_return, ("Tensor", "Tensor"),
     "    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)"),
    (check.split_heads, split_no_return_with_dot_t, ("Tensor", "Tensor"),
     "    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)"),
    (check.merge_heads, merge_no_return, ("Tensor", "Tensor"),
     "    return x.transpose(1, 2).reshape(B, L, H * D)"),
    (check.attention, attend_no_return, ("(output, weights)", "(output, weights)"),
     "    return weights @ v, weights"),
]  # fmt: skip

# wrong in a way no known mistake explains: "differs", never a misnamed mistake
UNRELATED = [
    (check.split_heads, lambda x, h: split_view_transpose(x * 2, h)),
    (check.split_heads, lambda x, h: split_view_transpose(x + 0.1 * torch.randn_like(x), h)),
    (check.merge_heads, lambda x: merge_reshape(x) * 2),
    (check.merge_heads, lambda x: merge_reshape(x.flip(2))),
    (check.attention, lambda q, k, v: (attend_manual(q, k, v)[0] + 1, attend_manual(q, k, v)[1])),
    (check.attention, lambda q, k, v: attend_manual(q, v, k)),
    (check.attention, lambda q, k, v: attend_manual(q * 3, k, v)),
]


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("run", "fn"), CORRECT, ids=lambda p: getattr(p, "__name__", None))
def test_correct_variants_pass(run, fn):
    report = run(fn, lang="en")
    assert report.ok is True
    assert report.mistake is None
    assert "matches" in str(report)
    assert "(2, 5, 12), (5, 7, 12), (7, 2, 12), num_heads=3; seeds 0, 1, 2" in str(report) or (
        "; seeds 0, 1, 2" in str(report) and run is not check.split_heads
    )


@pytest.mark.parametrize(("run", "mistake", "fn", "fix"), MISTAKES, ids=MISTAKE_IDS)
def test_each_known_mistake_is_named(run, mistake, fn, fix):
    report = run(fn, lang="en")
    assert report.ok is False
    assert report.mistake == mistake, str(report)
    assert "Fix: " in str(report)
    assert fix in str(report)


def test_every_mistake_in_the_table_has_a_learner_function():
    steps = {check.split_heads: "split_heads", check.merge_heads: "merge_heads"}
    tested = {(steps.get(run, "attention"), mistake) for run, mistake, _, _ in MISTAKES}
    assert tested == {(m.step, m.id) for m in check._MISTAKES}


@pytest.mark.parametrize(("run", "fn"), UNRELATED)
def test_unrelated_wrong_code_differs(run, fn):
    report = run(fn, lang="en")
    assert (report.ok, report.mistake) == (False, "differs"), str(report)
    assert "differs from the reference" in str(report)
    words = r"batch \d+(, (head|token|feature|query token|key token) \d+)+"
    assert re.search(rf"first differs at {words}: expected \S+, got \S+", str(report))
    assert "index" not in str(report)


def test_a_shape_mismatch_gives_both_shapes():
    report = check.merge_heads(lambda x: x.transpose(1, 2), lang="en")  # forgot to merge
    assert report.mistake == "differs"
    assert "expected shape (2, 5, 12), got (2, 5, 3, 4)" in str(report)


def _first_inputs(run):
    """The inputs each check tries first (seed 0), built as the check builds them."""
    gen = torch.Generator().manual_seed(0)
    if run is check.split_heads:
        return torch.randn(2, 5, 12, generator=gen), 3  # (B, L, E), H
    if run is check.merge_heads:
        return (torch.randn(2, 3, 5, 4, generator=gen),)  # (B, H, L, D)
    return tuple(torch.randn(2, 3, n, 4, generator=gen) for n in (5, 7, 7))  # q, k, v


REFERENCE = {
    check.split_heads: mha.split_heads,
    check.merge_heads: mha.merge_heads,
    check.attention: mha.scaled_dot_product_attention,
}


def _one_value_wrong(run, part, index):
    """A learner function that is right except for one value, 100, at ``index``."""

    def almost(*inputs):
        result = REFERENCE[run](*inputs)
        tensor = (result if part is None else result[part]).clone()
        tensor[index] = 100.0
        if part is None:
            return tensor
        return (tensor, result[1]) if part == 0 else (result[0], tensor)

    return almost


# (check, part of (output, weights) or None, the wrong position, it in words: en, zh)
POSITIONS = [
    (check.split_heads, None, (1, 2, 3, 1),
     "batch 1, head 2, token 3, feature 1",
     "第 1 个批量样本、第 2 个头、第 3 个词元、第 1 个特征"),
    (check.merge_heads, None, (1, 4, 7),
     "batch 1, token 4, feature 7",
     "第 1 个批量样本、第 4 个词元、第 7 个特征"),
    (check.attention, 0, (0, 1, 4, 2),
     "output: first differs at batch 0, head 1, token 4, feature 2",
     "第一处不同位于输出的第 0 个批量样本、第 1 个头、第 4 个词元、第 2 个特征"),
    (check.attention, 1, (1, 2, 3, 6),
     "weights: first differs at batch 1, head 2, query token 3, key token 6",
     "第一处不同位于注意力权重的第 1 个批量样本、第 2 个头、第 3 个查询词元、第 6 个键词元"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("run", "part", "index", "en", "zh"),
    POSITIONS,
    ids=["split_heads", "merge_heads", "attention-output", "attention-weights"],
)
def test_differs_names_the_position_in_words(run, part, index, en, zh):
    result = REFERENCE[run](*_first_inputs(run))
    want = (result if part is None else result[part])[index].item()
    fn = _one_value_wrong(run, part, index)
    report_en, report_zh = run(fn, lang="en"), run(fn, lang="zh_CN")
    assert report_en.mistake == report_zh.mistake == "differs"
    if part is None:  # one tensor: no "output: " in front
        en, zh = f"first differs at {en}", f"第一处不同位于{zh}"
    assert f"What happened: {en}: expected {want:.6g}, got 100\n" in str(report_en)
    assert f"实际情况：{zh}，应为 {want:.6g}，实际为 100\n" in str(report_zh)


def test_a_known_mistake_shows_the_position_in_words():
    x, h = _first_inputs(check.split_heads)
    want, got = mha.split_heads(x, h)[0, 0, 1, 0].item(), x.view(2, h, 5, 4)[0, 0, 1, 0].item()
    fn = next(fn for _, m, fn, _ in MISTAKES if m == "view_without_transpose")
    report_en, report_zh = check.split_heads(fn, lang="en"), check.split_heads(fn, lang="zh_CN")
    assert report_en.mistake == report_zh.mistake == "view_without_transpose"
    assert (
        "What happened: first differs at batch 0, head 0, token 1, feature 0: "
        f"expected {want:.6g}, got {got:.6g}\n"
    ) in str(report_en)
    assert (
        "实际情况：第一处不同位于第 0 个批量样本、第 0 个头、第 1 个词元、第 0 个特征，"
        f"应为 {want:.6g}，实际为 {got:.6g}\n"
    ) in str(report_zh)


@pytest.mark.parametrize(
    ("run", "fn", "returned", "fix"), NO_RETURN, ids=[fn.__name__ for _, fn, _, _ in NO_RETURN]
)
def test_a_forgotten_return_is_named(run, fn, returned, fix):
    report_en, report_zh = run(fn, lang="en"), run(fn, lang="zh_CN")
    assert (report_en.ok, report_en.mistake) == (False, "no_return")
    assert (report_zh.ok, report_zh.mistake) == (False, "no_return")
    assert str(report_en).splitlines()[1:3] == [
        "Mistake: no return: the function computes its result but returns None.",
        f"What happened: expected {returned[0]}, got None",
    ]
    assert str(report_zh).splitlines()[1:3] == [
        "错误：没有 return，函数算出了结果，却返回了 None。",
        f"实际情况：应为 {returned[1]}，实际为 None",
    ]
    assert str(report_en).splitlines()[3] == (
        "Fix: end the function with return and the result; a Python function that ends without "
        "return returns None. In your function, replace the wrong line with:"
    )
    assert str(report_zh).splitlines()[3] == (
        "修复：在函数末尾用 return 返回结果；Python 函数执行到末尾还没有遇到 return，就返回 None。"
        "在你的函数里，把出错的那一行换成下面的代码。"
    )
    assert str(report_en).splitlines()[-1] == str(report_zh).splitlines()[-1] == fix


@pytest.mark.parametrize("fn", [split_dot_t, split_permute_all])
def test_dot_t_in_split_heads_is_named(fn):
    """``x.view(B, L, H, D).T`` reverses every axis: named by torch's warning, or, with the same
    axes reversed by ``permute`` (no warning), by the result."""
    report_en, report_zh = check.split_heads(fn, lang="en"), check.split_heads(fn, lang="zh_CN")
    assert report_en.mistake == report_zh.mistake == "transpose_all_axes"
    (_, *en), (_, *zh) = str(report_en).splitlines(), str(report_zh).splitlines()
    if fn is split_dot_t:  # what torch warned
        assert en.pop(1).startswith("What happened: UserWarning: The use of `x.T` on tensors")
        assert zh.pop(1).startswith("实际情况：UserWarning: The use of `x.T` on tensors")
    else:
        assert en.pop(1) == "What happened: expected shape (2, 3, 5, 4), got (4, 3, 5, 2)"
        assert zh.pop(1) == "实际情况：形状应为 (2, 3, 5, 4)，实际为 (4, 3, 5, 2)"
    code = [
        "    B, L, E = x.shape",
        "    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)",
    ]
    assert en == [
        "Mistake: .T on a 4-D tensor (it reverses every axis, (B, L, H, D) -> (D, H, L, B)).",
        (
            "Fix: swap only axes 1 and 2 (L and H) with transpose(1, 2). In your function, "
            "replace the wrong line with:"
        ),
        *code,
    ]
    assert zh == [
        "错误：对 4 维张量用了 .T（它把所有维度的顺序倒过来，(B, L, H, D) 变成 (D, H, L, B)）。",
        (
            "修复：用 transpose(1, 2) 只交换第 1 个和第 2 个维度（L 和 H）。"
            "在你的函数里，把出错的那一行换成下面的代码。"
        ),
        *code,
    ]


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
@pytest.mark.parametrize("fn", [split_view_transpose, split_permute_all], ids=["ok", "mistake"])
def test_a_bare_report_shows_its_message(capsys, monkeypatch, lang, fn):
    """A report as the last expression at a plain Python prompt (``sys.displayhook`` prints its
    repr), or inside a list: the message, not ``Report(ok=..., mistake=...)``."""
    monkeypatch.setattr(builtins, "_", None, raising=False)  # the prompt's hook sets _
    report = check.split_heads(fn, lang=lang)
    assert repr(report) == str(report) == report.message
    assert repr(report).startswith("✓" if report.ok else "✗")
    sys.__displayhook__(report)
    assert capsys.readouterr().out == report.message + "\n"
    assert repr([report]) == f"[{report.message}]"


@pytest.mark.parametrize(
    ("run", "fn"),
    [
        (check.split_heads, lambda x, h: x.numpy()),
        (check.merge_heads, lambda x: x.tolist()),
        (check.attention, lambda q, k, v: (q, k, v)),
        (check.attention, lambda q, k, v: (q.double(), k)),
    ],
)
def test_results_of_the_wrong_type_differ(run, fn):
    report = run(fn, lang="en")
    assert report.mistake == "differs"
    assert "expected" in str(report)


def test_an_exception_in_fn_is_diagnosed_not_raised():
    def buggy(x, num_heads):
        raise ValueError("my own bug")

    report = check.split_heads(buggy, lang="en")
    assert (report.ok, report.mistake) == (False, "raises")
    assert "ValueError: my own bug" in str(report)


def test_the_dot_t_warning_is_seen_every_time():
    """torch warns about 4-D ``.T`` once per process; the check sees it on every call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.zeros(1, 1, 1).T  # noqa: B018 - spends the once-per-process warning, if still unspent
    for run, fn in [(check.attention, _attend_with_dot_t), (check.split_heads, split_dot_t)]:
        for _ in range(2):
            report = run(fn, lang="en")
            assert report.mistake == "transpose_all_axes"
            assert "`x.T`" in str(report)
    assert not torch.is_warn_always_enabled()


@pytest.mark.parametrize(("run", "mistake", "fn", "fix"), MISTAKES, ids=MISTAKE_IDS)
def test_chinese_messages_for_every_mistake(run, mistake, fn, fix):
    en, zh = run(fn, lang="en"), run(fn, lang="zh_CN")
    assert zh.mistake == en.mistake == mistake
    assert CJK.search(str(zh))
    assert not CJK.search(str(en))
    assert str(zh) != str(en)
    assert fix in str(zh)  # the code is the same in both languages
    for word in ("课程", "宽度", "宽"):
        assert word not in str(zh)
    for line in str(zh).splitlines():  # quotes “”, and one full-width colon to a line
        assert "「" not in line and "」" not in line, line
        assert line.count("：") <= 1, line


def test_both_languages_cover_the_same_mistakes():
    """Each mistake's title and hint, and each sentence of a report, has its Chinese in the
    package's catalog, the hint with the English one's fields."""
    chinese = _i18n.translation("zh_CN")
    for m in (*check._MISTAKES, check._RAISES, check._NO_RETURN, check._DIFFERS):
        assert m.title and m.hint and not CJK.search(m.title + m.hint)
        title_zh, hint_zh = chinese.gettext(m.title), chinese.gettext(m.hint)
        assert CJK.search(title_zh) and CJK.search(hint_zh), m.id
        assert re.findall(r"\{\w+\}", m.hint) == re.findall(r"\{\w+\}", hint_zh), m.id
    for english in check._TEXT.values():
        assert not CJK.search(english) and CJK.search(chinese.gettext(english)), english


@pytest.mark.parametrize(("env", "expected"), [(None, "en"), ("zh_CN", "zh_CN"), ("xx", "en")])
def test_language_from_mha_lang(monkeypatch, env, expected):
    if env is None:
        monkeypatch.delenv("MHA_LANG", raising=False)
    else:
        monkeypatch.setenv("MHA_LANG", env)
    zh = bool(CJK.search(str(check.split_heads(split_view_transpose))))
    assert zh == (expected == "zh_CN")
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    assert not CJK.search(str(check.split_heads(split_view_transpose, lang="en")))


def test_misuse_of_the_checker_raises():
    with pytest.raises(TypeError, match=r"expected fn to be a callable .*, got int"):
        check.split_heads(42)
    with pytest.raises(ValueError, match=r"expected lang to be one of .*, got 'fr'"):
        check.attention(attend_manual, lang="fr")


def test_report_shows_in_full_in_a_notebook():
    report = check.merge_heads(lambda x: x.reshape(x.shape[0], x.shape[2], -1), lang="en")

    class Printer:  # IPython's pretty printer, as far as _repr_pretty_ uses it
        def __init__(self):
            self.printed = []

        def text(self, s):
            self.printed.append(s)

    printer = Printer()
    report._repr_pretty_(printer, cycle=False)
    assert printer.printed == [str(report)]
    assert str(report).count("\n") == 5  # bad, mistake, what happened, fix and its two lines
    with pytest.raises(AttributeError):
        report.ok = True


def test_inputs_and_global_rng_are_left_alone():
    state = torch.get_rng_state()

    def noisy_in_place(x, num_heads):
        x.add_(torch.randn_like(x))  # draws from the global RNG and writes into its input
        return split_view_transpose(x, num_heads)

    assert check.split_heads(noisy_in_place).mistake == "differs"
    assert check.split_heads(split_view_transpose).ok
    assert torch.equal(torch.get_rng_state(), state)


# ---------------------------------------------------------------------------
# Every printed fix runs as printed, in the learner's own names
# ---------------------------------------------------------------------------

# (check, mistake id, the function's body: the line marked "# wrong" makes the mistake). {x},
# {h}, {q}, {k}, {v} are the learner's parameter names, {sqrt} how their module takes a root.
_SPLIT_SIZES = "B, L, E = {x}.shape"
_MERGE_SIZES = "B, H, L, D = {x}.shape"
_SCORES = "scores = {q} @ {k}.transpose(-2, -1) / {sqrt}"
_WEIGHTS = "weights = torch.softmax(scores, dim=-1)"
_RETURN = "return weights @ {v}, weights"
BODIES = [
    (check.split_heads, "view_without_transpose",
     (_SPLIT_SIZES, "return {x}.view(B, {h}, L, E // {h})  # wrong")),
    (check.split_heads, "transpose_wrong_axes",
     (_SPLIT_SIZES, "return {x}.view(B, L, {h}, E // {h}).transpose(1, 3)  # wrong")),
    (check.split_heads, "transpose_all_axes",
     (_SPLIT_SIZES, "return {x}.view(B, L, {h}, E // {h}).T  # wrong")),
    (check.split_heads, "view_wrong_size",  # page 4's my_split_heads
     ("return {x}.view(2, 5, {h}, 8).transpose(1, 2)  # wrong",)),
    (check.split_heads, "no_return",
     (_SPLIT_SIZES, "{x}.view(B, L, {h}, E // {h}).transpose(1, 2)  # wrong")),
    (check.merge_heads, "view_without_transpose",
     (_MERGE_SIZES, "return {x}.view(B, L, H * D)  # wrong")),
    (check.merge_heads, "view_after_transpose",
     (_MERGE_SIZES, "return {x}.transpose(1, 2).view(B, L, H * D)  # wrong")),
    (check.merge_heads, "transpose_wrong_axes",
     (_MERGE_SIZES, "return {x}.transpose(1, 3).reshape(B, L, H * D)  # wrong")),
    (check.merge_heads, "view_wrong_size",
     ("return {x}.transpose(1, 2).reshape(2, 5, 64)  # wrong",)),
    (check.merge_heads, "no_return",
     (_MERGE_SIZES, "{x}.transpose(1, 2).reshape(B, L, H * D)  # wrong")),
    (check.attention, "transpose_all_axes",
     ("scores = {q} @ {k}.T / {sqrt}  # wrong", _WEIGHTS, _RETURN)),
    (check.attention, "no_scale",
     ("scores = {q} @ {k}.transpose(-2, -1)  # wrong", _WEIGHTS, _RETURN)),
    (check.attention, "scale_by_d_k",
     ("scores = {q} @ {k}.transpose(-2, -1) / {q}.shape[-1]  # wrong", _WEIGHTS, _RETURN)),
    (check.attention, "softmax_wrong_axis",
     (_SCORES, "weights = torch.softmax(scores, dim=-2)  # wrong", _RETURN)),
    (check.attention, "weights_averaged",
     (_SCORES, _WEIGHTS, "return weights @ {v}, weights.mean(1)  # wrong")),
    (check.attention, "swapped_outputs",
     (_SCORES, _WEIGHTS, "return weights, weights @ {v}  # wrong")),
    (check.attention, "weights_not_returned",
     (_SCORES, _WEIGHTS, "return weights @ {v}  # wrong")),
    (check.attention, "no_return",
     (_SCORES, _WEIGHTS, "output = weights @ {v}  # wrong")),
]  # fmt: skip
# the learner's names: the lesson's and others
NAMES = {
    check.split_heads: [("x", "num_heads"), ("tokens", "h")],
    check.merge_heads: [("x",), ("heads",)],
    check.attention: [("q", "k", "v"), ("query", "key", "value")],
}
# parameters named as the fix's own locals (B, H, weights, scores): the fix renames its locals
COLLIDING = [
    (check.split_heads, "view_wrong_size",
     ("return {x}.view(2, 5, {h}, 8).transpose(1, 2)  # wrong",), ("L", "B")),
    (check.merge_heads, "view_wrong_size",
     ("return {x}.transpose(1, 2).reshape(2, 5, 64)  # wrong",), ("H",)),
    (check.attention, "no_scale",
     ("w = torch.softmax({q} @ {k}.transpose(-2, -1), dim=-1)  # wrong", "return w @ {v}, w"),
     ("weights", "scores", "v")),
]  # fmt: skip


def _learner_function(body: tuple[str, ...], params: tuple[str, ...], with_math: bool):
    """The learner's function as source text, and it defined in a fresh module namespace."""
    names = dict(zip(("x", "h") if len(params) < 3 else ("q", "k", "v"), params, strict=False))
    q = names.get("q", "q")
    sqrt = f"math.sqrt({q}.shape[-1])" if with_math else f"{q}.shape[-1] ** 0.5"
    lines = [f"    {line.format(sqrt=sqrt, **names)}" for line in body]
    return f"def learners_function({', '.join(params)}):\n" + "\n".join(lines) + "\n"


def _define(source: str, with_math: bool):
    namespace = {"torch": torch} | ({"math": math} if with_math else {})
    exec(compile(source, "<learner>", "exec"), namespace)  # noqa: S102 - the learner's cell
    return namespace["learners_function"]


def _printed_fix(report) -> list[str]:
    """The lines of code the report prints under its Fix line (indented by four spaces)."""
    lines = str(report).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(("Fix: ", "修复：")))
    code = lines[start + 1 :]
    assert code, str(report)
    assert all(line.startswith("    ") for line in code), str(report)
    return code


def _cases():
    for run, mistake, body in BODIES:
        for params in NAMES[run]:
            for with_math in (True, False) if run is check.attention else (True,):
                yield pytest.param(
                    run, mistake, body, params, with_math,
                    id=f"{run.__name__}-{mistake}-{'-'.join(params)}{'' if with_math else '-no-math'}",
                )  # fmt: skip
    for run, mistake, body, params in COLLIDING:
        yield pytest.param(
            run, mistake, body, params, False, id=f"{run.__name__}-{'-'.join(params)}"
        )


def test_every_mistake_has_a_function_to_fix():
    steps = {check.split_heads: "split_heads", check.merge_heads: "merge_heads"}
    covered = {(steps.get(run, "attention"), mistake) for run, mistake, _ in BODIES}
    known = {(m.step, m.id) for m in check._MISTAKES}
    assert covered == known | {(step, "no_return") for step in {*steps.values(), "attention"}}


@pytest.mark.parametrize(("run", "mistake", "body", "params", "with_math"), list(_cases()))
@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_printed_fix_runs_as_printed(run, mistake, body, params, with_math, lang):
    """The learner's function with the mistake; its wrong line replaced by the lines the report
    prints, as printed: the check passes it."""
    source = _learner_function(body, params, with_math)
    report = run(_define(source, with_math), lang=lang)
    assert report.mistake == mistake, str(report)
    code = _printed_fix(report)
    assert report.fix == "\n".join(line.removeprefix("    ") for line in code)
    wrong = next(line for line in source.splitlines() if line.endswith("# wrong"))
    fixed = source.replace(wrong, "\n".join(code))
    after = run(_define(fixed, with_math), lang=lang)
    assert after.ok, f"{source}\n{report}\n\n{fixed}\n{after}"
    for name in {"x", "num_heads", "q", "k", "v"} - set(params):  # none of the default names
        assert not re.search(rf"\b{name}\b", "\n".join(code).split("#")[0]), code


def test_page_4s_fix_names_num_heads():
    """The issue's case: a split with the lesson's sizes written out, reported in full."""
    source = _learner_function(BODIES[3][2], ("x", "num_heads"), with_math=False)
    report = check.split_heads(_define(source, False), lang="en")
    assert str(report).splitlines()[3:] == [
        (
            "Fix: read the sizes from the tensor instead of writing them out, and the width of a "
            "head from num_heads. In your function, replace the wrong line with:"
        ),
        "    B, L, E = x.shape",
        "    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)",
    ]


@pytest.mark.parametrize(("run", "mistake", "fn", "fix"), MISTAKES, ids=MISTAKE_IDS)
def test_without_the_fix_the_mistake_is_named_and_hinted(run, mistake, fn, fix):
    """``fix=False``, for an exercise: the mistake and a hint in words, no line of the fix."""
    for lang, hint in (("en", "Hint: "), ("zh_CN", "提示：")):
        full, bare = run(fn, lang=lang), run(fn, lang=lang, fix=False)
        assert bare.mistake == full.mistake == mistake
        assert bare.fix is None and full.fix
        assert str(bare).splitlines()[:3] == str(full).splitlines()[:3]
        assert len(str(bare).splitlines()) == 4
        assert str(bare).splitlines()[3].startswith(hint)
        assert all(line not in str(bare) for line in full.fix.splitlines())
