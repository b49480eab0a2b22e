"""The head explorer: a page's interactive view of every head's attention, from a gallery JSON.

```` ```{head-explorer} /auto_examples/06_evidence/<example>.head_explorer.json ```` (the path
relative to the page's source file, or to the source folder with a leading ``/``) writes a
small offline application: a list of sentences, a layer choice, a toggle per head, and the
two-column drawing of bertviz (the tokens twice, a line from each query token to each key token
it attends to, one colour per head, the line's opacity its attention weight).
``_static/head-explorer.js`` draws it in plain JavaScript and inline SVG from the JSON that the
directive embeds in the page (``<script type="application/json">``): nothing is fetched, so the
page also works from ``file://``. The gallery example that trains the model puts the data in a
global, ``head_explorer_data``, which :func:`scraper` saves beside the generated example (a
reader running the example gets no file). The data: ``layers``, ``heads``, ``roles`` (``{task:
{"layer": l, "head": h}}``, the head the page names for each task) and ``sentences``, each with
its ``task``, ``tokens``, ``gloss`` (a Chinese word per token, shown under it on the Chinese
page), the ``query`` position, the ``marks`` (positions the legend explains), ``answer``,
``prediction`` and ``weights[layer][head][query][key]`` (causal, each row summing to 1).

Without JavaScript the explorer's controls stay hidden (``hidden``, removed by the script) and
a one-line note says why; the page's static figure shows the same heads.

Translation works as for every directive of ``templated``: every interface string is a
template with named placeholders (``Head {n}``), translated by the page's own catalog; the page
is written with the translated templates, which the script fills in. A translation whose
placeholders differ from its template's is a warning, and the English template is used.

Errors: a missing or invalid JSON, a missing key or a value of the wrong shape is a warning
naming the file and the key (the site builds with ``-W``: the build fails). The JSON is a
dependency of the page: a new one re-reads it.
"""

from __future__ import annotations

import functools
import html
import json
import math
from pathlib import Path

from docutils import nodes
from languages import is_chinese
from sphinx.util.docutils import SphinxDirective
from templated import DataError, Messages, Templated, get, read_json

SCRIPT = "head-explorer.js"  # in docs/_static, added to the pages that have an explorer
STYLE = "head-explorer.css"
CLASS = "head-explorer"

# the tasks the explorer knows: the marks each sentence of the task has (the first underlined,
# the second dotted) and the values its answer and prediction take
TASKS = {
    "agreement": {"marks": ("subject", "distractor"), "values": ("singular", "plural")},
    "pronoun": {"marks": ("antecedent", "other"), "values": ("first", "second")},
}
ROW_SUM_TOLERANCE = 0.01  # weights are rounded to 3 decimals: a row sums to 1 within this

# ---- The templates -----------------------------------------------------------------------------
# English, with named placeholders the script fills in; the page's catalog translates them.

TEMPLATES: dict[str, str] = {
    "region": "Head explorer: the attention weights of every head",
    "noscript": "The head explorer needs JavaScript; the static figure on this page shows the "
    "same heads.",
    "sentence": "Sentence",
    "layer": "Layer",
    "layer_n": "Layer {n}",
    "heads": "Heads",
    "head_n": "Head {n}",
    "queries": "Query tokens",
    "keys": "Key tokens",
    "token_name": "{token}, position {n}",
    "task_agreement": "Subject–verb agreement",
    "task_pronoun": "Pronoun reference",
    "mark_subject": "the subject",
    "mark_distractor": "the distractor",
    "mark_antecedent": "the antecedent",
    "mark_other": "the other person",
    "marks": "Solid underline: {solid}. Dotted underline: {dotted}.",
    "value_singular": "singular",
    "value_plural": "plural",
    "value_first": "the first person",
    "value_second": "the second person",
    "answer": "Correct answer: {answer}. The model predicts: {prediction}.",
    "legend": "Lines join each query token (left) to the key tokens it attends to (right), "
    "one colour per head, more opaque for a larger attention weight. Point at a query token, "
    "or move to it with the arrow keys, to see its lines; the one chosen last stays shown, "
    "and Escape shows every token's lines.",
    "summary": "Head {head}, layer {layer}: from {token}, {weights}.",
    "summary_weight": "{weight} on {token}",
    "summary_join": "{head}, {next}",
    "summary_all": "Layer {layer}: the lines of every query token.",
    "summary_none": "No head shown: turn one on with the head buttons.",
}


