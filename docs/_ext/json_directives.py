"""The directives whose content is read from a JSON file when the page is written: a measured
number is written once, by the program that measured it, never typed into a page.

* ```` ```{bench-figure} speed ```` (or ``memory``, ``gqa``): a benchmark figure of
  ``bench_figures_dir`` (``nox -s bench -- --update-docs`` writes ``results.json``, ``gqa.json``
  and the figures, in every language of ``site_figures.languages()``) as a ``<picture>``: its
  phone version on screens of at most 540 px, the column version at 1x and 2x, its width read
  from the PNG, and an alt text that states the figure's facts (the bars that miss their goal,
  the largest peaks, the decode times) from the JSON;
* ```` ```{bench-table} ````: the speed table of ``results.json``, a missed goal marked;
* ```` ```{head-table} ablation PATH ```` (or ``seeds``, ``price``): the "what heads learn"
  page's tables, from the JSON that the gallery example training the sentence model saves
  (:func:`scraper`);
* ```` ```{head-explorer} PATH ````: that model run in the page on the reader's own sentence, a
  switch per head (``_static/head-explorer.js`` runs the parameters PyTorch stores and draws in
  plain JavaScript and inline SVG from the JSON embedded in the page: nothing is fetched).
  Without JavaScript its controls stay hidden and a one-line note says why. The JSON:
  ``heads``, ``roles`` (the head each task needs), ``model`` (``parameters``: name -> ``shape``
  and ``data``, float32 little-endian in base64; ``vocabulary``; ``classes``), ``queries``,
  ``words`` (each word's ``gloss`` and its ``number`` or the pronoun it ``refers`` by),
  ``groups`` (the builder's rows), ``examples``, ``try`` and ``unused`` (:func:`validate`).

``PATH`` is relative to the page, or to the source folder with a leading ``/``; the JSON is a
dependency of the page (a new one re-reads it).

**Translation.** Each node holds English templates with named placeholders (``{ratio}``) as a
:class:`sphinx.addnodes.translatable`, as a toctree's caption is: the gettext builder extracts
them into the page's own catalog, where ``nox -s translations`` checks them with the page's
other text, and the i18n transform hands the node their translations. A catalog holds no
number, so new data leave every entry current. A translation whose placeholders differ from
its template's is a warning, and the English template is used (:class:`Messages`).

**Errors.** When the page is written (``doctree-resolved``, after translation), data that lack
what a node needs (no file, no key, a value of the wrong shape) are a :class:`DataError`: a
warning naming the file and the key, the node dropped (the site builds with ``-W``: the build
fails).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import math
import re
import string
import struct
from pathlib import Path, PurePosixPath

from docutils import nodes
from languages import is_chinese
from page_rules import PHONE_MEDIA  # the theme's one-column layout
from site_figures import PHONE as PHONE_SUFFIX
from site_figures import languages
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

logger = logging.getLogger(__name__)


class DataError(Exception):
    """A directive's JSON, or a file it names, lacks what the directive needs."""


def read_json(path: Path, shown: str, missing: str) -> dict:
    """The JSON object at ``path`` (``shown`` names it in errors; ``missing`` is the error for no
    such file, saying what writes it)."""
    if not path.is_file():
        raise DataError(missing)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as problem:
        raise DataError(f"expected JSON in {shown}, got {problem}") from None
    if not isinstance(data, dict):
        raise DataError(f"expected a JSON object in {shown}, got {type(data).__name__}")
    return data


def get(value: object, where: str, *keys: str) -> object:
    """``value[keys[0]][keys[1]]...``, or a :class:`DataError` naming the missing key and where."""
    for key in keys:
        if not (isinstance(value, dict) and key in value):
            got = f"keys {sorted(value)}" if isinstance(value, dict) else json.dumps(value)[:60]
            raise DataError(f"expected key {key!r} in {where}, got {got}")
        value = value[key]
        where += f"[{key!r}]"
    return value


