"""The head explorer directive (docs/_ext/json_directives.py) embeds exactly the gallery's JSON.

The JSON is checked before it is embedded: a missing key or a value of the wrong shape is an
error naming the file and the key. Small Sphinx builds check the directive itself: the page
embeds the data and the templates, the templates are extracted for the page's catalog and
translated from it, the script and style come only with the pages that use them, and a new
JSON re-reads the page. The drawing itself is checked in Chromium (tests_site).
"""

from __future__ import annotations

import base64
import copy
import json
import math
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the site's extensions need Sphinx (the docs extra)")
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from sphinx_build import build

DOCS = Path(__file__).resolve().parents[1] / "docs"
import json_directives as hx
from json_directives import Messages

# a model of 2 heads of width 2 (E = 4), 6 positions, 10 words: no two sizes equal, so a
# swapped axis fails
HEADS, WIDTH, POSITIONS = 2, 4, 6
VOCABULARY = ["<pad>", "the", "keys", "key", "</script>", "is/are", "he", "she", "boy", "girl"]


def _tensor(*shape: int) -> dict:
    values = [((7 * i) % 11 - 5) / 10 for i in range(math.prod(shape))]
    data = base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode("ascii")
    return {"shape": list(shape), "data": data}


def make_data() -> dict:
    E = WIDTH
    return {
        "heads": HEADS,
        "roles": {"agreement": {"layer": 0, "head": 1}},
        "model": {
            "parameters": {
                "tokens.weight": _tensor(len(VOCABULARY), E),
                "positions.weight": _tensor(POSITIONS, E),
                "attn.in_proj_weight": _tensor(3 * E, E),
                "attn.in_proj_bias": _tensor(3 * E),
                "attn.out_proj.weight": _tensor(E, E),
                "attn.out_proj.bias": _tensor(E),
                "readout.weight": _tensor(4, E),
                "readout.bias": _tensor(4),
            },
            "vocabulary": VOCABULARY,
            "classes": {"agreement": ["singular", "plural"], "pronoun": ["first", "second"]},
        },
        "queries": {"agreement": ["is/are"], "pronoun": ["he", "she"]},
        "words": {
            "the": {"gloss": ""}, "keys": {"gloss": "钥匙们", "number": "plural"},
            "key": {"gloss": "钥匙", "number": "singular"}, "</script>": {"gloss": "<b>"},
            "is/are": {"gloss": {"singular": "是", "plural": "是（复数）"}},
            "he": {"gloss": "他"}, "she": {"gloss": "她"},
            "boy": {"gloss": "男孩", "refers": "he", "women": False},
            "girl": {"gloss": "女孩", "refers": "she", "women": True},
        },
        "groups": [["the", "</script>"], ["keys", "key", "boy", "girl"], ["is/are", "he", "she"]],
        "examples": [["the", "keys", "</script>", "is/are"], ["the", "boy", "girl", "she"]],
        "unused": {"heads": [0], "norm": 0.0021, "needed_norm": 0.44, "moved": 0.0003},
        "try": [
            {
                "task": "agreement", "tokens": ["the", "keys", "key", "is/are"],
                "marks": {"subject": 1, "distractor": 2}, "answer": "plural", "head": 1,
                "with": {"prediction": "plural", "probability": 0.875},
                "without": {"prediction": "singular", "probability": 0.5625},
                "on_target": 0.5, "on_other": 0.25,
            }
        ],
    }  # fmt: skip


@pytest.fixture
def data() -> dict:
    return make_data()


# ---- The JSON is checked: errors name the file and the key ---------------------------------------


def test_the_fixture_is_valid(data: dict) -> None:
    assert hx.validate(copy.deepcopy(data), "x.json") == data


