"""Cut the theme's icon fonts to the icons the site can show: ``nox -s fonts``.

pydata-sphinx-theme draws its icons with Font Awesome's fa-solid-900.woff2 and fa-brands-400.woff2
(SIL Open Font License 1.1): 220 KiB on every page for about twenty icons. This keeps the icons
that the theme's templates and code and docs/conf.py name (``fa-sun``, ``fa-github``, ...) and
those the theme's stylesheet draws (``--pst-icon-*``: admonitions, breadcrumbs), and writes both
fonts to docs/_static/vendor/fontawesome/webfonts/, which the build copies over the theme's. Run
it when the theme changes: the browser checks fail on a page with an icon the fonts lack."""

from __future__ import annotations

import re
from pathlib import Path

import pydata_sphinx_theme
from fontTools import subset
from fontTools.ttLib import TTFont

THEME = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
DOCS = Path(__file__).resolve().parents[1]
WEBFONTS = Path("static", "vendor", "fontawesome", "webfonts")  # in the theme; in the site
FONTS = ("fa-solid-900.woff2", "fa-brands-400.woff2")
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
# ".fa-magnifying-glass,.fa-search{--fa:"\f002"}": an icon's classes and its code point
ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+,?)+)\{--fa:"\\([0-9a-f]+)"')
THEME_ICON = re.compile(r'--pst-[a-z-]+:"([\ue000-\uf8ff])"')  # Font Awesome's private-use area


def icon_code_points(css: str, names: set[str]) -> set[int]:
    """The code points of the icons ``names`` (``fa-sun``, ...) and of the theme's own."""
    found = {ord(character) for character in THEME_ICON.findall(css)}
    for classes, code in ICON_RULE.findall(css):
        if names & set(classes.replace(".", "").split(",")):
            found.add(int(code, 16))
    return found


def main() -> None:
    css = (THEME / "static" / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    sources = [*THEME.rglob("*.html"), *THEME.parents[1].glob("*.py"), DOCS / "conf.py"]
    names = {name for path in sources for name in ICON_CLASS.findall(path.read_text("utf-8"))}
    code_points = icon_code_points(css, names)
    target = DOCS / "_static" / WEBFONTS.relative_to("static")
    target.mkdir(parents=True, exist_ok=True)
    for name in FONTS:
        font = TTFont(THEME / WEBFONTS / name)
        options = subset.Options(flavor="woff2", notdef_outline=True, ignore_missing_unicodes=True)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(code_points))
        subsetter.subset(font)
        font.save(str(target / name))
        print(f"{name}: {len(font.getBestCmap())} icons, {(target / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
