"""The Performance page's tables and figures (docs/_ext/json_directives.py) state the benchmark's
JSON; small builds of the page's own directives check pictures, Chinese, warnings, catalogs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from docutils import nodes

pytest.importorskip("sphinx", reason="the site's extensions need Sphinx (the docs extra)")
import json_directives as bf
from babel.messages.pofile import read_po
from sphinx_build import DOCS, build, directive, words

BENCH, PAGE = DOCS / "_static" / "bench", "explanation/performance"
BLOCKS = [directive(PAGE, "bench-table")]  # then the figures'
BLOCKS += [directive(PAGE, "bench-figure", kind) for kind in ("speed", "memory", "gqa")]


def _json(name: str) -> dict:
    return json.loads((BENCH / name).read_text(encoding="utf-8"))


def _cells(table: nodes.table) -> list[list[str]]:
    return [
        [cell.astext() for cell in row.findall(nodes.entry)] for row in table.findall(nodes.row)
    ]


def test_the_tables_state_the_json() -> None:
    results, gqa = _json("results.json"), _json("gqa.json")
    row = results["speed"][-1]
    row.update(
        ratio=9.876, passed=False, ours_gflops=12.3, torch_gflops=6.78, ours_of_roofline=0.43
    )
    table = bf.speed_table(results, bf.Messages(words(BLOCKS[0])))
    head, *rows = _cells(table)
    assert head[:3] == ["mode", "(B, L, E, H)", "batch_first"]
    assert len(rows) == len(results["speed"])
    shape = f"({row['B']}, {row['L']}, {row['E']}, {row['H']})"
    assert [row["mode"], shape, "False", "9.88", f"≤ {row['goal']:.2f} ✗ goal missed", "12.3",
            "6.8", "43 %"] in rows  # fmt: skip
    keys = [(list(results["modes"]).index(r[0]), r[2] == "False") for r in rows]
    assert keys == sorted(keys)  # by mode, batch_first=True first
    missed = [r for r in table.findall(nodes.row) if "bench-missed-row" in r["classes"]]
    assert len(missed) == sum(not r["passed"] for r in results["speed"])
    results["memory"]["points"][-1]["peak_mib"] = 4321.06  # explicit, the longest L
    memory = _cells(bf.memory_table(results, bf.Messages(words(BLOCKS[2]))))
    assert memory[0] == ["sequence length L", "fused path (MiB)", "explicit path (MiB)"]
    peaks = {(p["path"], str(p["L"])): f"{p['peak_mib']:.1f}" for p in results["memory"]["points"]}
    assert [[n, peaks["fused", n], peaks["explicit", n]] for n, *_ in memory[1:]] == memory[1:]
    assert sorted(int(n) for n, *_ in memory[1:]) == sorted({int(n) for _, n in peaks})
    assert memory[-1][-1] == "4321.1"
    g, seq = gqa["gqa"], gqa["gqa"]["seq"]
    g["decode"].update(step_ms=3.14159, recompute_ms=612.7)
    g["design"]["preallocated"]["decode_all_ms"] = 4049
    g["design"]["concatenate"]["decode_all_ms"] = 9951
    assert _cells(bf.gqa_table(gqa, bf.Messages(words(BLOCKS[3])))) == [
        ["measured", "time"], [f"one cached decode step at S = {seq}", "3.1 ms"],
        [f"recomputing the causal forward over {seq} tokens", "613 ms"],
        [f"decoding {seq} tokens, preallocated cache", "4.0 s"],
        [f"decoding {seq} tokens, cache grown by concatenation", "10.0 s"],
    ]  # fmt: skip


CONF = 'extensions = ["myst_parser", "json_directives"]\nlocale_dirs = ["locale/"]\n'
CONF += "gettext_compact = False\nhtml_search_language = 'en'\n"  # no jieba here


def project(tmp_path: Path, page: str = "\n\n".join(BLOCKS), **changes) -> Path:
    """A site of ``page`` and the benchmark's files (``changes``: name -> edit of its JSON)."""
    src = tmp_path / "src"
    shutil.copytree(BENCH, src / "_static" / "bench")
    (src / "conf.py").write_text(CONF)
    (src / "index.md").write_text(f"# Benchmarks\n\n{page}\n", encoding="utf-8")
    for name, change in changes.items():
        change(data := _json(name))
        (src / "_static" / "bench" / name).write_text(json.dumps(data))
    return src


