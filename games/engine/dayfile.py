"""A day's results file (issue 27, "a day anyone can re-check"): every counted
ranked result of one daily deal with its full action list, written as JSON
lines, and the check that replays every line through this engine.

    >>> data = write_day(date="2026-12-03", variant="SH1-C4", code="SH1-C4-AAAAAJ2",
    ...                  par=None, results=[])
    >>> [problem.text for problem in check_day(read_day(data))]
    []

The first line is the header: ``format`` (:data:`FORMAT`), ``date``,
``variant``, ``code``, ``commitment`` (SHA-256 of the code, as published while
the day ran), ``par`` and ``results`` (how many lines follow). Each further
line is one result, in the leaderboard's order: ``rank``, ``player``,
``attempt``, ``status``, ``won``, ``score``, ``moves``, ``elapsed_ms``,
``finished_at`` and ``actions``, each action ``{"action": Action, "ms": N}``
— the resolved action as the replay gives it (undos included) and the
server's time since the attempt started.

The bytes are deterministic (sorted keys, compact separators, ASCII, one
``\\n`` after each line), so the file's SHA-256 is stable and can be published.

Nothing here trusts the file: :func:`check_day` replays each line from the code
and compares the engine's score, moves and win with the published ones, and
checks that the ranks follow RULES.md C11 on the published values. The
server writes the file with :func:`write_day`; anyone checks it with
``python -m games.engine verify-day FILE`` (``cli.py``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .codes import GameCode
from .errors import EngineError
from .registry import new_game

FORMAT = "patience-day-results/1"
"""The format id of the header line: a change of shape changes it."""

STATUSES = ("won", "resigned", "abandoned")
"""The statuses of a finished ranked attempt: only finished ones count."""

RESULT_FIELDS = frozenset(
    {
        "rank",
        "player",
        "attempt",
        "status",
        "won",
        "score",
        "moves",
        "elapsed_ms",
        "finished_at",
        "actions",
    }
)


class DayFileError(ValueError):
    """The file cannot be read as a day's results (no header, not this format):
    nothing in it can be checked."""


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One line of the file, deterministic: the same record, the same bytes."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.encode("ascii") + b"\n"


def commitment(code: str) -> str:
    """SHA-256 (hex) of the full code string, as published while the day ran
    (PRODUCT.md, "Fair daily deals")."""
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def write_day(
    *, date: str, variant: str, code: str, par: int | None, results: Sequence[Mapping[str, Any]]
) -> bytes:
    """The file's bytes: the header, then ``results`` (each with the fields of
    :data:`RESULT_FIELDS`) in the order given (the leaderboard's)."""
    header = {
        "format": FORMAT,
        "date": date,
        "variant": variant,
        "code": code,
        "commitment": commitment(code),
        "par": par,
        "results": len(results),
    }
    return b"".join(encode_line(record) for record in (header, *results))


@dataclass(frozen=True)
class DayFile:
    """A file read by :func:`read_day`: its header and its result lines as
    (line number, the decoded JSON, or None where the line is not JSON)."""

    header: dict[str, Any]
    lines: tuple[tuple[int, Any], ...]


def read_day(data: bytes) -> DayFile:
    """Split ``data`` into the header and the result lines. Raises
    :class:`DayFileError` when there is no header of this format to go by."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise DayFileError(f"not an ASCII file (byte {exc.start})") from None
    rows = text.splitlines()
    if not rows:
        raise DayFileError("the file is empty")
    try:
        header = json.loads(rows[0])
    except ValueError:
        raise DayFileError("line 1 is not a JSON header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise DayFileError(f'line 1 is not the header of a "{FORMAT}" file')
    lines = tuple((number, _json_or_none(row)) for number, row in enumerate(rows[1:], start=2))
    return DayFile(header=header, lines=lines)


def _json_or_none(row: str) -> Any:
    try:
        return json.loads(row)
    except ValueError:
        return None


@dataclass(frozen=True)
class Problem:
    """One thing of the file that does not hold: ``who`` names the result
    ("rank 3, alice", or "header")."""

    line: int
    who: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.who}: {self.text}"


def _is_int(value: object) -> bool:
    return type(value) is int


def check_header(header: Mapping[str, Any], count: int) -> list[Problem]:
    """The header's own claims: the code hashes to the commitment, it is a deal
    of the variant named, and ``results`` lines follow."""
    problems: list[str] = []
    code, variant = header.get("code"), header.get("variant")
    try:
        dt.date.fromisoformat(str(header.get("date")))
    except ValueError:
        problems.append(f"date {header.get('date')!r} is not a date")
    try:
        parsed = GameCode.parse(code)
    except EngineError as exc:
        problems.append(f"code {code!r} is not a game code: {exc.message}")
    else:
        if parsed.variant_id != variant:
            problems.append(f"code {code} is not a deal of variant {variant!r}")
        if commitment(str(code)) != header.get("commitment"):
            problems.append(
                f"the code does not hash to the commitment {header.get('commitment')!r}"
            )
    if header.get("results") != count:
        problems.append(f"says {header.get('results')!r} results, the file has {count}")
    return [Problem(1, "header", text) for text in problems]


def _result_problems(code: str, result: Mapping[str, Any]) -> Iterator[str]:
    """What does not hold in one result line, replayed from ``code``."""
    missing = sorted(RESULT_FIELDS - set(result))
    if missing:
        yield f"fields missing: {', '.join(missing)}"
        return
    wrong = [f for f in ("rank", "score", "moves", "elapsed_ms") if not _is_int(result[f])]
    if not isinstance(result["won"], bool):
        wrong.append("won")
    if not isinstance(result["actions"], list):
        wrong.append("actions")
    if wrong:
        yield f"fields of the wrong type: {', '.join(wrong)}"
        return
    if result["status"] not in STATUSES:
        yield f"status {result['status']!r} is not a finished game ({', '.join(STATUSES)})"
    elif (result["status"] == "won") != result["won"]:
        yield f"status {result['status']} does not agree with won {str(result['won']).lower()}"
    game = new_game(code)
    last_ms = 0
    for seq, entry in enumerate(result["actions"]):
        if not isinstance(entry, dict) or set(entry) != {"action", "ms"}:
            yield f"action {seq}: not an {{action, ms}} object"
            return
        if not _is_int(entry["ms"]) or not last_ms <= entry["ms"] <= result["elapsed_ms"]:
            yield f"action {seq}: ms {entry['ms']!r} is out of order or past elapsed_ms"
        else:
            last_ms = entry["ms"]
        try:
            game.apply(game.parse_action(entry["action"]))
        except EngineError as exc:
            yield f"action {seq} {json.dumps(entry['action'])} refused: {exc.code}: {exc.message}"
            return
    for name, played in (("score", game.score), ("moves", game.moves), ("won", game.won)):
        if result[name] != played:
            published, made = json.dumps(result[name]), json.dumps(played)
            yield f"published {name} {published}, the actions make {made}"


def _ranking_key(result: Mapping[str, Any]) -> tuple[Any, ...]:
    """RULES.md C11: won before not won, then higher score, shorter time, fewer
    moves, earlier finish."""
    return (
        not result["won"],
        -result["score"],
        result["elapsed_ms"],
        result["moves"],
        dt.datetime.fromisoformat(result["finished_at"]),
    )


def check_ranks(results: Sequence[tuple[int, Mapping[str, Any]]]) -> list[Problem]:
    """Each result ranks after the one above it (C11 on the published values),
    and its rank is the leaderboard's: equal results share a rank, the next
    rank skips as many (1, 2, 2, 4)."""
    problems = []
    previous: tuple[Any, ...] | None = None
    rank = 0
    for position, (line, result) in enumerate(results, start=1):
        try:
            key = _ranking_key(result)
        except (TypeError, ValueError):
            problems.append(Problem(line, _who(result), "finished_at is not an ISO time"))
            previous = None
            continue
        if previous is not None and key < previous:
            problems.append(Problem(line, _who(result), "ranks above the result before it (C11)"))
        rank = rank if previous is not None and key == previous else position
        if result["rank"] != rank:
            problems.append(Problem(line, _who(result), f"rank should be {rank} (C11)"))
        previous = key
    return problems


def _who(result: Any) -> str:
    if not isinstance(result, dict):
        return "a result"
    return f"rank {result.get('rank')}, {result.get('player')}"


def check_day(day: DayFile) -> list[Problem]:
    """Every problem of the file, in line order within the header and the
    results; the ranks are checked over the lines that could be read."""
    problems = check_header(day.header, len(day.lines))
    code = str(day.header.get("code"))
    try:
        GameCode.parse(code)
    except EngineError:
        return problems  # no deal to replay the lines on
    readable = []
    for line, result in day.lines:
        if not isinstance(result, dict):
            problems.append(Problem(line, "a result", "not a JSON object"))
            continue
        found = list(_result_problems(code, result))
        problems += [Problem(line, _who(result), text) for text in found]
        if not found or not found[0].startswith("field"):
            readable.append((line, result))
    problems += check_ranks(readable)
    return sorted(problems, key=lambda problem: problem.line)
