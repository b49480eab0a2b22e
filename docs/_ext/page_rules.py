"""The site's rewrites of its pages, where neither Sphinx, the theme nor sphinx-gallery can be
configured to do them.

Three are written by the HTML translator (:class:`PhoneTranslator`, put in front of the
builder's, the theme's, when the builder starts) as it writes the page:

- **Break points in inline code.** A browser breaks ``average_attn_weights`` only at its end:
  on a 390 px phone a line of inline code runs past the screen, or (with ``overflow-wrap:
  anywhere``) splits letter by letter. Each word of inline code (Sphinx's ``<span
  class="pre">``) gets a ``<wbr>`` after ``_``, ``=`` or ``,`` and at a ``.`` between names:
  ``need_weights=`` / ``False``. The next and previous links' titles are written by the same
  translator, so they break alike.
- **Tables as cards.** Each table with a header row and no class of its own (a Markdown table,
  the head tables; not the API's summary tables, not the benchmark's table) gets the class
  ``mha-stack`` and its header's text on every cell (``data-label``): ``custom.css`` shows
  each row as a card of labelled fields on a phone.
- **Phone figures.** A gallery figure with a phone version (``<name>_phone.png``, drawn by
  ``gallery_figures``' scraper) becomes a ``<picture>`` whose first source is that version,
  for screens of at most 540 px; one embedded with ``{image}`` or ``{figure}`` also gets its 2x
  version.

Two edit the doctree:

- **Upright word subscripts.** TeX sets ``d_{model}`` as a product of italic letters: a
  subscript of three letters or more becomes ``d_{\\text{model}}`` in every formula.
- **Plain-text tab titles.** Math in a heading becomes Unicode in the browser's tab title
  (``\\(\\sqrt{d_k}\\)`` -> ``√d_k``).

A rule depends on what its upstream does (how Sphinx writes a word of code, a table, an image;
a class name; a sentence); each knows from the doctree where it must apply, and calls
:func:`unmatched` where it applied nothing: a Sphinx warning naming the rule, which the strict
build (``-W``) turns into a failure.
"""

from __future__ import annotations

import html
import re
import shutil
from collections import Counter
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup, NavigableString
from docutils import nodes
from site_figures import PHONE, RETINA, variant
from sphinx.util import logging
from sphinx_gallery.directives import depart_imgsg_html, imgsgnode, visit_imgsg_html

logger = logging.getLogger(__name__)

PHONE_MEDIA = "(max-width: 540px)"  # the theme's one-column layout
# after "_", "=" or "," (when more follows), and at a "." between names (not "...", ".view")
CODE_BREAK = re.compile(r"(?<=[_=,])(?=\S)|(?<=\w\.)(?=[A-Za-z_])")
PRE = '<span class="pre">'  # how Sphinx writes a word of inline code
PLAIN_TABLE = {"colwidths-auto", "colwidths-given"}  # the classes of a table of no kind
# a gallery figure's file name: sphx_glr_<example>_<number>[.<language>].png
GALLERY_FIGURE = re.compile(r"^(?P<name>sphx_glr_\w+?_\d{3})(?P<language>\.\w+)?\.png$")


def unmatched(rule: str, docname: str, expected: str) -> None:
    """Warn that ``rule`` matched nothing on ``docname``, where it should have ``expected``."""
    logger.warning(
        "page rule %r did not match on this page: expected %s (has the markup or text it "
        "rewrites changed upstream?)",
        rule,
        expected,
        location=docname,
        type="mha",
        subtype=rule,
    )


# ---- The HTML translator ------------------------------------------------------------------------


class PhoneTranslator:
    """Break points in inline code, tables as cards and phone figures (see the module's doc).

    What each rule did on the page is counted in the document's ``mha_applied``, which
    :func:`check` compares with what the doctree holds.
    """

    def visit_document(self, node: nodes.document) -> None:
        super().visit_document(node)
        self.mha_applied = node["mha_applied"] = Counter()
        self.mha_labels: list[list[str] | None] = []  # the tables being written, innermost last
        self.mha_cell: str | None = None  # the data-label of the cell being started

    def visit_Text(self, node: nodes.Text) -> None:
        start = len(self.body)
        super().visit_Text(node)
        if not self.protect_literal_text:
            return
        words = [w for w in self.words_and_spaces.findall(node.astext()) if w.strip()]
        written = [i for i in range(start, len(self.body)) if self.body[i].startswith(PRE)]
        if len(written) != len(words):
            return  # not written a word per span: the check warns
        for i, word in zip(written, words, strict=True):
            pieces = CODE_BREAK.split(word)
            if len(pieces) > 1:
                self.body[i] = f"{PRE}{'<wbr>'.join(map(self.encode, pieces))}</span>"
                self.mha_applied["code breaks"] += 1

    def visit_table(self, node: nodes.table) -> None:
        head = next(node.findall(nodes.thead), None)
        plain = head is not None and set(node["classes"]) <= PLAIN_TABLE
        labels = (
            [" ".join(e.astext().split()) for e in head.findall(nodes.entry)] if plain else None
        )
        self.mha_labels.append(labels)
        start = len(self.body)
        super().visit_table(node)
        if labels is not None and any("mha-stack" in piece for piece in self.body[start:]):
            self.mha_applied["tables as cards"] += 1

    def depart_table(self, node: nodes.table) -> None:
        super().depart_table(node)
        self.mha_labels.pop()

    def visit_entry(self, node: nodes.entry) -> None:
        labels = self.mha_labels[-1] if self.mha_labels else None
        if labels and isinstance(node.parent.parent, nodes.tbody):
            at = node.parent.index(node)
            self.mha_cell = labels[at] if at < len(labels) else None
        super().visit_entry(node)
        self.mha_cell = None

    def starttag(self, node, tagname: str, *args, **attributes) -> str:
        if tagname == "table" and self.mha_labels and self.mha_labels[-1] is not None:
            attributes["CLASS"] = f"{attributes.get('CLASS', '')} mha-stack".strip()
        elif tagname == "td" and self.mha_cell is not None:
            attributes["data-label"] = self.mha_cell
        return super().starttag(node, tagname, *args, **attributes)

    def visit_image(self, node: nodes.image) -> None:
        start = len(self.body)
        super().visit_image(node)
        picture(self, node, start, add_2x=True)


def visit_gallery_image(self, node: imgsgnode) -> None:
    """sphinx-gallery's image node, as sphinx-gallery writes it, then served to phones."""
    start = len(self.body)
    visit_imgsg_html(self, node)  # without a srcset: visit_image (above)
    if node["srcset"] is not None:
        picture(self, node, start, add_2x=False)


def picture(self, node: nodes.Element, start: int, add_2x: bool) -> None:
    """Serve the gallery figure the translator just wrote (``self.body[start]``, an ``<img>``)
    to screens of at most 540 px in its phone version, and at 2x (``add_2x``) where it has
    none; copy those files to the site's images."""
    found = GALLERY_FIGURE.match(PurePosixPath(node["uri"]).name)
    img = self.body[start] if start < len(self.body) else ""
    if found is None or not img.startswith("<img "):
        return
    name, language = found["name"], found["language"] or ""
    folder = f"{self.builder.imgpath}/"
    if add_2x and " srcset=" not in img and _copy(self.builder, f"{name}{RETINA}{language}.png"):
        srcset = f"{folder}{name}{language}.png, {folder}{name}{RETINA}{language}.png 2x"
        img = f'<img srcset="{html.escape(srcset)}" {img.removeprefix("<img ")}'
    phone, phone2 = (f"{name}{PHONE}{retina}{language}.png" for retina in ("", RETINA))
    if _copy(self.builder, phone) and _copy(self.builder, phone2):
        source = f'<source media="{PHONE_MEDIA}" srcset="{folder}{phone}, {folder}{phone2} 2x">'
        tag = img.rstrip("\n")
        img = f"<picture>{source}{tag}</picture>{img[len(tag) :]}"
        self.mha_applied["phone figures"] += 1
    self.body[start] = img


def _copy(builder, name: str) -> bool:
    """Copy the gallery image ``name`` to the site's images (when newer); whether it exists."""
    sources = builder.env.mha_gallery_images
    if name not in sources:
        return False
    target = Path(builder.outdir, builder.imagedir, name)
    if not target.is_file() or target.stat().st_mtime < sources[name].stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(sources[name], target)
    return True


def list_images(app, env) -> None:
    """List every gallery image of the build, by file name, once the gallery has run and the
    pages are read (the pages are written from this environment)."""
    images = Path(app.srcdir).glob("auto_examples/*/images/sphx_glr_*.png")
    env.mha_gallery_images = {p.name: p for p in images}


def add_translator(app) -> None:
    """Put :class:`PhoneTranslator` in front of the builder's HTML translator (the theme's)."""
    if app.builder.format == "html":
        base = app.builder.get_translator_class()
        mixed = type(f"Phone{base.__name__}", (PhoneTranslator, base), {})
        app.set_translator(app.builder.name, mixed, override=True)
        # sphinx-gallery's image node: its own visitor, then served to phones
        app.add_node(imgsgnode, override=True, html=(visit_gallery_image, depart_imgsg_html))


# ---- What the doctree says each rule must have done -----------------------------------------------


def _expected_pictures(doctree, sources: dict[str, Path]) -> int:
    """The page's gallery figures (images, and sphinx-gallery's own image nodes) that have a
    phone version."""
    found = 0
    for image in doctree.findall(lambda n: isinstance(n, (nodes.image, imgsgnode))):
        match = GALLERY_FIGURE.match(PurePosixPath(image["uri"]).name)
        phone = variant(Path(f"{match['name']}.png"), PHONE) if match else None
        if phone and {phone.name, variant(phone, RETINA).name} <= sources.keys():
            found += 1
    return found


def with_breaks(title: str) -> tuple[str, int]:
    """A link's title (HTML) with a ``<wbr>`` at each break point of its text, and how many of
    its texts have one (its code's, from the translator, included)."""
    tree = BeautifulSoup(title, "html.parser")
    breaks = len(tree.find_all("wbr"))
    for text in list(tree.find_all(string=True)):
        pieces = CODE_BREAK.split(str(text))
        for piece in pieces[:-1]:
            text.insert_before(NavigableString(piece))
            text.insert_before(tree.new_tag("wbr"))
        if len(pieces) > 1:
            text.replace_with(NavigableString(pieces[-1]))
            breaks += 1
    return str(tree), breaks


def check(app, pagename, templatename, context, doctree) -> None:
    """Warn where a rule of the translator applied nothing on a page that needs it; break the
    next and previous links' titles."""
    # the next and previous pages' titles, as the environment knows them
    relations = getattr(app.builder, "relations", {}).get(pagename) or [None, None, None]
    for link, target in zip((context.get("prev"), context.get("next")), relations[1:], strict=True):
        title = app.env.titles.get(target) if target else None
        expected = title is not None and CODE_BREAK.search(title.astext())
        breaks = 0
        if link and link.get("title"):  # its code has them (the translator's): its text too
            link["title"], breaks = with_breaks(link["title"])
        if expected and not breaks:
            unmatched("code breaks", pagename, f"break points in the link title {target!r}")
    if doctree is None:
        return
    applied = doctree.get("mha_applied", Counter())
    tables = sum(
        1
        for table in doctree.findall(nodes.table)
        if set(table["classes"]) <= PLAIN_TABLE and next(table.findall(nodes.thead), None)
    )
    if applied["tables as cards"] < tables:
        found = applied["tables as cards"]
        unmatched(
            "tables as cards", pagename, f"{tables} table(s) with a header row, found {found}"
        )
    literals = any(CODE_BREAK.search(n.astext()) for n in doctree.findall(nodes.literal))
    if literals and not applied["code breaks"]:
        unmatched("code breaks", pagename, "inline code whose names break after _ = , or .")
    if not applied["phone figures"] and _expected_pictures(doctree, app.env.mha_gallery_images):
        unmatched("phone figures", pagename, "a gallery figure's <img> to serve as <picture>")


# ---- Math --------------------------------------------------------------------------------------

WORD_SUBSCRIPT = re.compile(r"_\{([A-Za-z]{3,})\}")
# the same subscript in a page's source, inside $...$ or a :math: role
SOURCE_WORD_SUBSCRIPT = re.compile(r"(\$|:math:`)[^$`\n]*_\{[A-Za-z]{3,}\}")
TEX_TEXT = [
    (re.compile(r"\\sqrt\{([^{}]*)\}"), r"√\1"),
    (re.compile(r"\\text\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\cdot"), "·"),
    (re.compile(r"\\top"), "ᵀ"),
    (re.compile(r"\\times"), "×"),
    (re.compile(r"[{}]|\\,|\\!"), ""),
]
INLINE_MATH = re.compile(r"^\\\((.*)\\\)$", re.DOTALL)


def tex_to_text(tex: str) -> str:
    """``\\sqrt{d_k}`` -> ``√d_k``: TeX as the plain text of a tab title."""
    for pattern, replacement in TEX_TEXT:
        tex = pattern.sub(replacement, tex)
    return tex.strip()


def upright_word_subscripts(app, doctree, docname: str) -> None:
    """Set every subscript of three letters or more upright, in every formula of the page."""
    changed = 0
    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))):
        text = node.astext()
        upright = WORD_SUBSCRIPT.sub(r"_{\\text{\1}}", text)
        if upright != text:
            node.children = []
            node += nodes.Text(upright)
            changed += 1
    if changed == 0:
        source = app.env.doc2path(docname)
        if source.is_file() and SOURCE_WORD_SUBSCRIPT.search(source.read_text(encoding="utf-8")):
            unmatched("upright subscripts", docname, "math with a word as a subscript")


def plain_text_title(app, pagename, templatename, context, doctree) -> None:
    """The tab title's math as Unicode text."""
    if not context.get("title"):
        return
    title = BeautifulSoup(context["title"], "html.parser")
    spans = [
        span
        for span in title.find_all("span")
        if "math" in span.get("class", []) and INLINE_MATH.match(span.get_text())
    ]
    for span in spans:
        span.replace_with(NavigableString(tex_to_text(INLINE_MATH.match(span.get_text())[1])))
    if spans:
        context["title"] = str(title)
        return
    heading = doctree.next_node(nodes.title) if doctree is not None else None
    if heading is not None and heading.next_node(nodes.math) is not None:
        unmatched("plain-text titles", pagename, "the title's math")


def setup(app):
    app.connect("builder-inited", add_translator, priority=900)  # after the theme's (500)
    app.connect("env-updated", list_images)
    app.connect("doctree-resolved", upright_word_subscripts)
    app.connect("html-page-context", check)
    app.connect("html-page-context", plain_text_title)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
