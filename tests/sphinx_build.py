"""Small Sphinx builds for the tests of the site's own extensions (docs/_ext)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import sphinx.locale
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace


def build(
    src: Path, builder: str = "html", language: str = "en", fresh: bool = True
) -> tuple[Path, str]:
    """Build ``src`` (its own conf.py) into ``out-<builder>-<language>`` beside it.

    Returns the output folder and the warnings. Each build registers its nodes and
    directives afresh and starts without the catalogs of an earlier build in this process.
    """
    warnings = StringIO()
    out = src.parent / f"out-{builder}-{language}"
    sphinx.locale.translators.clear()  # no catalog of an earlier build in this process
    try:
        with docutils_namespace():  # each build registers its nodes and directives afresh
            app = Sphinx(
                str(src), str(src), str(out), str(out / ".doctrees"), builder,
                confoverrides={"language": language}, status=None, warning=warnings,
                freshenv=fresh,
            )  # fmt: skip
            app.build()
    finally:
        sphinx.locale.translators.clear()
    return out, warnings.getvalue()


DOCS = Path(__file__).resolve().parents[1] / "docs"


def directive(page: str, name: str, argument: str = "") -> str:
    """The fenced ``{name}`` directive of the site's page ``page`` (``explanation/performance``)
    whose arguments start with ``argument``, as the page writes it (its words as content)."""
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    start = text.index(f"```{{{name}}} {argument}".rstrip())
    return text[start : text.index("\n```\n", start) + 4]


def words(block: str) -> dict[str, str]:
    """A directive's words (``key: text`` a line, an indented line continuing the text)."""
    found, key = {}, ""
    for line in block.splitlines()[1:-1]:
        if line.startswith(" "):
            found[key] += " " + line.strip()
        else:
            key, _, text = line.partition(": ")
            found[key] = text
    return found
