"""The tutorial's pages as notebooks, ``tutorial/notebooks/<page>.ipynb``, for download.

Each tutorial page is a MyST notebook (Markdown with ``{code-cell}`` blocks) that the build
executes. A reader who wants to run it in Jupyter downloads the same page as an ``.ipynb``:
this extension writes those notebooks before the build reads the pages (``config-inited``), so
each page can link its notebook with ``{download}``. ``nox -s downloads`` runs every one of them
in an empty folder and checks that it holds its page's code cells.

The rewriting works on the page's Markdown text (plain text, not HTML).

Jupyter does not know Sphinx's roles: after the build, every notebook the site offers for
download (the tutorial's and the gallery's, and those in the gallery's zips) gets its links as
a reader can follow them (:func:`plain_links`): ``{doc}`` and ``{ref}`` (and reST's ``:doc:``,
``:ref:``) become a Markdown link with the page's title or the role's text and the page's
address on the published site (``mha_documentation_url``, the language's folder, the page and
its anchor); an API role (``{func}`mha.split_heads``` or ``:class:`~mha.MultiHeadAttention```)
becomes the name as code, linked to its reference page when the site documents it.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path, PurePosixPath

from sphinx.util import docname_join, logging

logger = logging.getLogger(__name__)

# the page's line that links its own notebook, in any language
DOWNLOAD_LINE = re.compile(
    r"^\{download\}`[^`]*<notebooks/[^`]*>`.*?\n\n", re.MULTILINE | re.DOTALL
)


def closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a MyST fence opened with ``fence`` (``:::``, a run of backticks)."""
    mark = line.strip()
    return len(mark) >= len(fence) and set(mark) == {fence[0]}


def page_notebook(config, page: str) -> str:
    """A tutorial page (its MyST Markdown) as a notebook's JSON, for download.

    The notebook is the page's text and code, unexecuted, without its own download line; each
    page links it with ``{download}``. Its first cell installs what it imports: the gallery's
    notebooks' first cell (sphinx-gallery's ``first_notebook_cell``, ``%pip install`` of
    ``mha_install``). ``nox -s downloads`` runs them in an empty folder.

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

    notebook = read_myst_markdown_notebook(DOWNLOAD_LINE.sub("", page))
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
    # first, as in the gallery's notebooks: install what it imports (the wheel beside it)
    install = config.sphinx_gallery_conf["first_notebook_cell"]
    cells.insert(0, nbformat.v4.new_code_cell(install))
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number:03d}"
    notebook.cells = cells
    return nbformat.writes(notebook)


def write_notebooks(app, config) -> None:
    """Write each tutorial page as a notebook, tutorial/notebooks/<page>.ipynb, for download
    (:func:`page_notebook`); each page links its own with ``{download}``. The Chinese build
    offers the translated page's (``translated_sources``)."""
    tutorial = Path(app.confdir) / "tutorial"
    folder = tutorial / "notebooks"
    folder.mkdir(exist_ok=True)
    for page in sorted(tutorial.glob("[0-9][0-9]_*.md")):
        text = page_notebook(config, page.read_text())
        target = folder / f"{page.stem}.ipynb"
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


# {role}`text` (MyST) and :role:`text` (reST), the text possibly across lines
ROLE = re.compile(r"\{(?P<myst>[a-z]+)\}`(?P<a>[^`]+)`|:(?P<rst>[a-z]+):`(?P<b>[^`]+)`")
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
API_ROLES = {"func", "class", "meth", "attr", "mod", "data", "exc", "obj"}


def _link(app, base: str, role: str, text: str) -> str | None:
    """The Markdown a reader sees for the role ``role`` with ``text`` in the page ``base``."""
    text = " ".join(text.split())
    titled = TITLED.match(text)
    title, target = (titled["title"], titled["target"]) if titled else (None, text)
    address = app.config.mha_documentation_url.rstrip("/") + f"/{app.config.language}/"
    if role in API_ROLES:
        name = target.lstrip("~")
        shown = title or (name.rsplit(".", 1)[-1] if target.startswith("~") else name)
        found = app.env.get_domain("py").objects.get(name)
        if found is None:
            return f"`{shown}`"
        return f"[`{shown}`]({address}{found.docname}.html#{found.node_id})"
    if role == "doc":
        docname = docname_join(base, target) if not target.startswith("/") else target[1:]
        if docname not in app.env.titles:
            return None
        shown = title or app.env.titles[docname].astext()
        return f"[{shown}]({address}{docname}.html)"
    if role == "ref":
        std = app.env.get_domain("std")
        label = target.lower()
        if label in std.labels:
            docname, anchor, section = std.labels[label]
        elif label in std.anonlabels and title:
            docname, anchor = std.anonlabels[label]
            section = title
        else:
            return None
        return f"[{title or section}]({address}{docname}.html#{anchor})"
    return None


def _plain(app, base: str, notebook: str) -> str:
    """The notebook's JSON with its Markdown cells' roles as links; a role it cannot resolve
    is a warning and stays."""
    data = json.loads(notebook)

    def replace(match: re.Match) -> str:
        role, text = (match["myst"], match["a"]) if match["myst"] else (match["rst"], match["b"])
        found = _link(app, base, role, text)
        if found is None:
            logger.warning("notebook of %s: no address for %s", base, match[0])
            return match[0]
        return found

    for cell in data["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = ROLE.sub(replace, source)
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def plain_links(app, exception) -> None:
    """Every notebook offered for download, its roles as links a reader can follow."""
    if exception is not None or app.builder.format != "html":
        return
    downloads = Path(app.outdir) / "_downloads"
    for found, (_, dest) in app.env.dlfiles.items():
        path, source = downloads / dest, Path(found)
        if source.is_absolute():
            source = source.relative_to(app.srcdir)
        source = source.as_posix()
        if not path.is_file():
            continue
        if source.endswith(".ipynb"):  # auto_examples/x/plot_y.ipynb, tutorial/notebooks/z.ipynb
            base = source.removesuffix(".ipynb").replace("tutorial/notebooks/", "tutorial/")
            path.write_text(_plain(app, base, path.read_text(encoding="utf-8")), encoding="utf-8")
        elif source.endswith(".zip"):  # the gallery's zips: each notebook as its own page's
            folder = PurePosixPath(source).parent
            with zipfile.ZipFile(path) as old:
                entries = [(info, old.read(info)) for info in old.infolist()]
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
                for info, content in entries:
                    if info.filename.endswith(".ipynb"):
                        base = str(folder / info.filename.removesuffix(".ipynb"))
                        content = _plain(app, base, content.decode("utf-8")).encode("utf-8")
                    new.writestr(info, content)


def setup(app):
    app.add_config_value("mha_documentation_url", "", "html")
    app.connect("config-inited", write_notebooks)
    app.connect("build-finished", plain_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
