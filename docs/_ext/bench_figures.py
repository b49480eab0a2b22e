"""The Performance page's benchmark figures and speed table, written from the benchmark's JSON.

``nox -s bench -- --update-docs`` writes ``results.json`` and ``gqa.json`` beside the figures in
``docs/_static/bench/``. A measured number is written once, by the program that measured it: the
page reads it from there, never from a number typed into the page or ``conf.py``. So the
figures' alt text and the speed table are written by two directives at build time:

* ```` ```{bench-figure} speed ```` (or ``memory``, ``gqa``) writes the figure as a ``<picture>``:
  its phone version for screens of at most 540 px (``<name>_phone.png``, ``@2x``), the column
  version at 1x and 2x, its width in pixels read from the PNG, and an alt text that states the
  figure's facts (which bars miss their goal, the largest peaks, the decode times) with every
  number taken from the JSON. The benchmark draws each figure in every language of the site
  (``speed.zh_CN.png``, with the labels of ``figures.po``, see ``site_figures``): each
  edition shows its own;
* ```` ```{bench-table} ```` writes the speed table of ``results.json``: one row per
  measurement, the rows that missed their goal marked.

Translation and errors work as for every directive of ``templated``: the sentences and headers
are templates with named placeholders (``{ratio}``), translated by the page's own catalog
(``locale/<language>/LC_MESSAGES/explanation/performance.po``); the numbers are filled in only
when the page is written, so a new benchmark run leaves every entry current. A missing JSON or
figure file, or a JSON without a key that a directive needs, is a warning naming the file and
the key (the site builds with ``-W``: the build fails).
"""

from __future__ import annotations

import functools
import html
import struct
from pathlib import Path, PurePosixPath

from docutils import nodes
from gallery_figures import PHONE_MEDIA  # the theme's one-column layout
from site_figures import PHONE as PHONE_SUFFIX
from site_figures import languages
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri
from templated import LIST_TEMPLATES, DataError, Messages, Templated, get, read_json, table

logger = logging.getLogger(__name__)

# which JSON each figure states its facts from (both in ``bench_figures_dir``)
FIGURE_DATA = {"speed": "results.json", "memory": "results.json", "gqa": "gqa.json"}
TABLE_DATA = "results.json"

# ---- The templates -----------------------------------------------------------------------------
# English, with named placeholders; each page's catalog translates them. Keep the set of
# templates independent of the data: a catalog must not change when the benchmark runs again.

NUMBER_WORDS = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
    10: "ten",
}  # fmt: skip
# the benchmark's modes (results.json "modes"), as the speed figure's alt text names them
MODE_LABELS = {
    "mode_inference": "inference",
    "mode_training": "training",
    "mode_weights": "per-head weights",
}

