"""The fault suite: faults a reader would notice, each made in a copy of the built site or of the
sources, each run against the checks that should catch it (mutation testing for the site).

``nox -s faults`` runs it after ``nox -s docs``. First every check of the table runs on the
site and the sources as they are, and must pass (a check that fails there catches nothing).
Then each fault, in a copy of its own (the site's files linked, a changed file written anew),
runs its checks: it is caught when each check named for it fails, with the words that say why
in its report, and any other check run beside it passes (a 404 is blamed on the page that
asked for it, not on the next one). The table printed at the end gives each fault and the check
that caught it; the run fails unless every fault is caught (100 %).

    python tests_site/faults.py --site docs/_build/html --build-python .nox/mha/bin/python
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pagechecks import element_end  # tests_site/, this script's folder

ROOT = Path(__file__).resolve().parents[1]
SITE_TESTS = ("-c", "tests_site/pytest.ini")
BUILD_TESTS = ("-c", "tests_build/pytest.ini")
FAILED = re.compile(r"^FAILED (\S+)", re.MULTILINE)


# ---------------------------------------------------------------------------------------------
# Changes: each writes a file anew (the copy's files are links to the originals) and fails when
# what it changes is not there, so that a fault the site has outgrown is not counted caught


def write(path: Path, text: str | bytes) -> None:
    path.unlink()
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def sub(root: Path, rel: str, pattern: str, replacement: str | Callable, count: int = 1) -> None:
    """Replace ``pattern`` (a regular expression, DOTALL) in ``root/rel``; it must be found."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    text, found = re.subn(pattern, replacement, text, count=count, flags=re.DOTALL)
    assert found, f"{rel}: {pattern!r} not found"
    write(path, text)


def one(root: Path, pattern: str) -> str:
    """The one file of ``root`` matching the glob ``pattern``, relative to ``root``."""
    found = sorted(root.glob(pattern))
    assert len(found) == 1, f"{pattern}: {len(found)} files"
    return found[0].relative_to(root).as_posix()


def delete(root: Path, *patterns: str) -> None:
    for pattern in patterns:
        (root / one(root, pattern)).unlink()


def drop_element(root: Path, rel: str, opening: str, tag: str = "div", put: str = "") -> None:
    """Replace the element that starts with ``opening`` and everything inside it by ``put``."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    start = text.index(opening)
    write(path, text[:start] + put + text[element_end(text, start, tag) :])


def change_in_zip(root: Path, rel: str, member: str, old: str, new: str) -> None:
    """One file of a zip download changed (the others as they were)."""
    path = root / rel
    with zipfile.ZipFile(path) as zipped:
        files = {name: zipped.read(name) for name in zipped.namelist()}
    files[member] = files[member].decode("utf-8").replace(old, new, 1).encode("utf-8")
    path.unlink()
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data in files.items():
            zipped.writestr(name, data)


def search_index(root: Path, folder: str) -> tuple[Path, dict]:
    """The edition's searchindex.js, and the index it sets."""
    path = root / folder / "searchindex.js"
    text = path.read_text(encoding="utf-8")
    return path, json.loads(text[text.index("(") + 1 : text.rindex(")")])


def section_misfiled(root: Path, folder: str, document: str) -> None:
    """The first section title of ``document`` filed under an anchor its page does not have."""
    path, index = search_index(root, folder)
    at = index["docnames"].index(document)
    places = next(p for p in index["alltitles"].values() if p[0][0] == at and p[0][1])
    places[0][1] += "-gone"
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def chinese_words_from_search(root: Path, document: str) -> None:
    """The Chinese page stays listed and found by its English words, but by no Chinese one."""
    path, index = search_index(root, "zh_CN")
    at = index["docnames"].index(document)
    for word, found in list(index["terms"].items()):
        rest = [n for n in (found if isinstance(found, list) else [found]) if n != at]
        if re.search(r"[\u4e00-\u9fff]", word):
            if rest:
                index["terms"][word] = rest
            else:
                del index["terms"][word]
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def swap(one: Path, other: Path) -> None:
    """The two files' bytes, exchanged."""
    a, b = one.read_bytes(), other.read_bytes()
    write(one, b)
    write(other, a)


def swap_editions(root: Path, *names: str) -> None:
    """The English and the Chinese edition's files of these names, exchanged."""
    for name in names:
        swap(root / "en" / "_images" / name, root / "zh_CN" / "_images" / name)


def drop_from_search(root: Path, folder: str, document: str) -> None:
    """The index written as Sphinx would without the page: the others renumbered."""
    path, index = search_index(root, folder)
    at = index["docnames"].index(document)
    for key in ("docnames", "filenames", "titles"):
        del index[key][at]
    for key in ("terms", "titleterms"):
        for word, found in list(index[key].items()):
            kept = [
                n - (n > at) for n in (found if isinstance(found, list) else [found]) if n != at
            ]
            if kept:
                index[key][word] = kept
            else:
                del index[key][word]
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def words_from_search(root: Path, folder: str, document: str, keep: int = 0) -> None:
    """The page stays listed in the search index, but no word leads to it (or ``keep`` words)."""
    path, index = search_index(root, folder)
    at = index["docnames"].index(document)
    kept = [w for w, found in index["terms"].items() if at in (found if isinstance(found, list) else [found])][:keep]  # fmt: skip
    for key in ("terms", "titleterms"):
        for word, found in list(index[key].items()):
            rest = [n for n in (found if isinstance(found, list) else [found])
                    if n != at or (key == "terms" and word in kept)]  # fmt: skip
            if rest:
                index[key][word] = rest
            else:
                del index[key][word]
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def retitle_in_search(
    root: Path, folder: str, document: str, title: str = "", swap: str = ""
) -> None:
    """The page's entry in the search index given another title, or its place swapped with
    ``swap``'s (names and files, the titles left): each result leads to the other page."""
    path, index = search_index(root, folder)
    at = index["docnames"].index(document)
    if title:
        index["titles"][at] = title
    if swap:
        other = index["docnames"].index(swap)
        for key in ("docnames", "filenames"):
            index[key][at], index[key][other] = index[key][other], index[key][at]
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def retitle_section(root: Path, folder: str, title: str, new: str) -> None:
    """A section's title in the search index (what a result shows as "page > section")."""
    path, index = search_index(root, folder)
    index["alltitles"][new] = index["alltitles"].pop(title)
    write(path, f"Search.setIndex({json.dumps(index, ensure_ascii=False)})")


def change_download(root: Path, folder: str, stem: str, suffixes: tuple[str, ...]) -> None:
    """The same line of code changed in the example's downloads of these suffixes."""
    for suffix in suffixes:
        sub(root, one(root, f"{folder}/_downloads/*/{stem}{suffix}"), r"torch\.manual_seed\(0\)",
            "torch.manual_seed(1)")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The faults


