"""The site's rewrites of its pages, where Sphinx, the theme and sphinx-gallery have no option.

- **Break points in inline code**: a ``<wbr>`` at each :data:`CODE_BREAK` of inline code and the
  next and previous links' titles (a 390 px phone broke ``average_attn_weights`` only at its end).
- **Phone figures**: a gallery figure is sized (no shift as it loads) and, with a phone version
  (``<name>_phone.png``, drawn by ``gallery_figures``), a ``<picture>`` serving it to <= 540 px.
- **Math**: a word subscript is upright, ``d_{\\text{model}}`` (TeX sets ``d_{model}`` as a
  product of italic letters); ``\\sqrt{d_k}`` in a heading is ``√d_k`` in the tab title."""

from __future__ import annotations

import html
import re
import shutil
import struct
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup, NavigableString
from docutils import nodes
from site_figures import PHONE, RETINA
from sphinx_gallery.directives import depart_imgsg_html, imgsgnode, visit_imgsg_html

PHONE_MEDIA = "(max-width: 540px)"  # the theme's one-column layout
# after "_", "=" or "," (when more follows), and at a "." between names (not "...", ".view")
CODE_BREAK = re.compile(r"(?<=[_=,])(?=\S)|(?<=\w\.)(?=[A-Za-z_])")
PRE = '<span class="pre">'  # how Sphinx writes a word of inline code
GALLERY_FIGURE = re.compile(r"^(?P<name>sphx_glr_\w+?_\d{3})\.png$")


class PhoneTranslator:
    """Break points in inline code and phone figures, in front of the theme's translator."""

    def visit_Text(self, node: nodes.Text) -> None:
        start = len(self.body)
        super().visit_Text(node)
        for i in range(start, len(self.body) if self.protect_literal_text else start):
            if self.body[i].startswith(PRE):
                pieces = CODE_BREAK.split(html.unescape(self.body[i][len(PRE) : -len("</span>")]))
                self.body[i] = f"{PRE}{'<wbr>'.join(map(self.encode, pieces))}</span>"

    def visit_image(self, node: nodes.image) -> None:
        start = len(self.body)
        super().visit_image(node)
        picture(self, node, start, add_2x=True)  # a gallery figure in {image} or {figure}


def with_breaks(app, pagename, templatename, context, doctree) -> None:
    """The next and previous links' titles with a ``<wbr>`` at each break point."""
    for link in filter(lambda n: n and n.get("title"), (context.get("prev"), context.get("next"))):
        tree = BeautifulSoup(link["title"], "html.parser")
        for text in [t for t in tree.find_all(string=True) if not t.find_parent(class_="math")]:
            *pieces, last = CODE_BREAK.split(str(text))
            for piece in pieces:
                text.insert_before(NavigableString(piece), tree.new_tag("wbr"))
            text.replace_with(NavigableString(last))  # the same text where it has no break
        link["title"] = str(tree)


def visit_gallery_image(self, node: imgsgnode) -> None:
    """sphinx-gallery's image node, as sphinx-gallery writes it, then served to phones."""
    start = len(self.body)
    visit_imgsg_html(self, node)  # without a srcset: visit_image (above)
    if node["srcset"] is not None:
        picture(self, node, start, add_2x=False)


def picture(self, node: nodes.Element, start: int, add_2x: bool) -> None:
    """Serve the gallery figure just written (``self.body[start]``, an ``<img>``) to phones in its
    phone version, and at 2x (``add_2x``) where it has none; copy those files to the site."""
    found = GALLERY_FIGURE.match(PurePosixPath(node["uri"]).name)
    img = self.body[start] if start < len(self.body) else ""
    if found is None or not img.startswith("<img "):
        return
    name, folder = found["name"], f"{self.builder.imgpath}/"
    if " height=" not in img and (drawn := _copy(self.builder, f"{name}.png")):  # no shift
        width, height = struct.unpack(">II", drawn.read_bytes()[16:24])  # a PNG's IHDR
        img = f'<img width="{width}" height="{height}" {img.removeprefix("<img ")}'
    if add_2x and " srcset=" not in img and _copy(self.builder, f"{name}{RETINA}.png"):
        srcset = f"{folder}{name}.png, {folder}{name}{RETINA}.png 2x"
        img = f'<img srcset="{html.escape(srcset)}" {img.removeprefix("<img ")}'
    phone, phone2 = (f"{name}{PHONE}{retina}.png" for retina in ("", RETINA))
    if _copy(self.builder, phone) and _copy(self.builder, phone2):
        source = f'<source media="{PHONE_MEDIA}" srcset="{folder}{phone}, {folder}{phone2} 2x">'
        tag = img.rstrip("\n")
        img = f"<picture>{source}{tag}</picture>{img[len(tag) :]}"
    self.body[start] = img


def _copy(builder, name: str) -> Path | None:
    """Copy the gallery image ``name`` to the site's images (when newer); its source, if any."""
    if (source := next(Path(builder.srcdir).glob(f"auto_examples/*/images/{name}"), None)) is None:
        return None
    target = Path(builder.outdir, builder.imagedir, name)
    if not target.is_file() or target.stat().st_mtime < source.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return source


def add_translator(app) -> None:
    """Put :class:`PhoneTranslator` in front of the builder's HTML translator (the theme's)."""
    if app.builder.format == "html":
        base = app.builder.get_translator_class()
        mixed = type(f"Phone{base.__name__}", (PhoneTranslator, base), {})
        app.set_translator(app.builder.name, mixed, override=True)
        app.add_node(imgsgnode, override=True, html=(visit_gallery_image, depart_imgsg_html))


WORD_SUBSCRIPT = re.compile(r"_\{([A-Za-z]{3,})\}")
TEX_TEXT = [(re.compile(pattern), text) for pattern, text in (
    (r"\\sqrt\{([^{}]*)\}", r"√\1"), (r"\\text\{([^{}]*)\}", r"\1"), (r"\\cdot", "·"),
    (r"\\top", "ᵀ"), (r"\\times", "×"), (r"[{}]|\\,|\\!", ""))]  # fmt: skip


def upright_word_subscripts(app, doctree, docname: str) -> None:
    """Set every subscript of three letters or more upright, in every formula of the page."""
    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))):
        upright = WORD_SUBSCRIPT.sub(r"_{\\text{\1}}", node.astext())
        if upright != node.astext():
            node.children = [nodes.Text(upright)]


def plain_text_title(app, pagename, templatename, context, doctree) -> None:
    """The tab title's math as Unicode text: ``\\sqrt{d_k}`` -> ``√d_k``."""
    title = BeautifulSoup(context.get("title") or "", "html.parser")
    for span in title.find_all("span", class_="math"):  # KaTeX's HTML, its TeX annotated
        if tex := span.find("annotation", encoding="application/x-tex"):
            text = tex.get_text()
            for pattern, replacement in TEX_TEXT:
                text = pattern.sub(replacement, text)
            span.replace_with(NavigableString(text.strip()))
            context["title"] = str(title)


def setup(app):
    app.connect("builder-inited", add_translator, priority=900)  # after the theme's (500)
    app.connect("doctree-resolved", upright_word_subscripts)
    app.connect("html-page-context", with_breaks)
    app.connect("html-page-context", plain_text_title)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
