"""The engine's command line (PRODUCT.md, "Engine command line").

    python -m games.engine deal CODE      # the full starting layout, as JSON
    python -m games.engine replay CODE    # actions as JSON lines on stdin →
                                          # the final full state, as JSON
    python -m games.engine postmortem CODE [--nodes N] [--seconds S]
                                          # actions as JSON lines on stdin →
                                          # where the game went wrong, as JSON
    python -m games.engine verify-day FILE  # re-check a day's results file
    python -m games.engine knew FILE [--proof P] [--top N]
                                          # what the players knew: each result of a
                                          # day's results file tested for hidden knowledge
    python -m games.engine knew CODE [--proof P]
                                          # one game: actions as JSON lines on stdin

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

``knew`` runs ``knew.knew`` (the test the staff queue runs, issue 36) over each
result of a day's results file (the first ``--top``, default 100, in the board's
order) or over one game's actions, and prints one JSON line per game: its ``rank``
and ``player`` (from a file), ``flagged``, ``llr`` (the evidence), ``line_share``,
the judged ``decisions`` and the ``reason`` in words. ``--proof P``: a JSON file
with the day's proof (the solver's line, as ``/api/daily/{date}/`` reveals it: a
list of actions, or that answer's object for the variant) — the exact-line check
then also compares with it. Its exit status is 0 when nothing is flagged, 1 when
something is, 2 for bad usage or a file it cannot read.

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
from .codes import GameCode
from .dayfile import DayFile, DayFileError, check_day, read_day
from .errors import EngineError
from .knew import DECISIONS, knew
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
    judge = sub.add_parser("knew", help="test results or one game for hidden knowledge")
    judge.add_argument("target", help="a day's results file (or - for stdin), or a game code")
    judge.add_argument("--proof", help="a JSON file with the day's proof")
    judge.add_argument("--top", type=int, default=100, help="results of a file to judge")
    judge.add_argument("--decisions", type=int, default=DECISIONS, help="decisions judged per game")
    args = parser.parse_args(argv)

    if args.command == "verify-day":
        return verify_day(args.file, stdin, stdout)
    if args.command == "knew":
        return knew_command(args, stdin, stdout)
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


def _day_file(path: str, stdin: TextIO) -> DayFile | None:
    """The day's results file at ``path`` (``-``: standard input), or None after
    saying on standard error why it cannot be read."""
    try:
        if path == "-":
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode()
        else:
            with open(path, "rb") as file:
                data = file.read()
        return read_day(data)
    except (OSError, DayFileError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return None


def verify_day(path: str, stdin: TextIO, stdout: TextIO) -> int:
    """``verify-day FILE``: every problem of the file on a line of its own, then
    a summary; 0 when all holds, 1 when something does not, 2 when the file
    cannot be read as a day's results."""
    day = _day_file(path, stdin)
    if day is None:
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


def _read_proof(path: str | None) -> list[object] | None:
    """The day's proof from ``path``: a list of actions, or an object holding one
    under ``proof`` (a variant of ``/api/daily/{date}/``)."""
    if path is None:
        return None
    with open(path, "rb") as file:
        data = json.load(file)
    if isinstance(data, dict):
        data = data.get("proof")
    if not isinstance(data, list):
        raise ValueError("no list of actions (a proof) in it")
    return data


def knew_command(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    """``knew FILE|CODE`` (see the module): one JSON line per game judged."""
    target, proof_path, top = args.target, args.proof, args.top
    try:
        proof = _read_proof(proof_path)
    except (OSError, ValueError) as exc:
        print(f"error: {proof_path}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    games: list[tuple[dict[str, object], str, list[object]]] = []
    try:
        code = str(GameCode.parse(target))
    except EngineError:
        day = _day_file(target, stdin)
        if day is None:
            return EXIT_USAGE
        code = str(day.header.get("code"))
        for _, line in day.lines[:top]:
            if isinstance(line, dict) and isinstance(line.get("actions"), list):
                actions = [a.get("action") if isinstance(a, dict) else a for a in line["actions"]]
                who = {"rank": line.get("rank"), "player": line.get("player")}
                games.append((who, code, actions))
    else:
        actions = []
        for number, row in enumerate(stdin, start=1):
            if row.strip():
                try:
                    actions.append(json.loads(row))
                except ValueError as exc:
                    print(f"line {number}: bad_json: not valid JSON: {exc}", file=sys.stderr)
                    return EXIT_USAGE
        games.append(({}, code, actions))
    flagged = False
    for who, game_code, actions in games:
        try:
            verdict = knew(game_code, actions, proof, limit=args.decisions).to_json()
        except EngineError as exc:
            verdict = {"error": f"{exc.code}: {exc.message}"}
        flagged = flagged or bool(verdict.get("flagged"))
        json.dump({**who, **verdict}, stdout)
        stdout.write("\n")
        stdout.flush()
    return EXIT_REFUSED if flagged else 0