def test_pictures_alt_texts_and_tables_in_english_and_chinese(tmp_path: Path) -> None:
    out, warnings = build(project(tmp_path))
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    assert (
        '<p><picture><source media="(max-width: 540px)" srcset="_static/bench/speed_phone.png 1x, '
        '_static/bench/speed_phone@2x.png 2x"><img src="_static/bench/speed.png" srcset="'
        '_static/bench/speed.png 1x, _static/bench/speed@2x.png 2x" width="700" alt="Three stacked'
    ) in html
    assert html.count("<table") == 3 and "fused path (MiB)" in html and "cache grown by" in html
    src = project(tmp_path / "zh")  # with the page's Chinese catalog
    (catalogs := src / "locale/zh_CN/LC_MESSAGES").mkdir(parents=True)
    shutil.copy(DOCS / "locale/zh_CN/LC_MESSAGES" / f"{PAGE}.po", catalogs / "index.po")
    out, warnings = build(src, language="zh_CN")
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    for kind in ("speed", "memory", "gqa"):  # the figures the benchmark drew in Chinese
        files = bf.figure_files(BENCH, kind, "zh_CN").values()
        assert all(f"_static/bench/{n}" in html and ".zh_CN." in n for n in files)
    assert 'alt="三个上下排列的柱状图' in html and "融合路径（单位：MiB）" in html
    assert "未达到目标" in html  # the table's words
    assert "goal missed" not in html and "fused path" not in html


def test_the_catalog_entries_hold_no_number(tmp_path: Path) -> None:
    def other_run(data: dict) -> None:
        data["gqa"]["seq"], data["gqa"]["decode"]["step_ms"] = 4096, 98.7

    found = []
    for number, changes in enumerate(({}, {"gqa.json": other_run})):
        out, warnings = build(project(tmp_path / str(number), **changes), builder="gettext")
        assert warnings == ""
        with (out / "index.pot").open("rb") as f:
            found.append({m.id for m in read_po(f) if m.id} - {"Benchmarks"})
    assert found[0] == found[1] == {t for b in BLOCKS for t in words(b).values()}
    assert not [t for t in found[0] if re.search(r"\d", t)]


@pytest.mark.parametrize(
    ("page", "changes", "message"),
    [
        (BLOCKS[3], {"gqa.json": lambda d: d["gqa"]["design"].pop("concatenate")},
         "bench-figure gqa: expected key 'concatenate' in _static/bench/gqa.json"),
        (BLOCKS[2].replace("length: sequence length L\n", ""), {},
         "bench-figure memory: expected key 'length' in _static/bench/results.json or the"),
        ("```{bench-figure} latency\n```", {}, "expected one of speed, memory, gqa, got 'latency'"),
    ],
)  # fmt: skip
def test_a_missing_key_or_word_is_a_warning(tmp_path: Path, page, changes, message) -> None:
    _, warnings = build(project(tmp_path, page, **changes))
    assert message in warnings and warnings.count("WARNING") + warnings.count("ERROR") == 1


def test_a_missing_file_is_a_warning_and_the_json_a_dependency(tmp_path: Path) -> None:
    src = project(tmp_path)
    (src / "_static" / "bench" / "gqa_phone@2x.png").unlink()
    _, warnings = build(src)
    assert "bench-figure gqa: expected the figure _static/bench/gqa_phone@2x.png" in warnings
    shutil.copy(BENCH / "gqa_phone@2x.png", src / "_static" / "bench")
    (gqa := _json("gqa.json"))["gqa"]["decode"]["step_ms"] = 7.777
    (src / "_static" / "bench" / "gqa.json").write_text(json.dumps(gqa))
    out, warnings = build(src, fresh=False)  # the new JSON and figure re-read the page
    assert warnings == "" and "7.8 ms" in (out / "index.html").read_text(encoding="utf-8")
