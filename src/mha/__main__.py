"""Command line: print the shape table, ``python -m mha --batch 2 --seq 5 --d-model 64 --heads 8``.

``--kv-heads 2`` traces grouped-query attention with 2 key/value heads; ``--source-seq 7``
cross-attention over 7 keys; ``--lang zh_CN`` prints the table in Chinese (default: the
environment variable ``MHA_LANG``, else English).
"""

from __future__ import annotations

import argparse

from mha._validation import LANGS
from mha.trace import format_shape_table, trace_shapes


def main(argv: list[str] | None = None) -> int:
    """Parse the sizes, print the table; exit status 2 with a message for bad sizes."""
    parser = argparse.ArgumentParser(
        prog="python -m mha",
        description="Print the shape of every tensor through multi-head attention.",
    )
    parser.add_argument("--batch", type=int, default=2, help="batch size B (default 2)")
    parser.add_argument("--seq", type=int, default=5, help="query length L (default 5)")
    parser.add_argument("--source-seq", type=int, default=None, help="key length S (default L)")
    parser.add_argument("--d-model", type=int, default=64, help="model width E (default 64)")
    parser.add_argument("--heads", type=int, default=8, help="number of heads H (default 8)")
    parser.add_argument(
        "--kv-heads",
        type=int,
        default=None,
        help="key/value heads H_kv, dividing H (grouped-query attention; default H)",
    )
    parser.add_argument(
        "--lang",
        choices=LANGS,
        default=None,
        help="language of the table: en or zh_CN (default: $MHA_LANG, else en)",
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
