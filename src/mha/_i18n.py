"""The language of the messages a learner reads, and their words in it (stdlib ``gettext``).

The English of every learner-facing message is in the code, wrapped where it is worded:
``_("expected {name} to be a torch.Tensor, got {type}").format(...)``, translated first and
its fields filled in after; :func:`pgettext` where one English text needs two renderings in
another language (``" or "`` between numbers of dimensions, between shapes), :func:`N_` where a
message is written in a table and worded later. The other languages are catalogs shipped in the
package, ``mha/locale/<lang>/LC_MESSAGES/mha.mo``, each compiled from the ``mha.po`` beside it
(``nox -s translations -- update`` extracts, updates and compiles them). A message is worded
only when it is shown: a passing check calls none of these functions.

The language, the first of:

1. ``lang=``, where a function takes it (:mod:`mha.check`, :func:`mha.format_shape_table`);
2. the :func:`language` block around the call (the command line's ``--lang``);
3. :func:`mha.set_language`, for the whole process;
4. the environment variable ``MHA_LANG``;
5. the locale, as :func:`gettext.find` reads it: the first of ``LANGUAGE``, ``LC_ALL``,
   ``LC_MESSAGES`` and ``LANG`` that is set and not empty (``LANGUAGE`` may be a list,
   ``zh_CN:en``). ``zh_CN.UTF-8``, ``zh_CN``, ``zh``, ``zh_SG`` and ``zh_Hans`` mean Chinese;
   ``C``, ``POSIX`` and a language without a catalog, English;
6. else English.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "DOMAIN",
    "LANGS",
    "LOCALEDIR",
    "N_",
    "_",
    "language",
    "locale_language",
    "pgettext",
    "resolve_language",
    "set_language",
    "translation",
]

DOMAIN = "mha"
LOCALEDIR = Path(__file__).resolve().parent / "locale"
# The languages: English, the code's own, and one for each catalog shipped with the package.
LANGS = ("en", *sorted(p.parents[1].name for p in LOCALEDIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")))

# The locale variables, in the order gettext reads them (gettext.find).
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# Names of a language that its catalog's name does not give (lowercase, "_" for "-").
_ALIASES = {"zh_hans": "zh_CN", "zh_hans_cn": "zh_CN", "zh_sg": "zh_CN", "zh_hans_sg": "zh_CN"}

_LANGUAGE: contextvars.ContextVar[str | None] = contextvars.ContextVar("mha_lang", default=None)
_PROCESS_LANGUAGE: str | None = None  # set_language's


def _check(lang: str) -> str:
    if lang not in LANGS:
        message = _("expected lang to be one of {langs} or None, got {lang!r}")
        raise ValueError(message.format(langs=LANGS, lang=lang))
    return lang


def set_language(lang: str | None) -> None:
    """Choose the language of the package's messages for the whole process.

    A script calls it in its first lines to print its reports in that language on any
    machine, whatever the machine's locale. A function's own ``lang=`` and the command line's
    ``--lang`` still choose for themselves.

    Parameters
    ----------
    lang : {"en", "zh_CN"} or None
        The language of every message from now on: errors, :mod:`mha.check`'s reports, the
        shape table. ``None`` goes back to the environment: the variable ``MHA_LANG``, else
        the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as ``gettext``
        reads them), else English.

    Raises
    ------
    ValueError
        If ``lang`` is not one of the languages or None.

    See Also
    --------
    format_shape_table : takes ``lang=`` for one table.

    Examples
    --------
    >>> import mha
    >>> steps = mha.trace_shapes(2, 5, 64, 8)
    >>> mha.set_language("zh_CN")  # a Chinese script's first lines
    >>> mha.format_shape_table(steps) == mha.format_shape_table(steps, lang="zh_CN")
    True
    >>> print(mha.format_shape_table(steps, lang="en").splitlines()[0])  # lang= still chooses
    step            tensor        letters       shape
    >>> mha.set_language(None)  # back to MHA_LANG and the locale
    """
    global _PROCESS_LANGUAGE
    _PROCESS_LANGUAGE = None if lang is None else _check(lang)


def locale_language(value: str) -> str:
    """The language of :data:`LANGS` that a locale's value names, else ``"en"``.

    ``value`` is a locale (``zh_CN.UTF-8``, ``zh``, ``zh-Hans``, ``en_US``) or a list of them
    separated by colons, as ``LANGUAGE`` holds: the first with a catalog chooses; ``C`` or
    ``POSIX`` ends the list with English, as in :func:`gettext.find`.
    """
    for item in value.split(":"):
        name = item.partition(".")[0].partition("@")[0].replace("-", "_").lower()
        if name in ("c", "posix"):
            return "en"
        base, _sep, rest = name.partition("_")
        for lang in LANGS:
            key = lang.lower()
            if (
                name == key
                or _ALIASES.get(name) == lang
                or (base == key.partition("_")[0] and (not rest or "_" not in key))
            ):
                return lang
    return "en"


def _from_environment() -> str:
    for variable in ("MHA_LANG", *ENVIRONMENT):
        value = os.environ.get(variable)
        if value:
            return locale_language(value)
    return "en"


def resolve_language(lang: str | None = None) -> str:
    """``lang`` checked, or when None the language the order above gives."""
    if lang is not None:
        return _check(lang)
    return _LANGUAGE.get() or _PROCESS_LANGUAGE or _from_environment()


@contextlib.contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Messages in ``lang`` inside the block (None: the language outside it, fixed now)."""
    token = _LANGUAGE.set(resolve_language(lang))
    try:
        yield _LANGUAGE.get()
    finally:
        _LANGUAGE.reset(token)


@functools.cache
def _catalog(lang: str) -> gettext.NullTranslations:
    if lang == "en":  # the code's own words
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALEDIR, languages=[lang])


def translation(lang: str | None = None) -> gettext.NullTranslations:
    """The catalog of ``lang`` (None: the current language)."""
    return _catalog(resolve_language(lang))


def _(message: str) -> str:
    """``message`` in the current language; fill its fields in after."""
    return translation().gettext(message)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, where ``context`` tells its uses apart."""
    return translation().pgettext(context, message)


def N_(message: str) -> str:  # gettext's name for it
    """``message`` itself, marked for the catalog: a table's entry, worded later by ``_``."""
    return message