PARAMETERS = r"x\.json\['model'\]\['parameters'\]"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("heads"), r"expected key 'heads' in x\.json, got keys \['examples'"),
        (
            lambda d: d["model"]["parameters"]["attn.in_proj_weight"].update(shape=[4, 4]),
            rf"expected shape \[12, 4\] in {PARAMETERS}\['attn.in_proj_weight'\], got \[4, 4\]",
        ),
        (
            lambda d: d["model"]["parameters"]["readout.bias"].update(data="AAAA"),
            rf"expected 4 float32 in base64 in {PARAMETERS}\['readout.bias'\], got 3",
        ),
        (
            lambda d: d["model"]["parameters"].pop("attn.out_proj.bias"),
            r"expected key 'attn.out_proj.bias' in x\.json\['model'\]",
        ),
        (
            lambda d: d["model"]["classes"].update(pronoun=["second", "first"]),
            r"expected \{.*\} in x\.json\['model'\]\['classes'\]",
        ),
        (
            lambda d: d["roles"]["agreement"].update(head=2),
            r"expected a head from 0 to 1 in x\.json\['roles'\]\['agreement'\], got 2",
        ),
        (
            lambda d: d["roles"].update(negation={"head": 0}),
            r"expected a task among \['agreement', 'pronoun'\] in x\.json\['roles'\]",
        ),
        (
            lambda d: d["words"].pop("girl"),
            r"expected an entry per word in x\.json\['words'\], got \[\"girl\"\]",
        ),
        (
            lambda d: d["examples"][1].insert(0, "cat"),
            r"expected words of the model's vocabulary in x\.json sentence 1, got \[\"cat\"\]",
        ),
        (
            lambda d: d["examples"][0].pop(),
            r"expected a last word among \['he', 'is/are', 'she'\] in x\.json sentence 0",
        ),
        (
            lambda d: d["try"][0]["without"].pop("probability"),
            r"expected key 'probability' in x\.json\['try'\]\[0\]",
        ),
    ],
)
def test_an_invalid_json_names_the_file_and_the_key(data: dict, edit, message: str) -> None:
    edit(data)
    with pytest.raises(hx.DataError, match=message):
        hx.validate(data, "x.json")


def test_roles_may_lack_a_task(data: dict) -> None:
    data["roles"] = {}
    assert hx.validate(data, "x.json")["roles"] == {}


def test_what_to_try_is_written_from_the_data(data: dict) -> None:
    """Each suggestion's numbers are the data's, its words escaped, its sentence a data attribute."""
    data["try"][0]["tokens"] = ["the", "keys", "</script>", "is/are"]
    said = hx.try_html(data, Messages(hx.EXPLORER_TEMPLATES))
    assert '<li data-sentence="the keys &lt;/script&gt; is/are">' in said
    assert "</script>" not in said
    assert "The model predicts plural, probability 0.875." in said
    assert "the prediction becomes singular, probability 0.562." in said
    assert "the distractor nearest the verb, &lt;/script&gt;, is not" in said
    assert "Untick head 0: nothing changes." in said and "at most 0.0021, against 0.44" in said
    assert "by at most 0.00030." in said  # two significant figures, never "0.0"
    assert [hx._two_figures(x) for x in (0.44, 0.002345, 3.14e-5, 1.0)] == [
        "0.44",
        "0.0023",
        "0.000031",
        "1.0",
    ]
    data["try"][0]["with"]["probability"] = 0.5
    assert "probability 0.500." in hx.try_html(data, Messages(hx.EXPLORER_TEMPLATES))
    chinese = {
        "try_agreement": "「{sentence}」：主语 {subject} 是{answer}，{distractor} 不是。"
        "模型预测为{prediction}，概率 {p}。",
        "try_off": "取消勾选头 {head}：预测变成{after}，概率 {p_after}。否则仍是{prediction}。",
    }
    said = hx.try_html(data, Messages(hx.EXPLORER_TEMPLATES, chinese))
    assert "概率 0.500。取消勾选头 1：" in said  # no space between the sentences


