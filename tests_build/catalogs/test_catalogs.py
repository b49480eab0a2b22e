"""Every entry of the Chinese catalogs is translated, and a code block is translated by its
comments and strings only (docs/_ext/translated_sources.py's ``code_pieces``).

``nox -s translations`` runs this after bringing the catalogs in line with the pages (where the
update changed a catalog, it is stale and the session fails before this). Run alone, it reads
the committed catalogs as they are.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("babel", reason="the catalog checks read the catalogs with Babel")
pytest.importorskip("sphinx", reason="catalogs.py reads docs/_ext/translated_sources.py")
import catalogs
import translated_sources as ts
from babel.messages.pofile import read_po

LOCALE = catalogs.LOCALE / "zh_CN" / "LC_MESSAGES"
# A translation starting like a list item or a heading becomes one ("2. 逐步计算"): escape it.
BLOCK_MARKER = re.compile(r"^(?:\d+[.)]|[-+*]|#+)(?:\s|$)")


@pytest.mark.parametrize(
    "path", sorted(LOCALE.rglob("*.po")), ids=lambda p: p.relative_to(LOCALE).as_posix()
)
def test_every_entry_is_translated(path) -> None:
    """None empty, none fuzzy; a string keeps its fields ({name:.3f}) and its lines; a
    comment after code stays on its line; no translation read as a list."""
    with path.open("rb") as f:
        entries = [m for m in read_po(f) if m.id]
    found, page = [], path.relative_to(LOCALE).with_suffix("").as_posix() not in catalogs.NOT_PAGES
    for m in entries:
        code, lines = m.context in ts.CODE_CONTEXTS, m.string.count("\n") > m.id.count("\n")
        # a string keeps its lines; a comment after code keeps its one line
        lines = lines and (m.context == "string" or "\n" not in m.id)
        if m.fuzzy:
            found.append(f"fuzzy (check it against the English, delete '#, fuzzy'): {m.id!r}")
        elif not m.string:
            found.append(f"untranslated (a string that stays English: its msgid): {m.id!r}")
        elif m.context == "string" and sorted(catalogs.FIELD.findall(m.string)) != sorted(
            catalogs.FIELD.findall(m.id)
        ):
            found.append(f"a string's fields changed (keep each {{...}} as it is): {m.id!r}")
        elif code and lines:
            found.append(f"more lines than the English (a string's or a code line's): {m.id!r}")
        elif page and not code and BLOCK_MARKER.match(m.string):  # parsed as Markdown
            found.append(f"starts like a list or a heading, escape it (2\\. ...): {m.string!r}")
    if found:  # the list, without a traceback: it names every entry to fix
        pytest.fail("\n  ".join([path.relative_to(LOCALE).as_posix(), *found]), False)


CODE = '''x = q @ k  # the scores
print(f"head {h}:", x)  # fmt: skip
# two lines
# of comment
labels = ["query", "key"]
ax.set_xticks(range(2), labels)
for name in ("fused", "explicit"):
    print(name, d["mean"], "cpu")
ax.legend(loc="upper left", title="the heads")
assert ax.get_xlabel() == "key", "the label"
def f():
    """Say what f does."""
# sphinx_gallery_thumbnail_number = 2'''


def test_a_code_blocks_entries_are_its_comments_and_the_strings_a_reader_reads() -> None:
    pieces = catalogs.code_entries(CODE)
    assert [(p.kind, p.msgid) for p in pieces] == [
        ("comment", "the scores"),
        ("string", "head {h}:"),  # printed; its fields stay
        ("comment", "two lines\nof comment"),  # consecutive comment lines: one entry
        ("string", "query"),  # a table of words that a drawing call reads
        ("string", "key"),
        ("string", "fused"),  # printed through the loop's name
        ("string", "explicit"),
        ("string", "cpu"),
        ("string", "the heads"),  # a title; loc= is code
        ("string", "the label"),  # a phrase; the comparison's "key" is the label above
        ("string", "Say what f does."),
    ]
    assert not any(p.msgid in ("mean", "upper left") for p in pieces)  # a key, a keyword's
    assert [p.msgid for p in catalogs.code_entries("$ nox -s docs   # build the site")] == [
        "build the site"  # not Python: a shell's comments
    ]


def test_the_translation_changes_comments_and_strings_only() -> None:
    entries = {("comment", "the scores"): "分数", ("comment", "two lines\nof comment"):
               "两行\n注释", ("string", "key"): "键", ("string", "head {h}:"): "头 {h}："}  # fmt: skip
    out = ts.translate_code(CODE, entries)
    assert out.startswith('x = q @ k  # 分数\nprint(f"头 {h}：", x)  # fmt: skip\n# 两行\n# 注释\n')
    assert 'labels = ["query", "键"]' in out
    assert 'ax.get_xlabel() == "键"' in out  # every place of a string, so the code agrees
    assert out.endswith("# sphinx_gallery_thumbnail_number = 2")
    words = re.compile(r'#.*|"[^"]*"')  # the code without its comments and strings
    assert words.sub("", out) == words.sub("", CODE)
    indented = ts.translate_code(
        "if x:\n    # one\n    # two\n    y = 1", {("comment", "one\ntwo"): "一\n二\n三"}
    )
    assert indented == "if x:\n    # 一\n    # 二\n    # 三\n    y = 1"


def test_what_the_templates_keep() -> None:
    keep = catalogs.needs_translation
    assert keep("`(B, L, E)` → `(B, H, L, D)`, weights `(B, H, L, S)`")
    assert keep('<div class="sphx-glr-thumbcontainer" tooltip="Split the heads.">')
    assert keep("{doc}`the walkthrough <tutorial/02_walkthrough>`")
    assert not keep("{func}`mha.project_qkv`")
    assert not keep(":doc:`/auto_examples/01_shapes/plot_01_inputs`")
    assert not keep('<div class="sphx-glr-thumbnails">')
    assert not keep("**Total running time of the script:** (0 minutes 1.840 seconds)")
