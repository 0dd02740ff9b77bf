"""How many bytes the action log costs (a benchmark, not a test; issue 17).

    python bench/action_log_size.py [--games N] [--players P]

It makes a fresh PostgreSQL database (``patience_bench_size`` on
postgres@127.0.0.1:5432, dropped first and at the end), migrates it (the log
partitioned by month) and plays, in this process through the real action
service (``games.services.attempt_apply_action``: the rows are the ones
production writes), N games of each variant of both games: half of them won
by the solver's line (deals it proves, seeded), half random legal play (as
``bench/api.py`` plays: a legal move or the stock at random, 5 % undo, given
up when stuck or at 200 actions). The games' actions are applied in turn, one
action of each game in round robin, so the key's index sees inserts
interleaved as under real load. Queued jobs are not run (no broker).

Then, after VACUUM ANALYZE, it prints per action: heap, TOAST and index bytes
of the partitions (``pg_table_size``, ``pg_indexes_size``, their total), the
JSON columns' ``pg_column_size`` and the row's; per game: actions per variant,
bytes of its log, and of its attempt row (the engine's saved game); and the
projection at ``P`` players a day (default 100 000) each playing the four
dailies — per day, month and year.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from deploy.processes import create_database, drop_database, migrate, server_env

DB_NAME = "patience_bench_size"
SEED = 20261203
MAX_GAME_ACTIONS = 200
UNDO_CHANCE = 0.05


def setup_django() -> None:
    env = server_env(f"postgres://postgres@127.0.0.1:5432/{DB_NAME}", None, CELERY_EAGER="0")
    migrate(env)
    os.environ.update(env)
    import django

    django.setup()


def solver_lines(variant: str, count: int, rng: random.Random) -> list[tuple[str, list[dict]]]:
    """``count`` (code, winning line) pairs of numbered deals the solver proves."""
    from games.engine import GameCode, new_game, parse_variant, solve
    from games.engine.codes import MAX_DEAL
    from games.engine.solver import Outcome

    game_id, letter = parse_variant(variant)
    found = []
    while len(found) < count:
        code = str(GameCode(game_id, letter, rng.randrange(1, MAX_DEAL)))
        result = solve(new_game(code), nodes=200_000)
        if result.outcome is Outcome.SOLVED:
            found.append((code, [a.to_json() for a in result.line]))
    return found


def random_codes(variant: str, count: int, rng: random.Random) -> list[str]:
    from games.engine import GameCode, parse_variant
    from games.engine.codes import MAX_DEAL

    game_id, letter = parse_variant(variant)
    return [str(GameCode(game_id, letter, rng.randrange(1, MAX_DEAL))) for _ in range(count)]


def random_line(code: str, rng: random.Random) -> list[dict]:
    """Random legal play from the deal, as ``bench/api.py`` plays."""
    from games.engine import new_game

    game = new_game(code)
    line: list[dict] = []
    while len(line) < MAX_GAME_ACTIONS and not game.won:
        if line and rng.random() < UNDO_CHANCE:
            action: dict[str, Any] = {"type": "undo"}
        else:
            moves = list(game.legal_moves)
            if not moves:
                break
            action = rng.choice(moves).to_json()
        game.apply(game.parse_action(action))
        line.append(action)
    return line


def play(games: list[tuple[str, str, list[dict]]]) -> dict[int, tuple[str, str, int]]:
    """Apply every game's actions through the service, one of each game in turn.
    Returns attempt id → (variant, kind, actions)."""
    from accounts.models import User
    from games.services import attempt_apply_action, attempt_resign, attempt_start

    player = User.objects.create_user(username="sizer", password="not used here 1")
    attempts = []
    for variant, kind, code, line in games:
        attempt, _ = attempt_start(player=player, code=code)
        attempts.append((attempt.pk, variant, kind, line))
    for step in range(max(len(line) for *_, line in attempts)):
        for attempt_id, _, _, line in attempts:
            if step < len(line):
                attempt_apply_action(
                    attempt_id=attempt_id, player=player, seq=step, action=line[step]
                )
    for attempt_id, _, kind, _ in attempts:
        if kind == "random":
            with contextlib.suppress(Exception):  # won by chance: already over
                attempt_resign(attempt_id=attempt_id, player=player)
    return {a: (v, k, len(line)) for a, v, k, line in attempts}


def measure(played: dict[int, tuple[str, str, int]], players: int) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        # Insert-only: what autovacuum leaves (the index as interleaved inserts filled it).
        cursor.execute("VACUUM ANALYZE games_action")
        # Updated at every action: its live size, what autovacuum keeps reusing.
        cursor.execute("VACUUM FULL ANALYZE games_attempt")
        # The partitions that hold rows (an empty one costs a few pages, once).
        cursor.execute(
            "SELECT c.relname, pg_table_size(c.oid), pg_indexes_size(c.oid),"
            " pg_total_relation_size(c.oid), pg_relation_size(c.oid),"
            " coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0)"
            " FROM pg_partition_tree('games_action') t JOIN pg_class c ON c.oid = t.relid"
            " WHERE t.isleaf AND pg_relation_size(c.oid) > 0"
        )
        found = cursor.fetchall()
        names = [name for name, *_ in found]
        table, indexes, total, heap, toast = (sum(int(f[i]) for f in found) for i in range(1, 6))
        cursor.execute(
            "SELECT count(*), avg(pg_column_size(sent)), avg(pg_column_size(action)),"
            " avg(pg_column_size(x.*)) FROM games_action x"
        )
        rows, sent, action, row = cursor.fetchone()
        cursor.execute(
            "SELECT pg_total_relation_size('games_attempt'), count(*),"
            " avg(pg_column_size(state)) FROM games_attempt"
        )
        attempt_total, attempts, state = cursor.fetchone()
    dump = subprocess.run(
        ["pg_dump", "-h", "127.0.0.1", "-U", "postgres", "-Fc", "-Z", "6", "--data-only"]
        + [f"--table={name}" for name in names]
        + [DB_NAME],
        capture_output=True,
        check=True,
    ).stdout
    per_action = total / rows
    per_attempt = attempt_total / attempts
    print(f"{rows} actions in {attempts} games ({connection.pg_version // 10000}.x PostgreSQL)")
    print("\nper action (bytes)")
    print(
        f"  heap {heap / rows:.1f} (the row {float(row):.1f}: 32 fixed, jsonb sent "
        f"{float(sent):.1f}, action {float(action):.1f}; + 24 header, 4 line pointer, page slack)"
    )
    maps = (table - heap - toast) / rows
    print(f"  TOAST {toast / rows:.1f}, free space and visibility maps {maps:.1f}")
    print(f"  indexes (the key only) {indexes / rows:.1f}")
    print(f"  total {per_action:.1f}")
    print(f"  cold: pg_dump -Fc (compressed) of the partitions {len(dump) / rows:.1f}")
    print(
        f"\nper game: its attempt row (the engine's saved game {float(state):.0f} B stored) "
        f"{per_attempt:.0f} B with indexes"
    )
    print("  variant  kind    games  actions: mean  median  max   log bytes (mean)")
    means: dict[str, list[float]] = {"won": [], "random": []}
    for variant in sorted({v for v, _, _ in played.values()}):
        for kind in ("won", "random"):
            counts = [n for v, k, n in played.values() if v == variant and k == kind]
            mean, median = statistics.mean(counts), statistics.median(counts)
            means[kind].append(mean)
            print(
                f"  {variant:8} {kind:7} {len(counts):5}  {mean:13.1f}  {median:6.0f}"
                f"  {max(counts):4}   {mean * per_action:10.0f}"
            )
    games_day = players * len(means["won"])  # each player one game of each variant
    print(
        f"\nat {players:,} players a day, each playing the {len(means['won'])} dailies"
        f" ({games_day:,} games; attempt rows {games_day * per_attempt / 1e9:.1f} GB a day):"
    )
    print("  games like         actions a day   log a day   a month    a year")
    for label, kinds in (("the won ones", ["won"]), ("won and random", ["won", "random"])):
        # A player's day: one game of each variant, each the mean of ``kinds``.
        per_player = sum(
            statistics.mean(means[k][i] for k in kinds) for i in range(len(means["won"]))
        )
        actions_day = players * per_player
        day = actions_day * per_action / 1e9
        print(
            f"  {label:16} {actions_day:15,.0f}   {day:6.1f} GB  {day * 30.44:6.0f} GB"
            f"  {day * 365.25 / 1000:5.2f} TB"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="games per variant (half won)")
    parser.add_argument("--players", type=int, default=100_000, help="players a day")
    args = parser.parse_args()
    create_database(DB_NAME)
    try:
        setup_django()
        from games.engine import ALL_VARIANTS

        rng = random.Random(SEED)
        games = []
        for variant in ALL_VARIANTS:
            won = solver_lines(variant, args.games // 2, rng)
            games += [(variant, "won", code, line) for code, line in won]
            for code in random_codes(variant, args.games - args.games // 2, rng):
                games.append((variant, "random", code, random_line(code, rng)))
        measure(play(games), args.players)
    finally:
        from django.db import connections

        connections.close_all()
        drop_database(DB_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
