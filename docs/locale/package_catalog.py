"""The package's and the benchmark's message catalogs: extract, update, compile.

    python docs/locale/package_catalog.py          # check: exit 1 when a catalog is stale
    python docs/locale/package_catalog.py update   # bring the catalogs up to date

Two gettext domains, each with its own catalogs (``<locale>/<language>/LC_MESSAGES/``):

* ``mha``, the package's learner-facing messages: the English in ``src/mha`` (``_()``,
  ``N_()``, ``pgettext()``), the translations in ``src/mha/locale``, shipped in the wheel;
* ``bench``, the labels of the Performance page's charts: the English in
  ``benchmarks/bench.py`` (``tr()``, ``N_()``), the translations in ``benchmarks/locale``.

For each ``.po`` of a domain: (a) the message ids are extracted from the sources (Babel's
Python extractor, ``# TRANSLATORS:`` comments included) into a template; (b) the ``.po`` is
updated from it: a new message is added untranslated, a changed one is kept fuzzy with its
old translation, a removed one is dropped; (c) the ``.mo`` beside it is compiled from it (fuzzy
entries left out). Without ``update`` nothing is written, and the exit status is 1 when the
update would change a ``.po`` or ``.mo``, or when an entry is untranslated or fuzzy: the
catalogs must be translated and compiled before they are committed. The tests read the
compiled catalogs with the standard library only (tests/test_messages.py).

A new language: create ``<locale>/<language>/LC_MESSAGES/<domain>.po`` (an empty file is
enough), run ``update``, translate, run ``update`` again.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
COMMENT_TAGS = ("TRANSLATORS:",)


@dataclass(frozen=True)
class Domain:
    name: str
    sources: Path  # the folder whose Python files hold the English
    files: tuple[str, ...]  # glob patterns of the sources, relative to ``sources``
    locale: Path
    keywords: dict
    project: str


DOMAINS = (
    Domain(
        "mha",
        ROOT / "src" / "mha",
        ("**.py",),
        ROOT / "src" / "mha" / "locale",
        {"_": None, "N_": None, "pgettext": ((1, "c"), 2)},
        "mha",
    ),
    Domain(
        "bench",
        ROOT / "benchmarks",
        ("bench.py",),
        ROOT / "benchmarks" / "locale",
        {"tr": None, "N_": None},
        "mha benchmarks",
    ),
)


def template(domain: Domain) -> Catalog:
    """The messages of ``domain``'s sources, in the order they appear, without locations (a
    moved line does not change the catalogs)."""
    catalog = Catalog(project=domain.project, domain=domain.name)
    method_map = [(pattern, "python") for pattern in domain.files]
    found = extract_from_dir(
        domain.sources,
        method_map,
        keywords=domain.keywords,
        comment_tags=COMMENT_TAGS,
        strip_comment_tags=True,
    )
    for _filename, _lineno, message, comments, context in found:
        catalog.add(message, None, auto_comments=comments, context=context)
    return catalog


def updated(domain: Domain, po: Path) -> tuple[str, bytes, Catalog]:
    """The ``.po`` text and the ``.mo`` bytes that ``po`` should have now, and its catalog."""
    language = po.parents[1].name
    text = po.read_text(encoding="utf-8") if po.is_file() else ""
    if text.strip():
        catalog = read_po(io.StringIO(text), locale=language, domain=domain.name)
    else:
        catalog = Catalog(locale=language, domain=domain.name, project=domain.project)
    pot = template(domain)
    pot.creation_date = catalog.creation_date  # a date changes nothing
    catalog.update(pot, update_header_comment=False)
    catalog.obsolete.clear()  # a message the sources no longer have is dropped
    out = io.BytesIO()
    write_po(out, catalog, width=100, no_location=True, include_previous=True, sort_output=False)
    mo = io.BytesIO()
    write_mo(mo, catalog, use_fuzzy=False)
    return out.getvalue().decode("utf-8"), mo.getvalue(), catalog


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", choices=("check", "update"), default="check")
    args = parser.parse_args(argv)
    problems = []
    for domain in DOMAINS:
        for po in sorted(domain.locale.glob(f"*/LC_MESSAGES/{domain.name}.po")):
            mo = po.with_suffix(".mo")
            text, compiled, catalog = updated(domain, po)
            name = po.relative_to(ROOT)
            stale = [
                path.relative_to(ROOT)
                for path, new in ((po, text.encode("utf-8")), (mo, compiled))
                if not path.is_file() or path.read_bytes() != new
            ]
            if args.mode == "update":
                po.write_text(text, encoding="utf-8")
                mo.write_bytes(compiled)
                for path in stale:
                    print(f"updated {path}")
            else:
                problems += [f"{path} is stale" for path in stale]
            for message in list(catalog)[1:]:  # [0]: the header
                if not message.string or message.fuzzy:
                    state = "fuzzy" if message.fuzzy else "untranslated"
                    context = f" (msgctxt {message.context!r})" if message.context else ""
                    problems.append(f"{name}: {state}: {message.id!r}{context}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems and args.mode == "check":
        print("run: python docs/locale/package_catalog.py update, then translate", file=sys.stderr)
    return 1 if problems and args.mode == "check" else 0


if __name__ == "__main__":
    raise SystemExit(main())
