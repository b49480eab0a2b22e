"""The "what heads learn" page's tables (docs/_ext/json_directives.py) state the example's JSON;
a small build checks the directive, its Chinese words and its warning on a missing file."""

from __future__ import annotations

import json
import re

import json_directives as ht
import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from docpages import directive, words
from docutils import nodes

BLOCKS = {k: directive("explanation/what-heads-learn", "head-table", k) for k in ht.HEAD_TABLES}


def _task(*values: object) -> dict:
    return dict(zip(("looking", "needed", "on_target", "on_other", "without"), values, strict=True))


DATA = {  # the shape of the example's JSON, with numbers chosen to be recognisable
    "roles": {"agreement": {"layer": 0, "head": 2}, "pronoun": {"layer": 0, "head": 1}},
    "accuracy": {"agreement": 0.998, "pronoun": 0.997},
    "baseline": {"agreement": 0.521, "pronoun": 0.519},
    "ablation": {"0": {"agreement": 0.991, "pronoun": 0.992},
                 "1": {"agreement": 0.993, "pronoun": 0.507},
                 "2": {"agreement": 0.511, "pronoun": 0.994}},
    "lowest": {"price": {"0": {"agreement": 0.511, "pronoun": 0.49}},
               "no_price": {"0": {"agreement": 0.871, "pronoun": 0.502}}},
    "seeds": {"0": {
        "agreement": _task(2, 2, [0.1, 0.2, 0.83], [0.1, 0.1, 0.04], [0.99, 0.98, 0.51]),
        "pronoun": _task(0, 1, [0.71, 0.05, 0.2], [0.1, 0.88, 0.1], [0.97, 0.49, 0.96])}},
}  # fmt: skip


def cells(kind: str, data: dict = DATA) -> list[list[str]]:
    table = ht.HEAD_TABLES[kind](data, ht.Messages(words(BLOCKS[kind])))
    return [
        [cell.astext() for cell in row.findall(nodes.entry)] for row in table.findall(nodes.row)
    ]


def test_the_tables_state_every_number() -> None:
    assert cells("ablation") == [
        ["head removed", "agreement accuracy", "pronoun accuracy"], ["none", "0.998", "0.997"],
        ["head 0", "0.991", "0.992"], ["head 1 (the head the pronoun needs)", "0.993", "0.507"],
        ["head 2 (the head agreement needs)", "0.511", "0.994"],
        ["majority baseline", "0.521", "0.519"],
    ]  # fmt: skip
    both = json.loads(json.dumps(DATA))
    both["roles"]["pronoun"]["head"], both["ablation"]["2"]["agreement"] = 2, 0.6
    assert cells("ablation", both)[4][:2] == ["head 2 (the head both tasks need)", "0.600"]
    assert cells("seeds") == [
        ["seed", "task", "head that looks most", "head needed", "without it",
         "without another, lowest"],
        ["0", "agreement", "2 (0.83 / 0.04)", "2 (0.83 / 0.04)", "0.510", "0.980"],
        ["0", "pronoun", "0 (0.71 / 0.10)", "1 (0.05 / 0.88)", "0.490", "0.960"],
    ]  # fmt: skip
    table = ht.seeds_table(DATA, ht.Messages(words(BLOCKS["seeds"])))
    assert [s.astext() for s in table.findall(nodes.strong)] == ["1"]  # needed, not looking
    assert cells("price") == [
        ["seed", "agreement, with the price", "agreement, without it", "pronoun, with the price",
         "pronoun, without it"], ["0", "0.511", "0.871", "0.490", "0.502"],
    ]  # fmt: skip


def _page_cells(page: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.DOTALL)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>",
             row, re.DOTALL)] for row in rows]  # fmt: skip


@pytest.mark.sphinx("html", testroot="json-directives")
def test_the_directive_in_english_and_chinese_and_a_missing_file(app, make_app) -> None:
    src = app.srcdir
    (src / "data.json").write_text(json.dumps(DATA), encoding="utf-8")
    blocks = [b.replace("/auto_examples/06_evidence/plot_05_heads_on_sentences.head_explorer.json",
              "data.json") for b in BLOCKS.values()]  # fmt: skip
    missing = blocks[1].replace("data.json", "missing.json")
    (src / "index.md").write_text("# Page\n\n" + "\n\n".join([*blocks, missing]) + "\n")
    app.build()
    warnings = app.warning.getvalue()
    shown = _page_cells((app.outdir / "index.html").read_text(encoding="utf-8"))
    assert shown == [row for kind in ht.HEAD_TABLES for row in cells(kind)]  # not the missing
    assert "WARNING: head-table seeds: expected missing.json, got no such file" in warnings
    assert warnings.count("WARNING") == 1
    catalog = Catalog(locale="zh_CN")
    catalog.add("head removed", "移除的头")
    catalog.add("head {head}", "头 {head}")
    (src / "locale" / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    with open(src / "locale" / "zh_CN" / "LC_MESSAGES" / "index.mo", "wb") as f:
        write_mo(f, catalog)
    app.cleanup()  # its nodes and catalogs: the next build registers its own
    zh = make_app("html", srcdir=src, builddir=src / "_build_zh_CN",
                  confoverrides={"language": "zh_CN"})  # fmt: skip
    zh.build()
    rows = _page_cells((zh.outdir / "index.html").read_text(encoding="utf-8"))
    assert rows[0][0] == "移除的头" and rows[2][0] == "头 0" and rows[0][1] == "agreement accuracy"
