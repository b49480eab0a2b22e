"""The "what heads learn" page's tables (docs/_ext/json_directives.py) state the example's JSON.

The gallery example ``plot_05_heads_on_sentences.py`` writes its measurements into
``head_explorer.json``; the page's ``{head-table}`` directives write them as tables. A number
changed in the JSON changes the table; a missing key is named; a small Sphinx build checks
the directive, its Chinese templates and its warning on a missing file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from docutils import nodes

pytest.importorskip("sphinx", reason="the site's extensions need Sphinx (the docs extra)")

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from sphinx_build import build

DOCS = Path(__file__).resolve().parents[1] / "docs"
import json_directives as ht
from json_directives import Messages


def _task(looking: int, needed: int, on_target: list, on_other: list, without: list) -> dict:
    return {
        "looking": looking,
        "needed": needed,
        "on_target": on_target,
        "on_other": on_other,
        "without": without,
    }


@pytest.fixture
def data() -> dict:
    """The shape of the example's JSON, with numbers chosen to be recognisable."""
    return {
        "roles": {"agreement": {"layer": 0, "head": 2}, "pronoun": {"layer": 0, "head": 1}},
        "accuracy": {"agreement": 0.998, "pronoun": 0.997},
        "baseline": {"agreement": 0.521, "pronoun": 0.519},
        "ablation": {
            "0": {"agreement": 0.991, "pronoun": 0.992},
            "1": {"agreement": 0.993, "pronoun": 0.507},
            "2": {"agreement": 0.511, "pronoun": 0.994},
        },
        "lowest": {
            "price": {"0": {"agreement": 0.511, "pronoun": 0.49}},
            "no_price": {"0": {"agreement": 0.871, "pronoun": 0.502}},
        },
        "seeds": {
            "0": {
                "agreement": _task(2, 2, [0.1, 0.2, 0.83], [0.1, 0.1, 0.04], [0.99, 0.98, 0.51]),
                "pronoun": _task(0, 1, [0.71, 0.05, 0.2], [0.1, 0.88, 0.1], [0.97, 0.49, 0.96]),
            },
        },
    }


def english(kind: str) -> Messages:
    return Messages(ht.HEAD_TEMPLATES[kind])


def cells(table: nodes.table) -> list[list[str]]:
    """The table's rows, each a list of its cells' text."""
    return [
        [entry.astext() for entry in row.findall(nodes.entry)] for row in table.findall(nodes.row)
    ]


def page_cells(page: str) -> list[list[str]]:
    """Every table row of a built page, each a list of its cells' text (markup removed)."""
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.DOTALL)
    cell = r"<t[dh][^>]*>(.*?)</t[dh]>"
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(cell, r, re.DOTALL)] for r in rows
    ]


def bold(table: nodes.table) -> list[str]:
    return [strong.astext() for strong in table.findall(nodes.strong)]


def test_ablation_table_states_every_number(data: dict) -> None:
    rows = cells(ht.ablation_table(data, "x.json", english("ablation")))
    assert rows == [
        ["head removed", "agreement accuracy", "pronoun accuracy"],
        ["none", "0.998", "0.997"],
        ["head 0", "0.991", "0.992"],
        ["head 1 (the head the pronoun needs)", "0.993", "0.507"],
        ["head 2 (the head agreement needs)", "0.511", "0.994"],
        ["majority baseline", "0.521", "0.519"],
    ]
    data["ablation"]["2"]["agreement"] = 0.6
    assert cells(ht.ablation_table(data, "x.json", english("ablation")))[4][1] == "0.600"


def test_ablation_table_names_a_head_both_tasks_need(data: dict) -> None:
    data["roles"]["pronoun"]["head"] = 2
    rows = cells(ht.ablation_table(data, "x.json", english("ablation")))
    assert rows[4][0] == "head 2 (the head both tasks need)"
    assert rows[3][0] == "head 1"