def test_a_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(hx.DataError, match=r"data in a\.json, got no such file"):
        hx.load(tmp_path / "a.json", "a.json")
    (tmp_path / "b.json").write_text("{ no")
    with pytest.raises(hx.DataError, match=r"expected JSON in b\.json, got Expecting"):
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
CONF = """
extensions = ["json_directives"]
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
    assert json.loads(found["scripts"]["hx-text"]) == hx.EXPLORER_TEMPLATES
    assert json.loads(found["scripts"]["hx-tasks"]) == {
        task: {key: list(value) for key, value in kinds.items()} for task, kinds in hx.TASKS.items()
    }
    assert found["attrs"]["data-gloss"] == "false"
    assert found["attrs"]["aria-label"] == hx.EXPLORER_TEMPLATES["region"]
    assert found["hidden"] == ["hx-ui"]  # the controls wait for the script
    assert (
        f'<noscript><p class="hx-noscript">{hx.EXPLORER_TEMPLATES["noscript"]}</p></noscript>'
        in html
    )
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
    assert extracted == set(hx.EXPLORER_TEMPLATES.values()) | {"Explore"}
    # the templates hold no data: another JSON extracts the same ones
    data["examples"][0][0] = "key"
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
    _catalog(
        src,
        {hx.EXPLORER_TEMPLATES["head_n"]: "头 {n}", hx.EXPLORER_TEMPLATES["queries"]: "查询词元"},
    )
    out, warnings = build(src, language="zh_CN")
    assert warnings == ""
    (found,) = explorers(_page(out))
    text = json.loads(found["scripts"]["hx-text"])
    assert text["head_n"] == "头 {n}" and text["queries"] == "查询词元"
    assert text["keys"] == hx.EXPLORER_TEMPLATES["keys"]  # untranslated: the English template
    assert found["attrs"]["data-gloss"] == "true"
    assert json.loads(found["scripts"]["hx-data"]) == data


def test_a_translation_that_renames_a_placeholder_is_a_warning(tmp_path: Path, data: dict) -> None:
    src = project(tmp_path, data)
    _catalog(src, {hx.EXPLORER_TEMPLATES["head_n"]: "头 {m}"})
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
    del data["try"][0]["head"]
    _, warnings = build(project(tmp_path, data))
    assert (
        "WARNING: head-explorer: expected key 'head' in "
        "../data/head_explorer.json['try'][0], got keys ['answer', 'marks'"
    ) in warnings
    assert warnings.count("WARNING") == 1


def test_the_json_is_a_dependency_of_the_page(tmp_path: Path, data: dict) -> None:
    """A new JSON (the gallery ran again) re-writes the page with the new parameters."""
    src = project(tmp_path, data)
    build(src)
    data["model"]["parameters"]["readout.bias"]["data"] = base64.b64encode(
        struct.pack("<4f", 1, 2, 3, 4)
    ).decode("ascii")
    write(src, data)
    out, warnings = build(src, fresh=False)
    assert warnings == ""
    (found,) = explorers(_page(out))
    assert json.loads(found["scripts"]["hx-data"]) == data


def test_the_scraper_saves_the_examples_data_beside_it(tmp_path: Path, data: dict) -> None:
    target = tmp_path / "plot_05_heads_on_sentences.py"
    saved = tmp_path / "plot_05_heads_on_sentences.head_explorer.json"
    parity = tmp_path / "plot_05_heads_on_sentences.head_explorer_parity.json"
    block_vars = {"example_globals": {"x": 1}, "target_file": str(target)}
    assert hx.scraper(None, block_vars, {}) == ""
    assert not saved.exists()  # an example without the global: no file
    block_vars["example_globals"]["head_explorer_data"] = data
    block_vars["example_globals"]["head_explorer_parity"] = {"sentences": []}
    assert hx.scraper(None, block_vars, {}) == ""
    assert json.loads(saved.read_text(encoding="utf-8")) == data
    assert json.loads(parity.read_text(encoding="utf-8")) == {"sentences": []}
    written = saved.stat().st_mtime_ns
    hx.scraper(None, block_vars, {})  # the same data again (the example's next block)
    assert saved.stat().st_mtime_ns == written  # not rewritten: the page is not re-read
