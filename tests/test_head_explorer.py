"""The head explorer directive (docs/_ext/head_explorer.py) embeds exactly the gallery's JSON.

The JSON is checked before it is embedded: a missing key or a value of the wrong shape is an
error naming the file and the key. Small Sphinx builds check the directive itself: the page
embeds the data and the templates, the templates are extracted for the page's catalog and
translated from it, the script and style come only with the pages that use them, and a new
JSON re-reads the page. The drawing itself is checked in Chromium (tests_site).
"""

from __future__ import annotations

import copy
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the site's extensions need Sphinx (the docs extra)")
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from sphinx_build import build

DOCS = Path(__file__).resolve().parents[1] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import head_explorer as hx

# 3 layers, 2 heads, sentences of 4 and 5 tokens: no two sizes equal, so a swapped axis fails
LAYERS, HEADS = 3, 2


def _rows(length: int, seed: int) -> list[list[float]]:
    """A causal row-stochastic matrix with 3-decimal weights (row q: its q + 1 first keys)."""
    rows = []
    for q in range(length):
        raw = [((seed + 7 * q + 3 * k) % 5) + 1 if k <= q else 0 for k in range(length)]
        row = [round(v / sum(raw), 3) for v in raw]
        row[0] = round(row[0] + 1 - sum(row), 3)
        rows.append(row)
    return rows


def _sentence(task: str, tokens: list[str], query: int, marks: dict, values: tuple) -> dict:
    n = len(tokens)
    return {
        "task": task,
        "tokens": tokens,
        "gloss": [f"词{i}" for i in range(n)],
        "query": query,
        "marks": marks,
        "answer": values[0],
        "prediction": values[1],
        "weights": [
            [_rows(n, seed=10 * layer + head) for head in range(HEADS)] for layer in range(LAYERS)
        ],
    }


def make_data() -> dict:
    return {
        "layers": LAYERS,
        "heads": HEADS,
        "roles": {"agreement": {"layer": 2, "head": 1}},
        "sentences": [
            _sentence("agreement", ["the", "keys", "</script>", "<verb>"], 3,
                      {"subject": 1, "distractor": 2}, ("plural", "singular")),
            _sentence("pronoun", ["anna", "thanked", "maria", "because", "she"], 4,
                      {"antecedent": 0, "other": 2}, ("first", "first")),
        ],
    }  # fmt: skip


@pytest.fixture
def data() -> dict:
    return make_data()


# ---- The JSON is checked: errors name the file and the key ---------------------------------------


def test_the_fixture_is_valid(data: dict) -> None:
    assert hx.validate(copy.deepcopy(data), "x.json") == data


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("heads"), r"expected key 'heads' in x\.json, got keys \['layers'"),
        (
            lambda d: d["sentences"][1].pop("query"),
            r"expected key 'query' in x\.json\['sentences'\]\[1\], got keys \['answer'",
        ),
        (
            lambda d: d["sentences"][0]["marks"].pop("distractor"),
            r"expected key 'distractor' in x\.json\['sentences'\]\[0\]\['marks'\]",
        ),
        (
            lambda d: d["roles"]["agreement"].update(head=2),
            (
                r"expected an integer from 0 to 1 in x\.json\['roles'\]\['agreement'\]\['head'\], "
                r"got 2"
            ),
        ),
        (
            lambda d: d["sentences"][1].update(task="negation"),
            r"expected x\.json\['sentences'\]\[1\]\['task'\] among \['agreement', 'pronoun'\]",
        ),
        (
            lambda d: d["sentences"][0]["gloss"].pop(),
            r"expected a list of 4 in x\.json\['sentences'\]\[0\]\['gloss'\], got 3 items",
        ),
        (
            lambda d: d["sentences"][0]["weights"].pop(),
            r"expected a list of 3 in x\.json\['sentences'\]\[0\]\['weights'\], got 2 items",
        ),
        (
            lambda d: d["sentences"][1]["weights"][2][1][3].pop(),
            r"expected a list of 5 in x\.json\['sentences'\]\[1\]\['weights'\]\[2\]\[1\]\[3\]",
        ),
        (
            lambda d: d["sentences"][1]["weights"][0][1][2].__setitem__(3, 0.5),
            (
                r"expected 0 in x\.json\['sentences'\]\[1\]\['weights'\]\[0\]\[1\]\[2\]\[3\] "
                r"\(causal"
            ),
        ),
        (
            lambda d: d["sentences"][0]["weights"][1][0][3].__setitem__(0, 0.9),
            (
                r"expected the weights of x\.json\['sentences'\]\[0\]\['weights'\]\[1\]\[0\]\[3\] "
                r"to sum to 1"
            ),
        ),
        (
            lambda d: d["sentences"][0].update(answer="many"),
            r"expected x\.json\['sentences'\]\[0\]\['answer'\] among \['singular', 'plural'\]",
        ),
    ],
)
def test_an_invalid_json_names_the_file_and_the_key(data: dict, edit, message: str) -> None:
    edit(data)
    with pytest.raises(hx.HeadExplorerError, match=message):
        hx.validate(data, "x.json")


