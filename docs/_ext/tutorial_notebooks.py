"""The tutorial's pages as notebooks, ``tutorial/notebooks/<page>.ipynb``, for download.

Each tutorial page is a MyST notebook (Markdown with ``{code-cell}`` blocks) that the build
executes. A reader who wants to run it in Jupyter downloads the same page as an ``.ipynb``:
this extension writes those notebooks before the build reads the pages (``config-inited``), so
each page can link its notebook with ``{download}``. ``nox -s downloads`` runs every one of them
in an empty folder and checks that it holds its page's code cells.

The rewriting works on the page's Markdown text (plain text, not HTML).
"""

from __future__ import annotations

import re
from pathlib import Path

DOWNLOAD_LINE = re.compile(r"^\{download\}`Download this page.*?\n\n", re.MULTILINE | re.DOTALL)


def write_notebooks(app, config) -> None:
    """Write each tutorial page as a notebook, tutorial/notebooks/<page>.ipynb, for download.

    The notebook is the page's text and code, unexecuted, without its own download line; each
    page links it with ``{download}``. ``nox -s downloads`` runs them in an empty folder.

    "Try first, then see": a page hides an answer in a ``{dropdown}`` (its text) and a code cell
    tagged ``hide-cell`` (its code), after a cell where the reader tries. Jupyter knows neither:

    - each dropdown becomes a Markdown cell of its own, after the text and cells before it,
      headed by the dropdown's title one level below the section it sits in (its options,
      ``:open:`` and the like, left out);
    - a code cell tagged ``hide-cell``, ``hide-input`` or ``hide-output`` keeps its place and
      its tags, and JupyterLab collapses the same parts (``metadata.jupyter``).

    Questions (``{question}``, :mod:`questions`) become Markdown: the question, then each
    choice folded in a ``<details>`` with its verdict and explanation.

    Cell ids are numbered, so that an unchanged page writes an unchanged notebook.
    """
    import nbformat
    from myst_nb.core.read import read_myst_markdown_notebook
    from questions import markdown

    dropdown = re.compile(r"^(?P<fence>:{3,}|`{3,})\{dropdown\}[ \t]*(?P<title>.*?)\s*$")
    heading = re.compile(r"^(#{1,6})\s")
    code_fence = re.compile(r"^(`{3,}|~{3,})")
    option = re.compile(r"^:[\w-]+:")
    hidden = {"hide-cell": ("source_hidden", "outputs_hidden"), "hide-input": ("source_hidden",),
              "hide-output": ("outputs_hidden",)}  # fmt: skip

    def closes(line: str, fence: str) -> bool:
        mark = line.strip()
        return len(mark) >= len(fence) and set(mark) == {fence[0]}

    def split_dropdowns(source: str, level: int) -> tuple[list[str], int]:
        """A Markdown cell's parts, each dropdown its own; and the heading level at its end."""
        parts, text, lines, in_code = [], [], iter(source.splitlines()), None
        for line in lines:
            start = dropdown.match(line) if in_code is None else None
            if start is None:
                fence = code_fence.match(line)
                if in_code is None and fence:
                    in_code = fence[1]
                elif in_code is not None and closes(line, in_code):
                    in_code = None
                elif in_code is None and heading.match(line):
                    level = len(heading.match(line)[1])
                text.append(line)
                continue
            body = []
            for inner in lines:
                if closes(inner, start["fence"]):
                    break
                body.append(inner)
            if body and body[0].strip() == "---":  # options as a YAML block
                body = body[body.index("---", 1) + 1 :] if "---" in body[1:] else body[1:]
            while body and option.match(body[0]):
                body = body[1:]
            parts.append("\n".join(text).strip())
            title = start["title"] or "Answer"
            parts.append(f"{'#' * min(level + 1, 6)} {title}\n\n" + "\n".join(body).strip())
            text = []
        parts.append("\n".join(text).strip())
        return [part for part in parts if part], level

    tutorial = Path(app.confdir) / "tutorial"
    folder = tutorial / "notebooks"
    folder.mkdir(exist_ok=True)
    for page in sorted(tutorial.glob("[0-9][0-9]_*.md")):
        notebook = read_myst_markdown_notebook(DOWNLOAD_LINE.sub("", page.read_text()))
        notebook.metadata.pop("file_format", None)
        cells, level = [], 1
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                for tag in cell.metadata.get("tags", []):
                    for part in hidden.get(tag, ()):
                        cell.metadata.setdefault("jupyter", {})[part] = True
                cells.append(cell)
                continue
            parts, level = split_dropdowns(markdown(cell.source), level)
            cells += [nbformat.v4.new_markdown_cell(p, metadata=dict(cell.metadata)) for p in parts]
        for number, cell in enumerate(cells):
            cell.id = f"cell-{number:03d}"
        notebook.cells = cells
        text = nbformat.writes(notebook)
        target = folder / f"{page.stem}.ipynb"
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


def setup(app):
    app.connect("config-inited", write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