class HeadExplorerError(DataError):
    """The explorer's JSON lacks what the explorer needs."""


# ---- Reading the JSON ----------------------------------------------------------------------------

_key = functools.partial(get, error=HeadExplorerError)  # value[key], or the error naming it


def _index(value: object, where: str, size: int) -> int:
    """An integer position in ``range(size)``."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise HeadExplorerError(
            f"expected an integer from 0 to {size - 1} in {where}, got {value!r}"
        )
    return value


def _list(value: object, where: str, length: int | None = None) -> list:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "a list" if length is None else f"a list of {length}"
        got = f"{len(value)} items" if isinstance(value, list) else repr(value)[:60]
        raise HeadExplorerError(f"expected {size} in {where}, got {got}")
    return value


def _weights(value: object, where: str, layers: int, heads: int, length: int) -> None:
    """``weights[layer][head][query][key]``: numbers in [0, 1], zero past the query, rows
    summing to 1."""
    for layer, per_layer in enumerate(_list(value, where, layers)):
        for head, rows in enumerate(_list(per_layer, f"{where}[{layer}]", heads)):
            at = f"{where}[{layer}][{head}]"
            for query, row in enumerate(_list(rows, at, length)):
                row_at = f"{at}[{query}]"
                for key, weight in enumerate(_list(row, row_at, length)):
                    number = isinstance(weight, int | float) and not isinstance(weight, bool)
                    if not number or not 0 <= weight <= 1:
                        raise HeadExplorerError(
                            f"expected a weight from 0 to 1 in {row_at}[{key}], got {weight!r}"
                        )
                    if key > query and weight != 0:
                        raise HeadExplorerError(
                            f"expected 0 in {row_at}[{key}] (causal: a query sees no later "
                            f"key), got {weight!r}"
                        )
                total = math.fsum(row)
                if abs(total - 1) > ROW_SUM_TOLERANCE:
                    raise HeadExplorerError(
                        f"expected the weights of {row_at} to sum to 1, got {total:.3f}"
                    )


def _sentence(sentence: object, where: str, layers: int, heads: int) -> None:
    task = _key(sentence, where, "task")
    if task not in TASKS:
        raise HeadExplorerError(f"expected {where}['task'] among {sorted(TASKS)}, got {task!r}")
    tokens = _list(_key(sentence, where, "tokens"), f"{where}['tokens']")
    if not tokens or not all(isinstance(token, str) and token for token in tokens):
        raise HeadExplorerError(f"expected non-empty strings in {where}['tokens'], got {tokens!r}")
    length = len(tokens)
    gloss = _list(_key(sentence, where, "gloss"), f"{where}['gloss']", length)
    if not all(isinstance(word, str) for word in gloss):
        raise HeadExplorerError(f"expected strings in {where}['gloss'], got {gloss!r}")
    _index(_key(sentence, where, "query"), f"{where}['query']", length)
    marks = _key(sentence, where, "marks")
    for mark in TASKS[task]["marks"]:
        _index(_key(marks, f"{where}['marks']", mark), f"{where}['marks'][{mark!r}]", length)
    for name in ("answer", "prediction"):
        value = _key(sentence, where, name)
        if value not in TASKS[task]["values"]:
            raise HeadExplorerError(
                f"expected {where}[{name!r}] among {list(TASKS[task]['values'])}, got {value!r}"
            )
    _weights(_key(sentence, where, "weights"), f"{where}['weights']", layers, heads, length)


def validate(data: object, where: str) -> dict:
    """``data`` if it has everything the explorer reads, else a :class:`HeadExplorerError`
    naming the file (``where``) and the key."""
    if not isinstance(data, dict):
        raise HeadExplorerError(f"expected a JSON object in {where}, got {type(data).__name__}")
    sizes = {}
    for name in ("layers", "heads"):
        value = _key(data, where, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise HeadExplorerError(
                f"expected a positive integer in {where}[{name!r}], got {value!r}"
            )
        sizes[name] = value
    roles = _key(data, where, "roles")
    if not isinstance(roles, dict):
        raise HeadExplorerError(f"expected an object in {where}['roles'], got {roles!r}")
    for task, role in roles.items():
        at = f"{where}['roles'][{task!r}]"
        if task not in TASKS:
            raise HeadExplorerError(f"expected the tasks of {where}['roles'] among "
                                    f"{sorted(TASKS)}, got {task!r}")  # fmt: skip
        _index(_key(role, at, "layer"), f"{at}['layer']", sizes["layers"])
        _index(_key(role, at, "head"), f"{at}['head']", sizes["heads"])
    sentences = _list(_key(data, where, "sentences"), f"{where}['sentences']")
    if not sentences:
        raise HeadExplorerError(f"expected at least one sentence in {where}['sentences'], got 0")
    for i, sentence in enumerate(sentences):
        _sentence(sentence, f"{where}['sentences'][{i}]", sizes["layers"], sizes["heads"])
    return data


def load(path: Path, shown: str) -> dict:
    """The explorer's JSON at ``path``, checked (``shown`` names it in errors)."""
    missing = (
        f"expected the head explorer's data in {shown}, got no such file (the gallery "
        "example that trains the model writes it)"
    )
    return validate(read_json(path, shown, missing, HeadExplorerError), shown)


