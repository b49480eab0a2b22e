"""The Chinese catalogs keep to the glossary: one term per concept, English only where it may stay.

``nox -s translations`` runs this file next to ``tests/test_catalogs.py``. The rules are the
tables of ``docs/locale/GLOSSARY.md`` ("One term per concept"), read by
``docs/locale/glossary.py``; each failure names the catalog, the entry's English and the term
to write.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("babel", reason="the glossary checks read the catalogs with Babel")

LOCALE = Path(__file__).resolve().parents[1] / "docs" / "locale"
sys.path.insert(0, str(LOCALE))
import catalogs
import glossary

LANGUAGE = "zh_CN"
PO_FILES = catalogs.po_files(LANGUAGE)
RULES = glossary.load()


def _read_entries(name: str) -> list[tuple[str, str]]:
    """(English, Chinese) of each translated entry; of a code block, its comments only (one a
    line): its code is the source's, checked by nox -s translations."""
    found = []
    for m in catalogs._read(PO_FILES[name], LANGUAGE):
        if not (m.id and m.string):
            continue
        if catalogs.CODE_FLAG in m.flags:
            found.append(tuple("\n".join(catalogs.comments(s)) for s in (m.id, m.string)))
        else:
            found.append((m.id, m.string))
    return found


ENTRIES = {name: _read_entries(name) for name in PO_FILES}  # each catalog read once
CODE_WORDS = glossary.code_vocabulary([i for entries in ENTRIES.values() for i, _ in entries])
NAMES = sorted(PO_FILES) or ["<no catalogs>"]  # the checks read every page's catalog


def _where(name: str, msgid: str) -> str:
    short = msgid if len(msgid) <= 90 else msgid[:87] + "..."
    return f"{LANGUAGE}/LC_MESSAGES/{name}.po, msgid {short!r}"


def _report(found: list[str]) -> None:
    if found:  # the list, without a traceback: it names every entry to fix
        pytest.fail("\n  ".join(["", *found]), False)


@pytest.mark.parametrize("name", NAMES)
def test_no_forbidden_variant(name: str) -> None:
    """No variant of the "Never write" table, e.g. 宽度 for a dimension, 课程 for the lesson."""
    found = [
        f"{_where(name, msgid)}: {v.never!r}, write {v.write}"
        for msgid, msgstr in ENTRIES[name]
        for v in glossary.forbidden(RULES, msgstr)
    ]
    _report(found)


@pytest.mark.parametrize("name", NAMES)
def test_each_step_has_one_name(name: str) -> None:
    """A step of the lesson is called by its name wherever the English names it."""
    found = []
    for msgid, msgstr in ENTRIES[name]:
        for step, other in glossary.misnamed_steps(RULES, msgid, msgstr):
            how = "not named" if other == "(none)" else f"named {other!r}"
            found.append(f"{_where(name, msgid)}: step {step.step} {how}, write {step.name!r}")
    _report(found)


@pytest.mark.parametrize("name", NAMES)
def test_no_english_outside_code_and_names(name: str) -> None:
    """English stays only as code, a kept name, a gloss or a quoted mention."""
    found = [
        f"{_where(name, msgid)}: English {sorted(set(words))} (translate it, mark it as code, "
        "gloss it once as 中文（English）, or add a name to GLOSSARY.md's English that stays)"
        for msgid, msgstr in ENTRIES[name]
        if (words := glossary.english_words(RULES, msgid, msgstr, CODE_WORDS))
    ]
    _report(found)


@pytest.mark.parametrize("name", NAMES)
def test_a_term_is_glossed_once_per_page(name: str) -> None:
    """词元（token） at the first use on a page, 词元 after it."""
    counts = Counter(g for _, msgstr in ENTRIES[name] for g in glossary.glosses(msgstr))
    repeated = [f"（{g}） {n} times" for g, n in sorted(counts.items()) if n > 1]
    if repeated:
        pytest.fail(f"{LANGUAGE}/LC_MESSAGES/{name}.po glosses again: {repeated}", False)


def test_the_glossary_tables_are_read() -> None:
    assert len(RULES.variants) >= 8
    assert {s.step for s in RULES.steps} == {"split_heads", "merge_heads"}
    assert {"pytorch", "softmax", "gpu"} <= RULES.english


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
    assert glossary.glosses("词元（token）和批次大小（batch size）") == ["token", "batch size"]
