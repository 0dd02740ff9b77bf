"""The engine's command line (PRODUCT.md, "Engine command line").

    python -m games.engine deal CODE      # the full starting layout, as JSON
    python -m games.engine replay CODE    # actions as JSON lines on stdin →
                                          # the final full state, as JSON

CODE is a numbered code (``SH1-C4-AAAAAJ2``) or a long one with a
26-character key (``SH1-C4-CNYUZSFWIH5KXM5EKJKWKKTRPX``, RULES.md C2b).

``replay`` stops at the first refused (or malformed) action: it prints
``line N: CODE: MESSAGE`` on standard error and exits with status 1. A bad game
code or bad usage exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from .errors import EngineError
from .registry import new_game

EXIT_REFUSED = 1
EXIT_USAGE = 2


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    parser = argparse.ArgumentParser(
        prog="python -m games.engine", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    code_help = "a game code; its deal part is 7 characters, or 26 for a key (C2b)"
    deal = sub.add_parser("deal", help="print the full starting layout of a deal")
    deal.add_argument("code", help=code_help)
    replay = sub.add_parser("replay", help="apply JSON actions from stdin, print the final state")
    replay.add_argument("code", help=code_help)
    args = parser.parse_args(argv)

    try:
        game = new_game(args.code)
    except EngineError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "replay":
        for number, line in enumerate(stdin, start=1):
            if not line.strip():
                continue
            try:
                try:
                    data = json.loads(line)
                except ValueError as exc:
                    raise EngineError("bad_json", f"not valid JSON: {exc}") from None
                game.apply_json(data)
            except EngineError as exc:
                print(f"line {number}: {exc.code}: {exc.message}", file=sys.stderr)
                return EXIT_REFUSED
    json.dump(game.view(full=True), stdout)
    stdout.write("\n")
    return 0
