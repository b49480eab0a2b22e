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
from pagechecks import CJK, install_line

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r"\{[a-z]+\}`|:(?:func|class|meth|attr|mod|data|exc|obj|doc|ref|term|math):`")
LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
SITE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Documentation"]
# what a page folds for the reader to open: an answer (a dropdown), a question's choice
PAGE_FOLDS = re.compile(r'<details class="(?:sd-sphinx-override sd-dropdown|mha-choice)')
FOLDED = re.compile(r"<details>.*?</details>", re.DOTALL)
# an answer's heading or label, as the pages write them: "Answer: ...", "Answers: ...", "答案："
ANSWER = re.compile(r"^[#*\s]*(?:Answers?\b|答案)", re.MULTILINE)
# docs/_ext/package.py's note after an install line, and the page of PyTorch it links
NOTE = re.compile(r'</p>\s*<p class="mha-install-note">(.*?)</p>', re.DOTALL)
PYTORCH_INSTALL = 'href="https://pytorch.org/get-started/locally/"'


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
    assert len(found) >= 95, "the site offers the gallery's and the tutorial's notebooks"
    left = [
        f"{name}: {match[0]!r}"
        for name, notebook in found
        for text in markdown(notebook)
        for match in ROLE.finditer(text)
    ]
    assert not left, f"{len(left)} roles left, e.g. {left[:5]}"


def test_every_answer_in_a_tutorial_notebook_is_folded(layout, language: str) -> None:
    """Each tutorial notebook folds what its page folds (docs/_ext/tutorial_notebooks.py): every
    dropdown and question's choice of the page is a ``<details>`` cell, nothing of an answer ("Answer", "答案") shows
    outside one, and the code the page hides (``hide-cell``, ``hide-input``) has its source
    hidden in Jupyter, its output too where the page hides it."""
    folder = layout.languages[language]
    pages = {n: nb for n, nb in notebooks(folder) if re.fullmatch(r"\d\d_\w+\.ipynb", n)}
    assert len(pages) >= 7, sorted(pages)  # every page with code; the summary has none
    folded = hidden = 0
    for name, notebook in pages.items():
        page = (folder / "tutorial" / name).with_suffix(".html").read_text(encoding="utf-8")
        texts = list(markdown(notebook))
        details = sum(text.count("<details>") for text in texts)
        expected = len(PAGE_FOLDS.findall(page))
        assert details == expected, f"{name}: {details} folded where the page folds {expected}"
        shown = ANSWER.search("\n".join(FOLDED.sub("", text) for text in texts))
        assert not shown, f"{name}: an answer shows unfolded: {shown}"
        for cell in (cell for cell in notebook["cells"] if cell["cell_type"] == "code"):
            tags, jupyter = (
                set(cell["metadata"].get("tags", [])),
                cell["metadata"].get("jupyter", {}),
            )
            source, output = tags & {"hide-cell", "hide-input"}, tags & {"hide-cell", "hide-output"}
            assert jupyter.get("source_hidden", False) == bool(source), (name, cell["source"][:2])
            assert jupyter.get("outputs_hidden", False) == bool(output), (name, cell["source"][:2])
            hidden += bool(source)
        folded += details
    assert folded >= 2 and hidden >= 1, (folded, hidden)


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
    assert checked >= 700, f"only {checked} links to the site"
    assert not broken, "\n".join(broken[:10])


def test_every_download_page_states_the_install_line(layout, language: str) -> None:
    """The tutorial's index (its pages install once, there and in each notebook's first cell),
    the gallery's index and every example page print
    ``python -m pip install mha-<version>-py3-none-any.whl matplotlib``, the wheel's name a
    link to the package that the site serves, and right after it, in the page's language, how
    to get PyTorch's CPU-only build on Linux, linking PyTorch's own install page."""
    folder = layout.languages[language]
    pages = [
        folder / "tutorial" / "index.html",
        folder / "auto_examples" / "index.html",
        *sorted((folder / "auto_examples").rglob("plot_*.html")),
    ]
    assert len(pages) > 30
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    wheel = f"mha-{version}-py3-none-any.whl"
    for page in pages:
        found = install_line(page.read_text(encoding="utf-8"))
        assert found, f"{page.relative_to(layout.root)} states no install line"
        command, href = found
        assert command == f"python -m pip install {wheel} matplotlib", (page, command)
        html = page.read_text(encoding="utf-8")
        notes = NOTE.findall(html)
        assert len(notes) == html.count('<code class="mha-install'), f"{page}: {notes}"
        for note in notes:
            assert PYTORCH_INSTALL in note and "CPU" in note, (page, note)
            assert (language == "zh_CN") == bool(CJK.search(note)), (page, note)
        served = (page.parent / href).resolve()
        assert served.name == wheel and served.is_file(), (page, served)
        with zipfile.ZipFile(served) as archive:  # the package itself, of this version
            names = archive.namelist()
            assert "mha/__init__.py" in names and f"mha-{version}.dist-info/METADATA" in names