def test_seeds_table_states_looking_and_needed_heads(data: dict) -> None:
    table = ht.seeds_table(data, "x.json", english("seeds"))
    rows = cells(table)
    assert rows[0] == [
        "seed", "task", "head that looks most", "head needed", "without it",
        "without another, lowest",
    ]  # fmt: skip
    assert rows[1] == ["0", "agreement", "2 (0.83 / 0.04)", "2 (0.83 / 0.04)", "0.510", "0.980"]
    assert rows[2] == ["0", "pronoun", "0 (0.71 / 0.10)", "1 (0.05 / 0.88)", "0.490", "0.960"]
    assert bold(table) == ["1"]  # a needed head that is not the looking head stands out


def test_price_table_compares_the_lowest_accuracy(data: dict) -> None:
    rows = cells(ht.price_table(data, "x.json", english("price")))
    assert rows == [
        ["seed", "agreement, with the price", "agreement, without it", "pronoun, with the price",
         "pronoun, without it"],
        ["0", "0.511", "0.871", "0.490", "0.502"],
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("table", "path"),
    [
        ("ablation", ("accuracy",)),
        ("seeds", ("seeds", "0", "pronoun", "without")),
        ("price", ("lowest", "no_price", "0", "pronoun")),
    ],
)
def test_a_missing_key_is_named(data: dict, table: str, path: tuple) -> None:
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    where = "x.json" + "".join(f"[{key!r}]" for key in path[:-1])
    expected = re.escape(f"expected key {path[-1]!r} in {where}, got keys [")
    with pytest.raises(ht.DataError, match=expected):
        ht.HEAD_TABLES[table](data, "x.json", english(table))


def project(tmp_path: Path, data: dict, language_po: dict[str, str] | None = None) -> Path:
    src = tmp_path / "src"
    (src / "locale" / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    (src / "data.json").write_text(json.dumps(data), encoding="utf-8")
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'json_directives']\nlocale_dirs = ['locale/']\n"
        "gettext_compact = False\n"
        "html_search_language = 'en'  # the Chinese search (jieba) is not tested here\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text(
        "# Page\n\n```{head-table} ablation data.json\n```\n\n"
        "```{head-table} seeds data.json\n```\n\n```{head-table} price data.json\n```\n\n"
        "```{head-table} seeds missing.json\n```\n",
        encoding="utf-8",
    )
    if language_po:
        catalog = Catalog(locale="zh_CN")
        for english_text, chinese in language_po.items():
            catalog.add(english_text, chinese)
        with open(src / "locale" / "zh_CN" / "LC_MESSAGES" / "index.mo", "wb") as f:
            write_mo(f, catalog)
    return src


def test_directive_writes_the_tables_and_warns_on_a_missing_file(tmp_path: Path, data) -> None:
    pytest.importorskip("myst_parser")
    out, warnings = build(project(tmp_path, data))
    page = (out / "index.html").read_text(encoding="utf-8")
    shown = page_cells(page)  # the page's tables, one after the other
    written = [cells(ht.ablation_table(data, "data.json", english("ablation"))),
               cells(ht.seeds_table(data, "data.json", english("seeds"))),
               cells(ht.price_table(data, "data.json", english("price")))]  # fmt: skip
    assert shown == [row for rows in written for row in rows]  # not the last: no such file
    assert "head-table seeds: expected missing.json, got no such file" in warnings
    assert warnings.count("WARNING") == 1


def test_templates_are_extracted_without_numbers_and_translated(tmp_path: Path, data) -> None:
    pytest.importorskip("myst_parser")
    src = project(tmp_path, data, {"head removed": "移除的头", "head {head}": "头 {head}"})
    out, _ = build(src, builder="gettext")
    template = (out / "index.pot").read_text(encoding="utf-8")
    for english_text in [text for kind in ht.HEAD_TEMPLATES.values() for text in kind.values()]:
        assert f'msgid "{english_text}"' in template
    assert "0.511" not in template  # a catalog holds no number
    out, _ = build(src, language="zh_CN")
    page = (out / "index.html").read_text(encoding="utf-8")
    rows = page_cells(page)
    assert rows[0][0] == "移除的头" and rows[2][0] == "头 0"
    assert ["head removed"] not in [row[:1] for row in rows]
