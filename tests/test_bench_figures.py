"""The Performance page's figures and table (docs/_ext/json_directives.py) state the benchmark's JSON.

The alt texts and the speed table are computed from results.json and gqa.json: a number changed
in a copy of the JSON changes them. Small Sphinx builds check the directives themselves: the
Chinese templates of the page's catalog, the warnings on a missing file or key, and that the
extracted templates hold no number (a new benchmark run leaves every catalog entry current).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from docutils import nodes

pytest.importorskip("sphinx", reason="the site's extensions need Sphinx (the docs extra)")
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from sphinx_build import build

DOCS = Path(__file__).resolve().parents[1] / "docs"
BENCH = DOCS / "_static" / "bench"
CATALOG = DOCS / "locale" / "zh_CN" / "LC_MESSAGES" / "explanation" / "performance.po"
import json_directives as bf


def _json(name: str) -> dict:
    return json.loads((BENCH / name).read_text(encoding="utf-8"))


@pytest.fixture
def results() -> dict:
    return _json("results.json")


@pytest.fixture
def gqa() -> dict:
    return _json("gqa.json")


def english(kind: str) -> bf.Messages:
    return bf.Messages(bf.BENCH_TEMPLATES[kind])


def _missed(results: dict) -> list[dict]:
    return [row for row in results["speed"] if not row["passed"]]


def _set_passed(row: dict, ratio: float) -> None:
    row["ratio"], row["passed"] = ratio, ratio <= row["goal"]


# ---- The alt texts and the table come from the JSON ----------------------------------------------


def test_speed_alt_lists_each_missed_bar_from_the_json(results: dict) -> None:
    for row in results["speed"]:
        _set_passed(row, 0.5 * row["goal"])
    row = next(r for r in results["speed"] if r["mode"] == "training" and not r["batch_first"])
    _set_passed(row, 1.234)
    alt = bf.speed_alt(results, "results.json", english("speed"))
    shape = (row["B"], row["L"], row["E"], row["H"])
    assert alt.endswith(
        f"every bar is below its goal except training at {shape} with batch_first=False, "
        f"1.23 against {row['goal']:.2f}, which is hatched."
    )
    assert alt.startswith(
        "Three stacked bar charts, inference, training and per-head weights: the time ratio "
        "mha / torch at three shapes for batch_first=True and False, with the goal lines; "
    )
    _set_passed(row, 1.5)  # another number, another text
    assert "1.50 against" in bf.speed_alt(results, "results.json", english("speed"))


def test_speed_alt_with_no_miss_and_with_several(results: dict) -> None:
    for row in results["speed"]:
        _set_passed(row, 0.5 * row["goal"])
    alt = bf.speed_alt(results, "results.json", english("speed"))
    assert alt.endswith("with the goal lines; every bar is below its goal.")
    weights = [r for r in results["speed"] if r["mode"] == "weights"][:2]
    for ratio, row in zip((1.31, 1.42), weights, strict=True):
        _set_passed(row, ratio)
    alt = bf.speed_alt(results, "results.json", english("speed"))
    first, second = (f"({r['B']}, {r['L']}, {r['E']}, {r['H']})" for r in weights)
    assert (
        f"except per-head weights at {first} with batch_first={weights[0]['batch_first']}, "
        f"1.31 against 1.30 and per-head weights at {second} with batch_first="
        f"{weights[1]['batch_first']}, 1.42 against 1.30, which are hatched." in alt
    )


def test_speed_alt_counts_the_shapes_measured(results: dict) -> None:
    first = (results["speed"][0]["B"], results["speed"][0]["L"])
    results["speed"] = [r for r in results["speed"] if (r["B"], r["L"]) == first]  # --quick
    assert "at one shape for" in bf.speed_alt(results, "results.json", english("speed"))


def test_memory_alt_states_the_largest_peaks(results: dict) -> None:
    memory = results["memory"]
    longest = max(p["L"] for p in memory["points"])
    peak = {p["path"]: p for p in memory["points"] if p["L"] == longest}
    peak["fused"]["peak_mib"], peak["explicit"]["peak_mib"] = 57.4, 3 * 1024 + 300
    alt = bf.memory_alt(results, "results.json", english("memory"))
    lengths = sorted({p["L"] for p in memory["points"]})
    assert alt == (
        "Peak memory of one forward pass against the sequence length from "
        f"{lengths[0]} to {lengths[-1]}, log-log: the fused path grows linearly, to about "
        "57 MiB, the explicit path quadratically, to about 3.3 GiB."
    )
    memory["growth_exponent"]["fused"] = 1.52
    alt = bf.memory_alt(results, "results.json", english("memory"))
    assert "the fused path grows as L^1.5, to about 57 MiB" in alt


def test_gqa_alt_states_the_decode_times(gqa: dict) -> None:
    g = gqa["gqa"]
    g["decode"]["step_ms"], g["decode"]["recompute_ms"] = 3.14159, 612.7
    g["design"]["preallocated"]["decode_all_ms"] = 4049.0
    g["design"]["concatenate"]["decode_all_ms"] = 9951.0
    assert bf.gqa_alt(gqa, "gqa.json", english("gqa")) == (
        f"Two bar charts. Left, on a log scale: one cached decode step at S = {g['seq']} takes "
        f"3.1 ms against 613 ms to recompute the whole sequence. Right: decoding {g['seq']} "
        "tokens takes 4.0 s with the preallocated cache against 10.0 s with concatenation."
    )


def _rows(table: nodes.table) -> list[tuple[list[str], list[str]]]:
    """(the row's classes, its cells' text) for each row, the header's first."""
    return [
        (row["classes"], [entry.astext() for entry in row.findall(nodes.entry)])
        for row in table.findall(nodes.row)
    ]


