"""The gallery's scripts keep their promises: each footer names the ``mha`` names it uses.

Every example ends with a "Functions used:" paragraph. It must list exactly the public ``mha``
names that the script's code calls (``mha.split_heads``, ``mha.MultiHeadAttention.from_torch``
counts as ``MultiHeadAttention``), in its first sentence; :func:`mha.get_device`, which every
script calls to pick its device, may be named or not. A footer that names a function the script
never calls, or leaves one out, points the reader to the wrong reference page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mha

GALLERY = Path(__file__).resolve().parents[1] / "gallery"
SCRIPTS = sorted(GALLERY.rglob("plot_*.py"))
ROLE = re.compile(r":(?:func|class|meth|attr):`~?mha\.(\w+)")
USE = re.compile(r"\bmha\.(\w+)")


def split(script: Path) -> tuple[str, str]:
    """The script's code (comments and docstring removed) and its footer's text."""
    text = script.read_text()
    footer_start = text.rindex("# Functions used:")
    body = text[:footer_start]
    body = re.sub(r'^r?"""[\s\S]*?"""', "", body)  # the docstring
    code = "\n".join(line.split("#", 1)[0] for line in body.splitlines())
    footer = " ".join(line.lstrip("# ") for line in text[footer_start:].splitlines())
    return code, re.split(r"\.\s|;", footer, maxsplit=1)[0]  # the first sentence


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_footer_names_what_the_script_uses(script: Path) -> None:
    assert "# Functions used:" in script.read_text(), f"{script.name} has no footer"
    code, footer = split(script)
    used = {name for name in USE.findall(code) if name in mha.__all__} - {"get_device"}
    named = set(ROLE.findall(footer)) - {"get_device"}
    assert named == used, (
        f"{script.name}: footer names {sorted(named - used)} that the code does not use "
        f"and misses {sorted(used - named)}"
    )


SHOW = re.compile(r"^def show\(.*?(?=^\S)", re.MULTILINE | re.DOTALL)


def test_one_show_helper() -> None:
    found = (SHOW.search(p.read_text()) for p in SCRIPTS)
    bodies = {match.group(0).strip() for match in found if match}
    assert len(bodies) <= 1, f"{len(bodies)} different show() helpers:\n\n" + "\n\n".join(bodies)


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_one_cell_style(script: Path) -> None:
    """Each ``# %%`` cell: its heading if any, ``#``, the text, then a blank line before code."""
    lines = script.read_text().splitlines()
    for i, line in enumerate(lines):
        if line != "# %%" or lines[i + 1].startswith("# Functions used"):
            continue
        heading, underline, gap = lines[i + 1 : i + 4]
        if re.fullmatch(r"# -+", underline):  # a cell that continues the last has no heading
            assert len(underline) >= len(heading), f"{script.name}:{i + 3} short underline"
            assert gap == "#", f"{script.name}:{i + 4} expected '#' between heading and text"
        end = next(j for j in range(i + 1, len(lines)) if not lines[j].startswith("#"))
        assert lines[end] == "", f"{script.name}:{end + 1} expected a blank line before code"
