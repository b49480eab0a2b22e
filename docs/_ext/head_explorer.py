"""The head explorer: the trained sentence model, run in the page on the reader's own sentence.

```` ```{head-explorer} /auto_examples/06_evidence/<example>.head_explorer.json ```` (the path
relative to the page's source file, or to the source folder with a leading ``/``) writes a
small offline application: a text field for a sentence written from the model's vocabulary
(the words offered as the reader types, and a word-by-word builder), example sentences, a map
of every head's attention with a switch per head that removes it from the model, the
prediction with its probability, and the two-column drawing of bertviz (the tokens twice, a
line from each query token to each key token it attends to, one colour per head, the line's
opacity its attention weight). Below it, "What to try": the example's suggestions, with the
probabilities the example measured.

``_static/head-explorer.js`` runs the model (the parameters PyTorch stores, as the gallery
example embeds them) and draws, in plain JavaScript and inline SVG, from the JSON that the
directive embeds in the page (``<script type="application/json">``): nothing is fetched, so
the page also works from ``file://``. The gallery example that trains the model puts the data
in a global, ``head_explorer_data``, and PyTorch's outputs for held-out sentences in
``head_explorer_parity``; :func:`scraper` saves both beside the generated example (a reader
running the example gets no file). The data: ``heads``, ``roles`` (``{task: {"layer": 0,
"head": h}}``, the head each task needs), ``model`` (``parameters``: name -> ``shape`` and
``data``, float32 little-endian in base64; ``vocabulary``, the words by index; ``classes``, the
readout's two classes per task, in its order), ``queries`` (the words each task asks about),
``words`` (each word's ``gloss``, a string or a choice by context, and its ``number`` or the
pronoun it ``refers`` by), ``groups`` (the builder's rows), ``examples`` and ``try``.

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

import base64
import binascii
import functools
import html
import json
import math
import re
from pathlib import Path

from docutils import nodes
from languages import is_chinese
from sphinx.util.docutils import SphinxDirective
from templated import LIST_TEMPLATES, DataError, Messages, Templated, get, read_json

SCRIPT = "head-explorer.js"  # in docs/_static, added to the pages that have an explorer
STYLE = "head-explorer.css"
CLASS = "head-explorer"

# the tasks the explorer knows: the marks each sentence of the task has (the first underlined,
# the second dotted) and the values its answer and prediction take, in the readout's order
TASKS = {
    "agreement": {"marks": ("subject", "distractor"), "values": ("singular", "plural")},
    "pronoun": {"marks": ("antecedent", "other"), "values": ("first", "second")},
}

# ---- The templates -----------------------------------------------------------------------------
# English, with named placeholders the script (or the "What to try" list) fills in; the page's
# catalog translates them.

TEMPLATES: dict[str, str] = {
    "region": "Head explorer: the trained model on your sentence, with every head's attention",
    "noscript": "The head explorer needs JavaScript; the static figure on this page shows the "
    "same heads.",
    "your_sentence": "Your sentence",
    "suggestions": "Words that fit what you are typing",
    "examples": "Or an example",
    "own": "(your own sentence)",
    "builder": "Build a sentence word by word",
    "remove_last": "Remove the last word",
    "clear": "Clear",
    "problem_empty": "Type a sentence from the model's words, or build one word by word.",
    "problem_unknown": "Not in the model's vocabulary: {words}.",
    "problem_long": "At most {max} words: the model has no position past that.",
    "problem_typing": "Keep typing, or choose one of the words offered.",
    "problem_slot": "End the sentence with is/are (agreement) or with he, she or they "
    "(pronoun): the model answers for its last word.",
    "hint_slot": "The verb is one word here: is/are, and the model chooses.",
    "still": "The drawing still shows the last sentence that worked.",
    **LIST_TEMPLATES,
    "heads": "Each head's map: a row per query word, a column per key word, darker for a "
    "larger weight. Choose maps to draw those heads below; untick a head to switch it off in "
    "the model.",
    "head_n": "Head {n}",
    "head_ref": "head {n}",
    "use_head": "use head {n}",
    "queries": "Query tokens",
    "keys": "Key tokens",
    "token_name": "{token}, position {n}",
    "token_gloss": "{name} ({gloss})",
    "task_agreement": "Subject–verb agreement",
    "task_pronoun": "Pronoun reference",
    "mark_subject": "the subject",
    "mark_distractor": "the distractor",
    "mark_antecedent": "the antecedent",
    "mark_other": "the other person",
    "marks": "Solid underline: {solid}. Dotted underline: {dotted}.",
    "value_singular": "singular",
    "value_plural": "plural",
    "value_first": "the first of the two people",
    "value_second": "the second of the two people",
    "value_person": "{value} ({word})",
    "answer": "Correct answer: {answer}.",
    "answer_none": "The sentence does not decide the answer.",
    "answer_noun": "The sentence has no noun for is/are to agree with.",
    "answer_people": "The model chooses between two people; this sentence names {n}.",
    "predicts": "The model predicts: {prediction}, probability {p}.",
    "predicts_without": "Without {heads}, the model predicts: {prediction}, probability {p} "
    "(with every head: {before}, {p_before}).",
    "flipped": "Switching off {heads} flipped the answer.",
    "legend": "Lines join each query token (left) to the key tokens it attends to (right), "
    "one colour per head, more opaque for a larger attention weight. Point at a query token, "
    "or move to it with the arrow keys, to see its lines; the one chosen last stays shown, "
    "and Escape shows every token's lines.",
    "summary": "Head {head}: from “{token}”, {weights}.",
    "summary_weight": "{weight} on “{token}”",
    "summary_all": "The lines of every query token.",
    "summary_none": "No head shown: choose one above.",
    "try_it": "Try it",
    "try_title": "What to try",
    "try_agreement": "“{sentence}”: the subject, {subject}, is {answer}; the distractor "
    "nearest the verb, {distractor}, is not. The model predicts {prediction}, probability {p}.",
    "try_pronoun": "“{sentence}”: {pronoun} refers to {antecedent}, {answer}. The model "
    "predicts {prediction}, probability {p}. Head {head}, the head this task needs, puts "
    "{on_target} of its weight from {pronoun} on {antecedent} and {on_other} on {other}.",
    "try_off": "Untick head {head}: the prediction becomes {after}, probability {p_after}. "
    "Untick any other head instead: it stays {prediction}.",
    "try_unused": "Untick {heads}: nothing changes. The price on each head shrank their "
    "columns of the output projection to a norm of at most {norm}, against {needed_norm} for "
    "the head the tasks need, so training switched them off: on every held-out sentence, "
    "removing one of them moves a probability by at most {moved}. Their maps still show where "
    "they look; where a head looks is not what it passes on.",
}


class HeadExplorerError(DataError):
    """The explorer's JSON lacks what the explorer needs."""


