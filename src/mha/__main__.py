"""Command line: print the shape table, ``python -m mha --batch 2 --seq 5 --d-model 64 --heads 8``.

``--kv-heads 2`` traces grouped-query attention with 2 key/value heads; ``--source-seq 7``
cross-attention over 7 keys; ``--lang zh_CN`` prints the table in Chinese, and its usage errors
in the same language. Without ``--lang``: the environment variable ``MHA_LANG``, else the
locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``LANG=zh_CN.UTF-8`` means
Chinese), else English.
"""

from __future__ import annotations

import argparse
import re
import sys

from mha._i18n import LANGS, _, language
from mha.trace import format_shape_table, trace_shapes

# argparse's own words around a usage error, which _() words in the package's language
_ARGUMENT = re.compile(r"argument (?P<name>\S+): (?P<message>.*)", re.DOTALL)
_UNKNOWN = re.compile(r"unrecognized arguments: (?P<names>.*)", re.DOTALL)
_ONE_VALUE = "expected one argument"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors in the package's language (``--lang``, else
    :func:`mha.set_language`, ``MHA_LANG``, the locale)."""

    def error(self, message: str) -> None:
        if found := _ARGUMENT.fullmatch(message):
            inner = found["message"]
            inner = _("expected one value") if inner == _ONE_VALUE else inner
            message = _("argument {name}: {message}").format(name=found["name"], message=inner)
        elif found := _UNKNOWN.fullmatch(message):
            message = _("unrecognized arguments: {names}").format(names=found["names"])
        usage = self.format_usage()  # argparse's "usage: " is English: the package's instead
        usage = (
            _("usage: ") + usage.removeprefix("usage: ") if usage.startswith("usage: ") else usage
        )
        self.exit(
            2, usage + _("{prog}: error: {message}\n").format(prog=self.prog, message=message)
        )


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected an int, got {value!r}").format(value=text)
        ) from None


def _lang(text: str) -> str:
    if text not in LANGS:
        message = _("expected one of {choices}, got {value}")
        raise argparse.ArgumentTypeError(message.format(choices=", ".join(LANGS), value=text))
    return text


def _requested_language(argv: list[str]) -> str | None:
    """The language ``--lang`` asks for, before the arguments are parsed (their errors use it)."""
    for index, arg in enumerate(argv):
        value = argv[index + 1] if arg == "--lang" and index + 1 < len(argv) else None
        value = arg.removeprefix("--lang=") if arg.startswith("--lang=") else value
        if value is not None:
            return value if value in LANGS else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Parse the sizes, print the table; exit status 2 with a message for bad sizes."""
    argv = sys.argv[1:] if argv is None else argv
    with language(_requested_language(argv)):
        return _main(argv)


def _main(argv: list[str]) -> int:
    parser = _Parser(
        prog="python -m mha",
        description="Print the shape of every tensor through multi-head attention.",
    )
    parser.add_argument("--batch", type=_int, default=2, help="batch size B (default 2)")
    parser.add_argument("--seq", type=_int, default=5, help="query length L (default 5)")
    parser.add_argument("--source-seq", type=_int, default=None, help="key length S (default L)")
    parser.add_argument("--d-model", type=_int, default=64, help="model width E (default 64)")
    parser.add_argument("--heads", type=_int, default=8, help="number of heads H (default 8)")
    parser.add_argument(
        "--kv-heads",
        type=_int,
        default=None,
        help="key/value heads H_kv, dividing H (grouped-query attention; default H)",
    )
    parser.add_argument(
        "--lang",
        type=_lang,
        default=None,
        metavar="{" + ",".join(LANGS) + "}",
        help=(
            "language of the table and of the errors: en or zh_CN (default: $MHA_LANG, else "
            "the locale, $LANGUAGE, $LC_ALL, $LC_MESSAGES or $LANG, else en)"
        ),
    )
    args = parser.parse_args(argv)
    try:
        steps = trace_shapes(
            args.batch,
            args.seq,
            args.d_model,
            args.heads,
            source_len=args.source_seq,
            num_kv_heads=args.kv_heads,
        )
    except (TypeError, ValueError) as err:  # a usage error: exit status 2, no traceback
        parser.error(str(err))
    d = args.d_model // args.heads
    print(
        f"B={args.batch}  L={args.seq}  S={args.source_seq or args.seq}  E={args.d_model}  "
        f"H={args.heads}  D=E/H={d}"
        + (
            f"  H_kv={args.kv_heads}  G=H/H_kv={args.heads // args.kv_heads}"
            if args.kv_heads is not None
            else ""
        )
    )
    print(format_shape_table(steps, lang=args.lang))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
