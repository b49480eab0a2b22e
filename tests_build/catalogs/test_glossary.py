"""The Chinese catalogs keep to the glossary: one term per concept, English only where it may stay.

``nox -s translations`` runs this file. The rules are the tables of ``docs/locale/GLOSSARY.md``
("One term per concept"), read by ``docs/locale/glossary.py``; each failure names the catalog,
the entry's English and the term to write.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

import pytest

pytest.importorskip("babel", reason="the glossary checks read the catalogs with Babel")
pytest.importorskip("sphinx", reason="catalogs.py reads docs/_ext/translated_sources.py")
import catalogs
import glossary
import translated_sources
from babel.messages.pofile import read_po

LOCALE = glossary.GLOSSARY.parent / "zh_CN" / "LC_MESSAGES"
DOCS = glossary.GLOSSARY.parents[1]
GALLERY = DOCS.parent / "gallery"
CATALOGS = {p.relative_to(LOCALE).with_suffix("").as_posix(): p for p in LOCALE.rglob("*.po")}
RULES = glossary.load()


def _entries(path) -> list[tuple[str, str]]:
    """(English, Chinese) of each translated entry, a code block's comments too (its strings are
    code: the labels are checked in the code, below)."""
    with path.open("rb") as f:
        return [(m.id, m.string) for m in read_po(f) if m.id and m.string and m.context != "string"]


ENTRIES = {name: _entries(path) for name, path in sorted(CATALOGS.items())}
PATTERNS = glossary.patterns()


def _translated_code(name: str) -> list[str]:
    """The code blocks of a page as the Chinese build runs them (a gallery script whole)."""
    text, code = translated_sources.messages("zh_CN", name)
    script = GALLERY / f"{name.removeprefix('auto_examples/')}.py"
    if name.startswith("auto_examples/"):  # an example; a gallery's index has no code
        source = script.read_text(encoding="utf-8") if script.is_file() else 'r""" """'
        return [translated_sources.translate_example(source, text, code)]
    page = (DOCS / name).with_suffix(".md")
    cells = re.compile(r"```\{code-cell\}[^\n]*\n(.*?)\n```", re.DOTALL)
    fences = cells.findall(page.read_text(encoding="utf-8"))
    return [translated_sources.translate_code(cell, code) for cell in fences]


def _strings(code: str) -> list[str]:
    """The string literals of Python code, an f-string's literal parts included."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


CODE_WORDS = glossary.code_vocabulary([i for entries in ENTRIES.values() for i, _ in entries])


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_catalog_keeps_to_the_glossary(name: str) -> None:
    """No variant of "Never write" (宽度 for a dimension); in a page's catalog, each step by its
    one name, English only as code, a kept name, a gloss or a quoted mention, glossed once."""
    found = []
    for msgid, msgstr in ENTRIES[name]:
        where = f"msgid {msgid if len(msgid) <= 90 else msgid[:87] + '...'!r}"
        found += [
            f"{where}: {v.never!r}, write {v.write}" for v in glossary.forbidden(RULES, msgstr)
        ]
        found += [
            f"{where}: {p.pattern.pattern!r} matches {m[0]!r}, write {p.write}"
            for p in PATTERNS
            for m in [p.pattern.search(glossary.prose(msgstr))]
            if m
        ]
        if name in catalogs.NOT_PAGES:  # the interface's strings: the terms only
            continue
        found += [f"{where}: {link}" for link in glossary.link_spacing(msgstr)]
        for step, other in glossary.misnamed_steps(RULES, msgid, msgstr):
            how = "not named" if other == "(none)" else f"named {other!r}"
            found.append(f"{where}: step {step.step} {how}, write {step.name!r}")
        if words := glossary.english_words(RULES, msgid, msgstr, CODE_WORDS):
            found.append(
                f"{where}: English {sorted(set(words))} (translate it, mark it as code, gloss it "
                "once as 中文（English）, or add a name to GLOSSARY.md's English that stays)"
            )
    glosses = Counter(
        g for _, s in ENTRIES[name] for g in glossary.glosses(s) if name not in catalogs.NOT_PAGES
    )
    found += [f"（{g}） glossed {n} times, once is enough" for g, n in glosses.items() if n > 1]
    if found:  # the list, without a traceback: it names every entry to fix
        pytest.fail("\n  ".join([f"zh_CN/LC_MESSAGES/{name}.po", *found]), False)