LIST_TEMPLATES = {"list_next": "{head}, {next}", "list_last": "{head} and {last}"}


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class Messages:
    """A directive's templates in the page's language, filled in with :meth:`format`.

    ``translations`` maps a template's key to its translation; a missing key keeps the
    English template, and so does a translation whose placeholders differ from it (``bad``
    lists those, for a warning).
    """

    def __init__(self, templates: dict[str, str], translations: dict[str, str] | None = None):
        self.templates = templates
        self.text: dict[str, str] = {}
        self.bad: list[str] = []
        for key, english in templates.items():
            translated = (translations or {}).get(key, english)
            if _placeholders(translated) != _placeholders(english):
                self.bad.append(
                    f"the translation of {english!r} should use the placeholders "
                    f"{sorted(_placeholders(english))}, got {translated!r}"
                )
                translated = english
            self.text[key] = translated

    def format(self, key: str, **values: object) -> str:
        return self.text[key].format(**values)

    def count(self, n: int) -> str:
        return self.text[f"number_{n}"] if f"number_{n}" in self.text else str(n)

    def join(self, items: list[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` (in the page's language)."""
        if len(items) <= 1:
            return "".join(items)
        head = items[0]
        for item in items[1:-1]:
            head = self.format("list_next", head=head, next=item)
        return self.format("list_last", head=head, last=items[-1])


Cell = str | list[nodes.Node]  # a table cell: its text, or its nodes (strong, inline, ...)


def table(head: list[Cell], rows: list[list[Cell] | tuple[list[Cell], list[str]]]) -> nodes.table:
    """A table with a header row, as a Markdown table is (the theme wraps it in its scrolling
    box, ``page_rules`` lays it out as cards on a phone). A row is its cells, or ``(cells,
    classes)`` for a row with classes of its own."""

    def row(cells: list[Cell], classes: list[str] | None = None) -> nodes.row:
        entries = [nodes.entry("", nodes.paragraph("", "", *_nodes(cell))) for cell in cells]
        return nodes.row("", *entries, classes=classes or [])

    group = nodes.tgroup("", cols=len(head))
    group += [nodes.colspec(colwidth=1) for _ in head]
    group += nodes.thead("", row(head))
    group += nodes.tbody("", *(row(*r) if isinstance(r, tuple) else row(r) for r in rows))
    return nodes.table("", group)


def _nodes(cell: Cell) -> list[nodes.Node]:
    return [nodes.Text(cell)] if isinstance(cell, str) else cell


# ---- The Performance page: bench-figure, bench-table ----------------------------------------------

FIGURE_DATA = {"speed": "results.json", "memory": "results.json", "gqa": "gqa.json"}


TABLE_DATA = "results.json"


NUMBER_WORDS = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten",
}  # fmt: skip


MODE_LABELS = {
    "mode_inference": "inference",
    "mode_training": "training",
    "mode_weights": "per-head weights",
}


BENCH_TEMPLATES: dict[str, dict[str, str]] = {
    "speed": {
        "alt": "{charts}, {modes}: the time ratio mha / torch at {shapes} for batch_first=True "
        "and False, with the goal lines; {verdict}",
        "charts_one": "one bar chart",
        "charts_many": "{count} stacked bar charts",
        "shapes_one": "one shape",
        "shapes_many": "{count} shapes",
        "all_met": "every bar is below its goal.",
        "one_missed": "every bar is below its goal except {misses}, which is hatched.",
        "many_missed": "every bar is below its goal except {misses}, which are hatched.",
        "miss": "{mode} at {shape} with batch_first={batch_first}, {ratio} against {goal}",
        **MODE_LABELS,
        **LIST_TEMPLATES,
        **{f"number_{n}": word for n, word in NUMBER_WORDS.items()},
    },
    "memory": {
        "alt": "Peak memory of one forward pass against the sequence length from {shortest} to "
        "{longest}, log-log: the fused path grows {fused}, to about {fused_peak}, the explicit "
        "path {explicit}, to about {explicit_peak}.",
        "growth_1": "linearly",
        "growth_2": "quadratically",
        "growth_power": "as L^{exponent}",
    },
    "gqa": {
        "alt": "Two bar charts. Left, on a log scale: one cached decode step at S = {seq} takes "
        "{step} against {recompute} to recompute the whole sequence. Right: decoding {seq} "
        "tokens takes {preallocated} with the preallocated cache against {concatenate} with "
        "concatenation.",
    },
    "table": {
        "mode": "mode",
        "ratio": "ratio",
        "goal": "goal",
        "gflops_mha": "GFLOP/s mha",
        "gflops_torch": "GFLOP/s torch",
        "of_roofline": "mha / roofline",
        "met": "goal met",
        "missed": "goal missed",
        # the mode column: the modes as the page's Method table names them
        "cell_inference": "inference",
        "cell_training": "training",
        "cell_weights": "weights",
    },
}

TABLE_COLUMNS = (
    "mode", "(B, L, E, H)", "batch_first", "ratio", "goal", "gflops_mha", "gflops_torch",
    "of_roofline",
)  # fmt: skip


def _shape(row: dict, where: str) -> tuple[int, ...]:
    return tuple(get(row, where, k) for k in ("B", "L", "E", "H"))


def speed_rows(results: dict, where: str) -> list[tuple[dict, str]]:
    """The speed rows in the table's order (by mode, then batch_first=True first), each with
    its place in the JSON for errors. Every row has the keys the table and alt text read."""
    modes = list(get(results, where, "modes"))
    rows = get(results, where, "speed")
    if not isinstance(rows, list) or not rows:
        raise DataError(f"expected a list of measurements in {where}['speed'], got {rows!r}")
    placed = []
    for i, row in enumerate(rows):
        at = f"{where}['speed'][{i}]"
        for key in ("mode", "batch_first", "ratio", "goal", "passed", "ours_gflops",
                    "torch_gflops", "ours_of_roofline", "B", "L", "E", "H"):  # fmt: skip
            get(row, at, key)
        if row["mode"] not in modes:
            raise DataError(f"expected {at}['mode'] among {modes}, got {row['mode']!r}")
        placed.append((row, at))
    return sorted(placed, key=lambda p: (modes.index(p[0]["mode"]), not p[0]["batch_first"]))


def speed_alt(results: dict, where: str, messages: Messages) -> str:
    """The speed figure's alt text: its panels, its shapes, and every bar that misses its goal."""
    modes = list(get(results, where, "modes"))
    labels = []
    for mode in modes:
        if f"mode_{mode}" not in messages.text:
            known = [k.removeprefix("mode_") for k in MODE_LABELS]
            raise DataError(f"expected the modes of {where} among {known}, got {mode!r}")
        labels.append(messages.text[f"mode_{mode}"])
    rows = speed_rows(results, where)
    shapes = list(dict.fromkeys(_shape(row, at) for row, at in rows))
    misses = [
        messages.format(
            "miss",
            mode=messages.text[f"mode_{row['mode']}"],
            shape=_shape(row, at),
            batch_first=row["batch_first"],
            ratio=f"{row['ratio']:.2f}",
            goal=f"{row['goal']:.2f}",
        )
        for row, at in rows
        if not row["passed"]
    ]
    if not misses:
        verdict = messages.format("all_met")
    else:
        verdict = messages.format(
            "one_missed" if len(misses) == 1 else "many_missed", misses=messages.join(misses)
        )
    charts = (
        messages.format("charts_one")
        if len(modes) == 1
        else messages.format("charts_many", count=messages.count(len(modes)))
    )
    shapes_text = (
        messages.format("shapes_one")
        if len(shapes) == 1
        else messages.format("shapes_many", count=messages.count(len(shapes)))
    )
    alt = messages.format(
        "alt", charts=charts, modes=messages.join(labels), shapes=shapes_text, verdict=verdict
    )
    return alt[:1].upper() + alt[1:]


def _mib(mib: float) -> str:
    return f"{mib:.0f} MiB" if mib < 1024 else f"{mib / 1024:.1f} GiB"


def _growth(exponent: float, messages: Messages) -> str:
    """How a peak grows with L: linearly or quadratically (within 0.25), else as L^k."""
    nearest = round(exponent)
    if f"growth_{nearest}" in messages.text and abs(exponent - nearest) <= 0.25:
        return messages.format(f"growth_{nearest}")
    return messages.format("growth_power", exponent=f"{exponent:.1f}")


def memory_alt(results: dict, where: str, messages: Messages) -> str:
    """The memory figure's alt text: the lengths, each path's growth and its largest peak."""
    memory = get(results, where, "memory")
    where += "['memory']"
    points = get(memory, where, "points")
    if not isinstance(points, list) or not points:
        raise DataError(f"expected a list of points in {where}['points'], got {points!r}")
    peaks: dict[str, dict[int, float]] = {"fused": {}, "explicit": {}}
    for i, point in enumerate(points):
        at = f"{where}['points'][{i}]"
        path, length = get(point, at, "path"), get(point, at, "L")
        peaks.setdefault(path, {})[length] = get(point, at, "peak_mib")
    for path in ("fused", "explicit"):
        if not peaks[path]:
            raise DataError(f"expected points of the {path} path in {where}['points']")
    lengths = sorted({length for by_length in peaks.values() for length in by_length})
    values = {}
    for path in ("fused", "explicit"):
        exponent = get(memory, where, "growth_exponent", path)
        values[path] = _growth(exponent, messages)
        values[f"{path}_peak"] = _mib(peaks[path][max(peaks[path])])
    return messages.format("alt", shortest=lengths[0], longest=lengths[-1], **values)


def _duration(ms: float) -> str:
    if ms < 10:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def gqa_alt(results: dict, where: str, messages: Messages) -> str:
    """The GQA figure's alt text: a decode step against recomputing, and the two caches."""
    g = get(results, where, "gqa")
    where += "['gqa']"
    return messages.format(
        "alt",
        seq=get(g, where, "seq"),
        step=_duration(get(g, where, "decode", "step_ms")),
        recompute=_duration(get(g, where, "decode", "recompute_ms")),
        preallocated=_duration(get(g, where, "design", "preallocated", "decode_all_ms")),
        concatenate=_duration(get(g, where, "design", "concatenate", "decode_all_ms")),
    )


ALT_TEXT = {"speed": speed_alt, "memory": memory_alt, "gqa": gqa_alt}


def figure_names(kind: str, language: str = "en") -> dict[str, str]:
    """The four files of a figure: column and phone versions, each at 1x and 2x; for a
    language the benchmark draws the figures in (``site_figures.languages()``), its own
    (``speed.zh_CN.png``: Sphinx's ``{root}.{language}{ext}``)."""

    tag = f".{language}" if language in languages() else ""
    return {
        "1x": f"{kind}{tag}.png",
        "2x": f"{kind}@2x{tag}.png",
        "phone": f"{kind}{PHONE_SUFFIX}{tag}.png",
        "phone2x": f"{kind}{PHONE_SUFFIX}@2x{tag}.png",
    }


def png_width(path: Path, shown: str) -> int:
    """The width in pixels of the PNG at ``path``, from its header."""
    if not path.is_file():
        raise DataError(f"expected the figure {shown}, got no such file")
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise DataError(f"expected a PNG image in {shown}, got other bytes")
    return struct.unpack(">I", head[16:20])[0]


def picture_html(folder_url: str, kind: str, width: int, alt: str, language: str = "en") -> str:
    """The ``<picture>``: the phone version on narrow screens, else the column version."""
    files = {k: f"{folder_url}/{name}" for k, name in figure_names(kind, language).items()}
    source = f'<source media="{PHONE_MEDIA}" srcset="{files["phone"]} 1x, {files["phone2x"]} 2x">'
    img = (
        f'<img src="{files["1x"]}" srcset="{files["1x"]} 1x, {files["2x"]} 2x" '
        f'width="{width}" alt="{html.escape(alt, quote=True)}">'
    )
    return f"<p><picture>{source}{img}</picture></p>"


def speed_table(results: dict, where: str, messages: Messages) -> nodes.table:
    """The speed table: a row per measurement, by mode, a missed goal marked on its row."""
    head = [messages.text.get(column, column) for column in TABLE_COLUMNS]
    rows = []
    for row, at in speed_rows(results, where):
        passed = bool(row["passed"])
        mark = nodes.inline(
            "",
            "✓ " if passed else "✗ ",
            nodes.inline("", messages.text["met" if passed else "missed"]),
            classes=["bench-met" if passed else "bench-missed"],
        )
        cells = [
            messages.text.get(f"cell_{row['mode']}", row["mode"]),
            str(_shape(row, at)),
            str(row["batch_first"]),
            [nodes.strong("", f"{row['ratio']:.2f}")],
            [nodes.Text(f"≤ {row['goal']:.2f} "), mark],
            f"{row['ours_gflops']:.1f}",
            f"{row['torch_gflops']:.1f}",
            f"{100 * row['ours_of_roofline']:.0f} %",
        ]
        rows.append((cells, [] if passed else ["bench-missed-row"]))
    written = table(head, rows)
    written["classes"].append("bench-table")
    return written


def bench_figure(app, node: json_output, messages: Messages) -> nodes.Node:
    """The figure's ``<picture>`` in the page's language, its alt text from the JSON."""
    kind, language, folder = node["kind"], app.config.language or "en", node["folder"]
    results = read_json(Path(app.srcdir, node["path"]), node["shown"], _bench_missing(node))
    names = figure_names(kind, language)
    for name in names.values():
        if not Path(app.srcdir, folder, name).is_file():
            raise DataError(
                f"expected the figure {PurePosixPath(folder, name)}, got no such file (`python "
                f"benchmarks/bench.py --plot {node['shown']}` draws it)"
            )
    width = png_width(
        Path(app.srcdir, folder, names["1x"]), str(PurePosixPath(folder, names["1x"]))
    )
    alt = ALT_TEXT[kind](results, node["shown"], messages)
    url = relative_uri(app.builder.get_target_uri(node["docname"]), folder)
    return nodes.raw("", picture_html(url, kind, width, alt, language), format="html")


def bench_table(app, node: json_output, messages: Messages) -> nodes.Node:
    results = read_json(Path(app.srcdir, node["path"]), node["shown"], _bench_missing(node))
    return speed_table(results, node["shown"], messages)


def _bench_missing(node: json_output) -> str:
    return (
        f"expected the benchmark's results in {node['shown']}, got no such file "
        "(nox -s bench -- --update-docs writes it)"
    )


# ---- What heads learn: head-table -----------------------------------------------------------------

HEAD_TEMPLATES: dict[str, dict[str, str]] = {
    "ablation": {
        "removed": "head removed",
        "agreement": "agreement accuracy",
        "pronoun": "pronoun accuracy",
        "none": "none",
        "head": "head {head}",
        "baseline": "majority baseline",
        "needed": "(the head both tasks need)",
        "needed_agreement": "(the head agreement needs)",
        "needed_pronoun": "(the head the pronoun needs)",
    },
    "seeds": {
        "seed": "seed",
        "task": "task",
        "looking": "head that looks most",
        "needed": "head needed",
        "without": "without it",
        "others": "without another, lowest",
        "task_agreement": "agreement",
        "task_pronoun": "pronoun",
    },
    "price": {
        "seed": "seed",
        "agreement_price": "agreement, with the price",
        "agreement_no_price": "agreement, without it",
        "pronoun_price": "pronoun, with the price",
        "pronoun_no_price": "pronoun, without it",
    },
}


def ablation_table(data: dict, shown: str, messages: Messages) -> nodes.table:
    """Seed 0: held-out accuracy per task with nothing and with each head removed."""
    text = messages.text
    ablation = get(data, shown, "ablation")
    needed = {task: get(data, shown, "roles", task, "head") for task in TASKS}
    rows = [[text["none"], *(f"{get(data, shown, 'accuracy', t):.3f}" for t in TASKS)]]
    for head in sorted(ablation, key=int):
        label = messages.format("head", head=head)
        tasks = [t for t in TASKS if needed[t] == int(head)]
        if tasks:
            note = text["needed"] if len(tasks) == 2 else text[f"needed_{tasks[0]}"]
            label = [nodes.strong("", label), nodes.Text(f" {note}")]
        cells = [f"{get(data, shown, 'ablation', head, t):.3f}" for t in TASKS]
        rows.append([label, *([nodes.strong("", c)] if tasks else c for c in cells)])
    rows.append([text["baseline"], *(f"{get(data, shown, 'baseline', t):.3f}" for t in TASKS)])
    head = [text["removed"], text["agreement"], text["pronoun"]]
    return table(head, rows)


def seeds_table(data: dict, shown: str, messages: Messages) -> nodes.table:
    """Every seed: the looking head and the needed head per task, with their weights."""
    text = messages.text
    rows = []
    for seed in sorted(get(data, shown, "seeds"), key=int):
        for task in TASKS:
            looking, needed, on_target, on_other, without = (
                get(data, shown, "seeds", seed, task, key)
                for key in ("looking", "needed", "on_target", "on_other", "without")
            )
            others = [w for h, w in enumerate(without) if h != needed]
            weights = f" ({on_target[needed]:.2f} / {on_other[needed]:.2f})"
            rows.append([
                str(seed),
                text[f"task_{task}"],
                f"{looking} ({on_target[looking]:.2f} / {on_other[looking]:.2f})",
                [nodes.strong("", str(needed)), nodes.Text(weights)]
                if needed != looking else f"{needed}{weights}",
                f"{without[needed]:.3f}",
                f"{min(others):.3f}" if others else "",
            ])  # fmt: skip
    keys = ("seed", "task", "looking", "needed", "without", "others")
    head = [text[k] for k in keys]
    return table(head, rows)


def price_table(data: dict, shown: str, messages: Messages) -> nodes.table:
    """Every seed: the lowest accuracy one removal leaves, trained with and without the price."""
    text = messages.text
    columns = [(task, run) for task in TASKS for run in ("price", "no_price")]
    rows = [
        [
            str(seed),
            *(f"{get(data, shown, 'lowest', run, seed, task):.3f}" for task, run in columns),
        ]
        for seed in sorted(get(data, shown, "lowest", "price"), key=int)
    ]
    head = [text["seed"], *(text[f"{task}_{run}"] for task, run in columns)]
    return table(head, rows)


HEAD_TABLES = {"ablation": ablation_table, "seeds": seeds_table, "price": price_table}


def head_table(app, node: json_output, messages: Messages) -> nodes.Node:
    missing = (
        f"expected {node['shown']}, got no such file (the build saves it when the gallery "
        "example that sets head_explorer_data runs: nox -s docs -- clean)"
    )
    data = read_json(Path(app.srcdir, node["path"]), node["shown"], missing)
    return HEAD_TABLES[node["kind"]](data, node["shown"], messages)


# ---- What heads learn: head-explorer --------------------------------------------------------------

SCRIPT = "head-explorer.js"  # in docs/_static, added to the pages that have an explorer


STYLE = "head-explorer.css"


CLASS = "head-explorer"


TASKS = {
    "agreement": {"marks": ("subject", "distractor"), "values": ("singular", "plural")},
    "pronoun": {"marks": ("antecedent", "other"), "values": ("first", "second")},
}


EXPLORER_TEMPLATES: dict[str, str] = {
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


def _check(ok: bool, expected: str, where: str, got: object) -> None:
    if not ok:
        raise DataError(f"expected {expected} in {where}, got {json.dumps(got)[:80]}")


def _words(value: object, where: str, vocabulary: list) -> list:
    _check(isinstance(value, list) and bool(value), "a list of words", where, value)
    unknown = [w for w in value if w not in vocabulary[1:]]
    _check(not unknown, "words of the model's vocabulary", where, unknown)
    return value


def _parameters(model: dict, where: str, heads: int) -> None:
    """Every parameter the script reads, with the shapes of one layer of ``heads`` heads."""
    parameters = get(model, where, "parameters")
    vocabulary = get(model, where, "vocabulary")
    classes = get(model, where, "classes")
    expected = {task: list(kinds["values"]) for task, kinds in TASKS.items()}
    _check(classes == expected, json.dumps(expected), f"{where}['classes']", classes)
    width = get(parameters, where, "tokens.weight", "shape")[-1]
    positions = get(parameters, where, "positions.weight", "shape")[0]
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
        got = get(parameters, where, name, "shape")
        _check(got == shape, f"shape {shape}", at, got)
        try:
            size = len(base64.b64decode(get(parameters, where, name, "data"), validate=True))
        except (binascii.Error, TypeError, ValueError):
            size = -1
        _check(size == 4 * math.prod(shape), f"{math.prod(shape)} float32 in base64", at, size)


def validate(data: object, where: str) -> dict:
    """``data`` if it has everything the explorer reads, else a :class:`DataError`
    naming the file (``where``) and the key."""
    _check(isinstance(data, dict), "a JSON object", where, type(data).__name__)
    heads = get(data, where, "heads")
    _check(isinstance(heads, int) and heads > 0, "a positive integer", f"{where}['heads']", heads)
    for task, role in get(data, where, "roles").items():
        at = f"{where}['roles'][{task!r}]"
        _check(task in TASKS, f"a task among {sorted(TASKS)}", f"{where}['roles']", task)
        head = get(role, at, "head")
        _check(head in range(heads), f"a head from 0 to {heads - 1}", at, head)
    model = get(data, where, "model")
    _parameters(model, f"{where}['model']", heads)
    vocabulary = model["vocabulary"]
    words = get(data, where, "words")
    _check(sorted(words) == sorted(vocabulary[1:]), "an entry per word", f"{where}['words']",
           sorted(set(vocabulary[1:]) ^ set(words)))  # fmt: skip
    queries = get(data, where, "queries")
    _check(sorted(queries) == sorted(TASKS), f"the tasks {sorted(TASKS)}", where, queries)
    for task, asked in queries.items():
        _words(asked, f"{where}['queries'][{task!r}]", vocabulary)
    for i, group in enumerate(get(data, where, "groups")):
        _words(group, f"{where}['groups'][{i}]", vocabulary)
    for key in ("heads", "norm", "needed_norm", "moved"):
        get(data, where, "unused", key)
    suggestions = get(data, where, "try")
    for i, item in enumerate(suggestions):
        at = f"{where}['try'][{i}]"
        for key in ("task", "tokens", "marks", "answer", "head", "on_target", "on_other"):
            get(item, at, key)
        for key in ("with", "without"):
            for value in ("prediction", "probability"):
                get(item, at, key, value)
    asked = {word for words_ in queries.values() for word in words_}
    examples = get(data, where, "examples") + [item["tokens"] for item in suggestions]
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
    return validate(read_json(path, shown, missing), shown)


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


def head_explorer(app, node: json_output, messages: Messages) -> nodes.Node:
    data = load(Path(app.srcdir, node["path"]), node["shown"])
    raw = nodes.raw("", explorer_html(data, messages, is_chinese(app.config)), format="html")
    raw[CLASS] = True  # for add_assets (a class would wrap the HTML in another <div>)
    return raw


def add_assets(app, pagename, templatename, context, doctree) -> None:
    """The script and style, on the pages that have an explorer only."""
    if doctree is None:
        return
    if any(node.get(CLASS) for node in doctree.findall(nodes.raw)):
        app.add_css_file(STYLE)
        app.add_js_file(SCRIPT, loading_method="defer")


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


# ---- The node and the directives ------------------------------------------------------------------

RENDER = {
    "bench-figure": bench_figure,
    "bench-table": bench_table,
    "head-table": head_table,
    "head-explorer": head_explorer,
}


class json_output(nodes.General, nodes.Element, addnodes.translatable):
    """What a directive writes: its ``directive`` and ``kind``, its JSON (``path``, relative to
    the source folder; ``shown``, as errors name it), and its English ``templates`` (key ->
    English), which the i18n transform translates into ``translations``."""

    def preserve_original_messages(self) -> None:
        self.setdefault("translations", dict(self["templates"]))

    def apply_translated_message(self, original_message: str, translated_message: str) -> None:
        translations = dict(self.get("translations", self["templates"]))
        for key, english in self["templates"].items():
            if english == original_message:
                translations[key] = translated_message
        self["translations"] = translations

    def extract_original_messages(self) -> list[str]:
        return list(dict.fromkeys(self["templates"].values()))

    def label(self) -> str:
        """How warnings name the node: ``bench-figure speed``, ``head-explorer``."""
        return " ".join(filter(None, (self["directive"], self["kind"])))


class JsonDirective(SphinxDirective):
    """The node of one of the directives (see the module's doc)."""

    has_content = False

    def node(self, kind: str, data: str, templates: dict, files: list[str]) -> list[nodes.Node]:
        """``data``: the JSON as the page names it; ``files``: what the node reads, relative to
        the source folder (a new or missing one re-reads the page)."""
        relative, _ = self.env.relfn2path(data, self.env.docname)
        for name in [relative, *files]:
            self.env.note_dependency(Path(self.env.srcdir, name))
        node = json_output(directive=self.name, kind=kind, path=relative, shown=data.lstrip("/"))
        node["templates"], node["docname"] = dict(templates), self.env.docname
        node["folder"] = str(PurePosixPath(relative).parent)
        self.set_source_info(node)
        return [node]

    def known(self, kind: str, kinds: dict) -> bool:
        if kind not in kinds:
            logger.warning(
                "%s: expected one of %s, got %r",
                self.name,
                ", ".join(kinds),
                kind,
                location=self.get_location(),
            )
        return kind in kinds


class BenchFigure(JsonDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        kind, folder = self.arguments[0], self.config.bench_figures_dir
        if not self.known(kind, FIGURE_DATA):
            return []
        names = figure_names(kind, self.config.language or "en").values()
        data = f"/{PurePosixPath(folder, FIGURE_DATA[kind])}"
        files = [str(PurePosixPath(folder, name)) for name in names]
        return self.node(kind, data, BENCH_TEMPLATES[kind], files)


class BenchTable(JsonDirective):
    def run(self) -> list[nodes.Node]:
        data = f"/{PurePosixPath(self.config.bench_figures_dir, TABLE_DATA)}"
        return self.node("", data, BENCH_TEMPLATES["table"], [])


class HeadTable(JsonDirective):
    required_arguments = 2

    def run(self) -> list[nodes.Node]:
        kind, data = self.arguments
        if not self.known(kind, HEAD_TABLES):
            return []
        return self.node(kind, data, HEAD_TEMPLATES[kind], [])


class HeadExplorer(JsonDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        return self.node("", self.arguments[0], EXPLORER_TEMPLATES, [])


def write_html(app, doctree: nodes.document, docname: str) -> None:
    """Replace each :class:`json_output` by what it writes, in the page's language."""
    if app.builder.name == "gettext":  # it extracts the nodes' templates
        return
    for node in list(doctree.findall(json_output)):
        messages = Messages(node["templates"], node.get("translations"))
        for problem in messages.bad:
            logger.warning("%s: %s", node.label(), problem, location=node)
        try:
            written = RENDER[node["directive"]](app, node, messages)
        except DataError as error:
            logger.warning("%s: %s", node.label(), error, location=node)
            node.parent.remove(node)
            continue
        node.replace_self(written)


def setup(app):
    # the folder of the benchmark's figures and JSON, relative to the source folder; under
    # html_static_path, so served at the same path below the site's root
    app.add_config_value("bench_figures_dir", "_static/bench", "env", types=(str,))
    app.add_directive("bench-figure", BenchFigure)
    app.add_directive("bench-table", BenchTable)
    app.add_directive("head-table", HeadTable)
    app.add_directive("head-explorer", HeadExplorer)
    app.connect("doctree-resolved", write_html)
    app.connect("html-page-context", add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