@dataclass(frozen=True)
class Fault:
    """A fault: ``change`` makes it in a copy; the pytest arguments ``run`` run; each node id
    of ``caught_by`` (a prefix) must fail, ``says`` must be in the report, the rest must pass.
    ``where``: "site" (a copy of the built site, the site's checks) or "sources" (a copy of the
    repository, run with the build's environment: the build's and the package's tests)."""

    name: str
    change: Callable[[Path], None]
    run: tuple[str, ...]
    caught_by: tuple[str, ...]
    says: str
    where: str = "site"


PAGES = "tests_site/test_pages.py::test_page"
FILES = "tests_site/test_built_files.py::"
HEATMAPS = "en/auto_examples/05_pictures/plot_01_head_heatmaps.html"
ZH_HEATMAPS = "zh_CN/auto_examples/05_pictures/plot_01_head_heatmaps.html"
FIGURE = "sphx_glr_plot_01_head_heatmaps_001"
ZH_PAGE_2, ZH_PAGE_3 = "zh_CN/tutorial/02_walkthrough.html", "zh_CN/tutorial/03_pytorch_module.html"
LINKS = FILES + "test_links_go_where_they_say"
SEARCH = FILES + "test_every_page_is_in_its_search_index"
CARD_PICTURES = "tests_site/test_browser.py::test_each_chinese_card_shows_its_examples_picture"
SIZES = FILES + "test_each_size_the_tutorial_states_is_in_its_code"
GLOSSARY_KEPT = FILES + "test_chinese_prose_keeps_only_the_english_the_glossary_keeps"
EXECUTED = FILES + "test_each_executed_page_shows_the_code_that_ran_and_what_it_printed"
OUTPUTS = "tests_site/test_reader.py::test_no_traceback_error_or_repr_in_outputs"
ZH_OUTPUTS = "tests_site/test_translated_downloads.py::test_chinese_tutorial_outputs_are_chinese"
ZH_LABELS = "tests_site/test_translated_downloads.py::test_chinese_outputs_show_their_codes_labels"
ZH_MESSAGES = (
    "tests_site/test_translated_downloads.py::"
    "test_chinese_pages_show_the_packages_messages_in_chinese"
)
FIRST_OUTPUT = r'(<div class="cell_output.*?<pre>).*?(</pre>)'


def _page(path: str) -> str:
    return f"{PAGES}[{path}]"


