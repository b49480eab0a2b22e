"""Every learner-facing message of the package in the reader's language: English by default,
Chinese under ``MHA_LANG=zh_CN`` (``check_heads``, ``split_heads``, ``merge_heads``, the shared
input checks, the shape trace, the command line's usage errors, ``mha.check``'s own); the
language's order (``lang=``, ``--lang``, ``mha.set_language``, ``MHA_LANG``, the locale); the
gettext catalog that holds the Chinese (``src/mha/locale``), read with the standard library."""

from __future__ import annotations

import ast
import gettext
import os
import re
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import glossary  # docs/locale: the glossary's rules (standard library only)
import pytest
import torch

import mha
from mha import _i18n
from mha.__main__ import main

CJK = re.compile(r"[\u4e00-\u9fff]")
# Chinese in a file: ideographs, CJK punctuation, full-width forms
CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
SOURCES = sorted(Path(mha.__file__).parent.glob("*.py"))
CATALOG = Path(_i18n.LOCALEDIR, "zh_CN", "LC_MESSAGES", "mha")  # .po and .mo
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"  # bench.py and its charts' catalog
BENCH_CATALOG = BENCH / "locale" / "zh_CN" / "LC_MESSAGES" / "bench"
RULES = glossary.load()


def _nested():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nested tensors are a prototype
        return torch.nested.nested_tensor([torch.randn(3, 8), torch.randn(5, 8)])


def _split(x, num_heads):
    B, L, E = x.shape
    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)


