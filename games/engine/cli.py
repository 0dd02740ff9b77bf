"""The engine's command line (PRODUCT.md, "Engine command line").

    python -m games.engine deal CODE      # the full starting layout, as JSON
    python -m games.engine replay CODE    # actions as JSON lines on stdin →
                                          # the final full state, as JSON
    python -m games.engine postmortem CODE [--nodes N] [--seconds S]
                                          # actions as JSON lines on stdin →
                                          # where the game went wrong, as JSON
    python -m games.engine verify-day FILE  # re-check a day's results file

CODE is a numbered code (``SH1-C4-AAAAAJ2``) or a long one with a
26-character key (``SH1-C4-CNYUZSFWIH5KXM5EKJKWKKTRPX``, RULES.md C2b).

``postmortem`` prints ``last_winnable`` (``postmortem.py``) of the line the
actions play: ``{"index", "settled", "probes", "length", "losing",
"continuation"}``, the actions as JSON (``losing`` null when there is none).
Its solver sees every card, hidden ones too: for the server's use.

``verify-day`` reads a day's results file (``dayfile.py``, downloaded from
``/api/daily/{date}/{variant}/results.jsonl``), checks that its code hashes to
the commitment, replays every result from the code and checks its published
score, moves, win and rank; it prints one line per problem (naming the rank and
the player) and a summary, and exits with status 0 when everything holds, 1
otherwise, 2 for a file it cannot read.

``replay`` and ``postmortem`` stop at the first refused (or malformed) action:
they print ``line N: CODE: MESSAGE`` on standard error and exit with status 1. A bad game
code or bad usage exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from .actions import Action
from .dayfile import DayFileError, check_day, read_day
from .errors import EngineError
from .postmortem import last_winnable
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
    post = sub.add_parser(
        "postmortem", help="apply JSON actions from stdin, print where the game went wrong"
    )
    post.add_argument("code", help=code_help)
    post.add_argument("--nodes", type=int, default=100_000, help="positions one probe may expand")
    post.add_argument("--seconds", type=float, default=10.0, help="time all probes may take")
    verify = sub.add_parser(
        "verify-day", help="replay every result of a day's results file and check its board"
    )
    verify.add_argument("file", help="the day's results file (JSON lines), or - for stdin")
    args = parser.parse_args(argv)

    if args.command == "verify-day":
        return verify_day(args.file, stdin, stdout)
    try:
        game = new_game(args.code)
    except EngineError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    actions: list[Action] = []
    if args.command in ("replay", "postmortem"):
        for number, line in enumerate(stdin, start=1):
            if not line.strip():
                continue
            try:
                try:
                    data = json.loads(line)
                except ValueError as exc:
                    raise EngineError("bad_json", f"not valid JSON: {exc}") from None
                actions.append(game.parse_action(data))
                game.apply(actions[-1])
            except EngineError as exc:
                print(f"line {number}: {exc.code}: {exc.message}", file=sys.stderr)
                return EXIT_REFUSED
    if args.command == "postmortem":
        found = last_winnable(new_game(args.code), actions, nodes=args.nodes, seconds=args.seconds)
        json.dump(
            {
                "index": found.index,
                "settled": found.settled,
                "probes": found.probes,
                "length": found.length,
                "losing": found.losing.to_json() if found.losing else None,
                "continuation": [action.to_json() for action in found.continuation],
            },
            stdout,
        )
        stdout.write("\n")
        return 0
    json.dump(game.view(full=True), stdout)
    stdout.write("\n")
    return 0


def verify_day(path: str, stdin: TextIO, stdout: TextIO) -> int:
    """``verify-day FILE``: every problem of the file on a line of its own, then
    a summary; 0 when all holds, 1 when something does not, 2 when the file
    cannot be read as a day's results."""
    try:
        if path == "-":
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode()
        else:
            with open(path, "rb") as file:
                data = file.read()
        day = read_day(data)
    except (OSError, DayFileError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problems = check_day(day)
    for problem in problems:
        print(problem, file=stdout)
    header, count = day.header, len(day.lines)
    what = f"{header.get('date')} {header.get('variant')}"
    if problems:
        print(f"{what}: {len(problems)} problem(s) in {count} result(s)", file=stdout)
        return EXIT_REFUSED
    holds = "all 1 result holds" if count == 1 else f"all {count} results hold"
    print(
        f"{what}: {holds} (the code matches the commitment,"
        " every line replays to its score, moves and rank)",
        file=stdout,
    )
    return 0
