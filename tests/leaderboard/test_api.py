"""Daily rankings (RULES.md C11) and player records through the HTTP API.

Finished attempts are built through the ORM: the engine and the action path
have their own tests; here only the ranking, paging, anti-cheat on replay links
and the player statistics are in question.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games.models import Attempt, DailyDeal
from games.services import _create_attempt
from tests.support.api import assert_error
from tests.support.results import daily_of, finished, record, streak, user_of

ROW_KEYS = {"rank", "player", "won", "score", "ms", "moves", "verified", "pending", "replay"}
BOARD_KEYS = {
    "date",
    "variant",
    "page",
    "page_size",
    "count",
    "pages",
    "results",
    "me",
    "replays_open",
    "replays_closed_reason",
}
T0 = dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.UTC)
_bulk = itertools.count()


def bulk_user() -> User:
    # Through the ORM: sign-ups over the API are throttled (20 an hour per address).
    return User.objects.create_user(username=f"bulk{next(_bulk)}", password="x")


def board(client: Any, daily: DailyDeal, page: int | None = None) -> dict[str, Any]:
    path = f"/api/leaderboard/{daily.date.isoformat()}/{daily.variant}/"
    response = client.get(path, {"page": page} if page else {})
    assert response.status_code == 200, response.content
    return response.json()


def order(data: dict[str, Any]) -> list[tuple[str, int]]:
    return [(row["player"], row["rank"]) for row in data["results"]]


# --- ranking (RULES.md C11) ----------------------------------------------------


def test_rows_have_the_contract_fields(anon, player):
    daily = daily_of()
    finished(user_of(player), daily, score=321, ms=45_000, moves=77)
    data = board(anon, daily)
    assert set(data) >= BOARD_KEYS
    assert data["date"] == daily.date.isoformat() and data["variant"] == "SH1-C4"
    (row,) = data["results"]
    assert set(row) >= ROW_KEYS
    assert row["player"] == player.username
    assert (row["rank"], row["won"], row["score"], row["ms"], row["moves"]) == (
        1,
        True,
        321,
        45_000,
        77,
    )
    assert row["verified"] is True
    assert data["me"] is None  # anonymous


def test_won_ranks_before_a_higher_score_not_won(anon):
    daily = daily_of()
    loser, winner = bulk_user(), bulk_user()
    finished(loser, daily, won=False, score=900, ms=1_000, moves=10)
    finished(winner, daily, won=True, score=100, ms=90_000, moves=500)
    assert order(board(anon, daily)) == [(winner.username, 1), (loser.username, 2)]


def test_higher_score_ranks_before_a_shorter_time(anon):
    daily = daily_of()
    fast, high = bulk_user(), bulk_user()
    finished(fast, daily, score=500, ms=10_000, moves=50)
    finished(high, daily, score=600, ms=99_000, moves=400)
    assert order(board(anon, daily)) == [(high.username, 1), (fast.username, 2)]


LATER = T0 + dt.timedelta(hours=1)


@pytest.mark.parametrize(
    ("behind", "ahead"),
    [
        pytest.param(
            {"ms": 20_001, "moves": 10, "finished_at": T0},
            {"ms": 20_000, "moves": 90, "finished_at": LATER},
            id="equal-score-shorter-time-first",
        ),
        pytest.param(
            {"ms": 20_000, "moves": 91, "finished_at": T0},
            {"ms": 20_000, "moves": 90, "finished_at": LATER},
            id="equal-time-fewer-moves-first",
        ),
        pytest.param(
            {"ms": 20_000, "moves": 90, "finished_at": T0 + dt.timedelta(1)},
            {"ms": 20_000, "moves": 90, "finished_at": T0},
            id="equal-moves-earlier-finish-first",
        ),
    ],
)
def test_ties_of_score_are_broken_by_time_then_moves_then_finish(anon, behind, ahead):
    """RULES.md C11: the order of a day's equal scores."""
    daily = daily_of()
    second, first = bulk_user(), bulk_user()
    finished(second, daily, score=500, **behind)  # finished first, or as early
    finished(first, daily, score=500, **ahead)
    assert order(board(anon, daily)) == [(first.username, 1), (second.username, 2)]


