"""Cut the Chinese figures' font to the characters their labels use: ``nox -s fonts``.

The Chinese edition's figures are drawn with Noto Sans CJK SC (SIL Open Font License 1.1,
OFL.txt beside this file). The whole font is 16 MB with every weight of every CJK script; a
figure needs a few hundred characters. This script reads the label tables
(``docs/locale/<language>/LC_MESSAGES/figures.po``), collects every character outside ASCII
that a translated label uses, and writes the regular weight of the Simplified Chinese font
with those characters and printable ASCII only to ``NotoSansCJKsc-Regular-subset.otf`` (about
70 kB), which the docs build registers with matplotlib behind its own fonts.

Run it when a label's translation gains a character: the docs build fails on a label with a
glyph this file lacks, naming the characters. The source is Debian's ``fonts-noto-cjk``
(``apt-get install fonts-noto-cjk``), or any NotoSansCJK-Regular.ttc given with ``--source``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.pofile import read_po
from fontTools import subset
from fontTools.ttLib import TTCollection

HERE = Path(__file__).resolve().parent
LOCALE = HERE.parent / "locale"
TARGET = HERE / "NotoSansCJKsc-Regular-subset.otf"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
FAMILY = "Noto Sans CJK SC"


def label_characters(locale: Path = LOCALE) -> set[str]:
    """The printable ASCII characters, and every other character of the translated figure
    labels of every language (the words around math in a label are drawn with this font
    alone, Latin letters too)."""
    characters: set[str] = {chr(c) for c in range(0x20, 0x7F)}
    for table in sorted(locale.glob("*/LC_MESSAGES/figures.po")):
        with table.open("rb") as f:
            for message in read_po(f):
                if message.id and isinstance(message.string, str):
                    characters |= set(message.string) - {"\n"}
    return characters


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
        sys.stderr.write(f"{FAMILY} has no glyph for {''.join(missing)!r}\n")
        return 1
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
