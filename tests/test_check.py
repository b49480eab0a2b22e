"""mha.check: each known mistake, written on purpose as a learner would, is named; correct
variants pass; anything else is "differs"; the learner's exceptions never escape."""

from __future__ import annotations

import math
import re
import warnings

import pytest
import torch
import torch.nn.functional as F

import mha
from mha import check

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


# (check, mistake id, learner function, a piece of the fix the report must show)
MISTAKES = [
    (check.split_heads, "view_without_transpose",
     lambda x, h: x.view(x.shape[0], h, x.shape[1], -1), "x.view(B, L, H, D).transpose(1, 2)"),
    (check.split_heads, "view_without_transpose",
     lambda x, h: x.view(*x.shape[:2], h, -1), "x.view(B, L, H, D).transpose(1, 2)"),
    (check.split_heads, "transpose_wrong_axes",
     lambda x, h: x.view(*x.shape[:2], h, -1).transpose(1, 3), ".transpose(1, 2)"),
    (check.split_heads, "transpose_wrong_axes",
     lambda x, h: x.view(*x.shape[:2], h, -1).transpose(2, 3), ".transpose(1, 2)"),
    (check.split_heads, "view_wrong_size",
     lambda x, h: x.view(2, 5, 8, 8).transpose(1, 2), "B, L, E = x.shape"),
    (check.merge_heads, "view_without_transpose",
     lambda x: x.reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2).contiguous().view("),
    (check.merge_heads, "view_after_transpose",
     lambda x: x.transpose(1, 2).view(x.shape[0], x.shape[2], -1), ".reshape(B, L, H * D)"),
    (check.merge_heads, "transpose_wrong_axes",
     lambda x: x.transpose(1, 3).reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2)"),
    (check.merge_heads, "transpose_wrong_axes",
     lambda x: x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[2], -1), "x.transpose(1, 2)"),
    (check.merge_heads, "view_wrong_size",
     lambda x: x.transpose(1, 2).reshape(2, 5, 64), "B, H, L, D = x.shape"),
    (check.attention, "no_scale",
     _attend_with(lambda q, k: _scores(q, k, 1.0).softmax(-1)), "/ math.sqrt(d_k)"),
    (check.attention, "scale_by_d_k",
     _attend_with(lambda q, k: _scores(q, k, 1 / q.shape[-1]).softmax(-1)), "/ math.sqrt(d_k)"),
    (check.attention, "softmax_wrong_axis",
     _attend_with(lambda q, k: _scores(q, k, q.shape[-1] ** -0.5).softmax(-2)), "softmax(dim=-1)"),
    (check.attention, "softmax_wrong_axis",
     _attend_with(lambda q, k: _scores(q, k, q.shape[-1] ** -0.5).softmax(1)), "softmax(dim=-1)"),
    (check.attention, "softmax_wrong_axis",  # no dim: torch warns and picks dim=1 for 4-D
     _attend_with(lambda q, k: F.softmax(_scores(q, k, q.shape[-1] ** -0.5))), "softmax(dim=-1)"),
    (check.attention, "transpose_all_axes",
     _attend_with(lambda q, k: (q @ k.T / math.sqrt(q.shape[-1])).softmax(-1)),
     "k.transpose(-2, -1)"),
    (check.attention, "weights_averaged",
     lambda q, k, v: (attend_manual(q, k, v)[0], attend_manual(q, k, v)[1].mean(1)),
     "(B, H, L, S)"),
    (check.attention, "weights_averaged",
     lambda q, k, v: (attend_manual(q, k, v)[0], attend_manual(q, k, v)[1].mean(1, True)),
     "(B, H, L, S)"),
    (check.attention, "swapped_outputs",
     lambda q, k, v: attend_manual(q, k, v)[::-1], "return output, weights"),
    (check.attention, "weights_not_returned",
     lambda q, k, v: attend_manual(q, k, v)[0], "return output, weights"),
]  # fmt: skip
MISTAKE_IDS = [f"{c.__name__}-{m}-{i}" for i, (c, m, _, _) in enumerate(MISTAKES)]

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
    assert "seeds 0, 1, 2" in str(report)


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
    assert re.search(r"first differs at index \(\d+(, \d+)*\): expected \S+, got \S+", str(report))


def test_a_shape_mismatch_gives_both_shapes():
    report = check.merge_heads(lambda x: x.transpose(1, 2), lang="en")  # forgot to merge
    assert report.mistake == "differs"
    assert "expected shape (2, 5, 12), got (2, 5, 3, 4)" in str(report)


@pytest.mark.parametrize(
    ("run", "fn"),
    [
        (check.split_heads, lambda x, h: None),
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
    fn = next(fn for _, m, fn, _ in MISTAKES if m == "transpose_all_axes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.zeros(1, 1, 1).T  # noqa: B018 - spends the once-per-process warning, if still unspent
    for _ in range(2):
        report = check.attention(fn, lang="en")
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


def test_both_languages_cover_the_same_mistakes():
    for m in (*check._MISTAKES, check._RAISES, check._DIFFERS):
        assert m.title_en and m.fix_en and not CJK.search(m.title_en + m.fix_en)
        assert CJK.search(m.title_zh) and CJK.search(m.fix_zh), m.id
    assert set(check._TEXT["en"]) == set(check._TEXT["zh_CN"])


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
    assert repr(report) == "Report(ok=False, mistake='view_without_transpose')"

    class Printer:  # IPython's pretty printer, as far as _repr_pretty_ uses it
        def __init__(self):
            self.printed = []

        def text(self, s):
            self.printed.append(s)

    printer = Printer()
    report._repr_pretty_(printer, cycle=False)
    assert printer.printed == [str(report)]
    assert str(report).count("\n") == 3
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
