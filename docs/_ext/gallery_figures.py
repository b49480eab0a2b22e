"""The gallery's figures: sphinx-gallery's matplotlib scraper, each PNG with the words drawn in
it; each figure checked for glyphs its font lacks, laid out again for a phone (``_phone``, 1x and
2x, which ``page_rules`` serves) and, but its first copy, saved in 256 colours. Importing this
registers the Chinese font (sphinx-gallery's workers import it to unpickle the scraper)."""

from __future__ import annotations

import functools
from pathlib import Path

import matplotlib
from PIL import Image, ImageChops
from PIL.PngImagePlugin import PngInfo
from site_figures import PHONE, RETINA, lacking_glyphs, register_font, relayout_for_phone, variant

register_font()


class MissingGlyphs(Exception):
    """A figure with characters that its fonts lack: each would be drawn as a box."""


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery's matplotlib scraper; then glyphs checked, phone copies saved if relaid."""
    import matplotlib.pyplot as plt
    from sphinx_gallery.scrapers import matplotlib_scraper

    figures = [plt.figure(number) for number in plt.get_fignums()]
    for fig in figures:  # the words drawn, in each PNG (tests_site/test_built_files.py)
        words = " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible())
        fig.savefig = functools.partial(fig.savefig, metadata={"Description": words})
    paths = block_vars["image_path_iterator"]  # each path it hands out, kept in .paths
    handed_out = len(paths)
    rst = matplotlib_scraper(block, block_vars, gallery_conf)
    for fig, path in zip(figures, map(Path, paths.paths[handed_out:]), strict=True):
        if lacking := lacking_glyphs(fig):
            raise MissingGlyphs(
                f"expected every character of {path.name} in its fonts, got none for {lacking}: "
                "run `nox -s fonts` to cut the Chinese font again with them"
            )
        dpi = fig.dpi if (dpi := matplotlib.rcParams["savefig.dpi"]) == "figure" else dpi
        phone = [(variant(path, PHONE), dpi), (variant(variant(path, RETINA), PHONE), 2 * dpi)]
        relaid = relayout_for_phone(fig)
        for target, resolution in phone:
            if relaid:
                fig.savefig(target, dpi=resolution, facecolor=fig.get_facecolor())
                fewer_colours(target)
            else:
                target.unlink(missing_ok=True)
        fewer_colours(variant(path, RETINA))  # sphinx-gallery's 2x (image_srcset)
    return rst


def fewer_colours(path: Path) -> None:
    """``path`` in 256 colours if no pixel moves by more than 3 in 255: a third of the bytes."""
    with Image.open(path) as drawn:  # its transparency too: a moved alpha keeps the file
        few = drawn.convert("RGB").quantize(256, Image.MAXCOVERAGE, dither=Image.NONE)
        moved = ImageChops.difference(drawn.convert("RGBA"), few.convert("RGBA")).getextrema()
        words = PngInfo()  # the words drawn (the scraper's Description) kept
        words.add_itxt("Description", drawn.text.get("Description", ""))
    if max(high for _, high in moved) <= 3:
        few.save(path, optimize=True, pnginfo=words)


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}
