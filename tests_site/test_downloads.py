"""The gallery's and the tutorial's downloads run on their own, as a reader would run them.

A gallery example's ``.py`` and a tutorial page's ``.ipynb`` offered on the built site is
copied into an empty folder outside the repository, with the site's wheel of the package saved
beside it, and executed there (a notebook twice in one kernel, as a reader who runs its cells
again; its first cell installs the wheel). ``nox -s downloads`` has installed the wheel in a
fresh environment with the command the site prints, not from the source tree: a script that
needs a file from the repository fails here. A script's output is what its page shows: each
output block of the page, numbers aside (timings differ), is in what the script printed.

The files run are a sample, the same in each edition: three examples (one that prints a
shape table, one a :mod:`mha.check` report) and two tutorial notebooks (both with reports).
Every example and notebook runs in each edition's build, and every download imports only what
the printed command installs (``test_translated_downloads.py``). The two editions' files have
the same code by construction: the Chinese build replaces only comments and strings
(``docs/_ext/translated_sources.py``'s ``translate_code``). A Chinese script runs in an English
locale without ``MHA_LANG``: it prints Chinese because it sets the package's language itself.

The other form of each is not run again: the gallery's ``.ipynb`` is checked to hold the
``.py``'s code, cell by cell, and each tutorial notebook the code cells of its page (which
the site's build executes).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pagechecks import install_line, output_blocks

torch = pytest.importorskip("torch", reason="the downloads run in `nox -s downloads`")
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def _downloads(layout, suffix: str, prefix: str = "plot_*", language: str = "") -> list[Path]:
    folder = layout.languages.get(language, layout.main) / "_downloads"
    return sorted(folder.rglob(f"{prefix}{suffix}"), key=lambda p: p.name)


def _tutorial_notebooks(layout, language: str = "") -> list[Path]:
    """The tutorial pages' notebooks: ``01_one_head_to_many.ipynb``, ..."""
    return _downloads(layout, ".ipynb", prefix="[0-9][0-9]_*", language=language)


# the sample run in each edition
SCRIPTS = ("plot_01_inputs.py", "plot_02_shape_flow.py", "plot_01_eight_to_four_heads.py")
NOTEBOOKS = ("04_exercise.ipynb", "05_errors.ipynb")


def _sample(layout, find, names: tuple[str, ...]) -> list[Path]:
    """The files named ``names`` of each edition (the one edition of a one-language build)."""
    found = []
    for language in layout.languages or [""]:
        paths = {p.name: p for p in find(layout, language)}
        assert set(names) <= paths.keys(), f"{language}: {set(names) - paths.keys()} not offered"
        found += [paths[name] for name in names]
    return found


def _wheel(layout) -> Path:
    """The package's wheel that the site serves (one)."""
    (wheel,) = _downloads(layout, ".whl", prefix="mha-*")
    return wheel


def _install_cell(layout) -> str:
    """A notebook's first cell: the command the site prints, as IPython's quiet ``%pip``."""
    html = (layout.main / "tutorial" / "index.html").read_text(encoding="utf-8")
    command, _ = install_line(html)
    assert command.startswith("python -m pip install ") and _wheel(layout).name in command
    return command.replace("python -m pip install", "%pip install --quiet")


def _edition(layout, path: Path) -> str:
    """The language of the edition that offers ``path`` ("" for a one-language build)."""
    return next((name for name, f in layout.languages.items() if f in path.parents), "")


