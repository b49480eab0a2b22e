"""The build's own modules (docs/_ext, docs/locale, the scripts beside them): each imports the
others without a cycle, and none edits ``sys.path`` (only ``docs/conf.py`` puts ``docs/_ext`` on
it; pytest's ``pythonpath`` and ``nox`` do the same for the tests and the scripts)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# every Python file of the build: the site's extensions, its catalog tools and scripts
BUILD = sorted(
    p
    for p in DOCS.rglob("*.py")
    if not {"_build", "auto_examples", "gen_modules", "generated"} & set(p.parts)
)


def imports(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports, wherever the import stands
    (inside a function too: an import put off to run time hides a cycle, not removes it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_build_modules_import_each_other_without_a_cycle() -> None:
    modules = {p.stem: p for p in BUILD if p.name != "conf.py"}
    assert {"page_rules", "json_directives", "languages", "questions"} <= modules.keys()
    graph = {name: imports(path) & modules.keys() - {name} for name, path in modules.items()}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"an import cycle among the build's modules: {' -> '.join(error.args[1])}")


@pytest.mark.parametrize(
    "path", [*BUILD, ROOT / "benchmarks" / "bench.py"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_only_conf_py_edits_sys_path(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    edits = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    ]
    assert path == DOCS / "conf.py" or not edits, f"{path.name} uses sys.path on lines {edits}"
