"""Cut the Chinese figures' font to the characters they can draw: ``nox -s fonts``.

The Chinese edition's figures are drawn by the Chinese examples, whose font list
(``site_figures.CJK_FONTS``) finds Noto Sans CJK SC in the build (SIL Open Font License 1.1,
OFL.txt beside this file). The whole font is 16 MB with every weight of every CJK script; the
figures need a few hundred characters. This script collects every character of the strings in
the Chinese code (the ``msgctxt "string"`` entries of ``docs/locale/<language>/LC_MESSAGES/
auto_examples``, which hold the figures' labels, and the gallery's own strings) and in the benchmark's charts' labels
(``benchmarks/locale/<language>/LC_MESSAGES/bench.po``), and writes the regular weight of the Simplified Chinese font with those, the
printable ASCII and matplotlib's minus sign only, to ``NotoSansCJKsc-Regular-subset.otf``.

Run it when a label gains a character: the docs build fails on a figure with a character its
font lacks, naming it. The source is Debian's ``fonts-noto-cjk`` (``apt-get install
fonts-noto-cjk``), or any NotoSansCJK-Regular.ttc given with ``--source``.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from babel.messages.pofile import read_po
from fontTools import subset
from fontTools.ttLib import TTCollection

HERE = Path(__file__).resolve().parent
LOCALE = HERE.parent / "locale"
BENCH = HERE.parents[1] / "benchmarks" / "locale"  # the charts' labels: bench.po
TARGET = HERE / "NotoSansCJKsc-Regular-subset.otf"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Noto Sans CJK SC"


def label_characters(locale: Path = LOCALE) -> set[str]:
    """Printable ASCII, the minus sign of matplotlib's ticks, and every character of the
    strings of the translated code and of the benchmark's charts."""
    characters: set[str] = {chr(c) for c in range(0x20, 0x7F)} | {"\u2212"}
    for catalog in sorted(locale.glob("*/LC_MESSAGES/auto_examples/**/*.po")):
        with catalog.open("rb") as f:
            characters |= {c for m in read_po(f) if m.context == "string" for c in m.string}
    for script in sorted(HERE.parents[1].glob("gallery/**/plot_*.py")):  # data in Chinese too
        tree = ast.parse(script.read_text(encoding="utf-8"))
        characters |= {
            c for n in ast.walk(tree) if isinstance(n, ast.Constant) for c in str(n.value)
        }
    for catalog in sorted(BENCH.glob("*/LC_MESSAGES/bench.po")):
        with catalog.open("rb") as f:
            characters |= {c for message in read_po(f) if message.id for c in message.string}
    return characters - {"\n"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="NotoSansCJK-Regular.ttc")
    args = parser.parse_args(argv)
    if not args.source.is_file():
        sys.stderr.write(
            f"expected the font collection at {args.source}, got no such file: "
            "apt-get install fonts-noto-cjk, or give --source\n"
        )
        return 1
    fonts = [f for f in TTCollection(str(args.source)).fonts if FAMILY in _names(f)]
    if not fonts:
        sys.stderr.write(f"expected a font named {FAMILY!r} in {args.source}, found none\n")
        return 1
    font, characters = fonts[0], label_characters()
    missing = sorted(c for c in characters if ord(c) not in font.getBestCmap())
    if missing:
        print(f"{FAMILY} has no glyph for {''.join(missing)!r}: the figures draw none of them")
    options = subset.Options()
    options.name_languages = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in characters))
    subsetter.subset(font)
    font.save(str(TARGET))
    print(f"{TARGET.name}: {len(characters)} characters, {TARGET.stat().st_size:,} bytes")
    return 0


def _names(font) -> set[str]:
    return {record.toUnicode() for record in font["name"].names if record.nameID in (1, 16)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