def test_an_exact_tie_shares_the_rank(anon):
    daily = daily_of()
    worst, tied_a, tied_b, best = (bulk_user() for _ in range(4))
    finished(worst, daily, score=100, ms=5_000, moves=10, finished_at=T0)
    finished(tied_a, daily, score=200, ms=5_000, moves=10, finished_at=T0)
    finished(tied_b, daily, score=200, ms=5_000, moves=10, finished_at=T0)
    finished(best, daily, score=300, ms=5_000, moves=10, finished_at=T0)
    data = board(anon, daily)
    assert [row["rank"] for row in data["results"]] == [1, 2, 2, 4]
    assert data["results"][0]["player"] == best.username
    assert {row["player"] for row in data["results"][1:3]} == {tied_a.username, tied_b.username}
    assert data["results"][3]["player"] == worst.username


def test_playing_attempts_are_not_listed(anon):
    daily = daily_of()
    done, busy = bulk_user(), bulk_user()
    finished(done, daily, score=10)
    _create_attempt(player=busy, deal=daily.deal, daily=daily, ranked=True)  # still playing
    data = board(anon, daily)
    assert order(data) == [(done.username, 1)]
    assert data["count"] == 1


def test_resigned_attempts_rank_below_won_ones(anon):
    daily = daily_of()
    gave_up, won_low = bulk_user(), bulk_user()
    finished(gave_up, daily, won=False, score=999, ms=100, moves=1)
    finished(won_low, daily, won=True, score=1, ms=999_999, moves=999)
    data = board(anon, daily)
    assert order(data) == [(won_low.username, 1), (gave_up.username, 2)]
    assert [row["won"] for row in data["results"]] == [True, False]


def test_failed_verification_is_dropped_and_pending_is_not_verified(anon):
    daily = daily_of()
    ok, pending, cheat = bulk_user(), bulk_user(), bulk_user()
    finished(ok, daily, score=300, verified=True)
    finished(pending, daily, score=200, verified=None)
    finished(cheat, daily, score=999, verified=False)
    data = board(anon, daily)
    assert order(data) == [(ok.username, 1), (pending.username, 2)]
    assert [row["verified"] for row in data["results"]] == [True, False]
    assert [row["pending"] for row in data["results"]] == [False, True]
    assert data["count"] == 2


# --- pagination and the viewer's own row --------------------------------------


def fill(daily: DailyDeal, count: int, *, viewer: User | None = None, viewer_rank: int = 0) -> None:
    """``count`` ranked results with distinct scores: rank r has score 1000 - r."""
    for rank in range(1, count + 1):
        user = viewer if rank == viewer_rank and viewer else bulk_user()
        finished(user, daily, score=1000 - rank, ms=30_000, moves=100)


def test_pages_of_fifty(anon):
    daily = daily_of()
    fill(daily, 55)
    first = board(anon, daily)
    assert (first["count"], first["pages"], first["page"]) == (55, 2, 1)
    assert [row["rank"] for row in first["results"]] == list(range(1, 51))
    second = board(anon, daily, page=2)
    assert (second["count"], second["pages"], second["page"]) == (55, 2, 2)
    assert [row["rank"] for row in second["results"]] == [51, 52, 53, 54, 55]
    assert [row["score"] for row in second["results"]] == [949, 948, 947, 946, 945]


def test_me_has_the_true_rank_off_the_current_page(player):
    daily = daily_of()
    fill(daily, 55, viewer=user_of(player), viewer_rank=53)
    first = board(player, daily)
    assert player.username not in {row["player"] for row in first["results"]}
    assert first["me"] is not None
    assert first["me"]["player"] == player.username
    assert first["me"]["rank"] == 53  # its rank among all rows, not 1
    assert first["me"]["score"] == 947
    second = board(player, daily, page=2)
    assert second["me"]["rank"] == 53
    assert [r["rank"] for r in second["results"] if r["player"] == player.username] == [53]


def test_me_is_null_for_anonymous_and_players_without_a_result(anon, make_player):
    daily = daily_of()
    fill(daily, 3)
    assert board(anon, daily)["me"] is None
    assert board(make_player(), daily)["me"] is None
    still_playing = make_player()
    _create_attempt(player=user_of(still_playing), deal=daily.deal, daily=daily, ranked=True)
    assert board(still_playing, daily)["me"] is None


# --- replay links (PRODUCT.md, anti-cheat: a running daily's replays are for its winners) ---


def assert_closed(data: dict[str, Any]) -> None:
    """No replay link on the board, and a reason saying why."""
    assert data["replays_open"] is False
    reason = data["replays_closed_reason"]
    assert isinstance(reason, str) and reason.strip(), data
    assert all(row["replay"] is None for row in data["results"]), data["results"]
    assert data["me"] is None or data["me"]["replay"] is None, data["me"]


