"""Every entry of the Chinese catalogs is translated, and a code block's translation keeps its code.

``nox -s translations`` runs this after bringing the catalogs in line with the pages (where the
update changed a catalog, it is stale and the session fails before this). Run alone, it reads
the committed catalogs as they are.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("babel", reason="the catalog checks read the catalogs with Babel")
pytest.importorskip(
    "sphinx", reason="catalogs.py reads the flag of docs/_ext/translated_sources.py"
)
import catalogs
from babel.messages.pofile import read_po

LOCALE = catalogs.LOCALE / "zh_CN" / "LC_MESSAGES"
# A translation starting like a list item or a heading becomes one ("2. 逐步计算"): escape it.
BLOCK_MARKER = re.compile(r"^(?:\d+[.)]|[-+*]|#+)(?:\s|$)")


@pytest.mark.parametrize(
    "path", sorted(LOCALE.rglob("*.po")), ids=lambda p: p.relative_to(LOCALE).as_posix()
)
def test_every_entry_is_translated(path) -> None:
    """None empty, none fuzzy; a code block's code unchanged; no translation read as a list."""
    with path.open("rb") as f:
        entries = [m for m in read_po(f) if m.id]
    found, page = [], path.relative_to(LOCALE).with_suffix("").as_posix() not in catalogs.NOT_PAGES
    for m in entries:
        code = catalogs.CODE_FLAG in m.flags
        if m.fuzzy:
            found.append(f"fuzzy (check it against the English, delete '#, fuzzy'): {m.id!r}")
        elif not m.string:
            found.append(f"untranslated: {m.id!r}")
        elif code and catalogs.code_of(m.string) != catalogs.code_of(m.id):
            found.append(f"code changed (translate comments and strings' text only): {m.id!r}")
        elif page and not code and BLOCK_MARKER.match(m.string):  # parsed as Markdown
            found.append(f"starts like a list or a heading, escape it (2\\. ...): {m.string!r}")
    if found:  # the list, without a traceback: it names every entry to fix
        pytest.fail("\n  ".join([path.relative_to(LOCALE).as_posix(), *found]), False)


def test_code_of_leaves_out_comments_and_the_text_of_strings() -> None:
    code = 'x = q @ k  # the scores\nprint(f"head {h}:", x)  # fmt: skip\n# its own line\nh = 8'
    translated = 'x = q @ k  # 分数\nprint(f"头 {h}：", x)  # fmt: skip\n\n# 单独一行\nh = 8'
    assert catalogs.code_of(translated) == catalogs.code_of(code)
    assert catalogs.code_of(translated.replace("h = 8", "h = 4")) != catalogs.code_of(code)
    assert catalogs.code_of(translated.replace("{h}", "{h + 1}")) != catalogs.code_of(code)
    assert catalogs.comments(code) == ["# the scores", "# its own line"]
    shell = "$ nox -s docs   # build the site"
    assert catalogs.comments(shell) == ["# build the site"]
    assert catalogs.code_of("$ nox -s docs   # 构建网站") == catalogs.code_of(shell)
    assert catalogs.code_of("$ nox -s tests  # 构建网站") != catalogs.code_of(shell)


def test_what_the_templates_keep() -> None:
    reads = catalogs.reads_strings
    assert reads('print("output shape:", y.shape)') and reads('print("scores", s)')
    assert reads('title = f"head {h} of {H}"')
    assert not reads('y = d["mean"]') and not reads('print("x", x)')
    assert not reads("torch.Size([2, 5, 64]) 'printed' output:")  # not Python
    keep = catalogs.needs_translation
    assert keep("`(B, L, E)` → `(B, H, L, D)`, weights `(B, H, L, S)`")
    assert keep('<div class="sphx-glr-thumbcontainer" tooltip="Split the heads.">')
    assert keep("{doc}`the walkthrough <tutorial/02_walkthrough>`")
    assert not keep("{func}`mha.project_qkv`")
    assert not keep(":doc:`/auto_examples/01_shapes/plot_01_inputs`")
    assert not keep('<div class="sphx-glr-thumbnails">')
    assert not keep("**Total running time of the script:** (0 minutes 1.840 seconds)")
