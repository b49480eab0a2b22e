"""The head explorer directive (docs/_ext/json_directives.py) embeds exactly the gallery's JSON
and the page's words; small builds check the catalog entries, the Chinese page, the warnings,
the page's dependency on the JSON, and the scraper that saves it. The drawing itself is checked
against PyTorch in Chromium (tests_site)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import json_directives as hx
import pytest
from babel.messages.pofile import read_po
from docpages import directive, words

BLOCK = directive("explanation/what-heads-learn", "head-explorer")
WORDS = words(BLOCK)
DATA = {  # what the explorer's text reads of the example's JSON (the script reads the rest)
    "heads": 2, "model": {"vocabulary": ["<pad>", "the", "keys", "key", "</script>", "is/are"]},
    "unused": {"heads": [0], "norm": 0.0021, "needed_norm": 0.44, "moved": 0.0003},
    "try": [{
        "task": "agreement", "tokens": ["the", "keys", "key", "is/are"], "answer": "plural",
        "marks": {"subject": 1, "distractor": 2}, "head": 1, "on_target": 0.5, "on_other": 0.25,
        "with": {"prediction": "plural", "probability": 0.875},
        "without": {"prediction": "singular", "probability": 0.5625},
    }],
}  # fmt: skip


def test_what_to_try_is_written_from_the_data() -> None:
    data = json.loads(json.dumps(DATA))
    data["try"][0]["tokens"] = ["the", "keys", "</script>", "is/are"]
    said = hx.try_html(data, hx.Messages(WORDS))
    assert (
        '<li data-sentence="the keys &lt;/script&gt; is/are">' in said and "</script>" not in said
    )
    assert "The model predicts plural, probability 0.875." in said
    assert "the prediction becomes singular, probability 0.562." in said
    assert "the distractor nearest the verb, &lt;/script&gt;, is not" in said
    assert "Untick head 0: nothing changes." in said and "at most 0.0021, against 0.44" in said
    assert "by at most 0.00030." in said  # two significant figures, never "0.0"
    zh = {"try_agreement": "「{sentence}」：主语 {subject} 是{answer}，{distractor} 不是。模型预测为"
          "{prediction}，概率 {p}。", "try_off": "取消勾选头 {head}：预测变成{after}，概率 {p_after}。否则仍是{prediction}。"}  # fmt: skip
    assert "概率 0.875。取消勾选头 1：" in hx.try_html(data, hx.Messages(WORDS, zh))  # no space
    assert json.loads(text := hx.script_json(data)) == data and "<" not in text


def project(app, data: dict = DATA, block: str = BLOCK, **po: str):
    """The root as a two-page site, the explorer on ``heads`` (its JSON in data/, a catalog per
    ``po``)."""
    src = app.srcdir
    (src / "data").mkdir(parents=True, exist_ok=True)
    (src / "index.md").write_text("# Index\n\n```{toctree}\nheads\n```\n")
    block = re.sub(r"(head-explorer\}) \S+", r"\1 data/x.json", block)
    (src / "heads.md").write_text(f"# Explore\n\n{block}\n", encoding="utf-8")
    (src / "data" / "x.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for language, entries in po.items():
        (src / "locale" / language / "LC_MESSAGES").mkdir(parents=True)
        (src / "locale" / language / "LC_MESSAGES" / "heads.po").write_text(entries, "utf-8")
    return src


def build(app) -> tuple[Path, str]:
    """Build ``app``: its output folder and the warnings of this build."""
    before = len(app.warning.getvalue())
    app.build()
    return app.outdir, app.warning.getvalue()[before:]


def embedded(out: Path) -> dict:
    """The explorer's container on the built page, its attributes, and its script's JSON."""
    html = (out / "heads.html").read_text(encoding="utf-8")
    found = re.search(r'<div class="head-explorer"([^>]*)>(.*?)<div class="hx-ui" hidden>', html)
    script = (out / "_static" / "head-explorer-data.js").read_text(encoding="utf-8")
    given = json.loads(script.removeprefix("self.mhaHeadExplorer = ").removesuffix(";"))
    attrs = {name: unescape(value) for name, value in re.findall(r' ([\w-]+)="([^"]*)"', found[1])}
    return {"html": html, "attrs": attrs, "inside": found[2],
            **{f"hx-{name}": value for name, value in given.items()}}  # fmt: skip


@pytest.mark.sphinx("html", testroot="json-directives")
def test_the_page_embeds_the_data_and_its_words(app) -> None:
    project(app)
    out, warnings = build(app)
    assert warnings == ""
    found = embedded(out)
    assert found["hx-data"] == DATA and found["hx-text"] == WORDS
    assert found["hx-tasks"] == json.loads(json.dumps(hx.TASKS))
    assert found["attrs"] == {
        "role": "region",
        "aria-label": WORDS["region"],
        "data-gloss": "false",
    }
    assert f'<noscript><p class="hx-noscript">{WORDS["noscript"]}</p></noscript>' in found["inside"]
    assert '<div class="hx-try">' in found["inside"]  # what to try, before the controls
    data, script = (found["html"].find(f'src="_static/{n}') for n in (hx.DATA_SCRIPT, "head-explorer.js"))  # fmt: skip
    assert 0 < data < script and "head-explorer.css" in found["html"]  # the data first
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "head-explorer.js" not in index and "head-explorer.css" not in index  # only with one


@pytest.mark.sphinx("gettext", testroot="json-directives")
def test_the_words_are_catalog_entries_without_numbers(app, make_app) -> None:
    extracted = []
    app.cleanup()  # each run below is a build of its own
    for number, seq in enumerate((["the", "keys"], ["the", "key"])):
        src = project(app, {**DATA, "examples": [seq]})
        run = make_app("gettext", srcdir=src, builddir=src / f"_build{number}", freshenv=True)
        out, warnings = build(run)
        run.cleanup()
        with (out / "heads.pot").open("rb") as f:
            extracted.append({m.id for m in read_po(f) if m.id} - {"Explore"})
        assert warnings == ""
    assert extracted[0] == extracted[1] == set(WORDS.values())
    assert not [text for text in extracted[0] if re.search(r"\d", text)]


@pytest.mark.sphinx("html", testroot="json-directives", confoverrides={"language": "zh_CN"})
def test_the_chinese_page_and_a_renamed_placeholder(app) -> None:
    po = (f'msgid "{WORDS["head_n"]}"\nmsgstr "头 {{n}}"\n\nmsgid "{WORDS["queries"]}"\n'
          f'msgstr "查询词元"\n\nmsgid "{WORDS["head_ref"]}"\nmsgstr "头 {{m}}"\n')  # fmt: skip
    project(app, zh_CN=po)
    out, warnings = build(app)
    assert warnings.count("WARNING") == 1 and (
        "head-explorer: the translation of 'head {n}' should use the placeholders ['n'], "
        "got '头 {m}'" in warnings
    )
    found = embedded(out)
    assert found["hx-text"]["head_n"] == "头 {n}" and found["hx-text"]["queries"] == "查询词元"
    assert found["hx-text"]["head_ref"] == "head {n}"  # the renamed one: the English
    assert found["hx-text"]["keys"] == WORDS["keys"] and found["attrs"]["data-gloss"] == "true"


@pytest.mark.sphinx("html", testroot="json-directives")
def test_warnings_and_the_dependency_on_the_json(app, make_app) -> None:
    src = project(app, {**DATA, "unused": {"heads": [0]}})
    _, warnings = build(app)
    assert "heads.md:3: WARNING: head-explorer: expected key 'norm' in data/x.json" in warnings
    (src / "data" / "x.json").unlink()
    app.cleanup()
    app = make_app("html", srcdir=src, freshenv=True)  # read afresh, without the JSON
    _, warnings = build(app)
    assert "WARNING: head-explorer: expected data/x.json, got no such file" in warnings
    (src / "data" / "x.json").write_text(json.dumps({**DATA, "heads": 3}))  # the gallery ran
    out, warnings = build(app)  # the same environment: the new JSON re-reads the page
    assert warnings == "" and embedded(out)["hx-data"]["heads"] == 3


def test_the_scraper_saves_the_examples_data_beside_it(tmp_path: Path) -> None:
    saved = tmp_path / "plot_05.head_explorer.json"
    block_vars = {"example_globals": {"x": 1}, "target_file": str(tmp_path / "plot_05.py")}
    assert hx.scraper(None, block_vars, {}) == "" and not saved.exists()  # no global: no file
    block_vars["example_globals"].update(head_explorer_data=DATA, head_explorer_parity={"s": []})
    assert hx.scraper(None, block_vars, {}) == ""
    assert json.loads(saved.read_text(encoding="utf-8")) == DATA
    assert json.loads((tmp_path / "plot_05.head_explorer_parity.json").read_text()) == {"s": []}
    written = saved.stat().st_mtime_ns
    hx.scraper(None, block_vars, {})  # the same data again (the example's next block)
    assert saved.stat().st_mtime_ns == written  # not rewritten: the page is not re-read


def test_every_word_the_script_says_is_in_the_directive() -> None:
    """Each ``text.key`` (or ``text["key"]``, ``text["prefix_" + ...]``) that head-explorer.js
    reads is a line of the directive's content: a word the page would otherwise show as
    "undefined"."""
    script = (Path(__file__).parents[1] / "docs/_static/head-explorer.js").read_text("utf-8")
    used = set(re.findall(r"\btext\.(\w+)", script)) | set(re.findall(r'\btext\["(\w+)"\]', script))
    prefixes = set(re.findall(r'\btext\["(\w+_)" \+', script))
    assert used and prefixes, "the script reads no words: the pattern is out of date"
    assert sorted(used - set(WORDS)) == []
    for prefix in prefixes:
        assert any(key.startswith(prefix) for key in WORDS), prefix
    for task in ("agreement", "pronoun"):  # the note on the kinds the model never saw
        assert f"outside_{task}" in WORDS
    flips = re.findall(r'\{ right: "(\w+)", wrong: "(\w+)", none: "(\w+)" \}', script)
    assert flips == [("flipped_fixes", "flipped_breaks", "flipped")]  # a fix is never "breaks"