def test_roles_may_lack_a_task(data: dict) -> None:
    data["roles"] = {}
    assert hx.validate(data, "x.json")["roles"] == {}


def test_a_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(hx.HeadExplorerError, match=r"data in a\.json, got no such file"):
        hx.load(tmp_path / "a.json", "a.json")
    (tmp_path / "b.json").write_text("{ no")
    with pytest.raises(hx.HeadExplorerError, match=r"expected JSON in b\.json, got Expecting"):
        hx.load(tmp_path / "b.json", "b.json")


def test_the_embedded_json_cannot_end_its_script(data: dict) -> None:
    text = hx.script_json(data)
    assert "</script>" not in text and "<" not in text
    assert json.loads(text) == data


# ---- The directive in a Sphinx build -------------------------------------------------------------

PAGE = """Heads
=====

.. toctree::

   explanation/heads

Every head.
"""
EXPLORER_PAGE = """Explore
=======

.. head-explorer:: ../data/head_explorer.json
"""
CONF = f"""
import sys
sys.path.insert(0, {str(DOCS / "_ext")!r})
extensions = ["head_explorer"]
locale_dirs = ["locale/"]
gettext_compact = False
html_search_language = "en"  # the Chinese search index needs jieba: not tested here
"""


def project(tmp_path: Path, data: dict) -> Path:
    """A two-page site: the explorer on ``explanation/heads``, its JSON in ``data/``."""
    src = tmp_path / "src"
    (src / "explanation").mkdir(parents=True)
    (src / "data").mkdir()
    (src / "conf.py").write_text(CONF)
    (src / "index.rst").write_text(PAGE)
    (src / "explanation" / "heads.rst").write_text(EXPLORER_PAGE)
    write(src, data)
    return src


def write(src: Path, data: dict) -> None:
    text = json.dumps(data, ensure_ascii=False)
    (src / "data" / "head_explorer.json").write_text(text, encoding="utf-8")


class _Explorer(HTMLParser):
    """The explorer containers of a page: their attributes and their JSON scripts by class."""

    def __init__(self) -> None:
        super().__init__()
        self.containers: list[dict] = []
        self._script: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "head-explorer" in (values.get("class") or "").split():
            self.containers.append({"attrs": values, "scripts": {}, "hidden": []})
        elif self.containers and tag == "script" and values.get("type") == "application/json":
            self._script = values["class"]
            self.containers[-1]["scripts"][self._script] = ""
        elif self.containers and "hidden" in values:
            self.containers[-1]["hidden"].append(values.get("class"))

    def handle_data(self, data: str) -> None:
        if self._script:
            self.containers[-1]["scripts"][self._script] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None


def explorers(html: str) -> list[dict]:
    parser = _Explorer()
    parser.feed(html)
    return parser.containers


def _page(out: Path, name: str = "explanation/heads.html") -> str:
    return (out / name).read_text(encoding="utf-8")


def test_the_page_embeds_exactly_the_data(tmp_path: Path, data: dict) -> None:
    out, warnings = build(project(tmp_path, data))
    assert warnings == ""
    html = _page(out)
    (found,) = explorers(html)
    assert json.loads(found["scripts"]["hx-data"]) == data
    assert json.loads(found["scripts"]["hx-text"]) == hx.TEMPLATES
    assert json.loads(found["scripts"]["hx-tasks"]) == {
        task: {key: list(value) for key, value in kinds.items()} for task, kinds in hx.TASKS.items()
    }
    assert found["attrs"]["data-gloss"] == "false"
    assert found["attrs"]["aria-label"] == hx.TEMPLATES["region"]
    assert found["hidden"] == ["hx-ui"]  # the controls wait for the script
    assert f'<noscript><p class="hx-noscript">{hx.TEMPLATES["noscript"]}</p></noscript>' in html
    # the script and style on this page, not on the page without an explorer
    for asset in ("_static/head-explorer.js", "_static/head-explorer.css"):
        assert f'"../{asset}' in html
        assert asset not in _page(out, "index.html")
    assert '<script defer="defer" src="../_static/head-explorer.js' in html