# (id, the call, the error class, a piece of the English message, of the Chinese one)
CALLS = [
    ("check_heads", lambda: mha.check_heads(64, 6), mha.errors.ValueAssertionError,
     ("embed_dim must be divisible by num_heads, got embed_dim=64 and num_heads=6 (64 / 6 = "
     "10.67); head counts that divide 64: 1, 2, 4, 8, 16, 32, 64"),
     ("头数 num_heads 应能整除模型维度 embed_dim，当前 embed_dim=64、num_heads=6（64 / 6 = "
     "10.67）；能整除 64 的头数有 1, 2, 4, 8, 16, 32, 64")),
    ("check_heads-many", lambda: mha.check_heads(5000, 7), ValueError,
     "head counts that divide 5000 (up to 1024): 1, 2, 4, 5,",
     "能整除 5000 的头数（列到 1024 为止）有 1, 2, 4, 5,"),
    ("module", lambda: mha.MultiHeadAttention(64, 6), AssertionError,
     "embed_dim must be divisible by num_heads", "头数 num_heads 应能整除模型维度 embed_dim"),
    ("bool", lambda: mha.check_heads(64, True), TypeError,
     "expected num_heads to be an int, got bool (True)", "num_heads 应为 int，实际为 bool（True）"),
    ("int", lambda: mha.check_heads(64, 1.5), TypeError,
     "expected num_heads to be an int, got float", "num_heads 应为 int，实际为 float"),
    ("positive", lambda: mha.check_heads(0, 2), ValueError,
     "expected embed_dim to be a positive int, got embed_dim=0",
     "embed_dim 应为正整数，实际为 embed_dim=0"),
    ("split_heads", lambda: mha.split_heads(torch.zeros(2, 5, 60), 8), RuntimeError,
     ("split_heads expected the last dimension of x to be divisible by num_heads=8, got x of "
     "shape (2, 5, 60) (last dimension 60); project to a width that 8 divides, or use one of "
     "the head counts that divide 60: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60"),
     ("split_heads 的 num_heads=8 应能整除 x 的最后一个维度，当前 x 的形状为 (2, 5, 60)（最后一个"
     "维度为 60）；请投影到 8 能整除的维度，或者换一个头数（能整除 60 的头数有 1, 2, 3, 4, 5, 6, "
     "10, 12, 15, 20, 30, 60）")),
    ("split_heads-dim", lambda: mha.split_heads(torch.zeros(2, 60), 8), ValueError,
     "expected x to be 3-D with layout (B, L, E), got a 2-D tensor of shape (2, 60)",
     "x 应为 3 维张量，布局为 (B, L, E)，实际为形状 (2, 60) 的 2 维张量"),
    ("split_heads-type", lambda: mha.split_heads([1.0], 8), TypeError,
     "expected x to be a torch.Tensor, got list", "x 应为 torch.Tensor，实际为 list"),
    ("split_heads-nested", lambda: mha.split_heads(_nested(), 2), TypeError,
     "got a nested tensor; nested tensors are not supported",
     "实际为嵌套张量；不支持嵌套张量：请用 torch.nested.to_padded_tensor 填充"),
    ("split_heads-heads", lambda: mha.split_heads(torch.zeros(2, 5, 8), -1), ValueError,
     "expected num_heads to be a positive int, got num_heads=-1",
     "num_heads 应为正整数，实际为 num_heads=-1"),
    ("merge_heads-dim", lambda: mha.merge_heads(torch.zeros(2, 5, 12)), ValueError,
     "expected x to be 4-D with layout (B, H, L, D), got a 3-D tensor of shape (2, 5, 12)",
     "x 应为 4 维张量，布局为 (B, H, L, D)，实际为形状 (2, 5, 12) 的 3 维张量"),
    ("merge_heads-type", lambda: mha.merge_heads("x"), TypeError,
     "expected x to be a torch.Tensor, got str", "x 应为 torch.Tensor，实际为 str"),
    ("unbatched", lambda: mha.MultiHeadAttention(8, 2)(*[torch.zeros(5)] * 3), ValueError,
     "expected query to be 2-D or 3-D with layout (L, B, E) or unbatched (L, E), got a 1-D",
     "query 应为 2 维或 3 维张量，布局为 (L, B, E)，或无批量维度的 (L, E)，实际为形状 (5,) 的 1 维"),
    ("kv_heads", lambda: mha.trace_shapes(2, 5, 64, 8, num_kv_heads=3), ValueError,
     ("expected num_kv_heads to divide num_heads=8, got num_kv_heads=3; each key/value head "
     "serves a whole group of query heads: use one of the head counts that divide 8: 1, 2, 4, 8"),
     ("num_kv_heads 应能整除 num_heads=8，实际为 num_kv_heads=3；每个键/值头供一整组查询头使用，"
     "请换一个键/值头数（能整除 8 的头数有 1, 2, 4, 8）")),
    ("sizes-weight", lambda: mha.trace_shapes(2, 5, 2**40, 1), ValueError,
     "the weight W^Q (E, E) would hold 1.209e+24 elements, 4.836e+24 bytes in float32",
     "其中权重 W^Q (E, E) 将有 1.209e+24 个元素，float32 下占 4.836e+24 字节"),
    ("sizes-projections", lambda: mha.trace_shapes(2**62, 1, 4, 1), ValueError,
     ("expected sizes whose tensors can exist, got batch=4611686018427387904, target_len=1, "
     "source_len=1, embed_dim=4, num_heads=1: the projections (B, max(L, S), 3 E) would hold"),
     ("这些大小下的张量无法创建：batch=4611686018427387904、target_len=1、source_len=1、"
     "embed_dim=4、num_heads=1，其中投影 (B, max(L, S), 3 E) 将有")),
    ("sizes-scores", lambda: mha.trace_shapes(1, 2**40, 1, 1), ValueError,
     "the scores (B, H, L, S) would hold", "其中注意力分数 (B, H, L, S) 将有"),
    ("mask-dtype", lambda: mha.MultiHeadAttention(8, 2)(
        *[torch.zeros(3, 1, 8)] * 3, key_padding_mask=torch.zeros(1, 3, dtype=torch.int64)),
     TypeError, "convert it with key_padding_mask.bool() (True = ignore this key)",
     ("key_padding_mask 应为 bool 或浮点张量，实际的数据类型为 torch.int64；请用 "
     "key_padding_mask.bool() 转换（True 表示忽略这个键）")),
    ("mask-dtype-blocked", lambda: mha.MultiHeadAttention(8, 2)(
        *[torch.zeros(3, 1, 8)] * 3, attn_mask=torch.zeros(3, 3, dtype=torch.int64)),
     TypeError, "(True = blocked)", "（True 表示屏蔽这个位置）"),
    ("mask-dtype-may-attend", lambda: mha.scaled_dot_product_attention(
        *[torch.zeros(1, 1, 3, 4)] * 3, attn_mask=torch.zeros(3, 3, dtype=torch.int64)),
     TypeError, "(True = may attend)", "（True 表示可以关注这个位置）"),
    ("same-dims", lambda: mha.MultiHeadAttention(8, 2)(
        torch.zeros(3, 1, 8), torch.zeros(3, 8), torch.zeros(3, 8)), ValueError,
     "expected query, key and value to have the same number of dimensions, got 3-D, 2-D and 2-D",
     "query、key 和 value 的维数应相同，实际为 3 维、2 维和 2 维"),
    ("width", lambda: mha.MultiHeadAttention(8, 2)(*[torch.zeros(3, 1, 6)] * 3), ValueError,
     "expected query's last dimension to be embed_dim=8, got query of shape (3, 1, 6)",
     "query 的最后一个维度应为 embed_dim=8，实际 query 的形状为 (3, 1, 6)"),
    ("batch", lambda: mha.MultiHeadAttention(8, 2)(
        torch.zeros(2, 5, 8), torch.zeros(2, 7, 8), torch.zeros(2, 7, 8)), ValueError,
     ("expected query, key and value to share the batch size (dimension 1 of (L, B, E)), got "
      "query (2, 5, 8), key (2, 7, 8), value (2, 7, 8); with batch_first=False the batch is "
      "dimension 1 of (L, B, E), but the inputs fit batch_first=True"),
     ("query、key 和 value 的批量大小应相同（(L, B, E) 的第 1 维），实际 query 为 (2, 5, 8)，key 为 "
      "(2, 7, 8)，value 为 (2, 7, 8)；batch_first=False 时批量是 (L, B, E) 的第 1 维，而这些输入符合 "
      "batch_first=True")),
    ("mask-shape", lambda: mha.MultiHeadAttention(8, 2)(
        *[torch.zeros(2, 5, 8)] * 3, key_padding_mask=torch.zeros(2, 5, dtype=torch.bool)),
     ValueError, "expected key_padding_mask of shape (B, S) = (5, 2) for query (2, 5, 8)",
     "对形状为 (2, 5, 8) 的 query 和 (2, 5, 8) 的 key，key_padding_mask 的形状应为 (B, S) = (5, 2)"),
    ("causal-needs-mask", lambda: mha.MultiHeadAttention(8, 2)(
        *[torch.zeros(3, 1, 8)] * 3, is_causal=True), ValueError,
     "is_causal=True is a hint that attn_mask is causal", "is_causal=True 只是提示 attn_mask 是因果掩码"),
    ("bool", lambda: mha.parameter_count(8, 2, bias=1), TypeError,
     "expected bias to be a bool, got int", "bias 应为 bool，实际为 int"),
    ("check-callable", lambda: mha.check.split_heads(42), TypeError,
     "expected fn to be a callable (your function), got int",
     "fn 应为可调用对象（你的函数），实际为 int"),
    ("check-lang", lambda: mha.check.split_heads(_split, lang="fr"), ValueError,
     "expected lang to be one of ('en', 'zh_CN') or None, got 'fr'",
     "lang 应为 ('en', 'zh_CN') 之一或 None，实际为 'fr'"),
]  # fmt: skip

