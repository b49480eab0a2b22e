"""The built site loads nothing from other hosts: the scanner (sitescan.py), and the built
site's stylesheets and scripts.

Every page's visit in test_pages.py fails on any request to another host (the Watch of
conftest.py) and scans that page's HTML for what the visit may not request (another screen's
``srcset`` candidate, a link hint). What no visit shows is scanned here: a stylesheet's rules
for another theme, for print or a state the visit never reaches, a font for characters the page
does not use, a script that fetches when the reader does something.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sitescan import is_external, scan_css, scan_html, scan_js, scan_site, scan_static

PAGE = """<!DOCTYPE html>
<html><head>
<link rel="stylesheet" href="_static/theme.css">
<link rel="next" href="https://example.org/next.html">
{head}
</head><body>
<p>Read <a href="https://pytorch.org/docs/stable/nn.html">the PyTorch docs</a>.</p>
{body}
</body></html>
"""


def write_site(root: Path, head: str = "", body: str = "", css: str = "", js: str = "") -> Path:
    (root / "_static").mkdir(parents=True)
    (root / "index.html").write_text(PAGE.format(head=head, body=body), encoding="utf-8")
    (root / "_static" / "theme.css").write_text(css or "body { color: black; }", encoding="utf-8")
    (root / "_static" / "app.js").write_text(js or "console.log('local');", encoding="utf-8")
    return root


def urls(findings) -> list[str]:
    return [f.url for f in findings]


@pytest.mark.parametrize(
    ("url", "external"),
    [
        ("https://cdn.example.com/x.js", True),
        ("http://example.com/x.png", True),
        ("//cdnjs.example.com/x.css", True),
        ("  HTTPS://example.com/a", True),
        ("_static/x.js", False),
        ("../_images/fig.png", False),
        ("/favicon.ico", False),
        ("data:image/png;base64,AAAA", False),
        ("#top", False),
    ],
)
def test_is_external(url: str, external: bool) -> None:
    assert is_external(url) is external


def test_clean_synthetic_site_passes(tmp_path: Path) -> None:
    root = write_site(tmp_path, head='<script src="_static/app.js"></script>')
    assert scan_site(root) == []


@pytest.mark.parametrize(
    ("head", "body", "url"),
    [
        (
            '<script src="https://cdn.example.com/lib.js"></script>',
            "",
            "https://cdn.example.com/lib.js",
        ),
        (
            '<script defer src="//cdnjs.example.com/lib.js"></script>',
            "",
            "//cdnjs.example.com/lib.js",
        ),
        (
            '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=X">',
            "",
            "https://fonts.googleapis.com/css?family=X",
        ),
        (
            '<link rel="icon" href="https://example.com/favicon.ico">',
            "",
            "https://example.com/favicon.ico",
        ),
        (
            '<link rel="preload" as="font" href="https://example.com/f.woff2">',
            "",
            "https://example.com/f.woff2",
        ),
        ("", '<img src="https://example.com/fig.png" alt="">', "https://example.com/fig.png"),
        (
            "",
            '<img srcset="a.png 1x, https://example.com/b.png 2x" alt="">',
            "https://example.com/b.png",
        ),
        ("", '<iframe src="https://example.com/embed"></iframe>', "https://example.com/embed"),
        (
            "",
            '<video><source src="https://example.com/v.mp4"></video>',
            "https://example.com/v.mp4",
        ),
        ("", '<video poster="https://example.com/p.png"></video>', "https://example.com/p.png"),
        (
            "",
            '<div style="background: url(https://example.com/bg.png)"></div>',
            "https://example.com/bg.png",
        ),
        ("<style>@import 'https://example.com/a.css';</style>", "", "https://example.com/a.css"),
        ('<script>fetch("https://cdn.example.com/data.json")</script>', "", None),
    ],
)
def test_external_resource_in_page_fails(
    tmp_path: Path, head: str, body: str, url: str | None
) -> None:
    findings = scan_site(write_site(tmp_path, head=head, body=body))
    assert findings, "the scanner missed an external resource"
    if url is not None:
        assert url in urls(findings)
    assert all(f.path == "index.html" for f in findings)


def test_links_in_text_are_allowed() -> None:
    findings, scripts = scan_html(
        PAGE.format(head='<script src="_static/app.js"></script>', body="")
    )
    assert findings == []
    assert scripts == ["_static/app.js"]


def test_css_and_scripts_in_static_are_scanned(tmp_path: Path) -> None:
    root = write_site(
        tmp_path,
        css="/* https://example.com in a comment */"
        " @font-face { src: url('https://example.com/f.woff2'); }"
        " .a { background: url(../_images/local.png); }",
        js='const s = document.createElement("script"); s.src = "https://cdn.jsdelivr.net/npm/x";',
    )
    found = {(f.path, f.what) for f in scan_site(root)}
    assert found == {
        ("_static/theme.css", "css url()"),
        ("_static/app.js", "script names a CDN host"),
    }


def test_css_scanner_ignores_local_and_data_urls() -> None:
    css = "a { background: url('x.png') } b { background: url(data:image/png;base64,AA) }"
    assert scan_css(css) == []


def test_js_scanner_knows_dormant_mathjax_urls() -> None:
    dormant = 'SystemExternal.mathmapsIePath="https://cdn.jsdelivr.net/npm/sre-mathmaps-ie@"+v'
    assert scan_js(dormant, "_static/mathjax/tex-chtml.js") == []
    assert scan_js(dormant, "_static/other.js") != []
    assert scan_js('x="https://fonts.googleapis.com/css"', "_static/mathjax/tex-chtml.js") != []


def test_stylesheets_and_scripts_name_no_other_host(site_dir: Path) -> None:
    findings = scan_static(site_dir)
    assert not findings, "stylesheets or scripts fetch from other hosts:\n" + "\n".join(
        map(str, findings)
    )