def test_table_has_a_row_per_measurement_from_the_json(results: dict) -> None:
    row = results["speed"][-1]
    row["ours_gflops"], row["torch_gflops"], row["ours_of_roofline"] = 12.345, 6.78, 0.4321
    _set_passed(row, 9.876)
    table = bf.speed_table(results, "results.json", english("table"))
    assert table["classes"] == ["bench-table"]
    head, *rows = _rows(table)
    assert head == ([], [
        "mode", "(B, L, E, H)", "batch_first", "ratio", "goal", "GFLOP/s mha", "GFLOP/s torch",
        "mha / roofline",
    ])  # fmt: skip
    assert len(rows) == len(results["speed"])
    shape = f"({row['B']}, {row['L']}, {row['E']}, {row['H']})"
    assert (["bench-missed-row"], [
        row["mode"], shape, str(row["batch_first"]), "9.88",
        f"≤ {row['goal']:.2f} ✗ goal missed", "12.3", "6.8", "43 %",
    ]) in rows  # fmt: skip
    # the ratio in bold; each goal marked met or missed, the words in a span of their own
    assert [s.astext() for s in table.findall(nodes.strong)] == [r[1][3] for r in rows]
    marks = [(m["classes"], m.astext()) for m in table.findall(nodes.inline) if m["classes"]]
    assert marks == [
        (["bench-met"], "✓ goal met") if r["passed"] else (["bench-missed"], "✗ goal missed")
        for r in sorted(results["speed"], key=lambda r: (list(results["modes"]).index(r["mode"]),
                                                          not r["batch_first"]))
    ]  # fmt: skip
    # ordered by mode, batch_first=True first; the rows that met their goal marked so
    modes = list(results["modes"])
    keys = [(modes.index(cells[0]), cells[2] == "False") for _, cells in rows]
    assert keys == sorted(keys)
    met = [cells for classes, cells in rows if not classes]
    assert len(met) == sum(r["passed"] for r in results["speed"])
    assert all(c[4].endswith("✓ goal met") for c in met)


# ---- Errors name the file and the key ------------------------------------------------------------


def test_a_missing_key_names_the_file_and_the_key(results: dict) -> None:
    del results["memory"]["growth_exponent"]
    with pytest.raises(bf.DataError, match=r"expected key 'growth_exponent' in "
                       r"results\.json\['memory'\], got keys \['batch'"):  # fmt: skip
        bf.memory_alt(results, "results.json", english("memory"))
    del results["speed"][3]["ratio"]
    with pytest.raises(bf.DataError, match=r"expected key 'ratio' in results\.json"
                       r"\['speed'\]\[3\]"):  # fmt: skip
        bf.speed_table(results, "results.json", english("table"))


def test_a_translation_with_other_placeholders_keeps_the_english() -> None:
    templates = {"miss": bf.BENCH_TEMPLATES["speed"]["miss"]}
    messages = bf.Messages(templates, {"miss": "{mode} 在 {shape}（{ration}）"})
    assert messages.text["miss"] == templates["miss"]
    assert "should use the placeholders" in messages.bad[0] and "{ration}" in messages.bad[0]


# ---- The directives in a Sphinx build ------------------------------------------------------------

PAGE = """Benchmarks
==========

.. bench-table::

.. bench-figure:: speed

.. bench-figure:: memory

.. bench-figure:: gqa
"""
CONF = """
extensions = ["json_directives"]
locale_dirs = ["locale/"]
gettext_compact = False
html_search_language = "en"  # the Chinese search index needs jieba: not tested here
"""


