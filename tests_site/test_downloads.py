"""Every gallery and tutorial download runs on its own, as a reader would run it.

Each ``.py`` and ``.ipynb`` offered on the built site is copied into an empty folder outside
the repository and executed there, with only the installed package (``nox -s downloads``
installs it from a wheel, not from the source tree). A script that needs a file from the
repository, or a notebook whose cells depend on sphinx-gallery, fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the downloads run in `nox -s downloads`")
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def _downloads(layout, suffix: str, prefix: str = "plot_*") -> list[Path]:
    return sorted((layout.main / "_downloads").rglob(f"{prefix}{suffix}"), key=lambda p: p.name)


def _tutorial_notebooks(layout) -> list[Path]:
    """The tutorial pages' notebooks: ``01_one_head_to_many.ipynb``, ..."""
    return _downloads(layout, ".ipynb", prefix="[0-9][0-9]_*")


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, suffix in (("script", ".py"), ("notebook", ".ipynb")):
        if name in metafunc.fixturenames:
            from conftest import _site_path, detect_layout

            site = _site_path(metafunc.config)
            if not (site / "index.html").is_file():
                raise pytest.UsageError(f"no built site at {site}: run nox -s docs first")
            layout = detect_layout(site)
            paths = _downloads(layout, suffix)
            if name == "notebook":
                paths += _tutorial_notebooks(layout)
            metafunc.parametrize(name, paths, ids=_ids(paths))


@pytest.fixture
def reader_dir(tmp_path: Path) -> Path:
    """An empty folder outside the repository, like a reader's downloads folder."""
    assert ROOT not in tmp_path.parents, f"{tmp_path} is inside the repository: pass --basetemp"
    return tmp_path


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
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
    assert _ids(_downloads(layout, ".py")) == gallery
    assert _ids(_downloads(layout, ".ipynb")) == [n.replace(".py", ".ipynb") for n in gallery]


def test_every_tutorial_page_is_offered(layout) -> None:
    pages = sorted(p.stem for p in (ROOT / "docs" / "tutorial").glob("[0-9][0-9]_*.md"))
    assert pages, "no tutorial pages found"
    assert [p.stem for p in _tutorial_notebooks(layout)] == pages
    for page in pages:  # and each page links its notebook
        html = (layout.main / "tutorial" / f"{page}.html").read_text()
        assert f"{page}.ipynb" in html, f"tutorial/{page}.html does not link its notebook"


def test_script_runs_standalone(script: Path, reader_dir: Path) -> None:
    local = shutil.copy(script, reader_dir / script.name)
    result = subprocess.run(
        [sys.executable, local],
        cwd=reader_dir,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, (
        f"{script.name} failed:\n{result.stdout[-2000:]}\n{result.stderr}"
    )
    leftovers = sorted(p.name for p in reader_dir.iterdir() if p.name != script.name)
    assert not leftovers, f"{script.name} wrote files into the reader's folder: {leftovers}"


def test_notebook_runs_standalone(notebook: Path, reader_dir: Path) -> None:
    local = shutil.copy(notebook, reader_dir / notebook.name)
    nb = nbformat.read(local, as_version=4)
    assert any(cell.cell_type == "code" for cell in nb.cells)
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(reader_dir)}},
    )
    client.execute(env=_env())  # raises CellExecutionError on the first failing cell
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors
