"""The tutorial's pages as notebooks for download, and every downloaded notebook's links live:
each tutorial page is written as ``tutorial/notebooks/<page>.ipynb`` before the pages are read;
after the build, the roles in every notebook offered for download (the tutorial's, the gallery's
and in its zips) become Markdown links to the published site (``mha_documentation_url``)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path, PurePosixPath

import nbformat
from markdown_it.renderer import RendererHTML
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser
from questions import folded, markdown
from sphinx.util import docname_join, logging
from sphinx_design.dropdown import DropdownDirective
from translated_sources import translated_page

logger = logging.getLogger(__name__)

DOWNLOAD_LINE = re.compile(r"(?ms)^\{download\}`[^`]*<notebooks/[^`]*>`.*?\n\n")  # any language
HIDDEN = {"hide-cell": ("source_hidden", "outputs_hidden"), "hide-input": ("source_hidden",),
          "hide-output": ("outputs_hidden",)}  # fmt: skip


def _split_dropdowns(source: str) -> list[str]:
    """A Markdown cell's parts, each dropdown (an answer, a detail) folded as on the page."""
    parser = create_md_parser(MdParserConfig(enable_extensions={"colon_fence"}), RendererHTML)
    lines, parts, done = source.splitlines(), [], 0
    for token in parser.parse(source):
        if token.info.startswith("{dropdown}") and token.type in ("fence", "colon_fence"):
            title = token.info.removeprefix("{dropdown}").strip() or "Answer"
            body = parse_directive_text(DropdownDirective, title, token.content).body  # no options
            parts.append("\n".join(lines[done : token.map[0]]).strip())
            parts.append(folded(title, "\n".join(body).strip()))
            done = token.map[1]
    parts.append("\n".join(lines[done:]).strip())
    return [part for part in parts if part]


def page_notebook(config, page: str) -> str:
    """A page as a notebook, unexecuted, without its download line, first the cell that installs
    what it imports; dropdowns folded, hidden cells collapsed, questions as Markdown."""
    notebook = read_myst_markdown_notebook(DOWNLOAD_LINE.sub("", page))
    notebook.metadata.pop("file_format", None)
    cells = [nbformat.v4.new_code_cell(config.sphinx_gallery_conf["first_notebook_cell"])]
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            for part in (p for tag in cell.metadata.get("tags", []) for p in HIDDEN.get(tag, ())):
                cell.metadata.setdefault("jupyter", {})[part] = True
            cells.append(cell)
            continue
        parts = _split_dropdowns(markdown(cell.source))
        cells += [nbformat.v4.new_markdown_cell(p, metadata=dict(cell.metadata)) for p in parts]
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number:03d}"  # numbered: an unchanged page writes an unchanged notebook
    notebook.cells = cells
    return nbformat.writes(notebook)


def write_notebooks(app, config) -> None:
    """Each tutorial page as a notebook, in the edition's language (its own folder)."""
    folder = Path(app.confdir) / "tutorial" / "notebooks"
    folder.mkdir(exist_ok=True)
    for page in sorted(folder.parent.glob("[0-9][0-9]_*.md")):
        source = translated_page(config.language, f"tutorial/{page.stem}", page.read_text())
        text, target = page_notebook(config, source), folder / f"{page.stem}.ipynb"
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


# {role}`text` (MyST) and :role:`text` (reST), the text possibly across lines
ROLE = re.compile(r"(?:\{(?P<myst>[a-z]+)\}|:(?P<rst>[a-z]+):)`(?P<text>[^`]+)`")
TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
API_ROLES = {"func", "class", "meth", "attr", "mod", "data", "exc", "obj"}


def _link(app, base: str, role: str, text: str) -> str | None:
    """The Markdown a reader sees for the role ``role`` with ``text`` in the page ``base``."""
    text = " ".join(text.split())
    title, target = (m["title"], m["target"]) if (m := TITLED.match(text)) else (None, text)
    address = app.config.mha_documentation_url.rstrip("/") + f"/{app.config.language}/"
    if role in API_ROLES:  # the name as code, linked to its reference page
        name = target.lstrip("~")
        shown = title or (name.rsplit(".", 1)[-1] if target.startswith("~") else name)
        if (found := app.env.get_domain("py").objects.get(name)) is None:
            return f"`{shown}`"
        return f"[`{shown}`]({address}{found.docname}.html#{found.node_id})"
    docname = target[1:] if target.startswith("/") else docname_join(base, target)
    std, key = app.env.get_domain("std"), target.lower()
    if role == "doc" and docname in app.env.titles:
        return f"[{title or app.env.titles[docname].astext()}]({address}{docname}.html)"
    if role == "ref" and (found := std.labels.get(key) or (title and std.anonlabels.get(key))):
        docname, anchor, *section = found  # an anonymous label has no section: the title says it
        return f"[{title or section[0]}]({address}{docname}.html#{anchor})"
    return None


def plain_links(app, exception) -> None:
    """Each notebook for download, its roles as links to the site; one it cannot resolve warns."""
    if exception is not None or app.builder.format != "html":
        return

    def plain(base: str, notebook: str) -> str:  # the roles of its Markdown cells as links
        def replace(match: re.Match) -> str:
            if (found := _link(app, base, match["myst"] or match["rst"], match["text"])) is None:
                logger.warning("notebook of %s: no address for %s", base, match[0])
            return found or match[0]

        data = json.loads(notebook)
        for cell in (cell for cell in data["cells"] if cell["cell_type"] == "markdown"):
            cell["source"] = ROLE.sub(replace, "".join(cell["source"]))  # a list, or a str
        return json.dumps(data, ensure_ascii=False, indent=1) + "\n"

    for found, (_, dest) in app.env.dlfiles.items():
        path, source = Path(app.outdir) / "_downloads" / dest, Path(found)
        source = (source.relative_to(app.srcdir) if source.is_absolute() else source).as_posix()
        if source.endswith(".ipynb") and path.is_file():  # a gallery's or the tutorial's
            base = source.removesuffix(".ipynb").replace("tutorial/notebooks/", "tutorial/")
            path.write_text(plain(base, path.read_text(encoding="utf-8")), encoding="utf-8")
        elif source.endswith(".zip") and path.is_file():  # each notebook as its own page's
            with zipfile.ZipFile(path) as old:
                entries = [(info, old.read(info)) for info in old.infolist()]
            folder = PurePosixPath(source).parent
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as new:
                for info, content in entries:
                    if info.filename.endswith(".ipynb"):
                        base = str(folder / info.filename.removesuffix(".ipynb"))
                        content = plain(base, content.decode("utf-8")).encode("utf-8")
                    new.writestr(info, content)


def setup(app):
    app.add_config_value("mha_documentation_url", "", "html")
    app.connect("config-inited", write_notebooks)
    app.connect("build-finished", plain_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
