"""The site's own pages, as the tests of its directives read them."""

from __future__ import annotations

from pathlib import Path

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
