"""Where a practice of a past daily would have ranked (issue 27, deliverable 4):
``GET /api/leaderboard/would-rank/{game id}/``, on a day's board built through
the ORM (``tests/support/results.py``) so each rank is known: the practice's
rank by the board's own order (RULES.md C11; its finish, after the day, loses a
tie on every other key), of the day's counted results and itself, and the share
of those it beats. Refused, with the error shape, for anything but the player's
own finished practice on a past daily's deal; nothing it reads changes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games.engine import GameCode
from games.models import Attempt, DailyDeal
from games.services import _create_attempt
from tests.support.api import assert_error, legacy_daily_practice
from tests.support.results import daily_of, finished, practised, record, user_of

WOULD_RANK = "/api/leaderboard/would-rank/{}/"


def would_rank(client: Any, attempt: Attempt | int) -> dict[str, Any]:
    response = client.get(WOULD_RANK.format(getattr(attempt, "pk", attempt)))
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def board(make_player) -> DailyDeal:
    """Yesterday's SH1-C4, five counted results (ranks 1 to 5) and four that do not
    count: a disqualified win, a failed replay check, a guest's, a practice."""
    daily = daily_of("SH1-C4", days_ago=1)
    earlier = timezone.now() - dt.timedelta(hours=20)
    rows = (
        {"won": True, "score": 500, "ms": 60_000, "moves": 100},  # 1
        {"won": True, "score": 500, "ms": 90_000, "moves": 100},  # 2
        {"won": True, "score": 400, "ms": 30_000, "moves": 80},  # 3
        {"won": False, "score": 100, "ms": 5_000, "moves": 10},  # 4
        {"won": False, "score": 50, "ms": 1_000, "moves": 3},  # 5
    )
    for row in rows:
        finished(user_of(make_player()), daily, finished_at=earlier, **row)
    gone = finished(user_of(make_player()), daily, score=999, ms=1)
    Attempt.objects.filter(pk=gone.pk).update(disqualified=True)
    finished(user_of(make_player()), daily, score=998, ms=1, verified=False)
    guest = user_of(make_player())
    User.objects.filter(pk=guest.pk).update(is_guest=True)
    finished(guest, daily, score=997, ms=1)
    practised(user_of(make_player()), daily, score=996, ms=1)
    return daily


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        # Better than all: fewer moves than rank 1, level with it before that.
        ({"score": 500, "ms": 60_000, "moves": 90}, (1, 5, 100.0)),
        # Level with rank 2 on won, score, time and moves: its earlier finish wins.
        ({"score": 500, "ms": 90_000, "moves": 100}, (3, 3, 60.0)),
        ({"score": 500, "ms": 89_999, "moves": 200}, (2, 4, 80.0)),
        ({"score": 450, "ms": 1_000_000, "moves": 500}, (3, 3, 60.0)),
        # Not won ranks after every win, whatever its score.
        ({"won": False, "score": 999, "ms": 1, "moves": 1}, (4, 2, 40.0)),
        ({"won": False, "score": 100, "ms": 5_000, "moves": 10}, (5, 1, 20.0)),
        ({"won": False, "score": 0, "ms": 10, "moves": 0}, (6, 0, 0.0)),
    ],
)
def test_rank_and_percentile_on_a_constructed_board(board, make_player, result, expected):
    rank, beaten, percentile = expected
    client = make_player()
    game = practised(user_of(client), board, **result)
    assert would_rank(client, game) == {
        "game": game.pk,
        "date": board.date.isoformat(),
        "variant": "SH1-C4",
        "rank": rank,
        "count": 6,
        "beaten": beaten,
        "percentile": percentile,
        "leaderboard": f"/leaderboard/{board.date.isoformat()}/SH1-C4/",
    }


def test_level_on_every_key_shares_the_rank_and_beats_no_one_level(board, make_player):
    """Finished at the very instant rank 2 did, with its figures: ranked 2 as the
    board's ``Rank()`` would, beating only ranks 3 to 5."""
    client = make_player()
    game = practised(user_of(client), board, score=500, ms=90_000, moves=100)
    second = Attempt.objects.get(daily=board, ranked=True, score=500, elapsed_ms=90_000)
    Attempt.objects.filter(pk=game.pk).update(finished_at=second.finished_at)
    answer = would_rank(client, game)
    assert (answer["rank"], answer["count"], answer["beaten"], answer["percentile"]) == (
        2,
        6,
        3,
        60.0,
    )


def test_the_board_ranks_the_rows_as_the_test_says(board, anon):
    """The constructed board is the board the API shows: five rows, in that order."""
    results = anon.get(f"/api/leaderboard/{board.date}/SH1-C4/").json()["results"]
    assert [(r["rank"], r["score"], r["ms"]) for r in results] == [
        (1, 500, 60_000),
        (2, 500, 90_000),
        (3, 400, 30_000),
        (4, 100, 5_000),
        (5, 50, 1_000),
    ]