# the tutorial's path: its pages and the gallery examples they link (issue 42's pages 1-8)
TUTORIAL_PATH = sorted(
    name
    for name in CATALOGS
    if name == "index"
    or name.startswith(("tutorial/", *(f"auto_examples/0{i}_" for i in range(1, 6))))
)


@pytest.mark.parametrize("name", TUTORIAL_PATH)
def test_printed_labels_keep_to_the_glossary(name: str) -> None:
    """A code block's printed labels: no space after 「：」 (print's separator) and no pattern of
    "Patterns" ("缩小 0.515 倍"). Checked on the tutorial's path; the how-to guides, the
    explanations and the gallery's sections 6 and 7 still print some labels with ``print``'s
    separator."""
    found = []
    for code in _translated_code(name):
        where = f"code block {code.lstrip().splitlines()[0][:60]!r}"
        found += [f"{where}: {what}" for what in glossary.spaced_colons(code)]
        labels = " ".join(_strings(code))
        found += [
            f"{where}: {p.pattern.pattern!r} matches {m[0]!r}, write {p.write}"
            for p in PATTERNS
            for m in [p.pattern.search(labels)]
            if m
        ]
    if found:
        pytest.fail("\n  ".join([f"zh_CN/LC_MESSAGES/{name}.po", *found]), False)


def test_the_glossary_tables_are_read() -> None:
    assert len(RULES.variants) >= 60
    assert {"批次", "前向计算", "头轴", "轴", "浏览器", "尺寸", "集中"} <= {
        v.never for v in RULES.variants
    }
    assert {s.step for s in RULES.steps} == {"split_heads", "merge_heads"}
    assert {"pytorch", "softmax", "gpu"} <= RULES.english
    assert {n.name for n in RULES.names} == {"超参数", "表示子空间", "连续存放", "指代关系"}
    assert {"不是这个", "参数个数", "按顺序存放", "讲义中的大小"} <= {
        v.never for v in RULES.variants
    }
    assert len(PATTERNS) >= 3


def test_rules_catch_what_they_should() -> None:
    words = frozenset({"view"})
    assert [v.never for v in glossary.forbidden(RULES, "每个头的宽度为 8")] == ["宽"]
    assert not glossary.forbidden(RULES, "图宽 7 英寸")
    assert not glossary.forbidden(RULES, "`notebooks/01.ipynb` 下载笔记本")
    assert glossary.misnamed_steps(RULES, "2) split heads", "2\\) 拆分头")
    assert glossary.misnamed_steps(RULES, "Split the heads: ...", "切成几个头：...")
    assert not glossary.misnamed_steps(RULES, "Split the heads: ...", "拆分多头：...")
    assert glossary.english_words(RULES, "the fast path", "快速的 path", words) == ["path"]
    assert not glossary.english_words(RULES, "x", "快速路径（fast path）与 PyTorch", words)
    assert not glossary.english_words(RULES, "x", "用 `view` 与 {func}`mha.split_heads`", words)
    assert not glossary.english_words(RULES, "view with a shape", "用 view 调用", words)
    assert glossary.english_words(RULES, "a view", "用 view 调用", frozenset()) == ["view"]
    assert not glossary.english_words(RULES, "“the cat sat”", "短句 “the cat sat”", words)
    assert not glossary.english_words(RULES, "x", "\\operatorname{Attention}(Q, K, V)", words)
    assert glossary.english_words(RULES, "x", "{ref}`page 5 <t>`", words) == ["page"]
    assert glossary.glosses("词元（token）和批量大小（batch size）") == ["token", "batch size"]


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("每个头有不同的表征子空间", "每个头有不同的表示子空间"),
        ("用 `view` 把张量变形", "用 `view` 把张量重塑，改变形状"),
        ("把各头的输出串联起来", "把各头的输出拼接起来"),
        ("读取每个头的注意力权重", "读取逐头注意力权重"),
        ("读取逐头的权重", "读取逐头权重"),
        ("完整的前向计算", "完整的前向传播"),
        ("梯度崩塌了", "出现了梯度消失"),
        ("梯度急剧坍缩", "梯度急剧变小"),
        ("批次大小（batch size）为 2", "批量大小（batch size）为 2"),
        ("采用讲义的尺寸", "采用讲义的超参数，每个维度的大小"),
        ("权重更集中", "权重更尖锐，没有留出的句子出现在训练集中"),
        ("搭配关系（agreement）", "主谓一致"),
        ("每次去掉一个头", "每次移除一个头"),
        ("每个头得到 8 个通道", "每个头得到 8 个特征"),
        ("沿最后一个轴做 softmax", "沿最后一个维度做 softmax"),
        ("沿最后一维做 softmax", "沿最后一个维度做 softmax"),
        ("把头轴移到词元轴之前", "把头维度移到序列维度之前"),
        ("在头维上索引", "在头维度上索引"),
        ("批次维在前", "批量维度在前"),
        ("交换这两个轴", "交换这两个维度；横轴为头数，两个坐标轴均为对数刻度"),
        ("注意力头浏览器", "注意力头查看器，在浏览器中打开"),
        ("不是这个。", "答错了。"),
        ("参数个数不变", "参数量不变"),
        ("张量是非连续的", "张量是非连续存放的"),
        ("转置后张量不再按顺序存放", "转置后张量不再连续存放"),
    ],
)
def test_one_term_per_concept(wrong: str, right: str) -> None:
    """Each rule of "Never write" rejects its variant and lets the term (and look-alikes) pass."""
    assert glossary.forbidden(RULES, wrong), wrong
    assert not glossary.forbidden(RULES, right), right


