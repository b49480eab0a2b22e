"""The tutorial's notebooks for download as the build writes them (``tutorial_notebooks``, the
Chinese ones from the page translated by ``translated_sources``), read without a build: every
answer folded, in every language, its prose in ``<details>`` and its code with the source hidden."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import translated_sources
import tutorial_notebooks

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted((DOCS / "tutorial").glob("[0-9][0-9]_*.md"))
LANGUAGES = ("en", *sorted(p.parent.name for p in (DOCS / "locale").glob("*/LC_MESSAGES")))
CONFIG = SimpleNamespace(sphinx_gallery_conf={"first_notebook_cell": "%pip install mha"})
DROPDOWN = re.compile(r"^(?P<fence>:{3,}|`{3,})\{dropdown\}[ \t]*(?P<title>.*?)\s*$", re.MULTILINE)
FOLDED = re.compile(r"<details>.*?</details>", re.DOTALL)
# an answer's heading or label, as the pages write them: "Answer: ...", "Answers: ...", "答案："
ANSWER = re.compile(r"^[#*\s]*(?:Answers?\b|答案)", re.MULTILINE)


def page_source(page: Path, language: str) -> str:
    """The page as the build of ``language`` reads it to write its notebook."""
    text = page.read_text(encoding="utf-8")
    if language == "en":
        return text
    entries, code = translated_sources.messages(language, f"tutorial/{page.stem}")
    return translated_sources.translate_markdown(text, entries, code)


def dropdowns(source: str) -> list[tuple[str, str]]:
    """Each ``{dropdown}`` of a MyST page: its title and the first line of its text."""
    found = []
    for match in DROPDOWN.finditer(source):
        lines = source[match.end() :].lstrip("\n").splitlines()
        body = [line for line in lines if not line.startswith(":") and line.strip()]
        found.append((match["title"] or "Answer", body[0].strip()))
    return found


@pytest.fixture(scope="module", params=LANGUAGES)
def notebooks(request) -> list[tuple[str, str, nbformat.NotebookNode]]:
    """(page, its source in the language, its notebook) for every tutorial page."""
    out = []
    for page in PAGES:
        source = page_source(page, request.param)
        notebook = tutorial_notebooks.page_notebook(CONFIG, source)
        out.append((page.name, source, nbformat.reads(notebook, as_version=4)))
    return out


def test_there_are_answers_to_fold(notebooks):
    assert len(notebooks) == len(PAGES) >= 8
    assert sum(len(dropdowns(source)) for _, source, _ in notebooks) >= 2


def test_every_answer_in_prose_is_folded(notebooks):
    """A dropdown of the page is a ``<details>`` cell under its title; nothing of an answer
    (its first line, a heading or label "Answer"/"答案") shows outside a ``<details>``."""
    for name, source, notebook in notebooks:
        markdown = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
        shown = "\n".join(FOLDED.sub("", text) for text in markdown)
        assert not ANSWER.search(shown), f"{name}: an answer shows unfolded: {ANSWER.search(shown)}"
        for title, first_line in dropdowns(source):
            summary = re.sub(r"`([^`]+)`", r"<code>\1</code>", title)
            cells = [text for text in markdown if f"<summary>{summary}</summary>" in text]
            assert len(cells) == 1, f"{name}: {len(cells)} cells fold {title!r}"
            assert cells[0].startswith("<details>") and cells[0].endswith("</details>")
            assert first_line in cells[0] and first_line not in shown, (name, first_line)


def test_every_answer_in_code_has_its_source_hidden(notebooks):
    """A code cell the page folds (``hide-cell``, ``hide-input``: an answer's code) has its
    source hidden in JupyterLab; its output too where the page folds it."""
    hidden = 0
    for name, _, notebook in notebooks:
        for cell in (cell for cell in notebook.cells if cell.cell_type == "code"):
            tags, folded = set(cell.metadata.get("tags", [])), cell.metadata.get("jupyter", {})
            source = bool(tags & {"hide-cell", "hide-input"})
            assert folded.get("source_hidden", False) == source, (name, cell.source[:60])
            output = bool(tags & {"hide-cell", "hide-output"})
            assert folded.get("outputs_hidden", False) == output, (name, cell.source[:60])
            hidden += source
    assert hidden >= 2
