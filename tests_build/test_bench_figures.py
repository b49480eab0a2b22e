"""The Performance page's tables and figures (docs/_ext/json_directives.py) state the benchmark's
JSON; small builds of the page's own directives check pictures, Chinese, warnings, catalogs."""

from __future__ import annotations

import io
import json
import re
import shutil

import json_directives as bf
import pytest
from babel.messages.pofile import read_po
from docpages import DOCS, directive, words
from docutils import nodes

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


def project(app, page: str = "\n\n".join(BLOCKS), **changes):
    """The root's page holding ``page``, the benchmark's files beside it (``changes``: name ->
    edit of its JSON)."""
    src = app.srcdir
    shutil.copytree(BENCH, src / "_static" / "bench")
    (src / "index.md").write_text(f"# Benchmarks\n\n{page}\n", encoding="utf-8")
    for name, change in changes.items():
        change(data := _json(name))
        (src / "_static" / "bench" / name).write_text(json.dumps(data))
    return src


def build(app) -> tuple[str, str]:
    """Build ``app``: its page's HTML (or catalog template) and the warnings."""
    app.build()
    page = app.outdir / ("index.pot" if app.builder.name == "gettext" else "index.html")
    return page.read_text(encoding="utf-8"), app.warning.getvalue()


@pytest.mark.sphinx("html", testroot="json-directives")
def test_pictures_alt_texts_and_tables_in_english_and_chinese(app, make_app) -> None:
    src = project(app)
    html, warnings = build(app)
    assert warnings == ""
    assert (
        '<p><picture><source media="(max-width: 540px)" srcset="_static/bench/speed_phone.png 1x, '
        '_static/bench/speed_phone@2x.png 2x"><img src="_static/bench/speed.png" srcset="'
        '_static/bench/speed.png 1x, _static/bench/speed@2x.png 2x" loading="lazy" width="700" '
        'height="870" alt="Three stacked'
    ) in html
    assert html.count("<table") == 3 and "fused path (MiB)" in html and "cache grown by" in html
    (catalogs := src / "locale/zh_CN/LC_MESSAGES").mkdir(parents=True)  # the page's Chinese
    shutil.copy(DOCS / "locale/zh_CN/LC_MESSAGES" / f"{PAGE}.po", catalogs / "index.po")
    app.cleanup()  # its nodes and catalogs: the next build registers its own
    zh = make_app("html", srcdir=src, builddir=src / "_build_zh_CN",
                  confoverrides={"language": "zh_CN"})  # fmt: skip
    html, warnings = build(zh)
    assert warnings == ""
    for kind in ("speed", "memory", "gqa"):  # the figures the benchmark drew in Chinese
        files = bf.figure_files(BENCH, kind, "zh_CN").values()
        assert all(f"_static/bench/{n}" in html and ".zh_CN." in n for n in files)
    assert 'alt="三个上下排列的柱状图' in html and "融合路径（单位：MiB）" in html
    assert "未达到目标" in html  # the table's words
    assert "goal missed" not in html and "fused path" not in html


@pytest.mark.sphinx("gettext", testroot="json-directives")
def test_the_catalog_entries_hold_no_number(app, make_app) -> None:
    def other_run(data: dict) -> None:
        data["gqa"]["seq"], data["gqa"]["decode"]["step_ms"] = 4096, 98.7

    src, found = project(app), []
    app.cleanup()  # each run below is a build of its own
    for number, changes in enumerate(({}, {"gqa.json": other_run})):
        for name, change in changes.items():
            change(data := _json(name))
            (src / "_static" / "bench" / name).write_text(json.dumps(data))
        run = make_app("gettext", srcdir=src, builddir=src / f"_build{number}", freshenv=True)
        pot, warnings = build(run)
        run.cleanup()
        assert warnings == ""
        found.append({m.id for m in read_po(io.BytesIO(pot.encode())) if m.id} - {"Benchmarks"})
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
@pytest.mark.sphinx("html", testroot="json-directives")
def test_a_missing_key_or_word_is_a_warning(app, page, changes, message) -> None:
    project(app, page, **changes)
    _, warnings = build(app)
    assert message in warnings and warnings.count("WARNING") + warnings.count("ERROR") == 1


@pytest.mark.sphinx("html", testroot="json-directives")
def test_a_missing_file_is_a_warning_and_the_json_a_dependency(app) -> None:
    src = project(app)
    (src / "_static" / "bench" / "gqa_phone@2x.png").unlink()
    _, warnings = build(app)
    assert "bench-figure gqa: expected the figure _static/bench/gqa_phone@2x.png" in warnings
    shutil.copy(BENCH / "gqa_phone@2x.png", src / "_static" / "bench")
    (gqa := _json("gqa.json"))["gqa"]["decode"]["step_ms"] = 7.777
    (src / "_static" / "bench" / "gqa.json").write_text(json.dumps(gqa))
    before = len(warnings)
    html, warnings = build(app)  # the same environment: the new JSON and figure re-read the page
    assert warnings[before:] == "" and "7.8 ms" in html
