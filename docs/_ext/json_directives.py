"""Directives whose numbers are read from a JSON file as the page is written: a measured
number is written once, by the program that measured it, never typed into a page.

* ``bench-table``; ``bench-figure speed`` (``memory``, ``gqa``): the benchmark's speed table, and
  its figures (a ``<picture>``, then a table of their numbers) from ``bench_figures_dir``;
* ``head-table ablation PATH`` (``seeds``, ``price``), ``head-explorer PATH``: the tables and the
  model run on the reader's sentence (``_static/head-explorer.js``) of "what heads learn", from
  the JSON the gallery example saves (:func:`scraper`; ``/PATH``: from the source folder).

A directive's content holds its words, ``key: text`` a line, with placeholders for the numbers
(``{seq}``): catalog entries with no number. A missing file or key is a warning, the node dropped."""

from __future__ import annotations

import html
import json
import math
import posixpath
import re
import string
import struct
from pathlib import Path, PurePosixPath

from docutils import nodes
from page_rules import PHONE_MEDIA
from site_figures import CHART_RETINA, PHONE
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

logger = logging.getLogger(__name__)


class DataError(Exception):
    """A directive's JSON, a file it names, or its content, lacks what the directive needs."""


def read_json(app, node: json_output, writer: str) -> dict:
    """The node's JSON object (``writer``, what writes it, is named when there is none)."""
    if not (path := Path(app.srcdir, node["path"])).is_file():
        raise DataError(f"expected {node['shown']}, got no such file ({writer} writes it)")
    return json.loads(path.read_text(encoding="utf-8"))


def _fields(text: str) -> set[str]:
    return {field[1] for field in string.Formatter().parse(text) if field[1]}