def _script_env(layout, script: Path) -> dict[str, str]:
    """The environment a reader runs the script in: an English locale and no ``MHA_LANG``, so
    that a script prints in its page's language only because it says so itself
    (``mha.set_language``), as downloaded."""
    env = _env()
    language = _edition(layout, script)
    if language not in ("", "en"):
        assert f'mha.set_language("{language}")' in script.read_text(encoding="utf-8"), script
    return {**env, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def _language_ids(layout, paths: list[Path]) -> list[str]:
    return [f"{_edition(layout, p)}-{p.name}".lstrip("-") for p in paths]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``script``: each gallery .py; ``gallery_notebook``: each gallery .ipynb;
    ``notebook``: each tutorial page's .ipynb."""
    kinds = {
        "script": lambda layout: _sample(
            layout, lambda lo, la: _downloads(lo, ".py", language=la), SCRIPTS
        ),
        "gallery_notebook": lambda layout: [
            path
            for language in layout.languages or [""]
            for path in _downloads(layout, ".ipynb", language=language)
        ],
        "notebook": lambda layout: _sample(layout, _tutorial_notebooks, NOTEBOOKS),
        "english_notebook": _tutorial_notebooks,
    }
    for name, find in kinds.items():
        if name in metafunc.fixturenames:
            from conftest import _site_path, detect_layout

            site = _site_path(metafunc.config)
            if not (site / "index.html").is_file():
                raise pytest.UsageError(f"no built site at {site}: run nox -s docs first")
            layout = detect_layout(site)
            paths = find(layout)
            metafunc.parametrize(name, paths, ids=_language_ids(layout, paths))


@pytest.fixture
def reader_dir(tmp_path: Path) -> Path:
    """An empty folder outside the repository, like a reader's downloads folder."""
    assert ROOT not in tmp_path.parents, f"{tmp_path} is inside the repository: pass --basetemp"
    return tmp_path


def _env() -> dict[str, str]:
    # a reader's environment: no PYTHONPATH, no language chosen for the package (LANGUAGE, a
    # locale's list, would come before the LANG and LC_ALL a script is given)
    unset = ("PYTHONPATH", "MHA_LANG", "LANGUAGE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["MPLBACKEND"] = "Agg"
    return env


def test_the_package_comes_from_the_install(reader_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import mha; print(mha.__file__)"],
        cwd=reader_dir,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    location = Path(result.stdout.strip())
    assert ROOT / "src" not in location.parents, f"mha imported from the source tree: {location}"


def test_every_example_is_offered(layout) -> None:
    gallery = sorted(p.name for p in (ROOT / "gallery").rglob("plot_*.py"))
    assert gallery, "no gallery scripts found"
    for language in layout.languages or [""]:
        assert _ids(_downloads(layout, ".py", language=language)) == gallery
        notebooks = _ids(_downloads(layout, ".ipynb", language=language))
        assert notebooks == [n.replace(".py", ".ipynb") for n in gallery]


def test_every_tutorial_page_is_offered(layout) -> None:
    """Every tutorial page with code is offered as a notebook (the summary has none)."""
    sources = (ROOT / "docs" / "tutorial").glob("[0-9][0-9]_*.md")
    pages = sorted(p.stem for p in sources if "```{code-cell}" in p.read_text(encoding="utf-8"))
    assert pages, "no tutorial pages found"
    for language, folder in (layout.languages or {"": layout.main}).items():
        assert [p.stem for p in _tutorial_notebooks(layout, language)] == pages
        for page in pages:  # and each page links its notebook
            html = (folder / "tutorial" / f"{page}.html").read_text()
            assert f"{page}.ipynb" in html, f"{language}/tutorial/{page}.html lacks its notebook"


NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _page_outputs(layout, script: Path) -> list[str]:
    """The output blocks of the script's page in its edition, numbers masked, spaces collapsed."""
    edition = next((f for f in layout.languages.values() if f in script.parents), layout.main)
    (page,) = edition.glob(f"auto_examples/*/{script.stem}.html")
    return [_masked(block) for block in output_blocks(page.read_text(encoding="utf-8"))]


def _masked(text: str) -> str:
    return " ".join(NUMBER.sub("#", text).split())


def test_script_runs_standalone(layout, script: Path, reader_dir: Path) -> None:
    local = shutil.copy(script, reader_dir / script.name)
    result = subprocess.run(
        [sys.executable, local],
        cwd=reader_dir,
        env=_script_env(layout, script),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, (
        f"{script.name} failed:\n{result.stdout[-2000:]}\n{result.stderr}"
    )
    printed = _masked(result.stdout + result.stderr)
    shown = _page_outputs(layout, script)
    assert shown, f"{script.name}: its page shows no output"
    missing = [block[:80] for block in shown if block not in printed]
    assert not missing, f"{script.name}: its page shows what it does not print: {missing}"
    leftovers = sorted(p.name for p in reader_dir.iterdir() if p.name != script.name)
    assert not leftovers, f"{script.name} wrote files into the reader's folder: {leftovers}"


@pytest.fixture(scope="session")
def one_kernel_start_at_a_time(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Kernels of the workers start one at a time (docs/_ext/kernel_start.py says why)."""
    from kernel_start import quiet_kernel_profile, serialize_kernel_starts

    # each pytest-xdist worker has its own folder in the run's one temporary folder
    shared = tmp_path_factory.getbasetemp().parent
    serialize_kernel_starts(shared / "kernel-start.lock")
    if "IPYTHONDIR" not in os.environ:  # the kernels' log: errors only
        os.environ["IPYTHONDIR"] = str(quiet_kernel_profile(shared / "ipython"))


@pytest.mark.usefixtures("one_kernel_start_at_a_time")
def test_notebook_runs_standalone(layout, notebook: Path, reader_dir: Path) -> None:
    local = shutil.copy(notebook, reader_dir / notebook.name)
    shutil.copy(_wheel(layout), reader_dir)  # saved beside it: the first cell installs it
    nb = nbformat.read(local, as_version=4)
    assert nb.cells[0].source == _install_cell(layout)
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(reader_dir)}},
    )
    # top to bottom twice in one kernel, as a reader who runs every cell again: a cell that only
    # works once (a warning PyTorch gives once per process, a name deleted) fails the second run
    client.reset_execution_trackers()
    with client.setup_kernel(env=_env()):
        for _ in range(2):
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)  # raises CellExecutionError on a failing cell
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors


# ---------------------------------------------------------------------------------------------
# The other form of each download holds the same code (checked without running it again)

CELL_MARK = re.compile(r"^# %%")  # sphinx-gallery's cell separator, the gallery's one style
# a line that configures sphinx-gallery (a thumbnail, ...): left out of the notebook
CONFIG_COMMENT = re.compile(r"^\s*# sphinx_gallery_\w+\s*=")


def _script_cells(script: str) -> list[str]:
    """The code of each cell of a sphinx-gallery script, as its notebook should hold it.

    The docstring first, then cells that each open with ``# %%``: a cell's leading comment
    lines are its text (a Markdown cell of the notebook), the rest its code.
    """
    body = script.split('"""', 2)[2] if script.lstrip().startswith(('r"""', '"""')) else script
    cells, current = [], []
    for line in body.splitlines():
        if CONFIG_COMMENT.match(line):
            continue
        if CELL_MARK.match(line):
            cells.append(current)
            current = []
        else:
            current.append(line)
    cells.append(current)
    code = []
    for lines in cells:
        while lines and (lines[0].startswith("#") or not lines[0].strip()):
            lines = lines[1:]  # the cell's text
        if "\n".join(lines).strip():
            code.append("\n".join(lines).strip())
    return code


def _notebook_code(notebook: Path) -> list[str]:
    nb = nbformat.read(notebook, as_version=4)
    return [cell.source.strip() for cell in nb.cells if cell.cell_type == "code"]


def test_gallery_notebook_holds_the_script(layout, gallery_notebook: Path) -> None:
    """The example's .ipynb has its .py's code, cell for cell (the .py runs above)."""
    language = _edition(layout, gallery_notebook)
    scripts = _downloads(layout, ".py", prefix=gallery_notebook.stem, language=language)
    assert len(scripts) == 1, f"{gallery_notebook.stem}.py offered {len(scripts)} times"
    expected = _script_cells(scripts[0].read_text(encoding="utf-8"))
    assert expected, f"{scripts[0].name} has no code"
    assert _notebook_code(gallery_notebook) == [_install_cell(layout), *expected]


CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _page_cells(page: str) -> list[str]:
    """The code of each ``{code-cell}`` of a MyST page, without the cell's options."""
    cells = []
    for body in CODE_CELL.findall(page):
        lines = body.splitlines()
        if lines and lines[0].strip() == "---":  # a YAML block of options
            lines = lines[lines.index("---", 1) + 1 :]
        while lines and lines[0].startswith(":") and ":" in lines[0][1:]:  # :tags: [...]
            lines = lines[1:]
        cells.append("\n".join(lines).strip())
    return cells


def _page_cell_tags(page: str) -> list[list[str]]:
    """The tags of each ``{code-cell}`` of a MyST page (``:tags: [hide-cell]``), in order."""
    tags = []
    for body in CODE_CELL.findall(page):
        lines = body.splitlines()
        if lines and lines[0].strip() == "---":  # a YAML block of options
            options = lines[1 : lines.index("---", 1)]
        else:
            options = []
            while lines and lines[0].startswith(":") and ":" in lines[0][1:]:
                options.append(lines.pop(0))
        listed = [re.fullmatch(r":?tags:\s*\[(.*)\]\s*", line) for line in options]
        names = next((found[1] for found in listed if found), "")
        tags.append([name.strip().strip("'\"") for name in names.split(",") if name.strip()])
    return tags


def test_tutorial_notebook_holds_its_page(layout, english_notebook: Path) -> None:
    """Each tutorial notebook has its page's code cells, in order (the page runs in the build),
    each with the page's tags (a folded answer stays folded, and in its place)."""
    notebook = english_notebook  # the Chinese one's code: test_translated_downloads.py
    page = ROOT / "docs" / "tutorial" / f"{notebook.stem}.md"
    text = page.read_text(encoding="utf-8")
    expected = _page_cells(text)
    assert expected, f"{page.name} has no code cell"
    assert _notebook_code(notebook) == [_install_cell(layout), *expected]
    nb = nbformat.read(notebook, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"][1:]  # after the install
    assert [cell.metadata.get("tags", []) for cell in code] == _page_cell_tags(text)
    for cell in code:  # JupyterLab folds what the page folds
        tags = cell.metadata.get("tags", [])
        folded = cell.metadata.get("jupyter", {})
        assert folded.get("source_hidden", False) == bool({"hide-cell", "hide-input"} & set(tags))
        assert folded.get("outputs_hidden", False) == bool({"hide-cell", "hide-output"} & set(tags))


DROPDOWN = re.compile(r"^(:{3,}|`{3,})\{dropdown\}[ \t]*(.*?)\s*$", re.MULTILINE)


def test_tutorial_notebook_answers_come_after_the_try(english_notebook: Path) -> None:
    """Try first, then see: each ``{dropdown}`` of a page (an answer, folded) is a Markdown cell
    of its own in the notebook, folded under its title; one placed right after a code cell on the
    page (the reader's try) comes right after that cell. No dropdown is left as MyST text."""
    notebook = english_notebook  # the Chinese one's code: test_translated_downloads.py
    page = ROOT / "docs" / "tutorial" / f"{notebook.stem}.md"
    text = page.read_text(encoding="utf-8")
    cells = nbformat.read(notebook, as_version=4).cells
    markdown = "\n".join(cell.source for cell in cells if cell.cell_type == "markdown")
    assert "{dropdown}" not in markdown, f"{notebook.name} holds a dropdown as MyST text"
    for found in DROPDOWN.finditer(text):
        title = found[2] or "Answer"
        summary = re.sub(r"`([^`]+)`", r"<code>\1</code>", title)
        headed = [
            i
            for i, cell in enumerate(cells)
            if cell.cell_type == "markdown"
            and cell.source.split("\n", 1)[0] == f"<details><summary>{summary}</summary>"
        ]
        assert len(headed) == 1, f"{notebook.name}: {len(headed)} cells headed {title!r}"
        ends = [cell.end() for cell in CODE_CELL.finditer(text) if cell.end() <= found.start()]
        if ends and not text[ends[-1] : found.start()].strip():  # right after a code cell
            assert headed[0] > 0 and cells[headed[0] - 1].cell_type == "code", (
                f"{notebook.name}: the answer {title!r} does not follow the cell where one tries"
            )