def test_the_templates_are_extracted_for_the_page_catalog(tmp_path: Path, data: dict) -> None:
    out, warnings = build(project(tmp_path, data), builder="gettext")
    assert warnings == ""
    with (out / "explanation" / "heads.pot").open("rb") as f:
        extracted = {m.id for m in read_po(f) if m.id}
    assert extracted == set(hx.TEMPLATES.values()) | {"Explore"}
    # the templates hold no data: another JSON extracts the same ones
    data["sentences"][0]["tokens"][0] = "a"
    out, _ = build(project(tmp_path / "again", data), builder="gettext")
    with (out / "explanation" / "heads.pot").open("rb") as f:
        assert {m.id for m in read_po(f) if m.id} == extracted


def _catalog(src: Path, entries: dict[str, str]) -> None:
    catalog = Catalog(locale="zh_CN")
    for english, chinese in entries.items():
        catalog.add(english, chinese)
    folder = src / "locale" / "zh_CN" / "LC_MESSAGES" / "explanation"
    folder.mkdir(parents=True)
    with (folder / "heads.po").open("wb") as f:
        write_po(f, catalog)


def test_the_chinese_page_has_the_translated_templates_and_glosses(
    tmp_path: Path, data: dict
) -> None:
    src = project(tmp_path, data)
    _catalog(src, {hx.TEMPLATES["head_n"]: "头 {n}", hx.TEMPLATES["queries"]: "查询词元"})
    out, warnings = build(src, language="zh_CN")
    assert warnings == ""
    (found,) = explorers(_page(out))
    text = json.loads(found["scripts"]["hx-text"])
    assert text["head_n"] == "头 {n}" and text["queries"] == "查询词元"
    assert text["layer_n"] == hx.TEMPLATES["layer_n"]  # untranslated: the English template
    assert found["attrs"]["data-gloss"] == "true"
    assert json.loads(found["scripts"]["hx-data"]) == data


def test_a_translation_that_renames_a_placeholder_is_a_warning(tmp_path: Path, data: dict) -> None:
    src = project(tmp_path, data)
    _catalog(src, {hx.TEMPLATES["head_n"]: "头 {m}"})
    out, warnings = build(src, language="zh_CN")
    assert "head-explorer: the translation of 'Head {n}' should use the placeholders ['n']" in (
        warnings
    )
    (found,) = explorers(_page(out))
    assert json.loads(found["scripts"]["hx-text"])["head_n"] == "Head {n}"


def test_a_missing_file_is_a_warning_naming_it(tmp_path: Path, data: dict) -> None:
    src = project(tmp_path, data)
    (src / "data" / "head_explorer.json").unlink()
    out, warnings = build(src)
    assert "explanation/heads.rst:4: WARNING: head-explorer: expected the head explorer's data " \
        "in ../data/head_explorer.json, got no such file" in warnings  # fmt: skip
    assert explorers(_page(out)) == []


def test_a_missing_key_is_a_warning_naming_the_file_and_key(tmp_path: Path, data: dict) -> None:
    del data["sentences"][1]["weights"]
    _, warnings = build(project(tmp_path, data))
    assert (
        "WARNING: head-explorer: expected key 'weights' in "
        "../data/head_explorer.json['sentences'][1], got keys ['answer', 'gloss'"
    ) in warnings
    assert warnings.count("WARNING") == 1


def test_the_json_is_a_dependency_of_the_page(tmp_path: Path, data: dict) -> None:
    """A new JSON (the gallery ran again) re-writes the page with the new weights."""
    src = project(tmp_path, data)
    build(src)
    data["sentences"][0]["weights"][2][1][3] = [0.25, 0.25, 0.0, 0.5]
    write(src, data)
    out, warnings = build(src, fresh=False)
    assert warnings == ""
    (found,) = explorers(_page(out))
    assert json.loads(found["scripts"]["hx-data"]) == data


def test_the_scraper_saves_the_examples_data_beside_it(tmp_path: Path, data: dict) -> None:
    target = tmp_path / "plot_05_heads_on_sentences.py"
    saved = tmp_path / "plot_05_heads_on_sentences.head_explorer.json"
    block_vars = {"example_globals": {"x": 1}, "target_file": str(target)}
    assert hx.scraper(None, block_vars, {}) == ""
    assert not saved.exists()  # an example without the global: no file
    block_vars["example_globals"][hx.DATA_GLOBAL] = data
    assert hx.scraper(None, block_vars, {}) == ""
    assert json.loads(saved.read_text(encoding="utf-8")) == data
    written = saved.stat().st_mtime_ns
    hx.scraper(None, block_vars, {})  # the same data again (the example's next block)
    assert saved.stat().st_mtime_ns == written  # not rewritten: the page is not re-read
