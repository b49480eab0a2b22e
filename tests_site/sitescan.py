"""Find every resource a built page would fetch from another host.

The site must work with no network: every script, stylesheet, font, icon, image and frame is
served from the site itself. Plain ``<a href>`` links to other sites are allowed (the reader
chooses to follow them); anything the browser loads on its own is not.

``python tests_site/sitescan.py docs/_build/html`` prints the findings and exits 1 if any.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

# A URL is external when it names a scheme with a host, or is protocol-relative ("//host/...").
_EXTERNAL = re.compile(r"^\s*(?:(?:https?|ftp|wss?):)?//", re.IGNORECASE)
# url(...) and @import in CSS (in .css files, <style> blocks and style="" attributes).
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]*)\1\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"""@import\s+(['"])([^'"]+)\1""", re.IGNORECASE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# Hosts that serve libraries and fonts: a script naming one of them is very likely to fetch from it.
# The pattern starts with a literal "//" so that scanning megabytes of vendored code stays fast;
# scripts are lower-cased before matching.
_JS_FETCH = re.compile(
    r"//(?:cdn[\w.-]*|fonts\.googleapis\.com|fonts\.gstatic\.com|unpkg\.com"
    r"|ajax\.googleapis\.com|code\.jquery\.com|use\.fontawesome\.com|kit\.fontawesome\.com)"
)
# Known URLs inside vendored libraries that are never fetched while a page loads. Each entry is
# (file name pattern, text around the URL, why it is dormant); the browser tests confirm that no
# request leaves the site on any page.
JS_DORMANT = [
    (
        re.compile(r"(^|/)mathjax/"),
        re.compile(
            r"(mathmapsiepath|\.url)=\"https://cdn\.jsdelivr\.net/npm/"
            r"(sre-mathmaps-ie|speech-rule-engine)@"
        ),
        "MathJax speech-rule-engine maps: fetched only if the reader turns speech on in the menu",
    ),
    (
        re.compile(r"(^|/)mathjax/"),
        re.compile(r"wgxpath=\"https://cdn\.jsdelivr\.net/npm/wicked-good-xpath@"),
        "XPath polyfill: loaded only by browsers without document.evaluate",
    ),
]
# Whole files that only resolve a CDN address; harmless while no page loads them.
JS_UNUSED_LOADERS = [
    (re.compile(r"(^|/)mathjax/latest\.js$"), "MathJax's CDN version resolver"),
]

# <link rel=...> values that make the browser fetch the target.
_FETCHING_RELS = {
    "stylesheet",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "mask-icon",
    "manifest",
    "preload",
    "modulepreload",
    "prefetch",
    "prerender",
    "preconnect",
    "dns-prefetch",
}
# Tag -> attributes holding a URL the browser fetches by itself.
_FETCHING_ATTRS = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "input": ("src",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
}


@dataclass(frozen=True)
class Finding:
    """One external resource: the file, what refers to it, and the URL."""

    path: str
    what: str
    url: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what} -> {self.url}"


def is_external(url: str) -> bool:
    """Return True if the browser would fetch ``url`` from another host."""
    return bool(_EXTERNAL.match(url))


def _srcset_urls(value: str) -> list[str]:
    return [part.split()[0] for part in value.split(",") if part.strip()]


def scan_css(text: str, path: str = "<css>") -> list[Finding]:
    """Return every external ``url(...)`` or ``@import`` in CSS text."""
    text = _CSS_COMMENT.sub("", text)
    found = [Finding(path, "css url()", m.group(2)) for m in _CSS_URL.finditer(text)]
    found += [Finding(path, "css @import", m.group(2)) for m in _CSS_IMPORT.finditer(text)]
    return [f for f in found if is_external(f.url)]


def scan_js(text: str, path: str = "<js>") -> list[Finding]:
    """Return every CDN or web-font host named in a script, minus known dormant ones."""
    found = []
    text = text.lower()
    for match in _JS_FETCH.finditer(text):
        context = text[max(0, match.start() - 40) : match.end() + 40]
        dormant = any(
            name.search(path) and around.search(context) for name, around, _ in JS_DORMANT
        )
        if not dormant:
            found.append(Finding(path, "script names a CDN host", context.strip()))
    return found


class _PageScanner(HTMLParser):
    """Collect external fetches from one HTML page."""

    def __init__(self, path: str) -> None:
        super().__init__(convert_charrefs=True)
        self.path = path
        self.findings: list[Finding] = []
        self.scripts: list[str] = []  # local script URLs, relative to the page
        self._in = ""  # "script" or "style" while inside an inline one
        self._buffer: list[str] = []

    def _add(self, what: str, url: str) -> None:
        if is_external(url):
            self.findings.append(Finding(self.path, what, url.strip()))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name in _FETCHING_ATTRS.get(tag, ()):
            if name not in values:
                continue
            urls = _srcset_urls(values[name]) if name == "srcset" else [values[name]]
            for url in urls:
                self._add(f"<{tag} {name}>", url)
        if tag == "script" and values.get("src") and not is_external(values["src"]):
            self.scripts.append(values["src"])
        if tag == "link" and set(values.get("rel", "").lower().split()) & _FETCHING_RELS:
            self._add(f"<link rel={values.get('rel')}>", values.get("href", ""))
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            target = (
                values.get("content", "").partition("url=")[2]
                or values.get("content", "").partition("URL=")[2]
            )
            self._add("<meta refresh>", target.strip("'\" "))
        if "style" in values:
            for finding in scan_css(values["style"], self.path):
                self.findings.append(Finding(self.path, f"<{tag} style>", finding.url))
        if tag in ("script", "style") and "src" not in values:
            self._in = tag
            self._buffer = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in ("script", "style"):
            self._in = ""

    def handle_data(self, data: str) -> None:
        if self._in:
            self._buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag != self._in:
            return
        text = "".join(self._buffer)
        if tag == "style":
            self.findings += [Finding(self.path, "<style>", f.url) for f in scan_css(text)]
        else:
            self.findings += [
                Finding(self.path, "inline <script>", f.url) for f in scan_js(text, self.path)
            ]
        self._in = ""


def scan_html(text: str, path: str = "<html>") -> tuple[list[Finding], list[str]]:
    """Return (external fetches, local script URLs) of one HTML page."""
    scanner = _PageScanner(path)
    scanner.feed(text)
    scanner.close()
    return scanner.findings, scanner.scripts


def html_pages(root: Path) -> list[Path]:
    """Every page of a built site: ``.html`` files outside ``_static``-like folders."""
    return sorted(
        p
        for p in root.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(root).parts[:-1])
    )