@pytest.mark.parametrize(
    ("msgid", "wrong", "right"),
    [
        ("Every page uses the lesson's sizes", "各页采用讲义中的大小", "各页采用讲义的超参数"),
        ("its own representation subspace", "各自的子空间", "各自的表示子空间"),
        ("the tensor is no longer contiguous", "张量不再按顺序存放", "张量不再连续存放"),
        ("is no longer stored in order", "不再连续", "不再连续存放"),
        ("agreement and coreference", "主谓一致和指代", "主谓一致和指代关系"),
    ],
)
def test_named_one_way(msgid: str, wrong: str, right: str) -> None:
    """Each row of "Named one way": the English phrase asks for the name, which alone passes."""
    assert glossary.misnamed_steps(RULES, msgid, wrong), wrong
    assert not glossary.misnamed_steps(RULES, msgid, right), right


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("键的梯度缩小 477 倍", "键的梯度只有缩放时的 1/477"),
        ("梯度缩小的倍数：0.515 倍", "梯度只有缩放时的 1/0.515"),
        ("查询的梯度小 3.35 倍", "查询的梯度是缩放时的 1/3.35，输出是输入的 2 倍"),
        ("不缩放时梯度小了多少倍", "不缩放时梯度只有几分之一"),
        ("参数量为 16,640，每个 d_k 取值 4,000 行", "参数量为 16640，能整除 64 的头数有 1, 2, 4"),
        ("第 0..63 行是 W^Q", "第 0 到 63 行是 W^Q，共 64 行"),
        ("每个头 8 个数，共 640 个数", "每个头 8 维，共 640 个元素，元素个数，两个数的乘积"),
        ("每个头 D 个数", "每个头 $D$ 维"),
        ("论文 *Attention Is All You Need*", "论文《Attention Is All You Need》"),
    ],
)
def test_patterns(wrong: str, right: str) -> None:
    assert any(p.pattern.search(wrong) for p in PATTERNS), wrong
    assert not any(p.pattern.search(right) for p in PATTERNS), right


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("取 {doc}`第 2 页 <p>`的脚本", "取{doc}`第 2 页 <p>`的脚本"),
        ("取{doc}`第 2 页 <p>` 的脚本", "取{doc}`「第 2 页」 <p>`的脚本"),
        ("取{doc}` 第 2 页 <p>`的脚本", "见 {doc}`page 2 <p>`"),
        ("见 :ref:`第 2 页 <p>` 。", "见「:ref:`第 2 页 <p>`」。取\\ :ref:`第 2 页 <p>`\\ 的脚本"),
    ],
)
def test_links_are_not_wrapped_in_spaces(wrong: str, right: str) -> None:
    assert glossary.link_spacing(wrong), wrong
    assert not glossary.link_spacing(right), right


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ('print("参数量：", counts)', 'print(f"参数量：{counts}")'),
        ('print(f"头 {h}：", x)', 'print(f"头 {h}：", x, sep="")'),
        ('print("输出： ", x)', 'print("输出：", x, sep="\\n")'),
        ('print(f"形状： {x}")', 'print("a:", x)'),
    ],
)
def test_no_space_after_a_full_width_colon(wrong: str, right: str) -> None:
    assert glossary.spaced_colons(wrong), wrong
    assert not glossary.spaced_colons(right), right