class Messages(dict):
    """A directive's words in the page's language (key -> text, filled in by ``str.format``). A
    translation whose placeholders differ from its English keeps the English (listed in ``bad``)."""

    def __init__(self, templates: dict[str, str], translations: dict[str, str] | None = None):
        super().__init__(templates)
        self.bad = []
        for key, text in (translations or {}).items():
            if _fields(text) == _fields(english := templates[key]):
                self[key] = text
            else:
                self.bad.append(f"the translation of {english!r} should use the placeholders "
                                f"{sorted(_fields(english))}, got {text!r}")  # fmt: skip

    def join(self, items: list[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` (in the page's language)."""
        head = items[0] if items else ""
        for item in items[1:-1]:
            head = self["list_next"].format(head=head, next=item)
        return self["list_last"].format(head=head, last=items[-1]) if items[1:] else head


def table(head: list, rows: list, classes: tuple[str, ...] = ()) -> nodes.table:
    """A table with a header row; a row is its cells (texts or nodes), or ``(cells, classes)``."""

    def row(cells: list, classes: list[str] | None = None) -> nodes.row:
        texts = [[nodes.Text(c)] if isinstance(c, str) else c for c in cells]
        entries = [nodes.entry("", nodes.paragraph("", "", *text)) for text in texts]
        return nodes.row("", *entries, classes=classes or [])

    group = nodes.tgroup("", cols=len(head))
    group += [nodes.colspec(colwidth=1) for _ in head]
    group += nodes.thead("", row(head))
    group += nodes.tbody("", *(row(*r) if isinstance(r, tuple) else row(r) for r in rows))
    return nodes.table("", group, classes=list(classes))


FIGURE_DATA = {"speed": "results.json", "memory": "results.json", "gqa": "gqa.json"}
BENCH_WRITER = "nox -s bench -- --update-docs"
SPEED_COLUMNS = ["mode", "(B, L, E, H)", "batch_first"]  # words of the directive, or as they are
SPEED_COLUMNS += ["ratio", "goal", "gflops_mha", "gflops_torch", "of_roofline"]


def speed_table(results: dict, messages: Messages) -> nodes.table:
    """A row per measurement, by mode then batch_first=True first, a missed goal marked."""
    modes, rows = list(results["modes"]), []
    by_mode = sorted(results["speed"], key=lambda r: (modes.index(r["mode"]), not r["batch_first"]))
    for row in by_mode:
        verdict = "met" if row["passed"] else "missed"
        mark = nodes.inline("", "✓ " if row["passed"] else "✗ ", classes=[f"bench-{verdict}"])
        mark += nodes.inline("", messages[verdict])
        cells = [
            messages[f"cell_{row['mode']}"], str(tuple(row[k] for k in "BLEH")),
            [nodes.literal("", str(row["batch_first"]))], [nodes.strong("", f"{row['ratio']:.2f}")],
            [nodes.Text(f"≤ {row['goal']:.2f} "), mark], f"{row['ours_gflops']:.1f}",
            f"{row['torch_gflops']:.1f}", f"{100 * row['ours_of_roofline']:.0f} %",
        ]  # fmt: skip
        rows.append((cells, [] if row["passed"] else ["bench-missed-row"]))
    head = [k if k in ("(B, L, E, H)", "batch_first") else messages[k] for k in SPEED_COLUMNS]
    return table(head, rows, classes=("bench-table",))


def memory_table(results: dict, messages: Messages) -> nodes.table:
    """The memory figure's numbers: each length's peak on each path."""
    peaks = {(p["path"], p["L"]): p["peak_mib"] for p in results["memory"]["points"]}
    lengths = sorted({length for _, length in peaks})
    rows = [[str(n), *(f"{peaks[path, n]:.1f}" for path in ("fused", "explicit"))] for n in lengths]
    return table([messages[k] for k in ("length", "fused", "explicit")], rows)


def _duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 10 else f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def gqa_table(results: dict, messages: Messages) -> nodes.table:
    """The GQA figure's numbers: a decode step against recomputing, and the two caches."""
    g, design = results["gqa"], results["gqa"]["design"]
    times = {key: g["decode"][f"{key}_ms"] for key in ("step", "recompute")}
    times.update({key: design[key]["decode_all_ms"] for key in ("preallocated", "concatenate")})
    rows = [[messages[key].format(seq=g["seq"]), _duration(ms)] for key, ms in times.items()]
    return table([messages["what"], messages["time"]], rows)


def figure_files(folder: Path, kind: str, language: str) -> dict[str, str]:
    """The figure's files, column and phone versions at 1x and 2x: those the benchmark drew in
    the page's language where it did (``speed.zh_CN.png``: Sphinx's ``{root}.{language}{ext}``)."""
    tag = f".{language}" if (folder / f"{kind}.{language}.png").is_file() else ""
    suffixes = {"1x": "", "2x": CHART_RETINA, "phone": PHONE, "phone2x": PHONE + CHART_RETINA}
    return {key: f"{kind}{suffix}{tag}.png" for key, suffix in suffixes.items()}


def bench_figure(app, node: json_output, messages: Messages) -> list[nodes.Node]:
    """The figure as a ``<picture>`` in the page's language, then the table of its numbers."""
    kind, folder = node["kind"], Path(app.srcdir, node["folder"])
    names = figure_files(folder, kind, app.config.language)
    if missing := [name for name in names.values() if not (folder / name).is_file()]:
        raise DataError(f"expected the figure {node['folder']}/{missing[0]}, got no such file")
    url = relative_uri(app.builder.get_target_uri(node["docname"]), node["folder"])
    files = {key: f"{url}/{name}" for key, name in names.items()}
    width, height = struct.unpack(">II", (folder / names["1x"]).read_bytes()[16:24])  # the PNG's
    written = [nodes.raw("", (
        f'<p><picture><source media="{PHONE_MEDIA}" srcset="{files["phone"]} 1x, '
        f'{files["phone2x"]} 2x"><img src="{files["1x"]}" srcset="{files["1x"]} 1x, '
        f'{files["2x"]} 2x" loading="lazy" width="{width}" height="{height}" '
        f'alt="{html.escape(messages["alt"])}"></picture></p>'
    ), format="html")]  # fmt: skip
    if kind in FIGURE_TABLES:
        written.append(FIGURE_TABLES[kind](read_json(app, node, BENCH_WRITER), messages))
    return written


def bench_table(app, node: json_output, messages: Messages) -> nodes.Node:
    return speed_table(read_json(app, node, BENCH_WRITER), messages)


TASKS = {
    "agreement": {"marks": ("subject", "distractor"), "values": ("singular", "plural")},
    "pronoun": {"marks": ("antecedent", "other"), "values": ("first", "second")},
}
HEADS_WRITER = "the gallery example that sets head_explorer_data (nox -s docs -- clean)"
DATA_SCRIPT = "head-explorer-data.js"
GLOBALS = {"head_explorer_data": "head_explorer", "head_explorer_parity": "head_explorer_parity"}


def ablation_table(data: dict, messages: Messages) -> nodes.table:
    """Seed 0: held-out accuracy per task with nothing and with each head removed."""
    needed = {task: data["roles"][task]["head"] for task in TASKS}
    rows = [[messages["none"], *(f"{data['accuracy'][t]:.3f}" for t in TASKS)]]
    for head in sorted(data["ablation"], key=int):
        label = messages["head"].format(head=head)
        tasks = [t for t in TASKS if needed[t] == int(head)]
        if tasks:
            note = messages["needed" if len(tasks) == 2 else f"needed_{tasks[0]}"]
            label = [nodes.strong("", label), nodes.Text(f" {note}")]
        cells = [f"{data['ablation'][head][t]:.3f}" for t in TASKS]
        rows.append([label, *([nodes.strong("", c)] if tasks else c for c in cells)])
    rows.append([messages["baseline"], *(f"{data['baseline'][t]:.3f}" for t in TASKS)])
    return table([messages[k] for k in ("removed", "agreement", "pronoun")], rows)


def seeds_table(data: dict, messages: Messages) -> nodes.table:
    """Every seed: the looking head and the needed head per task, with their weights."""
    rows = []
    for seed in sorted(data["seeds"], key=int):
        for task in TASKS:
            found = data["seeds"][seed][task]
            looking, needed, without = found["looking"], found["needed"], found["without"]
            on_target, on_other = found["on_target"], found["on_other"]
            others = [w for h, w in enumerate(without) if h != needed]
            weights = f" ({on_target[needed]:.2f} / {on_other[needed]:.2f})"
            rows.append([
                str(seed), messages[f"task_{task}"],
                f"{looking} ({on_target[looking]:.2f} / {on_other[looking]:.2f})",
                [nodes.strong("", str(needed)), nodes.Text(weights)]
                if needed != looking else f"{needed}{weights}",
                f"{without[needed]:.3f}", f"{min(others):.3f}" if others else "",
            ])  # fmt: skip
    keys = ("seed", "task", "looking", "needed", "without", "others")
    return table([messages[k] for k in keys], rows)


def price_table(data: dict, messages: Messages) -> nodes.table:
    """Every seed: the lowest accuracy one removal leaves, trained with and without the price."""
    columns = [(task, run) for task in TASKS for run in ("price", "no_price")]
    lowest, seeds = data["lowest"], sorted(data["lowest"]["price"], key=int)
    rows = [[str(s), *(f"{lowest[run][s][task]:.3f}" for task, run in columns)] for s in seeds]
    return table([messages["seed"], *(messages[f"{t}_{run}"] for t, run in columns)], rows)


def head_table(app, node: json_output, messages: Messages) -> nodes.Node:
    return HEAD_TABLES[node["kind"]](read_json(app, node, HEADS_WRITER), messages)


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside ``<script>``: no ``<`` (so no ``</script>``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _two_figures(x: float) -> str:
    """``x`` to two significant figures, as a plain decimal: 0.0023, 0.44, 0.000031."""
    return f"{x:.{max(0, 1 - math.floor(math.log10(x)))}f}" if x > 0 else "0"


def try_html(data: dict, messages: Messages) -> str:
    """ "What to try": each suggestion of the example, with the numbers it measured."""
    items = []
    for item in data["try"]:
        tokens, task = item["tokens"], item["task"]
        value = {c: messages[f"value_{c}"] for c in TASKS[task]["values"]}
        values = {
            "sentence": " ".join(tokens), "answer": value[item["answer"]],
            "prediction": value[item["with"]["prediction"]],
            "p": f"{item['with']['probability']:.3f}",
            "after": value[item["without"]["prediction"]],
            "p_after": f"{item['without']['probability']:.3f}", "head": item["head"],
            "on_target": f"{item['on_target']:.2f}", "on_other": f"{item['on_other']:.2f}",
            "pronoun": tokens[-1], **{mark: tokens[at] for mark, at in item["marks"].items()},
        }  # fmt: skip
        said = " ".join(messages[key].format(**values) for key in (f"try_{task}", "try_off"))
        said = re.sub(r"([。！？）])\s+", r"\1", said)  # no space after a Chinese full stop
        items.append(f'<li data-sentence="{html.escape(values["sentence"])}"><p>'
                     f"{html.escape(said)}</p></li>")  # fmt: skip
    unused = data["unused"]
    heads = messages.join([messages["head_ref"].format(n=h) for h in unused["heads"]])
    small = {key: _two_figures(unused[key]) for key in ("norm", "needed_norm", "moved")}
    said = messages["try_unused"].format(**{**unused, **small, "heads": heads})
    items.append(f"<li><p>{html.escape(said)}</p></li>")
    title = f'<p class="hx-try-title"><strong>{html.escape(messages["try_title"])}</strong></p>'
    return f'<div class="hx-try">{title}<ol>{"".join(items)}</ol></div>'


def head_explorer(app, node: json_output, messages: Messages) -> nodes.Node:
    """The explorer's container, what to try; its data and words: DATA_SCRIPT, loaded later."""
    data = read_json(app, node, HEADS_WRITER)
    region, noscript = html.escape(messages["region"]), html.escape(messages["noscript"])
    written = (
        f'<div class="head-explorer" role="region" aria-label="{region}"'
        f' data-gloss="{str(app.config.language.startswith("zh")).lower()}">'
        f'<noscript><p class="hx-noscript">{noscript}</p></noscript>'
        f"{try_html(data, messages)}"
        '<div class="hx-ui" hidden></div></div>'
    )
    given = script_json({"data": data, "text": messages, "tasks": TASKS})  # run once the page shows
    Path(app.outdir, "_static", DATA_SCRIPT).write_text(f"self.mhaHeadExplorer = {given};", "utf-8")
    raw = nodes.raw("", written, format="html")
    raw["head-explorer"] = True  # for add_assets (a class would wrap the HTML in another <div>)
    return raw


def add_assets(app, pagename, templatename, context, doctree) -> None:
    """The explorer's script and style (in ``_static``), on the pages that have one only."""
    if doctree is not None and any(n.get("head-explorer") for n in doctree.findall(nodes.raw)):
        app.add_css_file("head-explorer.css")
        app.add_js_file(DATA_SCRIPT, loading_method="defer")
        app.add_js_file("head-explorer.js", loading_method="defer")


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery scraper: :data:`GLOBALS` as ``<example>.<suffix>.json`` beside the generated
    example (not by a reader's run; kept when not run), written when changed: its page is reread."""
    found = block_vars.get("example_globals", {})
    for name, suffix in GLOBALS.items():
        if isinstance(found.get(name), dict):
            path = Path(block_vars["target_file"]).with_suffix(f".{suffix}.json")
            text = json.dumps(found[name], ensure_ascii=False)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    return ""


FIGURE_TABLES = {"memory": memory_table, "gqa": gqa_table}  # the table under each figure
HEAD_TABLES = {"ablation": ablation_table, "seeds": seeds_table, "price": price_table}
DIRECTIVES = {  # name: (what writes it, its kinds, how many arguments)
    "bench-figure": (bench_figure, FIGURE_DATA, 1),
    "bench-table": (bench_table, None, 0),
    "head-table": (head_table, HEAD_TABLES, 2),
    "head-explorer": (head_explorer, None, 1),
}


class json_output(nodes.General, nodes.Element, addnodes.translatable):
    """A directive's ``kind`` and JSON (``path`` from the source folder, ``shown`` in errors), and
    its English ``templates`` (key -> text), which the i18n transform translates."""

    def preserve_original_messages(self) -> None:
        self.setdefault("translations", {})

    def apply_translated_message(self, original_message: str, translated_message: str) -> None:
        for key, english in self["templates"].items():
            if english == original_message:
                self["translations"][key] = translated_message

    def extract_original_messages(self) -> list[str]:
        return list(dict.fromkeys(self["templates"].values()))


class JsonDirective(SphinxDirective):
    """One of :data:`DIRECTIVES`: ``kind``, ``PATH`` where it takes them; ``key: text`` lines."""

    optional_arguments, has_content = 2, True

    def run(self) -> list[nodes.Node]:
        _, kinds, count = DIRECTIVES[self.name]
        if len(self.arguments) != count:
            raise self.error(f"expected {count} argument(s), got {self.arguments}")
        kind = self.arguments[0] if kinds else ""
        if kinds and kind not in kinds:
            raise self.error(f"expected one of {', '.join(kinds)}, got {kind!r}")
        folder = Path(self.env.srcdir, self.config.bench_figures_dir)
        data = f"/{self.config.bench_figures_dir}/{FIGURE_DATA.get(kind, 'results.json')}"
        data = data if self.name.startswith("bench-") else self.arguments[-1]
        files = figure_files(folder, kind, self.config.language) if kind in FIGURE_DATA else {}
        # the data's path in the source folder, its links not followed (relfn2path resolves them,
        # and the Chinese build's source folder links to docs/: nox -s docs)
        base = "" if data.startswith("/") else posixpath.dirname(self.env.docname)
        relative = posixpath.normpath(posixpath.join(base, data.lstrip("/")))
        for path in [Path(self.env.srcdir, relative), *(folder / n for n in files.values())]:
            self.env.note_dependency(path)
        node = json_output(directive=self.name, kind=kind, path=relative, shown=data.lstrip("/"))
        node["templates"], node["docname"] = self.templates(), self.env.docname
        node["folder"] = str(PurePosixPath(relative).parent)
        self.set_source_info(node)
        return [node]

    def templates(self) -> dict[str, str]:
        found, key = {}, ""
        for line in self.content:
            if line[:1].isspace() and key:
                found[key] += " " + line.strip()
            elif line.strip():
                key, colon, text = line.partition(": ")
                if not colon or not key.isidentifier():
                    raise self.error(f"expected lines 'key: text' in the content, got {line!r}")
                found[key] = text.strip()
        return found


def write_html(app, doctree: nodes.document, docname: str) -> None:
    """Replace each :class:`json_output` by what it writes, in the page's language."""
    if app.builder.name == "gettext":  # it extracts the nodes' templates
        return
    for node in list(doctree.findall(json_output)):
        messages = Messages(node["templates"], node.get("translations"))
        label = " ".join(filter(None, (node["directive"], node["kind"])))
        for problem in messages.bad:
            logger.warning("%s: %s", label, problem, location=node)
        try:
            node.replace_self(DIRECTIVES[node["directive"]][0](app, node, messages))
        except (DataError, KeyError, IndexError, TypeError) as error:
            if not isinstance(error, DataError):  # in the JSON, or the directive's words
                error = f"expected key {error} in {node['shown']} or the directive's content"
            logger.warning("%s: %s", label, error, location=node)
            node.parent.remove(node)


def setup(app):
    app.add_config_value("bench_figures_dir", "_static/bench", "env", types=(str,))
    for name in DIRECTIVES:
        app.add_directive(name, JsonDirective)
    app.connect("doctree-resolved", write_html)
    app.connect("html-page-context", add_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