def test_today_no_links_to_others_before_finishing(make_player):
    daily = daily_of()
    other = bulk_user()
    theirs = finished(other, daily, score=500)
    viewer = make_player()
    data = board(viewer, daily)
    assert [row["replay"] for row in data["results"]] == [None]
    assert_closed(data)
    _create_attempt(player=user_of(viewer), deal=daily.deal, daily=daily, ranked=True)  # playing
    data = board(viewer, daily)
    assert [row["replay"] for row in data["results"]] == [None]
    assert_closed(data)
    assert_error(viewer.get(f"/api/games/{theirs.pk}/replay/"), 403, "spoiler")


def test_today_anonymous_sees_no_links(anon):
    daily = daily_of()
    fill(daily, 2)
    data = board(anon, daily)
    assert [row["replay"] for row in data["results"]] == [None, None]
    assert_closed(data)


def test_today_links_for_everyone_once_won(make_player):
    daily = daily_of()
    fill(daily, 2)
    viewer = make_player()
    finished(user_of(viewer), daily, score=1, won=True)
    data = board(viewer, daily)
    assert data["replays_open"] is True and data["replays_closed_reason"] is None
    assert len(data["results"]) == 3
    assert all(row["replay"] for row in data["results"])
    assert data["me"]["replay"] and data["me"]["rank"] == 3
    for row in data["results"]:
        response = viewer.get(row["replay"])
        assert response.status_code == 200, response.content
        replay = response.json()
        assert replay["player"] == row["player"]
        # The day still runs: even its winners' replays name no code.
        assert replay["code"] is None and replay["deal"]["code"] is None
        assert replay["deal"]["daily"] == {"date": daily.date.isoformat(), "variant": "SH1-C4"}


def test_today_resigning_opens_no_links_not_even_ones_own(make_player):
    """A player who resigned (or abandoned) the running daily waits until the day is
    over, like everyone who did not win it: else a second account could resign at
    once and read the deal from a replay (PRODUCT.md, anti-cheat)."""
    daily = daily_of()
    winner = bulk_user()
    theirs = finished(winner, daily, score=500)
    for status in (Attempt.Status.RESIGNED, Attempt.Status.ABANDONED):
        viewer = make_player()
        mine = finished(user_of(viewer), daily, score=1, won=False, status=status)
        data = board(viewer, daily)
        assert data["me"]["player"] == viewer.username and data["me"]["status"] == status
        assert_closed(data)
        for attempt in (theirs, mine):
            for flag in ("", "?positions=1"):
                response = viewer.get(f"/api/games/{attempt.pk}/replay/{flag}")
                assert_error(response, 403, "spoiler")
                assert daily.deal.code not in response.content.decode()


def test_today_finishing_another_variant_opens_no_links(make_player):
    daily = daily_of("SH1-C2")
    fill(daily, 1)
    viewer = make_player()
    finished(user_of(viewer), daily_of("SH1-C4"), score=1)  # won, but another deal
    data = board(viewer, daily)
    assert [row["replay"] for row in data["results"]] == [None]
    assert_closed(data)


def test_past_day_links_for_every_player(make_player):
    daily = daily_of(days_ago=1)
    fill(daily, 2)
    viewer = make_player()  # never played that day
    data = board(viewer, daily)
    assert data["replays_open"] is True and data["replays_closed_reason"] is None
    assert all(row["replay"] for row in data["results"])
    for row in data["results"]:
        response = viewer.get(row["replay"])
        assert response.status_code == 200, response.content
        replay = response.json()
        assert replay["player"] == row["player"]
        # The day is over: its code shows again.
        assert replay["code"] == replay["deal"]["code"] == daily.deal.code


def test_past_day_anonymous_links_are_never_dead(anon):
    """PRODUCT.md: an anonymous request to a game endpoint is 401 or 403, so a
    link shown to an anonymous visitor must still open; none shown is fine."""
    daily = daily_of(days_ago=1)
    fill(daily, 2)
    data = board(anon, daily)
    for row in data["results"]:
        if row["replay"] is not None:
            assert anon.get(row["replay"]).status_code == 200
    if not data["replays_open"]:
        assert_closed(data)


# --- players ---------------------------------------------------------------------