# (id, the command line, a piece of its usage error in English, in Chinese)
CLI = [
    ("heads", ["--heads", "6"], "python -m mha: error: embed_dim must be divisible by num_heads",
     "python -m mha：错误：头数 num_heads 应能整除模型维度 embed_dim"),
    ("int", ["--batch", "x"], "python -m mha: error: argument --batch: expected an int, got 'x'",
     "python -m mha：错误：参数 --batch：应为整数，实际为 'x'"),
    ("lang", ["--lang", "fr"], "argument --lang: expected one of en, zh_CN, got fr",
     "参数 --lang：应为 en, zh_CN 之一，实际为 fr"),
    ("unknown", ["--foo", "1"], "error: unrecognized arguments: --foo 1",
     "错误：无法识别的参数：--foo 1"),
    ("value", ["--batch"], "error: argument --batch: expected one value",
     "错误：参数 --batch：需要一个值"),
    ("positive", ["--batch", "0"], "error: expected batch to be a positive int, got batch=0",
     "错误：batch 应为正整数，实际为 batch=0"),
]  # fmt: skip


def _is_chinese(message: str) -> None:
    """Chinese, punctuated as Chinese: no English sentence, no space after a full-width colon,
    no ASCII punctuation right after a Chinese character, the glossary's words."""
    assert CJK.search(message), message
    assert not re.search(r"\b(expected|got|must|error|argument|usage)\b", message), message
    assert "： " not in message and not re.search(r"[\u4e00-\u9fff][,;:()]", message), message
    assert glossary.forbidden(RULES, message) == [], message  # 批量, not 批次 ...