def test_the_percentile_is_rounded_down(make_player):
    daily = daily_of("EH1-N", days_ago=2)
    for score in (300, 200, 100):
        finished(user_of(make_player()), daily, won=False, score=score)
    client = make_player()
    game = practised(user_of(client), daily, won=False, score=250)
    answer = would_rank(client, game)
    assert (answer["rank"], answer["count"], answer["beaten"]) == (2, 4, 2)
    assert answer["percentile"] == 66.6  # 2 of 3, rounded down: "better than 66.6%"


def test_a_day_nobody_played(make_player):
    client = make_player()
    game = practised(user_of(client), daily_of("SH1-C1", days_ago=3))
    answer = would_rank(client, game)
    assert (answer["rank"], answer["count"], answer["beaten"], answer["percentile"]) == (
        1,
        1,
        0,
        None,
    )


def test_the_players_own_ranked_result_is_on_the_board_it_is_ranked_against(make_player):
    client = make_player()
    user = user_of(client)
    daily = daily_of("SH1-C2", days_ago=1)
    finished(user, daily, won=False, score=100)
    answer = would_rank(client, practised(user, daily, score=300))
    assert (answer["rank"], answer["count"], answer["percentile"]) == (1, 2, 100.0)


def test_nothing_changes_the_board_or_the_record(board, make_player, anon):
    client = make_player()
    user = user_of(client)
    finished(user, board, won=False, score=50, ms=2_000)
    path = f"/api/leaderboard/{board.date}/SH1-C4/"
    before = (anon.get(path).json(), client.get(path).json(), record(anon, client.username))
    calendar = f"/api/players/{client.username}/calendar/?month={board.date:%Y-%m}"
    before_calendar = anon.get(calendar).json()
    answer = would_rank(client, practised(user, board, score=500, ms=1_000, moves=50))
    assert answer["rank"] == 1
    assert (anon.get(path).json(), client.get(path).json(), record(anon, client.username)) == before
    assert anon.get(calendar).json() == before_calendar
    assert before[2]["streak"]["current"] == 0 and before[2]["won"] == 0


# --- refusals -------------------------------------------------------------------


def test_anonymous_is_refused(board, make_player, anon):
    game = practised(user_of(make_player()), board)
    assert_error(anon.get(WOULD_RANK.format(game.pk)), (401, 403))


def test_another_players_game_is_refused(board, make_player):
    game = practised(user_of(make_player()), board)
    assert_error(make_player().get(WOULD_RANK.format(game.pk)), 403, "not_yours")


def test_no_such_game(make_player):
    assert_error(make_player().get(WOULD_RANK.format(987_654_321)), 404, "not_found")
    assert_error(make_player().get(WOULD_RANK.format(9 * 10**19)), 404)
    for text in ("abc", "-1", "1.5", "%C2%B2", "00x1"):
        response = make_player().get(f"/api/leaderboard/would-rank/{text}/")
        assert_error(response, 404, "not_found")


def test_a_game_going_on_is_refused(board, make_player):
    client = make_player()
    game = _create_attempt(player=user_of(client), deal=board.deal, daily=None, ranked=False)
    error = assert_error(client.get(WOULD_RANK.format(game.pk)), 409, "not_finished")
    assert "finish" in error["message"]


def test_a_ranked_game_is_refused(make_player):
    client = make_player()
    game = finished(user_of(client), daily_of("SH1-C4", days_ago=1))
    assert_error(client.get(WOULD_RANK.format(game.pk)), 400, "ranked")


def test_a_numbered_deal_is_refused(make_player):
    client = make_player()
    started = client.send("/api/games/", {"code": "SH1-C4-AAAAAJ2"})
    assert started.status_code == 201, started.content
    client.send(f"/api/games/{started.json()['id']}/resign/")
    assert_error(client.get(WOULD_RANK.format(started.json()["id"])), 404, "no_daily")


def test_the_same_cards_with_another_cell_count_are_another_board(board, make_player):
    """Yesterday's SH1-C4 key played as SH1-C2: another variant, no day to rank on."""
    client = make_player()
    key = GameCode.parse(board.deal.code).deal
    started = client.send("/api/games/", {"code": f"SH1-C2-{key}"})
    assert started.status_code == 201, started.content
    game = started.json()
    client.send(f"/api/games/{game['id']}/resign/")
    assert_error(client.get(WOULD_RANK.format(game["id"])), 404, "no_daily")


def test_a_practice_of_a_running_daily_is_refused(make_player):
    """Today's deal, practised after the ranked attempt (tied to the daily, as the
    API dealt one before issue 36) or as if by its code (tied to none): refused
    while the day runs, with nothing of the board in the answer."""
    client = make_player()
    user = user_of(client)
    today = daily_of("SH1-C4")
    for score in (700, 100):
        finished(user_of(make_player()), today, score=score)
    ranked = client.send("/api/games/", {"daily": "SH1-C4"}).json()
    client.send(f"/api/games/{ranked['id']}/resign/")
    practice = legacy_daily_practice(client, "SH1-C4")
    client.send(f"/api/games/{practice['id']}/resign/")
    by_code = practised(user, today, score=800)
    for game in (practice["id"], by_code.pk):
        response = client.get(WOULD_RANK.format(game))
        error = assert_error(response, 409, "day_running")
        assert "rank" not in response.json() and "percentile" not in response.content.decode()
        assert set(error) == {"code", "message"}
