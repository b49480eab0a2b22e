"""The downloads as a reader of the site meets them: notebooks that read in Jupyter, and the
command that installs what they import.

Jupyter shows Sphinx's roles as they are typed (``{doc}`page 7 <07_after_the_lesson>```,
``:func:`mha.split_heads```): the build replaces them by links (``docs/_ext/
tutorial_notebooks.py``). In every ``.ipynb`` of the built site, in either language, loose or
in a zip: no role is left in a Markdown cell, and each link to the site's own address
(pyproject's Documentation URL) names a page, and an anchor, that the build wrote. And every
page that offers a download prints the command that installs what it imports, its wheel a
link to the package the site serves (``nox -s downloads`` runs that command and the files).
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib
from pagechecks import install_line

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r"\{[a-z]+\}`|:(?:func|class|meth|attr|mod|data|exc|obj|doc|ref|term|math):`")
LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
SITE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Documentation"]


def notebooks(folder: Path) -> Iterator[tuple[str, dict]]:
    """Each downloadable notebook of a language's folder: its name and its JSON."""
    for path in sorted((folder / "_downloads").rglob("*")):
        if path.suffix == ".ipynb":
            yield path.name, json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    if name.endswith(".ipynb"):
                        yield f"{path.name}:{name}", json.loads(archive.read(name))


def markdown(notebook: dict) -> Iterator[str]:
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            yield "".join(cell["source"])


@pytest.fixture(params=["en", "zh_CN"])
def language(request, layout) -> str:
    if request.param not in layout.languages:
        pytest.skip(f"this build has no {request.param} folder")
    return request.param


def test_no_downloaded_notebook_shows_a_role(layout, language: str) -> None:
    found = list(notebooks(layout.languages[language]))
    assert len(found) > 40, "the site offers the gallery's and the tutorial's notebooks"
    left = [
        f"{name}: {match[0]!r}"
        for name, notebook in found
        for text in markdown(notebook)
        for match in ROLE.finditer(text)
    ]
    assert not left, f"{len(left)} roles left, e.g. {left[:5]}"


def test_each_link_to_the_site_names_a_page_it_has(layout, language: str) -> None:
    """A link's address on the published site, mapped to the build: the page and its anchor."""
    pages: dict[Path, str] = {}
    checked, broken = 0, []
    for name, notebook in notebooks(layout.languages[language]):
        for text in markdown(notebook):
            for match in LINK.finditer(text):
                url = match["url"]
                if not url.startswith(SITE):
                    continue
                path, _, anchor = url.removeprefix(SITE).partition("#")
                page = layout.root / path
                if page not in pages:
                    pages[page] = page.read_text(encoding="utf-8") if page.is_file() else ""
                if not path.startswith(f"{language}/") or not pages[page]:
                    broken.append(f"{name}: {url} (no such page)")
                elif anchor and f'id="{anchor}"' not in pages[page]:
                    broken.append(f"{name}: {url} (no such anchor)")
                checked += 1
    assert checked > 100, f"only {checked} links to the site"
    assert not broken, "\n".join(broken[:10])


def test_every_download_page_states_the_install_line(layout, language: str) -> None:
    """Each tutorial page, the tutorial's and the gallery's index and every example page print
    ``python -m pip install mha-<version>-py3-none-any.whl matplotlib``, the wheel's name a
    link to the package that the site serves."""
    folder = layout.languages[language]
    pages = [
        *sorted((folder / "tutorial").glob("[0-9][0-9]_*.html")),
        folder / "tutorial" / "index.html",
        folder / "auto_examples" / "index.html",
        *sorted((folder / "auto_examples").rglob("plot_*.html")),
    ]
    assert len(pages) > 40
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    wheel = f"mha-{version}-py3-none-any.whl"
    for page in pages:
        found = install_line(page.read_text(encoding="utf-8"))
        assert found, f"{page.relative_to(layout.root)} states no install line"
        command, href = found
        assert command == f"python -m pip install {wheel} matplotlib", (page, command)
        served = (page.parent / href).resolve()
        assert served.name == wheel and served.is_file(), (page, served)
        with zipfile.ZipFile(served) as archive:  # the package itself, of this version
            names = archive.namelist()
            assert "mha/__init__.py" in names and f"mha-{version}.dist-info/METADATA" in names