@pytest.fixture
def record(monkeypatch):
    """The (context, message id) of every message the test worded, in any language."""
    used = set()
    catalog_of = _i18n.translation

    class Recording:
        def __init__(self, catalog: gettext.NullTranslations) -> None:
            self.catalog = catalog

        def gettext(self, message: str) -> str:
            used.add((None, message))
            return self.catalog.gettext(message)

        def pgettext(self, context: str, message: str) -> str:
            used.add((context, message))
            return self.catalog.pgettext(context, message)

    monkeypatch.setattr(_i18n, "translation", lambda lang=None: Recording(catalog_of(lang)))
    return used


@pytest.mark.parametrize(("call", "error", "english", "chinese"),
                         [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])  # fmt: skip
def test_message_in_the_readers_language(monkeypatch, record, call, error, english, chinese):
    monkeypatch.delenv("MHA_LANG", raising=False)
    with pytest.raises(error) as raised_en:
        call()
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    with pytest.raises(error) as raised_zh:
        call()
    assert type(raised_en.value) is type(raised_zh.value)  # the same class, caught the same way
    message_en, message_zh = str(raised_en.value), str(raised_zh.value)
    assert english in message_en and not CJK.search(message_en)
    assert chinese in message_zh, message_zh
    _is_chinese(message_zh)


@pytest.mark.parametrize(("argv", "english", "chinese"), [c[1:] for c in CLI],
                         ids=[c[0] for c in CLI])  # fmt: skip
def test_cli_usage_error_in_the_readers_language(monkeypatch, capsys, record, argv, english,
                                                 chinese):  # fmt: skip
    """In process; MHA_LANG, or --lang where it is given, chooses."""
    monkeypatch.delenv("MHA_LANG", raising=False)
    runs = [({}, argv, "en"), ({"MHA_LANG": "zh_CN"}, argv, "zh_CN"),
            ({}, ["--lang", "zh_CN", *argv], "zh_CN"),
            ({"MHA_LANG": "zh_CN"}, ["--lang=en", *argv], "en")]  # fmt: skip
    if argv[0] == "--lang":  # a --lang it cannot take: MHA_LANG's language
        runs = runs[:2]
    for env, args, lang in runs:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        with pytest.raises(SystemExit) as refused:
            main(args)
        monkeypatch.delenv("MHA_LANG", raising=False)
        err = capsys.readouterr().err
        assert refused.value.code == 2
        if lang == "en":
            assert err.startswith("usage: python -m mha") and english in err
            assert not CJK.search(err)
        else:
            assert err.startswith("用法：python -m mha") and chinese in err, err
            _is_chinese(err.splitlines()[-1])


def test_every_message_is_tested_and_chinese(monkeypatch, capsys, record):
    """The calls above and the shape table show every message of the package but mha.check's
    reports (tests/test_check.py shows those)."""
    for lang in ("en", "zh_CN"):
        monkeypatch.setenv("MHA_LANG", lang)
        for _, call, error, _, _ in CALLS:
            with pytest.raises(error):
                call()
        for _, argv, _, _ in CLI:
            with pytest.raises(SystemExit):
                main(argv)
        mha.format_shape_table(mha.trace_shapes(2, 5, 64, 8))
    capsys.readouterr()
    check = Path(mha.check.__file__)
    shown = {m for path in SOURCES if path != check for m in _message_ids(path)}
    assert shown - record == set()


