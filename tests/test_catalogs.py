"""The Chinese catalogs are complete: every page has one, every entry is translated and current.

``nox -s translations`` runs this file (the unit-test session has no Sphinx and skips it). It
regenerates the message templates from the sources with a gettext build (about 15 s after
``nox -s docs``), so a changed sentence in a page fails here until its translation is updated:
``nox -s translations -- update`` marks it fuzzy, a translator fixes it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the catalog checks need Sphinx: run nox -s translations")
pytest.importorskip("babel", reason="the catalog checks need Babel: run nox -s translations")

LOCALE = Path(__file__).resolve().parents[1] / "docs" / "locale"
import catalogs

LANGUAGE = "zh_CN"
PO_FILES = catalogs.po_files(LANGUAGE)


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The filtered .pot files of the current sources."""
    return catalogs.build_templates(tmp_path_factory.mktemp("gettext"))


@pytest.fixture(scope="module")
def issues(templates: Path) -> dict[str, list[str]]:
    return catalogs.problems(templates, LANGUAGE)


def _names(root: Path, suffix: str) -> set[str]:
    return {catalogs.catalog_name(p, root) for p in root.rglob(f"*{suffix}")}


def test_every_page_has_a_catalog(templates: Path) -> None:
    missing = sorted(_names(templates, ".pot") - PO_FILES.keys())
    assert not missing, f"pages with no .po file (run nox -s translations -- update): {missing}"


def test_no_catalog_without_a_page(templates: Path) -> None:
    stale = sorted(PO_FILES.keys() - _names(templates, ".pot"))
    assert not stale, f".po files whose page is gone or not translated: {stale}"


@pytest.mark.parametrize("name", sorted(PO_FILES) or ["<no catalogs>"])
def test_catalog_matches_its_page(issues: dict[str, list[str]], name: str) -> None:
    """Same entries as the page's current text; each one translated, none fuzzy."""
    assert name in PO_FILES, "no catalogs at all: run nox -s translations -- update"
    found = issues.get(name, [])
    if found:  # the list, without a traceback: it names every entry to fix
        pytest.fail(f"{LANGUAGE}/LC_MESSAGES/{name}.po:\n  " + "\n  ".join(found), False)


def test_figure_labels_are_translated() -> None:
    """Every label of every figure has an entry in figures.po, and every entry is used."""
    found = catalogs.figure_problems(LANGUAGE)
    if found:
        pytest.fail(f"{LANGUAGE}/LC_MESSAGES/figures.po:\n  " + "\n  ".join(found), False)


def test_filter_keeps_words_and_drops_markup() -> None:
    keep = catalogs.needs_translation
    assert keep("`(B, L, E)` → `(B, H, L, D)`, weights `(B, H, L, S)`")
    assert keep('<div class="sphx-glr-thumbcontainer" tooltip="Split the heads.">')
    assert keep('  <div class="sphx-glr-thumbnail-title">Merge the heads</div>\n</div>')
    assert not keep("{func}`mha.project_qkv`")
    assert not keep("`(B, L, E)` → `(B, L, E)`")
    assert not keep(":doc:`/auto_examples/01_shapes/plot_01_inputs`")
    assert not keep('<div class="sphx-glr-thumbnails">')
    assert not keep("**Total running time of the script:** (0 minutes 1.840 seconds)")
    assert not keep(
        ":download:`Download Python source code: plot_01_inputs.py <plot_01_inputs.py>`"
    )


def test_translation_read_as_a_list_is_reported() -> None:
    assert catalogs.BLOCK_MARKER.match("2. 逐步计算")
    assert not catalogs.BLOCK_MARKER.match("2\\. 逐步计算")
    assert not catalogs.BLOCK_MARKER.match("第 2 步：拆分为多个头")


def test_code_blocks_translate_only_their_comments() -> None:
    """A code block's entry: its comments are found (Python's, or a shell's), and code that a
    translation changed is told apart from comments it translated."""
    code = 'x = q @ k  # the scores\ns = "# not a comment"\n# a line of its own\nh = 8'
    assert catalogs.comments(code) == ["# the scores", "# a line of its own"]
    assert catalogs.comments("$ nox -s docs   # build the site") == ["# build the site"]
    translated = 'x = q @ k  # 分数\ns = "# not a comment"\n# 单独一行\nh = 8'
    assert catalogs.without_comments(translated) == catalogs.without_comments(code)
    assert catalogs.without_comments(translated.replace("h = 8", "h = 4")) != (
        catalogs.without_comments(code)
    )
    # only shape tags: nothing to translate, so no entry
    assert not any(catalogs.COMMENT_WORD.search(c) for c in catalogs.comments("x  # (B, L, E)"))