# ---- Reading the JSON ----------------------------------------------------------------------------

_key = functools.partial(get, error=HeadExplorerError)  # value[key], or the error naming it


def _check(ok: bool, expected: str, where: str, got: object) -> None:
    if not ok:
        raise HeadExplorerError(f"expected {expected} in {where}, got {json.dumps(got)[:80]}")


def _words(value: object, where: str, vocabulary: list) -> list:
    _check(isinstance(value, list) and bool(value), "a list of words", where, value)
    unknown = [w for w in value if w not in vocabulary[1:]]
    _check(not unknown, "words of the model's vocabulary", where, unknown)
    return value


def _parameters(model: dict, where: str, heads: int) -> None:
    """Every parameter the script reads, with the shapes of one layer of ``heads`` heads."""
    parameters = _key(model, where, "parameters")
    vocabulary = _key(model, where, "vocabulary")
    classes = _key(model, where, "classes")
    expected = {task: list(kinds["values"]) for task, kinds in TASKS.items()}
    _check(classes == expected, json.dumps(expected), f"{where}['classes']", classes)
    width = _key(parameters, where, "tokens.weight", "shape")[-1]
    positions = _key(parameters, where, "positions.weight", "shape")[0]
    _check(width % heads == 0, f"a width divisible by {heads} heads", f"{where} tokens", width)
    shapes = {
        "tokens.weight": [len(vocabulary), width],
        "positions.weight": [positions, width],
        "attn.in_proj_weight": [3 * width, width],
        "attn.in_proj_bias": [3 * width],
        "attn.out_proj.weight": [width, width],
        "attn.out_proj.bias": [width],
        "readout.weight": [2 * len(TASKS), width],
        "readout.bias": [2 * len(TASKS)],
    }
    for name, shape in shapes.items():
        at = f"{where}['parameters'][{name!r}]"
        got = _key(parameters, where, name, "shape")
        _check(got == shape, f"shape {shape}", at, got)
        try:
            size = len(base64.b64decode(_key(parameters, where, name, "data"), validate=True))
        except (binascii.Error, TypeError, ValueError):
            size = -1
        _check(size == 4 * math.prod(shape), f"{math.prod(shape)} float32 in base64", at, size)