def test_a_passing_check_never_words_a_message(monkeypatch, record):
    """Errors cost nothing until they happen: valid calls never look up a message, in any
    language."""
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    mha.check_heads(64, 8)
    mha.merge_heads(mha.split_heads(torch.zeros(2, 5, 64), 8))
    mha.trace_shapes(2, 5, 64, 8, num_kv_heads=2)
    mha.MultiHeadAttention(8, 2)(*[torch.zeros(5, 8)] * 3)
    assert record == set()


# ---------------------------------------------------------------------------
# The catalog: every message of the code has its Chinese, the .mo is the .po compiled
# ---------------------------------------------------------------------------


def _message_ids(path: Path, markers=("_", "N_")) -> list[tuple[str | None, str]]:
    """(context, message id) of each call of ``_``, ``N_`` (``markers``) or ``pgettext`` with
    literals in a file of the package: the messages its catalog must hold. (bench.py's ``tr``
    takes the label first, then the language and the values.)"""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        strings = [a.value for a in node.args if isinstance(a, ast.Constant)]
        first = node.args[0] if node.args else None
        if node.func.id == "tr" and "tr" in markers and isinstance(first, ast.Constant):
            found.append((None, first.value))
        elif node.func.id in markers and len(strings) == len(node.args) == 1:
            found.append((None, strings[0]))
        elif node.func.id == "pgettext" and len(strings) == len(node.args) == 2:
            found.append((strings[0], strings[1]))
    return found


def _read_mo(path: Path) -> dict[tuple[str | None, str], str]:
    """The entries of a compiled catalog, {(context, message id): translation}: the GNU .mo
    format (a header of 7 little-endian words, then tables of lengths and offsets)."""
    data = path.read_bytes()
    magic, _revision, count, ids, strs = struct.unpack("<5I", data[:20])
    assert magic == 0x950412DE, f"{path} is not a little-endian .mo file"
    entries = {}
    for i in range(count):
        id_length, id_offset = struct.unpack("<2I", data[ids + 8 * i : ids + 8 * i + 8])
        str_length, str_offset = struct.unpack("<2I", data[strs + 8 * i : strs + 8 * i + 8])
        key = data[id_offset : id_offset + id_length].decode("utf-8")
        context, _sep, message = key.rpartition("\x04")
        entries[(context or None, message)] = data[str_offset : str_offset + str_length].decode()
    return entries


def _unquote(lines: list[str]) -> str:
    return "".join(ast.literal_eval(line) for line in lines)