FAULTS = [
    Fault("an English sentence in a paragraph of a Chinese tutorial page",
          lambda r: sub(r, ZH_PAGE_3, r"(<article.*?<p>)", r"\1This sentence was left in English. "),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "This sentence was left in English"),
    Fault("a link to a page that does not exist, in a Chinese page's article",
          lambda r: sub(r, ZH_PAGE_2, r'(<article.*?<a class="reference internal" href=")[^"#]+',
                        r"\1gone.html"),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "gone.html"),
    Fault("a link to a page that does not exist, in a Chinese page's sidebar",
          lambda r: sub(r, ZH_PAGE_2, r'(bd-sidebar-primary.*?<a class="reference internal" '
                                      r'href=")[^"#]+', r"\1away.html"),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "away.html: no such file"),
    Fault("a link to an anchor that does not exist, on a Chinese page",
          lambda r: sub(r, ZH_PAGE_2, r'(<article.*?<a class="reference internal" href="[^"#]+)',
                        r"\1#no-such-section"),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "no id 'no-such-section"),
    Fault("a figure's 2x and phone 2x PNGs deleted",
          lambda r: delete(r, f"en/_images/{FIGURE}_2_00x.png",
                           f"en/_images/{FIGURE}_phone_2_00x.png"),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          f"{FIGURE}_2_00x.png: no such file"),
    Fault("a figure's 2x PNG holding its 1x image (blurred on a high-density screen)",
          lambda r: write(r / f"zh_CN/_images/{FIGURE}_2_00x.png", (r / f"zh_CN/_images/{FIGURE}.png").read_bytes()),
          (FILES + "test_each_2x_image_has_twice_the_pixels",),
          (FILES + "test_each_2x_image_has_twice_the_pixels",), f"{FIGURE}_2_00x.png is"),
    Fault("a Chinese figure laid out larger than drawn (700x350 as 1000x500)",
          lambda r: sub(r, "zh_CN/explanation/what-heads-learn.html", r'width="700" height="350"',
                        'width="1000" height="500"'),
          (FILES + "test_each_figure_is_laid_out_at_its_drawn_size",),
          (FILES + "test_each_figure_is_laid_out_at_its_drawn_size",), "laid out at 1000x500"),
    Fault("a figure's 1x PNG deleted: blamed on its page, not on the next",
          lambda r: delete(r, f"en/_images/{FIGURE}.png"),
          ("-p", "no:xdist", _page(HEATMAPS),
           _page("en/auto_examples/05_pictures/plot_02_shape_flow.html")),
          (_page(HEATMAPS),), "HTTP 404: "),
    Fault("a code cell's output replaced by a Python traceback (Chinese page 3)",
          lambda r: sub(r, ZH_PAGE_3, FIRST_OUTPUT, r"\1Traceback (most recent call last):\n"
                        r'  File "&lt;stdin&gt;", line 1\nRuntimeError: boom\2'),
          (OUTPUTS, ZH_OUTPUTS), (OUTPUTS, ZH_OUTPUTS), "a traceback"),
    Fault("an output that shows an error its code does not catch",
          lambda r: sub(r, "en/tutorial/02_walkthrough.html", FIRST_OUTPUT,
                        r"\1RuntimeError: shape mismatch\2"),
          (OUTPUTS,), (OUTPUTS,), "an error its code does not catch"),
    Fault("an object's repr in an output",
          lambda r: sub(r, "en/tutorial/02_walkthrough.html", FIRST_OUTPUT,
                        r"\1&lt;matplotlib.lines.Line2D object at 0x7f3a&gt;\2"),
          (OUTPUTS,), (OUTPUTS,), "an object's repr"),
    Fault("one English output on a Chinese tutorial page",
          lambda r: sub(r, ZH_PAGE_3, FIRST_OUTPUT, r"\1attention weights (2, 5, 5)\2"),
          (ZH_OUTPUTS,), (ZH_OUTPUTS,), "output blocks"),
    Fault("a gallery example's four PNGs swapped between the editions",
          lambda r: swap_editions(r, *(f"{FIGURE}{v}.png" for v in
                                       ("", "_2_00x", "_phone", "_phone_2_00x"))),
          (FILES + "test_each_figure_shows_its_editions_words",),
          (FILES + "test_each_figure_shows_its_editions_words",), f"zh_CN {FIGURE}"),
    Fault("two Chinese figures of one example swapped, every size",
          lambda r: [swap(r / f"zh_CN/_images/{FIGURE}{v}.png", r / f"zh_CN/_images/{FIGURE[:-1]}3{v}.png")
                     for v in ("", "_2_00x", "_phone", "_phone_2_00x")],
          (FILES + "test_each_figure_shows_its_editions_words",),
          (FILES + "test_each_figure_shows_its_editions_words",), "not its English twin's numbers"),
    Fault("two Chinese cards' thumbnail files holding each other's picture",
          lambda r: swap(r / "zh_CN/_images/sphx_glr_plot_02_kv_cache_thumb.png",
                         r / "zh_CN/_images/sphx_glr_plot_04_cache_memory_thumb.png"),
          (CARD_PICTURES,), (CARD_PICTURES,), "sphx_glr_plot_02_kv_cache_thumb.png looks like"),
    Fault("two figures of a Chinese page shown in each other's place (the page's addresses swapped)",
          lambda r: sub(r, ZH_HEATMAPS, f"{FIGURE}|{FIGURE[:-1]}3",
                        lambda m: f"{FIGURE[:-1]}3" if m[0] == FIGURE else FIGURE, count=0),
          (FILES + "test_the_editions_show_the_same_things",),
          (FILES + "test_the_editions_show_the_same_things",), "figure files"),
    Fault("an English page's phone figure showing the Chinese one",
          lambda r: write(r / "en/_images/sphx_glr_plot_03_what_heads_learn_001_phone.png",
                          (r / "zh_CN/_images/sphx_glr_plot_03_what_heads_learn_001_phone.png").read_bytes()),
          (FILES + "test_each_figure_shows_its_editions_words",),
          (FILES + "test_each_figure_shows_its_editions_words",),
          "what_heads_learn_001_phone.png: an English page's figure shows Chinese"),
    Fault("an API page's example printing what the package does not (a mask's row)",
          lambda r: sub(r, "en/reference/generated/mha.causal_mask.html",
                        r'<span class="go">        \[False, False,  True\],',
                        '<span class="go">        [False,  True,  True],'),
          (FILES + "test_each_api_example_is_the_packages",),
          (FILES + "test_each_api_example_is_the_packages",), "en mha.causal_mask.html"),
    Fault("a number in a Chinese API page's example",
          lambda r: sub(r, "zh_CN/reference/generated/mha.attention_flops.html", r"\(6400, 340480\)",
                        "(6400, 340408)"),
          (FILES + "test_each_api_example_is_the_packages",),
          (FILES + "test_each_api_example_is_the_packages",), "zh_CN mha.attention_flops.html"),
    Fault("one English word in place of a Chinese one, set against the Chinese",
          lambda r: sub(r, "zh_CN/howto/masks.html", "关注的填充词元", "关注的padding词元", count=0),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "glued '的padding'"),
    Fault("one English word between spaces in a Chinese list item",
          lambda r: sub(r, "zh_CN/howto/masks.html", r"(attn_<wbr>mask</span></code>，)形状", r"\1shape "),
          (GLOSSARY_KEPT,), (GLOSSARY_KEPT,), "howto/masks.html: shape"),
    Fault("a Chinese gallery card's tooltip in English",
          lambda r: sub(r, "zh_CN/auto_examples/index.html", r'tooltip="每个头把每个查询[^"]*"',
                        'tooltip="Each head compares every query with every key."'),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "Each head compares every query"),
    Fault("a link in a Chinese article to the English edition's page",
          lambda r: sub(r, "zh_CN/howto/masks.html", r'href="\.\./reference/generated/mha\.causal_mask\.html',
                        'href="../../en/reference/generated/mha.causal_mask.html'),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "another edition's file"),
    Fault("a Chinese page's sidebar entry leading to the English edition",
          lambda r: sub(r, "zh_CN/howto/masks.html", r'(<li class="toctree-l1[^"]*"><a class="reference internal" href=")([^"]+\.html)"',
                        r'\1../../en/howto/\2"'),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "another edition's file"),
    Fault("a section title filed in search under an anchor its page does not have",
          lambda r: section_misfiled(r, "en", "explanation/why-heads"),
          (SEARCH,), (SEARCH,), "search files under no section"),
    Fault("an English fragment inside a Chinese figure's alt text",
          lambda r: sub(r, "zh_CN/explanation/masks.html", "以及逐头的窗口掩码。\"", "以及 per-head window masks。\""),
          (GLOSSARY_KEPT,), (GLOSSARY_KEPT,), "explanation/masks.html: masks, per-head, window"),
    Fault("a one-word English card title on the Chinese landing page",
          lambda r: sub(r, "zh_CN/index.html", r'(sd-card-title sd-font-weight-bold docutils">\s*)教程',
                        r"\1Tutorial"),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "label 'Tutorial'"),
    Fault("pale gallery card titles from the Chinese edition's sphinx-gallery stylesheet",
          lambda r: write(r / "zh_CN/_static/sg_gallery.css", (r / "zh_CN/_static/sg_gallery.css").read_text()
                          + "\n.sphx-glr-thumbcontainer .sphx-glr-thumbnail-title { color: #c5c9cf; }\n"),
          (FILES + "test_colours_come_only_from_the_checked_stylesheets",),
          (FILES + "test_colours_come_only_from_the_checked_stylesheets",),
          "_static/sg_gallery.css: differs between the editions"),
    Fault("pale paragraphs from a page's own <style> (a page outside the sample)",
          lambda r: sub(r, "en/howto/masks.html", "</head>",
                        '<style>html[data-theme="light"] .bd-article p { color: #a9aeb6; }</style>\n</head>'),
          (FILES + "test_colours_come_only_from_the_checked_stylesheets",),
          (FILES + "test_colours_come_only_from_the_checked_stylesheets",), "en/howto/masks.html: <style>"),
    Fault("a page removed from the search index",
          lambda r: drop_from_search(r, "en", "howto/common-errors"),
          (FILES + "test_every_page_is_in_its_search_index",),
          (FILES + "test_every_page_is_in_its_search_index",), "howto/common-errors"),
    Fault("a Chinese page titled in English in its search results",
          lambda r: retitle_in_search(r, "zh_CN", "howto/devices", title="Run on a GPU or CPU"),
          (SEARCH,), (SEARCH,), "howto/devices: indexed as 'Run on a GPU or CPU'"),
    Fault("a Chinese section titled in English in search results",
          lambda r: retitle_section(r, "zh_CN", "计数没有涵盖的部分", "What the count leaves out"),
          (SEARCH,), (SEARCH,), "explanation/cost: 'What the count leaves out'"),
    Fault("two pages swapped in the search index: each result opens the other",
          lambda r: retitle_in_search(r, "en", "explanation/why-scale", swap="explanation/masks"),
          (SEARCH,), (SEARCH,), "search results titled wrongly"),
    Fault("a download's .py and .ipynb both changed, unlike the page's code",
          lambda r: change_download(r, "en", "plot_03_split_heads", (".py", ".ipynb")),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          "plot_03_split_heads.py is not its code"),
    Fault("a Chinese tutorial notebook's code changed, unlike its page",
          lambda r: change_download(r, "zh_CN", "02_walkthrough", (".ipynb",)),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          "02_walkthrough.ipynb is not its code"),
    Fault("a number in a Chinese tutorial notebook's prose changed, unlike its page",
          lambda r: sub(r, one(r, "zh_CN/_downloads/*/02_walkthrough.ipynb"), "全部 8 个头",
                        "全部 4 个头"),
          (FILES + "test_each_download_says_what_its_page_was_built_from",),
          (FILES + "test_each_download_says_what_its_page_was_built_from",),
          "02_walkthrough.ipynb differs from"),
    Fault("a sentence of a gallery script's docstring changed in its download",
          lambda r: sub(r, one(r, "en/_downloads/*/plot_03_split_heads.py"),
                        "cut into 8 heads of 8 columns", "cut into 4 heads of 16 columns"),
          (FILES + "test_each_download_says_what_its_page_was_built_from",),
          (FILES + "test_each_download_says_what_its_page_was_built_from",),
          "plot_03_split_heads.py differs from"),
    Fault("the landing page's cards removed",
          lambda r: drop_element(r, "en/index.html", '<div class="sd-container-fluid'),
          (_page("en/index.html"),), (_page("en/index.html"),), "[landing page]"),
    Fault("a figure shrunk to 45 % on the Chinese copy of a page",
          lambda r: sub(r, ZH_HEATMAPS, rf'(<img )((?:width="\d+" height="\d+" )?src="[^"]*{FIGURE}\.png")',
                        r'\1style="width: 45%" \2'),
          (_page(ZH_HEATMAPS),), (_page(ZH_HEATMAPS),), "[figure sizes]"),
    Fault("a figure shrunk to 45 % on an English page",
          lambda r: sub(r, HEATMAPS, rf'(<img )((?:width="\d+" height="\d+" )?src="[^"]*{FIGURE}\.png")',
                        r'\1style="width: 45%" \2'),
          (_page(HEATMAPS),), (_page(HEATMAPS),), "[figure sizes]"),
    Fault("a gallery output's text made light grey by sphinx-gallery's stylesheet",
          lambda r: write(r / "en/_static/sg_gallery.css", (r / "en/_static/sg_gallery.css").read_text()
                          + "\ndiv.sphx-glr-script-out .highlight pre { color: #c8c8c8 !important; }\n"),
          (_page(HEATMAPS),), (_page(HEATMAPS),), "[code colours, light] code text below 4.5:1"),
    Fault("dark code text in the dark theme, from the theme's stylesheet (Chinese edition)",
          lambda r: write(r / "zh_CN/_static/styles/theme.css", (r / "zh_CN/_static/styles/theme.css")
                          .read_text() + '\nhtml[data-theme="dark"] .highlight .n { color: #303030 !important }\n'),
          (_page(ZH_HEATMAPS),), (_page(ZH_HEATMAPS),), "[code colours, dark] code text below 4.5:1: SPAN.n"),
    Fault("a figure shown larger than drawn (width 420 to 560 on an English page)",
          lambda r: sub(r, "en/tutorial/02_walkthrough.html", 'width="420" height="1180"',
                        'width="560" height="1180"'),
          (_page("en/tutorial/02_walkthrough.html"),), (_page("en/tutorial/02_walkthrough.html"),),
          "shown larger than drawn"),
    Fault("an English sentence in a Chinese page's description (search engines, link previews)",
          lambda r: sub(r, "zh_CN/explanation/why-heads.html", r'(<meta name="description" content="[^"]{20})',
                        r"\1That is a strong restriction on one head. "),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "That is a strong restriction"),
    Fault("a Chinese API page wider than the window",
          lambda r: sub(r, "zh_CN/reference/generated/mha.split_heads.html",
                        r'(<div id="pst-secondary-sidebar")', r'\1 style="min-width: 1500px"'),
          (_page("zh_CN/reference/generated/mha.split_heads.html"),),
          (_page("zh_CN/reference/generated/mha.split_heads.html"),), "[API page fits]"),
    Fault("a 600 px box in a question's answer (Chinese page 2)",
          lambda r: sub(r, ZH_PAGE_2, r'(<div class="mha-answer[^"]*">)',
                        r'\1<div style="width: 600px; height: 2px"></div>'),
          (_page(ZH_PAGE_2),), (_page(ZH_PAGE_2),), "[questions answer back]"),
    Fault("a formula in an answer wider than a phone (Chinese page 4)",
          lambda r: sub(r, "zh_CN/tutorial/04_exercise.html", r'(<div class="mha-answer[^"]*">)',
                        r'\1<span style="white-space: nowrap">Q_heads = Q_proj.view(B, L, H, D)'
                        r'.transpose(1, 2).contiguous().view(B, H, L, D)</span>'),
          (_page("zh_CN/tutorial/04_exercise.html"),), (_page("zh_CN/tutorial/04_exercise.html"),),
          "[questions answer back]"),
    Fault("a skipped heading level",
          lambda r: sub(r, "en/explanation/why-scale.html", r"<h2>(.*?)</h2>", r"<h4>\1</h4>"),
          (_page("en/explanation/why-scale.html"),), (_page("en/explanation/why-scale.html"),),
          "heading-order"),
    Fault("raw TeX on a page",
          lambda r: sub(r, "en/tutorial/06_summary.html", r"(<article.*?<p>)",
                        r"\1$\\sqrt{d_k}$ "),
          (_page("en/tutorial/06_summary.html"),), (_page("en/tutorial/06_summary.html"),),
          "raw TeX"),
    Fault("a Chinese link title set bare, its page gone",
          lambda r: delete(r, "zh_CN/tutorial/03_pytorch_module.html"),
          ("tests_site/test_link_titles.py",), ("tests_site/test_link_titles.py",),
          "links to a missing"),
    Fault("a chart shrunk on the Chinese Performance page",
          lambda r: sub(r, "zh_CN/explanation/performance.html",
                        r'(<img )(src="[^"]*speed\.zh_CN\.png")', r'\1style="width: 300px" \2'),
          (_page("zh_CN/explanation/performance.html"),),
          (_page("zh_CN/explanation/performance.html"),), "[figure sizes]"),
    Fault("a signature wider than the article on an API page",
          lambda r: sub(r, "en/reference/generated/mha.split_heads.html", r"(<article[^>]*>)",
                        r'\1<div style="width: 1200px">wide</div>'),
          (_page("en/reference/generated/mha.split_heads.html"),),
          (_page("en/reference/generated/mha.split_heads.html"),), "[API page fits]"),
    Fault("the Chinese landing page's cards removed",
          lambda r: drop_element(r, "zh_CN/index.html", '<div class="sd-container-fluid'),
          (_page("zh_CN/index.html"),), (_page("zh_CN/index.html"),), "[landing page]"),
    Fault("a row of the error table lost",
          lambda r: sub(r, "zh_CN/howto/common-errors.html",
                        r'(id="howto-common-errors".*?<tbody>.*?)<tr class="row-odd">.*?</tr>', r"\1"),
          (_page("zh_CN/howto/common-errors.html"),), (_page("zh_CN/howto/common-errors.html"),),
          "expected 8"),
    Fault("a Chinese download with a cell's text left in English",
          lambda r: sub(r, one(r, "zh_CN/_downloads/*/plot_03_split_heads.py"),
                        r"(# %%\n)(?:#[^\n]*\n)+", r"\1# This cell's text was left in English.\n"),
          ("tests_site/test_translated_downloads.py::test_chinese_downloads_are_chinese",),
          ("tests_site/test_translated_downloads.py::test_chinese_downloads_are_chinese",),
          "read as English"),
    Fault("an English sentence in a Chinese notebook's text",
          lambda r: sub(r, one(r, "zh_CN/_downloads/*/05_errors.ipynb"),
                        r'("cell_type": "markdown",(?:(?!"cell_type").)*?"source": (?:\[\s*)?")',
                        r"\1This sentence was left in English by mistake. "),
          ("tests_site/test_translated_downloads.py::test_chinese_downloads_are_chinese",),
          ("tests_site/test_translated_downloads.py::test_chinese_downloads_are_chinese",),
          "This sentence was left in English"),
    Fault("the Chinese edition half built (no search index)",
          lambda r: delete(r, "zh_CN/searchindex.js"),
          (FILES + "test_every_edition_is_built",), (FILES + "test_every_edition_is_built",),
          "editions built"),
    Fault("a tinted table row too dark for its text",
          lambda r: sub(r, "docs/_static/custom.css", r"rgba\(220, 53, 69, 0\.08\)",
                        "rgba(220, 53, 69, 0.9)"),
          (*BUILD_TESTS, "tests_build/test_code_contrast.py"),
          ("tests_build/test_code_contrast.py::test_every_site_colour_reads",),
          "tr.bench-missed-row", where="sources"),
    Fault("a one-word English heading on a Chinese page",
          lambda r: sub(r, "zh_CN/explanation/why-scale.html", r'(<h2>).*?(<a class="headerlink")',
                        r"\1Caveats\2"),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "label 'Caveats'"),
    Fault("a page listed in the search index but found by no word",
          lambda r: words_from_search(r, "zh_CN", "howto/checkpoints"),
          (FILES + "test_every_page_is_in_its_search_index",),
          (FILES + "test_every_page_is_in_its_search_index",), "howto/checkpoints: 0 words"),
    Fault("raw TeX without a command ($W_i^Q$)",
          lambda r: sub(r, "en/explanation/why-heads.html", r"(<article.*?<p>)", r"\1$W_i^Q$ "),
          (_page("en/explanation/why-heads.html"),), (_page("en/explanation/why-heads.html"),),
          "raw TeX"),
    Fault("a table row lost in one edition (English Performance page)",
          lambda r: sub(r, "en/explanation/performance.html",
                        r'(<table class="bench-table.*?<tbody>\s*)<tr .*?</tr>', r"\1"),
          (FILES + "test_the_editions_show_the_same_things",),
          (FILES + "test_the_editions_show_the_same_things",), "rows"),
    Fault("a landing page card's description emptied",
          lambda r: sub(r, "en/index.html", r'(<p class="sd-card-text">)[^<]+', r"\1"),
          (_page("en/index.html"),), (_page("en/index.html"),), "cards without their description"),
    Fault("a built stylesheet unlike the one whose colours were checked",
          lambda r: sub(r, "en/_static/custom.css", r"#8ee6a8", "#2f6b45"),
          (FILES + "test_the_site_serves_the_stylesheets_that_were_checked",),
          (FILES + "test_the_site_serves_the_stylesheets_that_were_checked",), "custom.css differs"),
    Fault("a Chinese gallery notebook's code changed, unlike its page",
          lambda r: change_download(r, "zh_CN", "plot_01_inputs", (".ipynb",)),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          (FILES + "test_each_download_holds_the_code_its_page_shows",),
          "plot_01_inputs.ipynb is not its code"),
    Fault("a Chinese gallery output's label printed in English",
          lambda r: sub(r, "zh_CN/auto_examples/01_shapes/plot_05_weighted_sum.html",
                        r"总和 = (?=\d)", r"sum = "),  # in the output, not the code
          (ZH_LABELS,), (ZH_LABELS,), "总和"),
    Fault("a Chinese gallery page's error shown as the English edition's message",
          lambda r: sub(r, "zh_CN/auto_examples/04_errors/plot_03_view_wrong_shape.html",
                        r"ValueRuntimeError: split_heads 的[^<]*", "ValueRuntimeError: split_heads "
                        "expected the last dimension of x to be divisible by num_heads=8"),
          (ZH_MESSAGES,), (ZH_MESSAGES,), "split_heads expected"),
    Fault("a low-contrast dark colour for .bench-met (Performance page)",
          lambda r: sub(r, "docs/_static/custom.css", r"#8ee6a8", "#2f6b45"),
          (*BUILD_TESTS, "tests_build/test_code_contrast.py"),
          ("tests_build/test_code_contrast.py::test_every_site_colour_reads[dark]",),
          ".bench-met in dark", where="sources"),
    Fault("an English msgstr in a Chinese catalog",
          lambda r: sub(r, "docs/locale/zh_CN/LC_MESSAGES/tutorial/06_summary.po",
                        r'(msgid "(About 1 minute[^"]*)"\nmsgstr )"[^"]*"', r'\1"\2"'),
          (*BUILD_TESTS, "tests_build/catalogs/test_glossary.py"),
          ("tests_build/catalogs/test_glossary.py::test_catalog_keeps_to_the_glossary",),
          "English", where="sources"),
    Fault("a Chinese page's description (search engines, link previews) in English",
          lambda r: sub(r, "zh_CN/explanation/masks.html", r'(<meta name="description" content=")[^"]*',
                        r"\1A mask decides which keys each query can see."),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "A mask decides"),
    Fault("a Chinese figure's alt text in English",
          lambda r: sub(r, "zh_CN/tutorial/08_tiled_attention.html", r'alt="创建的最大张量[^"]*',
                        'alt="Largest tensor created against the sequence length'),
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "alt 'Largest tensor"),
    Fault("a Chinese page's sidebar title and next-page label in English",
          lambda r: [sub(r, "zh_CN/explanation/why-scale.html", r'(fa-list"></i> )本页内容',
                         r"\1On this page"),
                     sub(r, "zh_CN/howto/index.html", r'(prev-next-subtitle">)下一页', r"\1next")],
          (FILES + "test_chinese_prose_is_chinese",), (FILES + "test_chinese_prose_is_chinese",),
          "around the article 'On this page'"),
    Fault("a footer's next-page link to another page than the one it names",
          lambda r: sub(r, "en/tutorial/03_pytorch_module.html",
                        r'(<a class="right-next"\s+href=")04_exercise.html', r"\g<1>05_errors.html"),
          (FILES + "test_links_go_where_they_say",), (FILES + "test_links_go_where_they_say",),
          "leads to 05_errors.html"),
    Fault("a language switch to the other edition's home instead of this page",
          lambda r: sub(r, "en/howto/masks.html", r'(mha-language-switch" href=")[^"]+',
                        r"\1../../zh_CN/index.html", count=2),
          (FILES + "test_links_go_where_they_say",), (FILES + "test_links_go_where_they_say",),
          "the language switch goes to ../../zh_CN/index.html"),
    Fault("a link to \"page 5\" that leads to page 4",
          lambda r: sub(r, "en/tutorial/06_summary.html",
                        r'href="05_errors.html"(><span class="doc">page 5)', r'href="04_exercise.html"\1'),
          (FILES + "test_links_go_where_they_say",), (FILES + "test_links_go_where_they_say",),
          "page 5 leads to 04_exercise.html"),
    Fault("a generator's repr in a Chinese gallery output",
          lambda r: sub(r, "zh_CN/auto_examples/01_shapes/plot_05_weighted_sum.html",
                        r"(总和 = 1\.000000)", r"\1\n&lt;generator object &lt;genexpr&gt; at 0x7f3a2c1b9d90&gt;"),
          (OUTPUTS,), (OUTPUTS,), "an object's repr"),
    Fault("a warning in a notebook page's output",
          lambda r: sub(r, "en/howto/head-count.html", r'(<div class="cell_output docutils container">\s*'
                        r'<div class="output \w+ highlight-myst-ansi notranslate"><div class="highlight"><pre>'
                        r'<span></span>)', r"\1/tmp/cell.py:3: UserWarning: To copy construct from a tensor\n"),
          (OUTPUTS,), (OUTPUTS,), "UserWarning"),
    Fault("figures squeezed on a phone (their height no longer follows their width)",
          lambda r: sub(r, "en/_static/custom.css", r"height: auto;", "", count=2),
          (_page("en/explanation/cost.html"), FILES + "test_the_site_serves_the_stylesheets_that_were_checked"),
          (_page("en/explanation/cost.html"), FILES + "test_the_site_serves_the_stylesheets"),
          "figure out of its proportions"),
    Fault("a column's name on a Chinese phone, written by the stylesheet, in English",
          lambda r: sub(r, "zh_CN/_static/custom.css", r'content: "原因"', 'content: "Cause"'),
          (FILES + "test_the_stylesheets_words_are_in_chinese_on_a_chinese_page",
           FILES + "test_the_site_serves_the_stylesheets_that_were_checked"),
          (FILES + "test_the_stylesheets_words", FILES + "test_the_site_serves_the_stylesheets"),
          "Cause"),
    Fault("a Chinese download that labels a value with its English name (\"caught:\")",
          lambda r: sub(r, one(r, "zh_CN/_downloads/*/plot_03_causal_alignment_trap.py"),
                        r'print\("捕获到：", caught\)', 'print("caught:", caught)'),
          ("tests_site/test_translated_downloads.py::test_the_chinese_code_prints_no_english_label",),
          ("tests_site/test_translated_downloads.py::test_the_chinese_code_prints_no_english_label",),
          "'caught:'"),
    Fault("a script of 600 KiB (as sent) added to a light text page",
          lambda r: [(r / "en/_static/heavy.js").write_text(f'const d = "{base64.b64encode(os.urandom(600 * 1024)).decode()}";'),
                     sub(r, "en/howto/devices.html", r"</body>", '<script src="../_static/heavy.js"></script></body>')],
          ("tests_site/test_page_weight.py::test_page_weight",),
          ("tests_site/test_page_weight.py::test_page_weight[en/howto/devices.html]",),
          "over the text budget"),
    Fault("a tutorial page's printed shape edited: (2, 5, 46) where the code made (2, 5, 64)",
          lambda r: sub(r, "en/tutorial/02_walkthrough.html", r"(<pre><span></span>2\) Q_proj )\(2, 5, 64\)", r"\1(2, 5, 46)"),
          (EXECUTED,), (EXECUTED,),
          "the code printed"),
    Fault("the Chinese home page's code changed (num_heads=4) while its output shows 8 heads",
          lambda r: sub(r, "zh_CN/index.html", r'(<span class="n">num_heads</span><span class="o">=</span><span class="mi">)8<',
                        r"\g<1>4<", count=2),
          (EXECUTED,), (EXECUTED,),
          "the code shown is not the code that ran"),
    Fault("a goal in the Performance page's prose changed (≤ 0.75 to ≤ 7.5), Chinese edition",
          lambda r: sub(r, "zh_CN/explanation/performance.html", r"比值 ≤ 0\.75", "比值 ≤ 7.5"),
          (FILES + "test_the_performance_page_states_the_goals_it_measures_against",),
          (FILES + "test_the_performance_page_states_the_goals",), "the method says ≤ 7.5"),
    Fault("a measured row marked met though its ratio misses its goal",
          lambda r: sub(r, "en/explanation/performance.html", r"✗ <span>goal missed", "✓ <span>goal met"),
          (FILES + "test_the_performance_page_states_the_goals_it_measures_against",),
          (FILES + "test_the_performance_page_states_the_goals",), "marked ≤ 0.75 ✓"),
    Fault("a sentence dropped from a Chinese paragraph (the 3-D mask's order)",
          lambda r: sub(r, "zh_CN/explanation/masks.html", r"3 维形式以批量为主序.*?得到的正是这种顺序。", ""),
          (FILES + "test_a_translation_keeps_every_number_and_name",),
          (FILES + "test_a_translation_keeps_every_number_and_name",), "the Chinese lacks"),
    Fault("a number changed in a Chinese paragraph (8 to 16 heads: 4 to 16)",
          lambda r: sub(r, "zh_CN/explanation/why-heads.html", "以 8 到 16 个头为最佳", "以 4 到 16 个头为最佳", count=0),
          (FILES + "test_a_translation_keeps_every_number_and_name",),
          (FILES + "test_a_translation_keeps_every_number_and_name",), "lacks ['8']"),
    Fault("another argument named in a Chinese list item (key_padding_mask: attn_mask)",
          lambda r: sub(r, "zh_CN/howto/masks.html", r"(<li><p><code [^>]*><span class=\"pre\">)key_<wbr>padding_<wbr>(mask</span></code>，形状)",
                        r"\1attn_\2"),
          (FILES + "test_a_translation_keeps_every_number_and_name",),
          (FILES + "test_a_translation_keeps_every_number_and_name",), "lacks ['key_padding_mask']"),
    Fault("a sentence with no number or code dropped from a Chinese paragraph",
          lambda r: sub(r, "zh_CN/explanation/why-heads.html",
                        "这是一个很强的限制：如果某个位置同时需要来自两个地方的信息，单个 softmax "
                        "就必须把权重分给两者，而取平均又会把两个值混在一起。", "", count=0),
          (FILES + "test_a_translation_keeps_every_number_and_name",),
          (FILES + "test_a_translation_keeps_every_number_and_name",), "lacks ['a sentence']"),
    Fault("two entries of a Chinese sidebar with each other's titles",
          lambda r: sub(r, "zh_CN/howto/devices.html", r'(href="checkpoints.html">)加载或转换 PyTorch 检查点(</a>.*?href="masks.html">)对填充和未来位置加掩码',
                        r"\1对填充和未来位置加掩码\2加载或转换 PyTorch 检查点"),
          (LINKS,), (LINKS,), "the sidebar's “对填充和未来位置加掩码” leads to checkpoints.html"),
    Fault("an API name that links to another function's page",
          lambda r: sub(r, "en/tutorial/03_pytorch_module.html", r"mha\.causal_mask\.html#mha\.causal_mask", "mha.additive_mask.html#mha.additive_mask"),
          (LINKS,), (LINKS,), "leads to ../reference/generated/mha.additive_mask.html"),
    Fault("a Chinese page found by none of its Chinese words",
          lambda r: chinese_words_from_search(r, "howto/checkpoints"),
          (SEARCH,), (SEARCH,), "zh_CN howto/checkpoints: found by 0 Chinese words"),
    Fault("an English page found by six of its words",
          lambda r: words_from_search(r, "en", "howto/common-errors", keep=6),
          (SEARCH,), (SEARCH,), "en howto/common-errors: found by 6 words"),
    Fault("TeX left bare in a sentence (1/\\sqrt{d_k}, no $)",
          lambda r: drop_element(r, "en/explanation/why-scale.html", '<span class="math">', "span", r"1/\sqrt{d_k}"),
          (_page("en/explanation/why-scale.html"),), (_page("en/explanation/why-scale.html"),), "raw TeX"),
    Fault("the gallery's zip of scripts holds one that differs from its download",
          lambda r: change_in_zip(r, one(r, "en/_downloads/*/auto_examples_python.zip"), "01_shapes/plot_03_split_heads.py",
                                  "torch.manual_seed(0)", "torch.manual_seed(1)"),
          (FILES + "test_each_zip_holds_the_downloads_beside_it",), (FILES + "test_each_zip_holds",),
          "plot_03_split_heads.py is not its download"),
    Fault("two examples' thumbnails swapped on the gallery's index",
          lambda r: sub(r, "en/auto_examples/index.html", r"sphx_glr_plot_01_inputs_thumb(.*?)sphx_glr_plot_02_qkv_projections_thumb",
                        r"sphx_glr_plot_02_qkv_projections_thumb\1sphx_glr_plot_01_inputs_thumb"),
          (FILES + "test_each_thumbnail_is_its_examples",), (FILES + "test_each_thumbnail_is_its_examples",),
          "shows plot_02_qkv_projections"),
    Fault("a Chinese page that shows the English edition's figure",
          lambda r: sub(r, "zh_CN/tutorial/02_walkthrough.html", r'src="\.\./_images/', 'src="../../en/_images/'),
          (FILES + "test_every_address_resolves",), (FILES + "test_every_address_resolves",),
          "another edition's file"),
    Fault("a gallery figure padded to 3 MB on a page the browser does not weigh",
          lambda r: write(r / "en/_images/sphx_glr_plot_04_masks_001.png",
                          (r / "en/_images/sphx_glr_plot_04_masks_001.png").read_bytes() + os.urandom(3 * 1024 * 1024)),
          ("tests_site/test_page_weight.py::test_no_page_names_more_than_the_ceiling",),
          ("tests_site/test_page_weight.py::test_no_page_names_more_than_the_ceiling",), "plot_04_masks.html"),
    Fault("a Chinese example's printed shape edited: (2, 8, 8, 5) for (2, 8, 5, 8)",
          lambda r: sub(r, "zh_CN/auto_examples/01_shapes/plot_03_split_heads.html", r"(Q_heads +)\(2, 8, 5, 8\)", r"\1(2, 8, 8, 5)"),
          (FILES + "test_each_example_shows_what_it_printed",), (FILES + "test_each_example_shows",),
          "the run printed"),
    Fault("a label in a Chinese example's output turned English (步长: stride)",
          lambda r: sub(r, "zh_CN/auto_examples/01_shapes/plot_03_split_heads.html", r"(<pre><span></span>Q  +\(2, 5, 64\) +\(B, L, E\) +)步长", r"\1stride"),
          (FILES + "test_each_example_shows_what_it_printed",), (FILES + "test_each_example_shows",),
          "the run printed"),
    Fault("a dark-theme code comment colour that does not read (#3a3a3a), Chinese edition",
          lambda r: sub(r, "zh_CN/_static/pygments.css", r'(html\[data-theme="dark"\] \.highlight \.c \{ color: )#\w+', r"\1#3a3a3a"),
          (FILES + "test_served_code_colours_read_in_both_themes",), (FILES + "test_served_code_colours",),
          "zh_CN dark .c #3a3a3a"),
    Fault("a Chinese table cell in English, two words (加权求和: weighted sum)",
          lambda r: sub(r, "zh_CN/explanation/cost.html", r"<td><p>加权求和</p></td>", "<td><p>weighted sum</p></td>"),
          (FILES + "test_a_chinese_table_cell_is_chinese",), (FILES + "test_a_chinese_table_cell_is_chinese",),
          "weighted sum"),
    Fault("the quick start's prose says 4 heads, its code 8, in both editions",
          lambda r: [sub(r, "en/index.html", "through 8 heads of attention", "through 4 heads of attention"),
                     sub(r, "zh_CN/index.html", "送入一个 8 头注意力层", "送入一个 4 头注意力层")],
          (SIZES,), (SIZES,), "index.html: 4"),
    Fault("an example's prose says 4 heads of 16 columns, its code 8 of 8, in both editions",
          lambda r: [sub(r, "en/auto_examples/01_shapes/plot_03_split_heads.html", "cut into 8 heads of 8 columns",
                         "cut into 4 heads of 16 columns", count=0),
                     sub(r, "zh_CN/auto_examples/01_shapes/plot_03_split_heads.html", "切成 8 个头，每个头 8 列",
                         "切成 4 个头，每个头 16 列", count=0)],
          (SIZES,), (SIZES,), "plot_03_split_heads.html: 4"),
    Fault("a figure's alt text giving the split heads as (2, 4, 5, 16), its code (2, 8, 5, 8)",
          lambda r: [sub(r, f"{e}/tutorial/02_walkthrough.html", r'(alt="[^"]*?)\(2, 8, 5, 8\)', r"\1(2, 4, 5, 16)")
                     for e in ("en", "zh_CN")],
          (SIZES,), (SIZES,), "02_walkthrough.html: (2, 4, 5, 16)"),
    Fault("the tutorial's index gives the lesson's sequence length as 6, in both editions",
          lambda r: [sub(r, "en/tutorial/index.html", "sequence length 5,", "sequence length 6,"),
                     sub(r, "zh_CN/tutorial/index.html", "序列长度为 5，", "序列长度为 6，")],
          (SIZES,), (SIZES,), "tutorial/index.html: 6"),
    Fault("a default on the API page that is not the package's (dropout=0.1)",
          lambda r: sub(r, "en/reference/generated/mha.MultiHeadAttention.html", r'(<span class="n"><span class="pre">dropout</span></span><span class="o"><span class="pre">=</span></span><span class="default_value"><span class="pre">)0\.0', r"\g<1>0.1"),
          (FILES + "test_each_api_signature_is_the_packages",), (FILES + "test_each_api_signature",),
          "dropout=0.1"),
    Fault("the Chinese speed charts holding the English charts' bytes",
          lambda r: [write(r / f"zh_CN/_static/bench/speed{v}.zh_CN.png", (r / f"zh_CN/_static/bench/speed{v}.png").read_bytes())
                     for v in ("", "@2x", "_phone", "_phone@2x")],
          ("tests_site/test_figure_languages.py::test_each_edition_shows_its_own_charts",),
          ("tests_site/test_figure_languages.py::test_each_edition_shows_its_own_charts",), "English bytes"),
    Fault("the module's repr with the head count and the head width swapped",
          lambda r: sub(r, "src/mha/module.py", r"num_heads=\{self\.num_heads\}, head_dim=\{self\.head_dim\}",
                        "num_heads={self.head_dim}, head_dim={self.num_heads}"),
          ("tests/test_module.py",), ("tests/test_module.py::test_repr_names_each_setting",), "",
          where="sources"),
    Fault("a flipped mask polarity (True allowed instead of blocked)",
          lambda r: sub(r, "src/mha/functional.py", r"\.masked_fill_\(mask, ", ".masked_fill_(~mask, "),
          ("tests/test_parity.py", "tests/test_module.py"),
          ("tests/test_parity.py", "tests/test_module.py"), "", where="sources"),
]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Running them


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@dataclass
class Outcome:
    fault: Fault
    caught: bool
    failed: list[str]
    why: str
    seconds: float