TEMPLATES: dict[str, dict[str, str]] = {
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
# the speed table's columns: a template's key, or a header that no language translates
TABLE_COLUMNS = (
    "mode", "(B, L, E, H)", "batch_first", "ratio", "goal", "gflops_mha", "gflops_torch",
    "of_roofline",
)  # fmt: skip


class BenchDataError(DataError):
    """The benchmark's JSON or a figure file lacks what a directive needs."""


# ---- Reading the JSON ----------------------------------------------------------------------------

_get = functools.partial(get, error=BenchDataError)  # value[key]..., or the error naming it


def load(path: Path, shown: str) -> dict:
    """The JSON at ``path`` (``shown`` names it in errors)."""
    missing = (
        f"expected the benchmark's results in {shown}, got no such file "
        "(nox -s bench -- --update-docs writes it)"
    )
    return read_json(path, shown, missing, BenchDataError)


def _shape(row: dict, where: str) -> tuple[int, ...]:
    return tuple(_get(row, where, k) for k in ("B", "L", "E", "H"))


def speed_rows(results: dict, where: str) -> list[tuple[dict, str]]:
    """The speed rows in the table's order (by mode, then batch_first=True first), each with
    its place in the JSON for errors. Every row has the keys the table and alt text read."""
    modes = list(_get(results, where, "modes"))
    rows = _get(results, where, "speed")
    if not isinstance(rows, list) or not rows:
        raise BenchDataError(f"expected a list of measurements in {where}['speed'], got {rows!r}")
    placed = []
    for i, row in enumerate(rows):
        at = f"{where}['speed'][{i}]"
        for key in ("mode", "batch_first", "ratio", "goal", "passed", "ours_gflops",
                    "torch_gflops", "ours_of_roofline", "B", "L", "E", "H"):  # fmt: skip
            _get(row, at, key)
        if row["mode"] not in modes:
            raise BenchDataError(f"expected {at}['mode'] among {modes}, got {row['mode']!r}")
        placed.append((row, at))
    return sorted(placed, key=lambda p: (modes.index(p[0]["mode"]), not p[0]["batch_first"]))


# ---- What the directives write --------------------------------------------------------------------


def speed_alt(results: dict, where: str, messages: Messages) -> str:
    """The speed figure's alt text: its panels, its shapes, and every bar that misses its goal."""
    modes = list(_get(results, where, "modes"))
    labels = []
    for mode in modes:
        if f"mode_{mode}" not in messages.text:
            known = [k.removeprefix("mode_") for k in MODE_LABELS]
            raise BenchDataError(f"expected the modes of {where} among {known}, got {mode!r}")
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
    memory = _get(results, where, "memory")
    where += "['memory']"
    points = _get(memory, where, "points")
    if not isinstance(points, list) or not points:
        raise BenchDataError(f"expected a list of points in {where}['points'], got {points!r}")
    peaks: dict[str, dict[int, float]] = {"fused": {}, "explicit": {}}
    for i, point in enumerate(points):
        at = f"{where}['points'][{i}]"
        path, length = _get(point, at, "path"), _get(point, at, "L")
        peaks.setdefault(path, {})[length] = _get(point, at, "peak_mib")
    for path in ("fused", "explicit"):
        if not peaks[path]:
            raise BenchDataError(f"expected points of the {path} path in {where}['points']")
    lengths = sorted({length for by_length in peaks.values() for length in by_length})
    values = {}
    for path in ("fused", "explicit"):
        exponent = _get(memory, where, "growth_exponent", path)
        values[path] = _growth(exponent, messages)
        values[f"{path}_peak"] = _mib(peaks[path][max(peaks[path])])
    return messages.format("alt", shortest=lengths[0], longest=lengths[-1], **values)


def _duration(ms: float) -> str:
    if ms < 10:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def gqa_alt(results: dict, where: str, messages: Messages) -> str:
    """The GQA figure's alt text: a decode step against recomputing, and the two caches."""
    g = _get(results, where, "gqa")
    where += "['gqa']"
    return messages.format(
        "alt",
        seq=_get(g, where, "seq"),
        step=_duration(_get(g, where, "decode", "step_ms")),
        recompute=_duration(_get(g, where, "decode", "recompute_ms")),
        preallocated=_duration(_get(g, where, "design", "preallocated", "decode_all_ms")),
        concatenate=_duration(_get(g, where, "design", "concatenate", "decode_all_ms")),
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
        raise BenchDataError(f"expected the figure {shown}, got no such file")
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise BenchDataError(f"expected a PNG image in {shown}, got other bytes")
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


# ---- The node and the directives ----------------------------------------------------------------


class bench_output(nodes.General, nodes.Element, Templated):
    """A benchmark figure or table to write: its kind and its templates, translated."""

    def label(self) -> str:
        """``bench-table`` or ``bench-figure speed``."""
        return "bench-table" if self["kind"] == "table" else f"bench-figure {self['kind']}"

    def html(self, app, docname: str, messages: Messages) -> nodes.Node:
        written = render(
            self, messages, Path(app.srcdir), app.config.bench_figures_dir,
            app.builder.get_target_uri(docname), app.config.language or "en",
        )  # fmt: skip
        return nodes.raw("", written, format="html") if isinstance(written, str) else written


class _BenchDirective(SphinxDirective):
    has_content = False

    def _node(self, kind: str, data: str, files: list[str]) -> list[nodes.Node]:
        folder = self.config.bench_figures_dir
        for name in (data, *files):  # a new result re-reads the page (a missing one: always)
            self.env.note_dependency(Path(self.env.srcdir, folder, name))
        node = bench_output(kind=kind, data=data, templates=dict(TEMPLATES[kind]))
        self.set_source_info(node)
        return [node]


class BenchFigure(_BenchDirective):
    """```` ```{bench-figure} speed ````: a benchmark figure, its alt text from the JSON."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        kind = self.arguments[0]
        if kind not in FIGURE_DATA:
            logger.warning(
                "bench-figure: expected one of %s, got %r",
                ", ".join(FIGURE_DATA),
                kind,
                location=self.get_location(),
            )
            return []
        language = self.config.language or "en"
        return self._node(kind, FIGURE_DATA[kind], list(figure_names(kind, language).values()))


class BenchTable(_BenchDirective):
    """```` ```{bench-table} ````: the speed table of results.json."""

    def run(self) -> list[nodes.Node]:
        return self._node("table", TABLE_DATA, [])


def render(
    node: bench_output,
    messages: Messages,
    srcdir: Path,
    folder: str,
    page_url: str,
    language: str = "en",
) -> str | nodes.table:
    """The figure's HTML, or the table, of ``node`` in ``language``, from ``messages`` (its
    templates in that language); ``page_url`` is the page's URL relative to the site's root."""
    kind, data = node["kind"], node["data"]
    shown = str(PurePosixPath(folder, data))
    results = load(Path(srcdir, folder, data), shown)
    if kind == "table":
        return speed_table(results, shown, messages)
    names = figure_names(kind, language)
    for name in names.values():
        if not Path(srcdir, folder, name).is_file():
            raise BenchDataError(
                f"expected the figure {PurePosixPath(folder, name)}, got no such file (`python "
                f"benchmarks/bench.py --plot {PurePosixPath(folder, data)}` draws it)"
            )
    width = png_width(Path(srcdir, folder, names["1x"]), str(PurePosixPath(folder, names["1x"])))
    alt = ALT_TEXT[kind](results, shown, messages)
    return picture_html(relative_uri(page_url, folder), kind, width, alt, language)


def setup(app):
    # the folder of the figures and JSON, relative to the source folder; under
    # html_static_path, so served at the same path below the site's root
    app.add_config_value("bench_figures_dir", "_static/bench", "env", types=(str,))
    app.add_directive("bench-figure", BenchFigure)
    app.add_directive("bench-table", BenchTable)
    app.setup_extension("templated")  # writes the nodes' HTML
    return {"parallel_read_safe": True, "parallel_write_safe": True}