def project(tmp_path: Path, edit=None) -> Path:
    """A one-page site with the directives and a copy of the benchmark's files (``edit``
    changes the copy: ``edit(results, gqa)``)."""
    src = tmp_path / "src"
    shutil.copytree(BENCH, src / "_static" / "bench")
    (src / "conf.py").write_text(CONF)
    (src / "index.rst").write_text(PAGE)
    if edit is not None:
        data = {name: _json(name) for name in ("results.json", "gqa.json")}
        edit(data["results.json"], data["gqa.json"])
        for name, value in data.items():
            (src / "_static" / "bench" / name).write_text(json.dumps(value))
    return src


def alts(html: str) -> dict[str, str]:
    """Each benchmark figure's alt text, by figure."""
    found = re.findall(r'<img src="_static/bench/(\w+)(?:\.\w+)?\.png"[^>]*? alt="([^"]*)"', html)
    return dict(found)


def _page_rows(page: str) -> list[tuple[list[str], list[str]]]:
    """The built page's table: its classes, then (the row's classes, its cells' text) for each
    row (Sphinx's row-odd and row-even left out)."""
    table = re.search(r'<table class="([^"]*)"[^>]*>(.*?)</table>', page, re.DOTALL)
    classes = [c for c in table[1].split() if c not in ("table", "docutils", "align-default")]
    rows = []
    for row_classes, row in re.findall(r'<tr(?: class="([^"]*)")?>(.*?)</tr>', table[2], re.DOTALL):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.DOTALL)
        kept = [c for c in row_classes.split() if c not in ("row-odd", "row-even")]
        rows.append((kept, [" ".join(re.sub(r"<[^>]+>", "", c).split()) for c in cells]))
    return [(classes, []), *rows]


def test_directives_write_the_pictures_and_the_table(tmp_path: Path, results: dict) -> None:
    out, warnings = build(project(tmp_path))
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    assert (
        '<p><picture><source media="(max-width: 540px)" srcset="_static/bench/speed_phone.png 1x, '
        '_static/bench/speed_phone@2x.png 2x"><img src="_static/bench/speed.png" '
        'srcset="_static/bench/speed.png 1x, _static/bench/speed@2x.png 2x" width="700" alt="'
    ) in html
    assert alts(html) == {
        "speed": bf.speed_alt(results, "x", english("speed")),
        "memory": bf.memory_alt(results, "x", english("memory")),
        "gqa": bf.gqa_alt(_json("gqa.json"), "x", english("gqa")),
    }
    table = [(["bench-table"], []), *_rows(bf.speed_table(results, "x", english("table")))]
    assert _page_rows(html) == table


def _chinese_catalog(src: Path) -> None:
    """The page's catalog: the templates' entries of the Performance page's Chinese catalog."""
    with CATALOG.open("rb") as f:
        performance = read_po(f, locale="zh_CN")
    wanted = {text for templates in bf.BENCH_TEMPLATES.values() for text in templates.values()}
    catalog = Catalog(locale="zh_CN")
    for message in performance:
        if message.id in wanted and message.string and not message.fuzzy:
            catalog.add(message.id, message.string)
    folder = src / "locale" / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "index.po").open("wb") as f:
        write_po(f, catalog)


def test_chinese_alt_text_and_headers(tmp_path: Path) -> None:
    def edit(results: dict, gqa: dict) -> None:
        for row in results["speed"]:
            _set_passed(row, 0.5 * row["goal"])
        _set_passed(results["speed"][0], 0.9123)
        gqa["gqa"]["design"]["concatenate"]["decode_all_ms"] = 8049.0

    src = project(tmp_path, edit)
    _chinese_catalog(src)
    out, warnings = build(src, language="zh_CN")
    assert warnings == ""
    html = (out / "index.html").read_text(encoding="utf-8")
    first = _json("results.json")["speed"][0]
    shape = f"({first['B']}, {first['L']}, {first['E']}, {first['H']})"
    found = alts(html)
    # the Chinese edition shows the figures drawn in Chinese, every version of each
    for kind in ("speed", "memory", "gqa"):
        for name in bf.figure_names(kind, "zh_CN").values():
            assert f"_static/bench/{name}" in html and ".zh_CN.png" in name
    assert "_static/bench/speed.png" not in html
    # the mode column in Chinese, as the page's Method table names the modes
    rows = [cells for _, cells in _page_rows(html)[1:]]
    assert rows[1][0] == "推理" and "inference" not in [cells[0] for cells in rows]
    assert found["speed"] == (
        "三个上下排列的柱状图，分别是推理、训练和逐头权重：在三种形状下、batch_first=True 和 batch_first=False 时 "
        f"mha 与 torch 的耗时比，并画出目标线；除了 batch_first=True 时 {shape} 的推理（0.91，"
        f"目标 {first['goal']:.2f}）之外，每根柱子都低于目标；这根柱子以斜线标出。"
    )
    assert found["memory"].startswith("一次前向传播的峰值内存随序列长度（1024 到 8192）的变化")
    assert "融合路径线性增长，约到 " in found["memory"]
    assert found["gqa"].endswith("拼接方式耗时 8.0 s。")
    assert {"模式", "耗时比", "目标", "mha 的 GFLOP/s"} <= set(rows[0])
    assert "<span>达到目标</span>" in html and "<span>未达到目标</span>" in html
    assert "goal met" not in html and "goal missed" not in html