def _read_po(path: Path) -> list[tuple[str | None, str, str, set[str]]]:
    """(context, message id, translation, flags) of each entry of a .po file; the small part
    of the format the catalog uses (no plurals, no obsolete entries)."""
    entries = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        flags, fields, key = set(), {}, None
        for line in block.splitlines():
            if line.startswith("#,"):
                flags |= {f.strip() for f in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                fields[key].append(line)
            else:
                key, _sep, value = line.partition(" ")
                fields[key] = [value]
        assert set(fields) <= {"msgctxt", "msgid", "msgstr"}, (path, block)
        context = _unquote(fields["msgctxt"]) if "msgctxt" in fields else None
        entries.append((context, _unquote(fields["msgid"]), _unquote(fields["msgstr"]), flags))
    return entries


def test_the_code_has_no_chinese():
    """The Chinese is in the catalog only: the code holds the English."""
    found = {p.name: len(CHINESE.findall(p.read_text(encoding="utf-8"))) for p in SOURCES}
    assert {name: n for name, n in found.items() if n} == {}


def test_every_message_of_the_code_has_its_chinese_in_the_shipped_catalog():
    """Each message id of ``src/mha`` (a call of _, N_ or pgettext with literals, found with
    ast) has a Chinese entry in the compiled catalog that the package reads."""
    compiled = _read_mo(CATALOG.with_suffix(".mo"))
    used = {m for path in SOURCES for m in _message_ids(path)}
    assert len(used) > 100  # the extraction found the package's messages
    missing = sorted((c or "", m) for c, m in used if not CHINESE.search(compiled.get((c, m), "")))
    assert missing == [], "nox -s translations -- update, then translate them"
    catalog = _i18n.translation("zh_CN")
    for context, message in used:  # and gettext reads them
        chinese = catalog.pgettext(context, message) if context else catalog.gettext(message)
        assert chinese == compiled[(context, message)]


def test_every_chart_label_has_its_chinese():
    """Each label of the benchmark's charts (``tr`` and ``N_`` in benchmarks/bench.py) has a
    Chinese entry in the charts' compiled catalog."""
    compiled = _read_mo(BENCH_CATALOG.with_suffix(".mo"))
    used = set(_message_ids(BENCH / "bench.py", markers=("tr", "N_")))
    assert len(used) > 15
    missing = sorted(m for c, m in used if not CHINESE.search(compiled.get((c, m), "")))
    assert missing == [], "nox -s translations -- update, then translate them"


@pytest.mark.parametrize("catalog", [CATALOG, BENCH_CATALOG], ids=["mha", "bench"])
def test_every_entry_of_the_catalogs_is_used(catalog):
    """No entry of mha.po (bench.po) that the code no longer has (``nox -s translations --
    update`` drops them)."""
    used = {
        "mha": {m for path in SOURCES for m in _message_ids(path)},
        "bench": set(_message_ids(BENCH / "bench.py", markers=("tr", "N_"))),
    }[catalog.name]
    entries = {(c, m) for c, m, _s, _flags in _read_po(catalog.with_suffix(".po")) if m}
    assert entries - used == set(), "nox -s translations -- update drops them"


@pytest.mark.parametrize("catalog", [CATALOG, BENCH_CATALOG], ids=["mha", "bench"])
def test_the_compiled_catalog_is_the_catalog(catalog):
    """mha.mo (bench.mo) holds the translated, not fuzzy, entries of mha.po (bench.po): no more,
    no less; and each translation keeps the English's fields (the check's sentences give the
    part of the result as ``{part}`` or, before a noun, ``{part_of}``)."""
    entries = _read_po(catalog.with_suffix(".po"))
    header = [e for e in entries if e[1] == ""]
    assert len(header) == 1 and "charset=utf-8" in header[0][2]
    translated = {(c, m): s for c, m, s, flags in entries if m and s and "fuzzy" not in flags}
    compiled = _read_mo(catalog.with_suffix(".mo"))
    assert compiled.pop((None, "")) == header[0][2]
    assert compiled == translated
    assert len(translated) == len(entries) - 1  # nothing untranslated or fuzzy
    fields = re.compile(r"\{(\w*)")
    for (_context, english), chinese in translated.items():
        want = sorted(fields.findall(english))
        got = sorted(fields.findall(chinese.replace("{part_of}", "{part}")))
        assert got == want, english


@pytest.mark.parametrize("catalog", [CATALOG, BENCH_CATALOG], ids=["mha", "bench"])
def test_the_catalog_keeps_to_the_glossary(catalog):
    """One glossary for every catalog, the package's included (docs/locale/GLOSSARY.md)."""
    for _context, english, chinese, _flags in _read_po(catalog.with_suffix(".po")):
        if english:
            assert glossary.forbidden(RULES, chinese) == [], (english, chinese)


def test_the_languages_are_the_catalogs():
    shipped = sorted(p.parents[1].name for p in _i18n.LOCALEDIR.glob("*/LC_MESSAGES/mha.mo"))
    assert _i18n.LANGS == ("en", *shipped) == ("en", "zh_CN")


# ---------------------------------------------------------------------------
# The language: lang=, then --lang, then mha.set_language, then MHA_LANG, then the locale
# ---------------------------------------------------------------------------

ENVIRONMENTS = [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
    ({"LANG": "zh_CN"}, "zh_CN"),
    ({"LANG": "zh"}, "zh_CN"),
    ({"LC_ALL": "zh_Hans"}, "zh_CN"),
    ({"LANG": "zh-Hans-CN"}, "zh_CN"),
    ({"LANG": "zh_SG.UTF-8"}, "zh_CN"),
    ({"LANG": "zh_TW.UTF-8"}, "en"),  # no catalog in traditional characters
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({"LANGUAGE": "zh_CN:en"}, "zh_CN"),
    ({"LANGUAGE": "en:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANGUAGE": "fr:zh_CN"}, "zh_CN"),  # the first with a catalog
    ({"LANGUAGE": "fr:C:zh_CN"}, "en"),  # C ends the list
    ({"LANGUAGE": "zh_CN", "LC_ALL": "C"}, "zh_CN"),  # LANGUAGE first
    ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LC_ALL": "", "LANGUAGE": "", "LANG": "zh_CN.UTF-8"}, "zh_CN"),  # empty: not set
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
    ({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "en"),
    ({"MHA_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),  # MHA_LANG beats the locale
    ({"MHA_LANG": "zh_CN", "LC_ALL": "C"}, "zh_CN"),
    ({"MHA_LANG": "fr", "LANG": "zh_CN.UTF-8"}, "en"),  # an unknown MHA_LANG: English
]


def _language_of_an_error() -> str:
    with pytest.raises(ValueError, match=r"64") as raised:
        mha.check_heads(64, 6)
    return "zh_CN" if CJK.search(str(raised.value)) else "en"


@pytest.mark.parametrize(("env", "expected"), ENVIRONMENTS, ids=lambda v: str(v))
def test_the_locale_chooses_the_language(monkeypatch, env, expected):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _i18n.resolve_language() == expected
    assert _language_of_an_error() == expected


def test_set_language_beats_the_environment_and_lang_beats_all(monkeypatch, capsys):
    steps = mha.trace_shapes(2, 5, 64, 8)
    english, chinese = (mha.format_shape_table(steps, lang=lang) for lang in ("en", "zh_CN"))
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    mha.set_language("en")  # beats MHA_LANG and the locale
    assert _language_of_an_error() == "en" and mha.format_shape_table(steps) == english
    assert mha.format_shape_table(steps, lang="zh_CN") == chinese  # lang= beats it
    assert main(["--lang", "zh_CN"]) == 0 and "拆分多头" in capsys.readouterr().out  # --lang too
    assert main([]) == 0 and "split heads" in capsys.readouterr().out
    monkeypatch.setenv("MHA_LANG", "en")
    monkeypatch.setenv("LANG", "C")
    mha.set_language("zh_CN")
    assert _language_of_an_error() == "zh_CN" and mha.format_shape_table(steps) == chinese
    assert mha.format_shape_table(steps, lang="en") == english
    assert "Mistake:" in str(mha.check.split_heads(lambda x, h: x, lang="en"))
    with _i18n.language("en"):  # the command line's block beats it
        assert _language_of_an_error() == "en"
    mha.set_language(None)  # back to the environment: MHA_LANG=en
    assert _language_of_an_error() == "en"
    monkeypatch.delenv("MHA_LANG")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert _language_of_an_error() == "zh_CN"


@pytest.mark.parametrize("lang", ["fr", "zh", "zh_CN.UTF-8", ""])
def test_set_language_takes_a_language_of_the_package(lang):
    with pytest.raises(ValueError, match=r"expected lang to be one of \('en', 'zh_CN'\) or None"):
        mha.set_language(lang)
    assert _i18n.resolve_language() == "en"


def test_a_chinese_locale_prints_chinese():
    """A real process: ``LANG=zh_CN.UTF-8 python -c "import mha; mha.check_heads(64, 6)"``."""
    names = ("PYTHONPATH", "MHA_LANG", *_i18n.ENVIRONMENT)
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(LANG="zh_CN.UTF-8", PYTHONPATH=str(Path(mha.__file__).parents[1]))
    code = "import mha; mha.check_heads(64, 6)"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=False)
    last = result.stderr.decode("utf-8").strip().splitlines()[-1]
    assert result.returncode == 1
    assert last.startswith("mha.errors.ValueAssertionError: 头数 num_heads 应能整除模型维度"), last