def pytest(python: str, args: tuple[str, ...], cwd: Path, env: dict, extra: list[str]) -> str:
    command = [python, "-m", "pytest", *args, *extra, "-q", "--tb=short", "-p", "no:cacheprovider"]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def copy_site(site: Path, into: Path) -> Path:
    """``into``/_build/html, the site's files linked (a change writes anew: write), with the
    build's records of what ran where the checks look for them, beside it as beside the site:
    _build/jupyter_execute, _build/sources (the Chinese edition's sources), auto_examples and
    the tutorial's notebooks."""
    copy = into / "_build" / "html"
    shutil.copytree(site, copy, copy_function=os.link)
    for record in ("jupyter_execute", "sources", "../auto_examples", "../tutorial"):
        if (site.parent / record).is_dir():
            (copy.parent / record).symlink_to((site.parent / record).resolve())
    return copy


def copy_sources(into: Path) -> Path:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split("\0")  # fmt: skip
    for name in filter(None, names):
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
            os.link(ROOT / name, target)
    return into


class Runner:
    def __init__(self, site: Path, build_python: str, chromium: str, work: Path) -> None:
        self.site, self.build_python, self.work = site, build_python, work
        self.site_args = [f"--chromium={chromium}", f"--screenshots={work / 'screenshots'}"]
        self.env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

    def run(self, fault: Fault | None, root: Path, args: tuple[str, ...], where: str) -> str:
        if where == "site":
            extra = [f"--site={root}", *self.site_args]
            return pytest(sys.executable, (*SITE_TESTS, *args), ROOT, self.env, extra)
        env = {**self.env, "PYTHONPATH": str(root / "src")}  # the copy's package, not ROOT's
        return pytest(self.build_python, args, root, env, [])

    def pristine(self, faults: list[Fault]) -> list[str]:
        """The faults' checks on the site and the sources as they are: all must pass."""
        problems = []
        for where, root in (("site", self.site), ("sources", copy_sources(self.work / "clean"))):
            args = [a for f in faults if f.where == where for a in f.run
                    if a not in ("-p", "no:xdist", "no:doctest", *BUILD_TESTS)]  # fmt: skip
            groups = [tuple(dict.fromkeys(args))]
            if where == "sources":  # the build's tests and the package's, each with its config
                groups = [(*BUILD_TESTS, *(a for a in groups[0] if a.startswith("tests_build"))),
                          tuple(a for a in groups[0] if a.startswith("tests/"))]  # fmt: skip
            for group in (g for g in groups if any(a.endswith(".py") for a in g)):
                report = self.run(None, root, group, where)
                problems += [f"{where}: {name}" for name in FAILED.findall(report)]
                if not re.search(r"\d+ passed", report) or "error" in report.splitlines()[-1]:
                    problems.append(f"{where}: {group} did not run:\n{report[-2000:]}")
        return problems

    def inject(self, number: int, fault: Fault) -> Outcome:
        start = time.perf_counter()
        into = self.work / f"fault-{number:02d}"
        root = copy_site(self.site, into) if fault.where == "site" else copy_sources(into)
        try:
            fault.change(root)
        except (AssertionError, ValueError) as error:
            return Outcome(fault, False, [], f"could not be made: {error}", 0.0)
        report = self.run(fault, root, fault.run, fault.where)
        shutil.rmtree(into, ignore_errors=True)
        failed = FAILED.findall(report)
        missed = [c for c in fault.caught_by if not any(f.startswith(c) for f in failed)]
        others = [f for f in failed if not any(f.startswith(c) for c in fault.caught_by)]
        why = ""
        if missed:
            why = f"not caught by {missed}"
        elif others:
            why = f"blamed on other checks too: {others}"
        elif fault.says not in report:
            why = f"caught, but the report does not say {fault.says!r}"
        return Outcome(fault, not why, failed, why, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "docs" / "_build" / "html")
    parser.add_argument(
        "--build-python",
        required=True,
        type=os.path.abspath,
        help="the python of the docs and tests environment",
    )
    parser.add_argument("--chromium", default=shutil.which("chromium") or "")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("-k", default="", help="only the faults whose name contains this")
    options = parser.parse_args(argv)
    chosen = [f for f in FAULTS if options.k in f.name]
    with tempfile.TemporaryDirectory(prefix="mha-faults-") as folder:
        runner = Runner(options.site.resolve(), options.build_python, options.chromium,
                        Path(folder))  # fmt: skip
        start = time.perf_counter()
        problems = runner.pristine(chosen)
        if problems:
            say("the checks fail on the site as it is:\n" + "\n".join(problems))
            return 1
        say(f"every check passes on the site as it is ({time.perf_counter() - start:.0f} s)")
        with ThreadPoolExecutor(options.jobs) as pool:
            outcomes = list(pool.map(runner.inject, range(len(chosen)), chosen))
    width = max(len(o.fault.name) for o in outcomes)
    say(f"\n{'fault':<{width}}  {'caught by':<60}  seconds")
    for o in outcomes:
        names = sorted({f.split("::")[-1].split("[")[0] for f in o.failed})
        by = (", ".join(names) + (f" ({len(o.failed)} tests)" if len(o.failed) > 1 else "")
              if o.caught else "")  # fmt: skip
        say(f"{o.fault.name:<{width}}  {by or 'MISSED: ' + o.why:<60}  {o.seconds:5.1f}")
    caught = sum(o.caught for o in outcomes)
    say(f"\n{caught} of {len(outcomes)} faults caught ({caught / len(outcomes):.0%})")
    return 0 if caught == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