def test_the_catalog_templates_hold_no_number(tmp_path: Path) -> None:
    """Two benchmark runs with other numbers extract the same templates."""

    def other_run(results: dict, gqa: dict) -> None:
        for row in results["speed"]:
            _set_passed(row, 2 * row["ratio"])
        gqa["gqa"]["decode"]["step_ms"] = 98.7

    templates = []
    for number, edit in enumerate((None, other_run)):
        out, warnings = build(project(tmp_path / str(number), edit), builder="gettext")
        assert warnings == ""
        with (out / "index.pot").open("rb") as f:
            templates.append({m.id for m in read_po(f) if m.id})
    assert templates[0] == templates[1]
    expected = {text for kind in bf.BENCH_TEMPLATES.values() for text in kind.values()}
    assert templates[0] == expected | {"Benchmarks"}
    assert not [t for t in templates[0] if re.search(r"\d", t)]


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        (
            "results.json",
            "bench-table: expected the benchmark's results in _static/bench/results.json",
        ),
        (
            "gqa_phone@2x.png",
            "bench-figure gqa: expected the figure _static/bench/gqa_phone@2x.png",
        ),
    ],
)
def test_a_missing_file_is_a_warning_naming_it(tmp_path: Path, remove: str, message: str) -> None:
    src = project(tmp_path)
    (src / "_static" / "bench" / remove).unlink()
    _, warnings = build(src)
    assert "index.rst:" in warnings and f"WARNING: {message}, got no such file" in warnings


def test_a_missing_key_is_a_warning_naming_the_file_and_key(tmp_path: Path) -> None:
    def edit(results: dict, gqa: dict) -> None:
        del gqa["gqa"]["design"]["concatenate"]

    _, warnings = build(project(tmp_path, edit))
    assert (
        "WARNING: bench-figure gqa: expected key 'concatenate' in "
        "_static/bench/gqa.json['gqa']['design'], got keys ['chosen', 'preallocated']"
    ) in warnings
    assert warnings.count("WARNING") == 1  # the other figures and the table are written


def test_an_unknown_figure_is_a_warning(tmp_path: Path) -> None:
    src = project(tmp_path)
    (src / "index.rst").write_text(PAGE + "\n.. bench-figure:: latency\n")
    _, warnings = build(src)
    assert "bench-figure: expected one of speed, memory, gqa, got 'latency'" in warnings


def test_the_json_is_a_dependency_of_the_page(tmp_path: Path) -> None:
    """A new benchmark result re-reads the page: its alt text follows the new numbers."""
    src = project(tmp_path)
    out, _ = build(src)
    results = _json("results.json")
    _set_passed(_missed(results)[0] if _missed(results) else results["speed"][0], 7.777)
    (src / "_static" / "bench" / "results.json").write_text(json.dumps(results))
    out, warnings = build(src, fresh=False)
    assert warnings == ""
    assert "7.78 against" in alts((out / "index.html").read_text(encoding="utf-8"))["speed"]


def test_a_translation_that_renames_a_placeholder_is_a_warning(tmp_path: Path) -> None:
    src = project(tmp_path)
    catalog = Catalog(locale="zh_CN")
    catalog.add(bf.BENCH_TEMPLATES["gqa"]["alt"], "两个柱状图：{step} 与 {recompte}。")
    folder = src / "locale" / "zh_CN" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "index.po").open("wb") as f:
        write_po(f, catalog)
    out, warnings = build(src, language="zh_CN")
    assert "bench-figure gqa: the translation of 'Two bar charts." in warnings
    assert "got '两个柱状图：{step} 与 {recompte}。'" in warnings
    assert alts((out / "index.html").read_text(encoding="utf-8"))["gqa"].startswith("Two bar")