def validate(data: object, where: str) -> dict:
    """``data`` if it has everything the explorer reads, else a :class:`HeadExplorerError`
    naming the file (``where``) and the key."""
    _check(isinstance(data, dict), "a JSON object", where, type(data).__name__)
    heads = _key(data, where, "heads")
    _check(isinstance(heads, int) and heads > 0, "a positive integer", f"{where}['heads']", heads)
    for task, role in _key(data, where, "roles").items():
        at = f"{where}['roles'][{task!r}]"
        _check(task in TASKS, f"a task among {sorted(TASKS)}", f"{where}['roles']", task)
        head = _key(role, at, "head")
        _check(head in range(heads), f"a head from 0 to {heads - 1}", at, head)
    model = _key(data, where, "model")
    _parameters(model, f"{where}['model']", heads)
    vocabulary = model["vocabulary"]
    words = _key(data, where, "words")
    _check(sorted(words) == sorted(vocabulary[1:]), "an entry per word", f"{where}['words']",
           sorted(set(vocabulary[1:]) ^ set(words)))  # fmt: skip
    queries = _key(data, where, "queries")
    _check(sorted(queries) == sorted(TASKS), f"the tasks {sorted(TASKS)}", where, queries)
    for task, asked in queries.items():
        _words(asked, f"{where}['queries'][{task!r}]", vocabulary)
    for i, group in enumerate(_key(data, where, "groups")):
        _words(group, f"{where}['groups'][{i}]", vocabulary)
    for key in ("heads", "norm", "needed_norm", "moved"):
        _key(data, where, "unused", key)
    suggestions = _key(data, where, "try")
    for i, item in enumerate(suggestions):
        at = f"{where}['try'][{i}]"
        for key in ("task", "tokens", "marks", "answer", "head", "on_target", "on_other"):
            _key(item, at, key)
        for key in ("with", "without"):
            for value in ("prediction", "probability"):
                _key(item, at, key, value)
    asked = {word for words_ in queries.values() for word in words_}
    examples = _key(data, where, "examples") + [item["tokens"] for item in suggestions]
    for i, tokens in enumerate(examples):
        at = f"{where} sentence {i}"
        _words(tokens, at, vocabulary)
        _check(tokens[-1] in asked, f"a last word among {sorted(asked)}", at, tokens[-1])
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


def _two_figures(x: float) -> str:
    """``x`` to two significant figures, as a plain decimal: 0.0023, 0.44, 0.000031."""
    if x <= 0:
        return "0"
    return f"{x:.{max(0, 1 - math.floor(math.log10(x)))}f}"


def try_html(data: dict, messages: Messages) -> str:
    """ "What to try": each suggestion of the example, with the numbers it measured."""
    items = []
    for item in data["try"]:
        tokens, marks, task = item["tokens"], item["marks"], item["task"]
        value = {c: messages.text[f"value_{c}"] for c in TASKS[task]["values"]}
        values = {
            "sentence": " ".join(tokens),
            "answer": value[item["answer"]],
            "prediction": value[item["with"]["prediction"]],
            "p": f"{item['with']['probability']:.3f}",
            "after": value[item["without"]["prediction"]],
            "p_after": f"{item['without']['probability']:.3f}",
            "head": item["head"],
            "on_target": f"{item['on_target']:.2f}",
            "on_other": f"{item['on_other']:.2f}",
            "pronoun": tokens[-1],
            **{mark: tokens[at] for mark, at in marks.items()},
        }
        said = " ".join(messages.format(key, **values) for key in (f"try_{task}", "try_off"))
        said = re.sub(r"([。！？）])\s+", r"\1", said)  # no space after a Chinese full stop
        items.append(f'<li data-sentence="{html.escape(values["sentence"])}"><p>'
                     f"{html.escape(said)}</p></li>")  # fmt: skip
    unused = data["unused"]
    heads = messages.join([messages.format("head_ref", n=h) for h in unused["heads"]])
    small = {key: _two_figures(unused[key]) for key in ("norm", "needed_norm", "moved")}
    said = messages.format("try_unused", **{**unused, **small, "heads": heads})
    items.append(f"<li><p>{html.escape(said)}</p></li>")
    title = html.escape(messages.text["try_title"])
    return f'<div class="hx-try"><p class="hx-try-title"><strong>{title}</strong></p><ol>{"".join(items)}</ol></div>'


def explorer_html(data: dict, messages: Messages, gloss: bool) -> str:
    """The explorer's container: its hidden interface, its no-script note, the data and the
    templates as JSON, and what to try. The script builds the controls and the drawing."""
    text = messages.text
    return (
        f'<div class="{CLASS}" role="region" aria-label="{html.escape(text["region"])}"'
        f' data-gloss="{"true" if gloss else "false"}">'
        f'<noscript><p class="hx-noscript">{html.escape(text["noscript"])}</p></noscript>'
        f"{try_html(data, messages)}"
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

# the globals a gallery example fills, and the suffix of the file each is saved to
GLOBALS = {"head_explorer_data": "head_explorer", "head_explorer_parity": "head_explorer_parity"}


def data_path(target_file: Path, suffix: str = GLOBALS["head_explorer_data"]) -> Path:
    """Where the data of the generated example ``target_file`` go: beside it, in the gallery's
    output (``auto_examples/.../<name>.<suffix>.json``)."""
    return target_file.with_name(f"{target_file.stem}.{suffix}.json")


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery scraper: save the example's :data:`GLOBALS` as JSON.

    A reader who runs the example gets no file; the site's build keeps the data beside the
    generated example, where sphinx-gallery keeps its other outputs: a rebuild that does not
    run the example again keeps them too. Written only when it changed, so that the page's
    dependency on it (see :class:`HeadExplorer`) re-reads the page only then.
    """
    found = block_vars.get("example_globals", {})
    for name, suffix in GLOBALS.items():
        if isinstance(found.get(name), dict):
            path = data_path(Path(block_vars["target_file"]), suffix)
            text = json.dumps(found[name], ensure_ascii=False)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    return ""


def setup(app):
    app.add_directive("head-explorer", HeadExplorer)
    app.setup_extension("templated")  # writes the explorer's HTML
    app.connect("html-page-context", add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
