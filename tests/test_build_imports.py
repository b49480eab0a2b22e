"""The build's own modules (docs/_ext, docs/locale, the scripts beside them): each imports the
others without a cycle, and none edits ``sys.path`` (only ``docs/conf.py`` puts ``docs/_ext``
on it; pytest's ``pythonpath`` and ``nox`` do the same for the tests and the scripts)."""

from __future__ import annotations

import ast
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
BENCH = ROOT / "benchmarks" / "bench.py"


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


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle of ``graph`` (module -> the modules it imports), each once."""
    found, done = [], set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = path[path.index(name) :]
            start = cycle.index(min(cycle))
            rotated = cycle[start:] + cycle[:start]
            if rotated not in found:
                found.append(rotated)
            return
        if name in done:
            return
        for other in sorted(graph.get(name, ())):
            visit(other, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    return found


def graph_of(paths: list[Path]) -> dict[str, set[str]]:
    modules = {p.stem: p for p in paths if p.name != "conf.py"}
    return {name: imports(path) & set(modules) - {name} for name, path in modules.items()}


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from c import x\n")
    (tmp_path / "c.py").write_text("from a import y\n")
    (tmp_path / "d.py").write_text("import a\n")
    assert cycles(graph_of(sorted(tmp_path.glob("*.py")))) == [["a", "b", "c"]]


def test_the_build_modules_import_each_other_without_a_cycle() -> None:
    assert {"conf", "site_figures", "gallery_figures", "catalogs"} <= {p.stem for p in BUILD}
    found = cycles(graph_of(BUILD))
    assert not found, "import cycles among the build's modules: " + "; ".join(
        " -> ".join([*cycle, cycle[0]]) for cycle in found
    )


@pytest.mark.parametrize("path", [*BUILD, BENCH], ids=lambda p: str(p.relative_to(ROOT)))
def test_only_conf_py_edits_sys_path(path: Path) -> None:
    if path == DOCS / "conf.py":
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    edits = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    ]
    assert not edits, f"{path.name} uses sys.path on lines {edits}: put the module on the path"