def test_player_record_counts_and_streaks(anon, make_player):
    client = make_player("Streaky_One")
    user = user_of(client)
    eh = {d: daily_of("EH1-N", days_ago=d) for d in range(7)}
    # Easy Harp: wins on D-5, D-4, D-3, D-1 and today; given up on D-2.
    for days_ago, ms, score in ((5, 90_000, 400), (4, 50_000, 420), (3, 70_000, 380)):
        finished(user, eh[days_ago], ms=ms, score=score)
    finished(user, eh[2], won=False, ms=1_000, score=100)
    finished(user, eh[1], ms=80_000, score=410)
    finished(user, eh[0], ms=60_000, score=430)
    # Seahaven C4: a win on D-1 (the same day as an Easy Harp win) and a loss.
    finished(user, daily_of("SH1-C4", days_ago=1), ms=120_000, score=600)
    finished(user, daily_of("SH1-C4", days_ago=3), won=False, ms=5_000, score=100)
    # Not counted: still playing, practice games, a failed replay check.
    _create_attempt(
        player=user, deal=daily_of("SH1-C2").deal, daily=daily_of("SH1-C2"), ranked=True
    )
    practice = _create_attempt(player=user, deal=eh[6].deal, daily=None, ranked=False)
    practice.status, practice.won, practice.score = Attempt.Status.WON, True, 999
    practice.elapsed_ms, practice.finished_at = 1, timezone.now()
    practice.save()
    finished(user, eh[6], ms=10, score=999, verified=False)

    data = record(anon, "streaky_ONE")
    assert data["username"] == "Streaky_One"
    assert (data["played"], data["won"]) == (8, 6)
    assert set(data["variants"]) == {"EH1-N", "SH1-C4"}
    harp = data["variants"]["EH1-N"]
    assert (harp["played"], harp["won"]) == (6, 5)
    assert harp["win_rate"] == pytest.approx(5 / 6, abs=1e-3)
    assert harp["best_ms"] == 50_000  # the fastest won game, not the quick loss
    assert harp["best_score"] == 430
    seahaven = data["variants"]["SH1-C4"]
    assert (seahaven["played"], seahaven["won"], seahaven["best_ms"]) == (2, 1, 120_000)
    assert seahaven["win_rate"] == pytest.approx(0.5)
    assert data["streak"] == streak(2, 3)
    # A failed replay check is no disqualification (fair-play review): none listed.
    assert (data["disqualified"], data["disqualifications"]) == (0, [])


def test_best_score_and_fastest_win_of_one_variant(anon, make_player):
    client = make_player()
    user = user_of(client)
    finished(user, daily_of("SH1-C1", days_ago=1), score=700, ms=40_000)
    finished(user, daily_of("SH1-C1", days_ago=2), score=650, ms=30_000)
    sh1 = record(anon, client.username)["variants"]["SH1-C1"]
    assert (sh1["best_score"], sh1["best_ms"], sh1["win_rate"]) == (700, 30_000, 1.0)


@pytest.mark.parametrize(
    ("wins", "current", "longest"),
    [
        pytest.param(
            [("SH1-C2", 3), ("SH1-C2", 2), ("SH1-C2", 1)], 3, 3, id="ending-yesterday-is-current"
        ),
        pytest.param(
            [("SH1-C2", 6), ("SH1-C2", 4), ("SH1-C2", 2)], 0, 1, id="a-gap-of-two-days-breaks-it"
        ),
        pytest.param(
            [("EH1-N", 1), ("SH1-C4", 0), ("SH1-C1", 0)], 2, 2, id="wins-in-different-variants"
        ),
    ],
)
def test_the_streak_counts_days_won_in_a_row(anon, make_player, wins, current, longest):
    """A streak ending yesterday is current; a gap of two days breaks it; wins in
    different variants make one streak (two on one day count one day)."""
    client = make_player()
    user = user_of(client)
    for variant, days_ago in wins:
        finished(user, daily_of(variant, days_ago=days_ago))
    assert record(anon, client.username)["streak"] == streak(current, longest)


def test_a_player_with_nothing_finished(anon, make_player):
    client = make_player()
    _create_attempt(player=user_of(client), deal=daily_of().deal, daily=daily_of(), ranked=True)
    data = record(anon, client.username)
    assert (data["played"], data["won"], data["variants"]) == (0, 0, {})
    assert data["streak"] == streak(0, 0)
    assert (data["disqualified"], data["disqualifications"]) == (0, [])


def test_unknown_player_is_404_with_the_error_shape(anon):
    response = anon.get("/api/players/nobody_here/")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] and error["message"]