# ---- What the directive writes -------------------------------------------------------------------


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside ``<script>``: no ``<`` (so no ``</script>``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def explorer_html(data: dict, messages: Messages, gloss: bool) -> str:
    """The explorer's container: its hidden interface, its no-script note, the data and the
    templates as JSON. The script builds the controls and the drawing inside it."""
    text = messages.text
    return (
        f'<div class="{CLASS}" role="region" aria-label="{html.escape(text["region"])}"'
        f' data-gloss="{"true" if gloss else "false"}">'
        f'<noscript><p class="hx-noscript">{html.escape(text["noscript"])}</p></noscript>'
        '<div class="hx-ui" hidden></div>'
        f'<script type="application/json" class="hx-data">{script_json(data)}</script>'
        f'<script type="application/json" class="hx-text">{script_json(text)}</script>'
        f'<script type="application/json" class="hx-tasks">{script_json(TASKS)}</script>'
        "</div>"
    )


# ---- The node and the directive ------------------------------------------------------------------


class head_explorer(nodes.General, nodes.Element, Templated):
    """An explorer to write: its JSON (relative to the source folder) and its templates."""

    def label(self) -> str:
        return "head-explorer"

    def html(self, app, docname: str, messages: Messages) -> nodes.Node:
        data = load(Path(app.srcdir, self["path"]), self["shown"])
        raw = nodes.raw("", explorer_html(data, messages, is_chinese(app.config)), format="html")
        raw[CLASS] = True  # for add_assets (a class would wrap the HTML in another <div>)
        return raw


class HeadExplorer(SphinxDirective):
    """```` ```{head-explorer} path/to/head_explorer.json ````: the explorer of that JSON."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        shown = self.arguments[0]
        relative, absolute = self.env.relfn2path(shown, self.env.docname)
        self.env.note_dependency(absolute)  # a new JSON re-reads the page (a missing one: always)
        node = head_explorer(path=relative, shown=shown, templates=dict(TEMPLATES))
        self.set_source_info(node)
        return [node]


def add_assets(app, pagename, templatename, context, doctree) -> None:
    """The script and style, on the pages that have an explorer only."""
    if doctree is None:
        return
    if any(node.get(CLASS) for node in doctree.findall(nodes.raw)):
        app.add_css_file(STYLE)
        app.add_js_file(SCRIPT, loading_method="defer")


# ---- The data, from the gallery example ----------------------------------------------------------

# the global that a gallery example fills with the explorer's data
DATA_GLOBAL = "head_explorer_data"


def data_path(target_file: Path) -> Path:
    """Where the data of the generated example ``target_file`` go: beside it, in the gallery's
    output (``auto_examples/.../<name>.head_explorer.json``)."""
    return target_file.with_name(f"{target_file.stem}.head_explorer.json")


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery scraper: save the example's ``head_explorer_data`` as JSON.

    A reader who runs the example gets no file; the site's build keeps the data beside the
    generated example, where sphinx-gallery keeps its other outputs: a rebuild that does not
    run the example again keeps them too. Written only when it changed, so that the page's
    dependency on it (see :class:`HeadExplorer`) re-reads the page only then.
    """
    data = block_vars.get("example_globals", {}).get(DATA_GLOBAL)
    if isinstance(data, dict):
        path = data_path(Path(block_vars["target_file"]))
        text = json.dumps(data, ensure_ascii=False)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return ""


def setup(app):
    app.add_directive("head-explorer", HeadExplorer)
    app.setup_extension("templated")  # writes the explorer's HTML
    app.connect("html-page-context", add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
