"""The gallery's figures in each edition's language and, on a phone, laid out for a phone.

The drawing is :mod:`site_figures`'; this extension hooks it into the build:

* :func:`scraper` is the gallery's image scraper: sphinx-gallery's own, then each figure laid
  out for a phone (``<name>_phone.png``) and, in a translated edition, again in its language
  (``<name>.zh_CN.png``, ``<name>_phone.zh_CN.png``), each also at 2x. Every edition records
  in ``<name>.labels.json`` the labels each language's translation uses and its alt text.
* :func:`serve_translations` points sphinx-gallery's image nodes, which Sphinx's
  ``figure_language_filename`` does not substitute, at the page's language, with the alt text
  recorded when they were drawn; :func:`translate_thumbnails` makes each thumbnail in the
  edition's language from the same image in that language.
* ``page_rules`` serves the phone versions to phones.

A page where a figure should have been served and was not gets a warning
(:func:`unmatched`), which the strict build turns into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import matplotlib
from site_figures import (
    PHONE,
    RETINA,
    language_path,
    languages,
    relayout_for_phone,
    save,
    save_languages,
    variant,
)
from sphinx.util import logging
from sphinx_gallery.directives import imgsgnode
from sphinx_gallery.py_source_parser import extract_file_config


class _Recorder:
    """Passes sphinx-gallery's image paths through, keeping the ones handed out."""

    def __init__(self, paths):
        self._paths = paths
        self.used = []

    def __iter__(self):
        for path in self._paths:
            self.used.append(Path(path))
            yield path


def _dpi(fig) -> float:
    dpi = matplotlib.rcParams["savefig.dpi"]
    return fig.dpi if dpi == "figure" else dpi


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery's matplotlib scraper, then each figure again: laid out for a phone and,
    in a translated edition (``MHA_LANG``, which the build sets), in its language
    (:mod:`site_figures`)."""
    import matplotlib.pyplot as plt
    from sphinx_gallery.scrapers import matplotlib_scraper

    # the edition's own figures only: an edition serves no other language's copy
    edition = {os.environ["MHA_LANG"]} if "MHA_LANG" in os.environ else None
    figures = [plt.figure(number) for number in plt.get_fignums()]
    recorder = _Recorder(block_vars["image_path_iterator"])
    rst = matplotlib_scraper(block, {**block_vars, "image_path_iterator": recorder}, gallery_conf)
    for fig, path in zip(figures, recorder.used, strict=True):
        files = [(path, dpi := _dpi(fig)), (variant(path, RETINA), 2 * dpi)]
        one, two = (variant(p, PHONE) for p, _ in files)
        # the figure in the edition's language (every language recorded), before its
        # layout changes
        labels = path.with_name(f"{path.stem}.labels.json")
        save_languages(fig, files, labels, relayout=relayout_for_phone, saved=edition)
        if not relayout_for_phone(fig):
            one.unlink(missing_ok=True)
            two.unlink(missing_ok=True)
            continue
        save(fig, one, dpi)
        save(fig, two, 2 * dpi)
    return rst


def _language_uri(uri: str, srcdir: Path, language: str) -> str | None:
    """The language's version of an image given by its source path, if it exists."""
    relative = uri.lstrip("/")
    translated = language_path(Path(relative), language)
    if not (srcdir / translated).is_file():
        return None
    return ("/" if uri.startswith("/") else "") + translated.as_posix()


def serve_translations(app, doctree, docname: str) -> None:
    """Point the page's gallery figures (sphinx-gallery's image nodes) at their versions in
    the page's language, with the alt text recorded when they were drawn."""
    language = app.config.language or "en"
    if language not in languages():
        return
    srcdir = Path(app.srcdir)
    for node in doctree.findall(imgsgnode):
        uri = node["uri"]
        translated = _language_uri(uri, srcdir, language)
        if translated is None:
            unmatched("figures in the page's language", docname, f"{uri} in {language}")
            continue
        node["uri"] = translated
        if node.get("srcset"):
            entries = []
            for entry in node["srcset"].split(","):
                path, *density = entry.split()
                entries.append(" ".join([_language_uri(path, srcdir, language) or path, *density]))
            node["srcset"] = ", ".join(entries)
        record = srcdir / Path(uri.lstrip("/")).with_suffix(".labels.json")
        with contextlib.suppress(FileNotFoundError, KeyError, ValueError):
            node["alt"] = json.loads(record.read_text(encoding="utf-8"))["alt"][language]


def _thumbnail_source(script: Path, images: Path, srcdir: Path) -> Path | None:
    """The English image that sphinx-gallery made the example's thumbnail from, chosen as it
    chooses: its figure ``sphinx_gallery_thumbnail_number``, else its
    ``sphinx_gallery_thumbnail_path``, else its first figure; ``None`` for no figure."""
    text = script.read_text(encoding="utf-8") if script.is_file() else ""
    found = extract_file_config(text)
    number, path = found.get("thumbnail_number"), found.get("thumbnail_path")
    if number is None and path is not None:
        return srcdir / path
    number = 1 if number is None else number
    figures = sorted(images.glob(f"sphx_glr_{script.stem}_[0-9][0-9][0-9].png"))
    return figures[number - 1 if number > 0 else number] if figures else None


def translate_thumbnails(app) -> None:
    """Make each gallery thumbnail in the edition's language (``<thumbnail>.zh_CN.png``), from
    the same image in that language, after sphinx-gallery has made the English ones. The
    pages then show them through ``figure_language_filename``."""
    from sphinx_gallery.utils import scale_image

    language = app.config.language or "en"
    if language not in languages():  # the English thumbnails are sphinx-gallery's own
        return
    srcdir = Path(app.srcdir)
    gallery_conf = getattr(app.config, "sphinx_gallery_conf", None) or {}
    width, height = gallery_conf.get("thumbnail_size", (400, 280))
    for thumb in sorted(srcdir.glob("auto_examples/*/images/thumb/sphx_glr_*_thumb.png")):
        stem = thumb.name.removeprefix("sphx_glr_").removesuffix("_thumb.png")
        images = thumb.parent.parent
        source = _thumbnail_source(images.parent / f"{stem}.py", images, srcdir)
        docname = f"{images.parent.relative_to(srcdir).as_posix()}/{stem}"
        translated = None if source is None else language_path(source, language)
        target = language_path(thumb, language)
        if translated is None or not translated.is_file():
            what = "a thumbnail source" if translated is None else translated.name
            unmatched("figures in the page's language", docname, what)
            continue
        if not target.is_file() or target.stat().st_mtime < translated.stat().st_mtime:
            scale_image(translated, target, width, height)


def unmatched(rule: str, docname: str, expected: str) -> None:
    logging.getLogger(__name__).warning("%s: expected %s", rule, expected, location=docname)


def setup(app):
    app.setup_extension("page_rules")
    app.connect("doctree-resolved", serve_translations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
