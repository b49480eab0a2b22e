"""The "what heads learn" page's tables, written from the measurements of the gallery example.

``gallery/06_evidence/plot_05_heads_on_sentences.py`` trains the sentence model, asserts its
claims, and puts every number it measured in ``head_explorer_data``, which the build saves
beside the generated example as ``plot_05_heads_on_sentences.head_explorer.json`` (the head
explorer's data, see ``head_explorer.scraper``). The explanation page shows those numbers
without typing one of them: ```` ```{head-table} ablation PATH ```` writes the accuracy with
each head removed (seed 0), ```` ```{head-table} seeds PATH ```` the measurements of every
seed, ```` ```{head-table} price PATH ```` the lowest accuracy one removal leaves in each seed,
trained with and without the price on each head. ``PATH`` is the JSON, relative to the page.

The headers and the words in cells are templates translated by the page's own catalog, as for
every directive of ``templated``; a catalog holds no number, so a new training run leaves every
entry current. A missing file or key is a warning naming the file and the key (the site builds
with ``-W``: the build fails).
"""

from __future__ import annotations

import functools
from pathlib import Path

from docutils import nodes
from head_explorer import TASKS as EXPLORER_TASKS
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from templated import DataError, Messages, Templated, get, read_json, table

logger = logging.getLogger(__name__)

TEMPLATES: dict[str, dict[str, str]] = {
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
TASKS = tuple(EXPLORER_TASKS)  # agreement, pronoun


class HeadDataError(DataError):
    """The explorer's JSON lacks what a table needs."""


_get = functools.partial(get, error=HeadDataError)  # value[key]..., or the error naming it


def load(path: Path, shown: str) -> dict:
    missing = (
        f"expected {shown}, got no such file (the build saves it when the gallery "
        "example that sets head_explorer_data runs: nox -s docs -- clean)"
    )
    return read_json(path, shown, missing, HeadDataError)


def ablation_table(data: dict, shown: str, messages: Messages) -> nodes.table:
    """Seed 0: held-out accuracy per task with nothing and with each head removed."""
    text = messages.text
    ablation = _get(data, shown, "ablation")
    needed = {task: _get(data, shown, "roles", task, "head") for task in TASKS}
    rows = [[text["none"], *(f"{_get(data, shown, 'accuracy', t):.3f}" for t in TASKS)]]
    for head in sorted(ablation, key=int):
        label = messages.format("head", head=head)
        tasks = [t for t in TASKS if needed[t] == int(head)]
        if tasks:
            note = text["needed"] if len(tasks) == 2 else text[f"needed_{tasks[0]}"]
            label = [nodes.strong("", label), nodes.Text(f" {note}")]
        cells = [f"{_get(data, shown, 'ablation', head, t):.3f}" for t in TASKS]
        rows.append([label, *([nodes.strong("", c)] if tasks else c for c in cells)])
    rows.append([text["baseline"], *(f"{_get(data, shown, 'baseline', t):.3f}" for t in TASKS)])
    head = [text["removed"], text["agreement"], text["pronoun"]]
    return table(head, rows)


def seeds_table(data: dict, shown: str, messages: Messages) -> nodes.table:
    """Every seed: the looking head and the needed head per task, with their weights."""
    text = messages.text
    rows = []
    for seed in sorted(_get(data, shown, "seeds"), key=int):
        for task in TASKS:
            looking, needed, on_target, on_other, without = (
                _get(data, shown, "seeds", seed, task, key)
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
            *(f"{_get(data, shown, 'lowest', run, seed, task):.3f}" for task, run in columns),
        ]
        for seed in sorted(_get(data, shown, "lowest", "price"), key=int)
    ]
    head = [text["seed"], *(text[f"{task}_{run}"] for task, run in columns)]
    return table(head, rows)


RENDER = {"ablation": ablation_table, "seeds": seeds_table, "price": price_table}


class head_table(nodes.General, nodes.Element, Templated):
    """A table of the sentence model's measurements: its kind, its JSON, its templates."""

    def label(self) -> str:
        return f"head-table {self['kind']}"

    def html(self, app, docname: str, messages: Messages) -> nodes.Node:
        data = load(Path(app.srcdir, self["shown"]), self["shown"])
        return RENDER[self["kind"]](data, self["shown"], messages)


class HeadTable(SphinxDirective):
    """```` ```{head-table} ablation /auto_examples/06_evidence/<example>.head_explorer.json ````."""

    required_arguments = 2

    def run(self) -> list[nodes.Node]:
        kind, data = self.arguments
        if kind not in RENDER:
            logger.warning(
                "head-table: expected one of %s, got %r",
                ", ".join(RENDER),
                kind,
                location=self.get_location(),
            )
            return []
        shown, path = self.env.relfn2path(data, self.env.docname)  # shown: from the source folder
        self.env.note_dependency(path)  # a new training run re-reads the page
        node = head_table(kind=kind, shown=shown, templates=dict(TEMPLATES[kind]))
        self.set_source_info(node)
        return [node]


def setup(app):
    app.add_directive("head-table", HeadTable)
    app.setup_extension("templated")  # writes the tables' HTML
    return {"parallel_read_safe": True, "parallel_write_safe": True}