def scan_static(root: Path, loaded: set[Path] = frozenset()) -> list[Finding]:
    """Scan every stylesheet and script of a built site.

    What a browser visit cannot see for itself: a stylesheet's rules for another theme, for
    print or for a state the visit never reaches, a font for characters the page does not use,
    a script that fetches when the reader does something. A CDN loader (JS_UNUSED_LOADERS)
    counts only where a page loads it (``loaded``: the scripts' files).
    """
    root = Path(root)
    findings: list[Finding] = []
    for css in sorted(root.rglob("*.css")):
        findings += scan_css(css.read_text(encoding="utf-8", errors="replace"), _rel(css, root))
    for js in sorted(root.rglob("*.js")):
        rel = _rel(js, root)
        unused_loader = any(pattern.search(rel) for pattern, _ in JS_UNUSED_LOADERS)
        if unused_loader and js.resolve() not in loaded:
            continue
        if unused_loader:
            findings.append(Finding(rel, "a page loads a CDN loader", rel))
            continue
        findings += scan_js(js.read_text(encoding="utf-8", errors="replace"), rel)
    return findings


def scan_site(root: Path) -> list[Finding]:
    """Scan every page, every CSS file and every script of a built site."""
    root = Path(root)
    findings: list[Finding] = []
    loaded: set[Path] = set()
    for page in html_pages(root):
        rel = page.relative_to(root).as_posix()
        page_findings, scripts = scan_html(page.read_text(encoding="utf-8"), rel)
        findings += page_findings
        for src in scripts:
            target = (page.parent / src.split("?")[0].split("#")[0]).resolve()
            loaded.add(target)
    return findings + scan_static(root, loaded)


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "docs/_build/html")
    if not (root / "index.html").is_file() and not any(root.glob("*/index.html")):
        sys.stderr.write(f"no built site in {root}: run nox -s docs first\n")
        return 2
    findings = scan_site(root)
    for finding in findings:
        sys.stdout.write(f"{finding}\n")
    sys.stdout.write(f"{len(html_pages(root))} pages scanned, {len(findings)} external fetches\n")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
