"""Where a game went wrong (issue 27, deliverable 1): ``games/analysis.py``, its
task and ``GET /api/games/{id}/analysis/``, against the real database.

The games are built so that the losing move is known
(``tests/support/postmortem.py``): the solver's line for ``k`` moves,
then a move after which the solver proves the deal lost, then a few more. They
are played through the HTTP API — with an undo of the losing move and the
same move again, so that the analysis must name the seq the replay shows, not
the position's index on the line.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games import tasks
from games.analysis import attempt_analyse, day_attempts_to_analyse, standing_seqs
from games.dailies import utc_today
from games.engine import Move, Stock, new_game, replay, solve
from games.engine.solver import Outcome
from games.models import Analysis, Attempt, DailyDeal
from tests.support.api import Client, act, assert_error, legacy_daily_practice, start, win_daily
from tests.support.hidden import prepared
from tests.support.postmortem import HARP, LOST, WON, losing_game, some_moves

pytestmark = pytest.mark.django_db


def play(client: Client, attempt_id: int, actions: list[dict[str, Any]], seq: int = 0) -> int:
    """Play ``actions`` through the API from ``seq``; the next seq."""
    for action in actions:
        response = act(client, attempt_id, seq, action)
        assert response.status_code == 200, (seq, action, response.content)
        seq += 1
    return seq


def with_undo(played: list[Move | Stock], k: int) -> list[dict[str, Any]]:
    """The line as sent: the losing move (``k``), undone, then played again."""
    sent = [a.to_json() for a in played]
    return [*sent[: k + 1], {"type": "undo"}, *sent[k:]]


def losing_on(code: str, line: list[dict[str, Any]]) -> tuple[list[dict], dict, int]:
    """On the deal ``code``: ``line`` (a winning line) for the fewest moves ``k``
    after which a move the solver proves lost leaves play going on, that move,
    then up to three more. Returns (the actions, the losing one, ``k``)."""
    game = new_game(code)
    for k, action in enumerate(line):
        for move in game.legal_moves:
            trial = game.copy()
            trial.apply(move)
            if trial.is_dead_end() or solve(trial, nodes=5_000).outcome is not Outcome.UNWINNABLE:
                continue
            losing = game.apply(move).to_json()
            return [*line[:k], losing, *(m.to_json() for m in some_moves(game, 3))], losing, k
        game.apply(game.parse_action(action))
    raise AssertionError("no losing move along the line")


def close_day(daily: DailyDeal) -> None:
    """The daily's day is over: it is moved to yesterday (as tests/games/test_api_anticheat.py)."""
    DailyDeal.objects.filter(pk=daily.pk).update(date=utc_today() - dt.timedelta(days=1))


def wins_from(view_code: str, before_actions: list[dict[str, Any]], continuation: list) -> bool:
    return replay(view_code, [*before_actions, *continuation]).won


# --- the line and its seqs ------------------------------------------------------------


def test_the_standing_line_skips_undone_actions() -> None:
    m = {"type": "move", "from": "t1", "to": "c1"}
    u = {"type": "undo"}
    assert standing_seqs([m, m, u, m, m, u, u, m]) == [0, 7]
    assert standing_seqs([m, u, m, m]) == [2, 3]
    assert standing_seqs([]) == []


# --- a lost game -----------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 5, 10])
def test_a_lost_game_names_the_losing_move_by_its_seq(player, k: int) -> None:
    played, losing = losing_game(k)
    game = start(player, code=WON)
    sent = with_undo(played, k)
    play(player, game["id"], sent)
    assert player.send(f"/api/games/{game['id']}/resign/").status_code == 200

    found = attempt_analyse(attempt_id=game["id"])
    assert found is not None
    # k moves of the line, the losing one (seq k), its undo (k + 1), the losing one again.
    assert (found.index, found.seq, found.settled) == (k, k + 2, True)
    assert found.losing == losing.to_json() == sent[found.seq]
    assert found.length == len(played) and found.probes >= 1
    assert wins_from(WON, sent[: found.seq], found.continuation)
    # Idempotent: asked again, the stored answer, not a second search.
    again = attempt_analyse(attempt_id=game["id"])
    assert again is not None and again.pk == found.pk
    assert Analysis.objects.count() == 1

    body = player.get(f"/api/games/{game['id']}/analysis/")
    assert body.status_code == 200, body.content
    data = body.json()
    assert data["won"] is False and data["settled"] is True and data["par"] is None
    lost = data["lost"]
    assert (lost["index"], lost["seq"], lost["losing"]) == (k, k + 2, losing.to_json())
    assert lost["from_start"] is False and lost["still_winnable"] is False
    # The position before it is the replay's position at ?move=seq.
    positions = player.get(f"/api/games/{game['id']}/replay/?positions=1").json()["positions"]
    assert lost["before"] == positions[k + 2]
    assert len(lost["positions"]) == len(lost["continuation"]) > 0
    assert lost["positions"][-1]["won"] is True
    assert not any(p["won"] for p in lost["positions"][:-1])
    assert lost["seen"] is None  # Seahaven hides nothing


def test_a_deal_lost_from_its_start_says_so(player) -> None:
    game = start(player, code=LOST)
    moves = [m.to_json() for m in some_moves(new_game(LOST), 3)]
    play(player, game["id"], moves)
    player.send(f"/api/games/{game['id']}/resign/")
    found = attempt_analyse(attempt_id=game["id"])
    assert found is not None
    assert (found.index, found.seq, found.settled, found.continuation) == (None, None, True, [])
    lost = player.get(f"/api/games/{game['id']}/analysis/").json()["lost"]
    assert lost["from_start"] is True and lost["before"] is None and lost["positions"] == []


def test_a_game_resigned_while_winnable_has_no_losing_move(player) -> None:
    line = [a.to_json() for a in solve(new_game(WON)).line]
    game = start(player, code=WON)
    play(player, game["id"], line[:6])
    player.send(f"/api/games/{game['id']}/resign/")
    found = attempt_analyse(attempt_id=game["id"])
    assert found is not None
    assert (found.index, found.seq, found.losing, found.settled) == (6, None, None, True)
    lost = player.get(f"/api/games/{game['id']}/analysis/").json()["lost"]
    assert lost["still_winnable"] is True
    assert lost["positions"][-1]["won"] is True
    assert wins_from(WON, line[:6], lost["continuation"])


def test_an_unsettled_search_is_stored_and_said(player, monkeypatch) -> None:
    played, _ = losing_game(5)
    game = start(player, code=WON)
    play(player, game["id"], [a.to_json() for a in played])
    player.send(f"/api/games/{game['id']}/resign/")
    monkeypatch.setattr("games.analysis.probe_nodes", lambda code: 1)  # no probe can finish
    found = attempt_analyse(attempt_id=game["id"])
    assert found is not None and found.settled is False and found.index is None
    data = player.get(f"/api/games/{game['id']}/analysis/").json()
    assert data["settled"] is False and data["lost"]["from_start"] is False


def test_easy_harp_says_what_the_player_could_see(player) -> None:
    line = [a.to_json() for a in solve(new_game(HARP), nodes=20_000).line]
    game = start(player, code=HARP)
    play(player, game["id"], line[:40])
    player.send(f"/api/games/{game['id']}/resign/")
    found = attempt_analyse(attempt_id=game["id"])
    assert found is not None and found.index == 40 and found.settled
    lost = player.get(f"/api/games/{game['id']}/analysis/").json()["lost"]
    seen = lost["seen"]
    assert seen is not None and seen["face_down"] + seen["stock"] > 0
    before = new_game(HARP)
    for action in line[:40]:
        before.apply(before.parse_action(action))
    assert seen["face_down"] == sum(before.down.values())
    assert seen["stock"] == len(before.piles["s"])
    # The player's own view: each hidden card null; the full view shows every card.
    assert seen["view"]["piles"]["s"] == [None] * seen["stock"]
    assert lost["before"]["piles"]["s"] == [c.text for c in before.piles["s"]]


# --- a won game ------------------------------------------------------------------------


def test_a_win_on_the_par_line_is_at_par(make_player) -> None:
    winner = make_player()
    won = win_daily(winner, "SH1-C4")
    daily = DailyDeal.objects.get(date=utc_today(), variant="SH1-C4")
    assert attempt_analyse(attempt_id=won["id"]) is None  # the day runs
    close_day(daily)
    found = attempt_analyse(attempt_id=won["id"])
    assert found is not None
    assert (found.par, found.over_par, found.seq) == (daily.par, 0, None)
    data = winner.get(f"/api/games/{won['id']}/analysis/").json()
    assert data["lost"] is None
    assert data["par"] == {"par": daily.par, "over_par": 0, "seq": None}


def test_a_win_off_the_par_line_says_where_it_parted(make_player) -> None:
    player = make_player()
    daily = prepared("SH1-C4")
    code, proof = daily.deal.code, daily.proof
    assert proof
    # Three moves of par, one off it (undone: the line is par again), then one
    # more off it that still wins, and the solver's line from there.
    game = new_game(code)
    for action in proof[:3]:
        game.apply(game.parse_action(action))
    off = next(
        m
        for m in game.legal_moves
        if m.to_json() != proof[3] and game.changes_something(m)
        if (t := game.copy()).apply(m) and solve(t, nodes=20_000).outcome is Outcome.SOLVED
    )
    game.apply(off)
    rest = [a.to_json() for a in solve(game, nodes=20_000).line]
    attempt = start(player, daily="SH1-C4")
    sent = [*proof[:3], proof[3], {"type": "undo"}, off.to_json(), *rest]
    body = play(player, attempt["id"], sent)
    assert Attempt.objects.get(pk=attempt["id"]).won, body
    close_day(daily)
    found = attempt_analyse(attempt_id=attempt["id"])
    assert found is not None
    moves = Attempt.objects.get(pk=attempt["id"]).moves
    assert found.seq == 5  # the off-par move after the undo; seq 3 was undone
    assert (found.par, found.over_par) == (daily.par, moves - daily.par)


# --- the day job -----------------------------------------------------------------------


def test_the_day_job_analyses_a_closed_day_and_not_a_running_one(make_player) -> None:
    daily = prepared("SH1-C1")
    loser, winner, practiser = make_player(), make_player(), make_player()
    sent, losing, k = losing_on(daily.deal.code, daily.proof or [])
    lost = start(loser, daily="SH1-C1")
    play(loser, lost["id"], sent)
    loser.send(f"/api/games/{lost['id']}/resign/")
    won = win_daily(winner, "SH1-C1")
    ranked = start(practiser, daily="SH1-C1")
    practiser.send(f"/api/games/{ranked['id']}/resign/")
    practice = legacy_daily_practice(practiser, "SH1-C1")  # dealt before issue 36
    play(practiser, practice["id"], sent[:2])
    practiser.send(f"/api/games/{practice['id']}/resign/")

    # While the day runs: nothing to analyse, nothing analysed, nothing shown.
    assert day_attempts_to_analyse(daily_id=daily.pk) == []
    assert tasks.analyse_day(daily.pk) == 0
    assert tasks.analyse_attempt(lost["id"]) is False
    assert tasks.after_the_day() == 0
    assert not Analysis.objects.exists()

    close_day(daily)
    assert tasks.after_the_day() == 1  # eager: analyse_day, then each game's task
    ids = {lost["id"], won["id"], ranked["id"], practice["id"]}
    assert set(Analysis.objects.values_list("attempt_id", flat=True)) == ids
    found = Analysis.objects.get(attempt_id=lost["id"])
    assert (found.index, found.seq, found.losing, found.settled) == (k, k, losing, True)
    assert Analysis.objects.get(attempt_id=won["id"]).over_par == 0
    # Run again: nothing left to do.
    assert day_attempts_to_analyse(daily_id=daily.pk) == []
    assert tasks.analyse_day(daily.pk) == 0


def test_a_practice_game_on_a_numbered_deal_is_analysed_when_asked_for(player, make_player):
    played, losing = losing_game(3)
    game = start(player, code=WON)
    play(player, game["id"], [a.to_json() for a in played])
    player.send(f"/api/games/{game['id']}/resign/")
    assert not Analysis.objects.exists()  # not as it ends: most are never looked at
    # Asked for: queued (here the task runs in process, so the answer has it at once).
    body = make_player().get(f"/api/games/{game['id']}/analysis/")
    assert body.status_code == 200, body.content
    assert (body.json()["lost"]["index"], body.json()["lost"]["seq"]) == (3, 3)
    found = Analysis.objects.get(attempt_id=game["id"])
    assert found.losing == losing.to_json()


def test_a_daily_game_is_not_analysed_on_demand(make_player) -> None:
    ada = make_player()
    daily = prepared("SH1-C4")
    game = start(ada, daily="SH1-C4")
    ada.send(f"/api/games/{game['id']}/resign/")
    close_day(daily)
    # Over, but the day job has not run: pending, and asking does not queue it.
    assert_error(ada.get(f"/api/games/{game['id']}/analysis/"), 409, "analysis_pending")
    assert not Analysis.objects.exists()
    assert tasks.after_the_day() == 1
    assert ada.get(f"/api/games/{game['id']}/analysis/").status_code == 200


# --- the API's refusals ----------------------------------------------------------------


def test_every_refusal_is_a_clear_4xx(make_player, anon) -> None:
    ada, bob = make_player(), make_player()
    game = start(ada, code=WON)
    path = f"/api/games/{game['id']}/analysis/"
    assert_error(ada.get(path), 409, "not_finished")
    ada.send(f"/api/games/{game['id']}/resign/")
    assert_error(ada.get("/api/games/999999999/analysis/"), 404, "not_found")
    assert ada.get("/api/games/abc/analysis/").status_code == 404
    assert ada.get(f"/api/games/{10**30}/analysis/").status_code == 404
    assert_error(anon.get(path), (401, 403))
    assert_error(ada.send(path, {}), 405)
    # A public deal: replays open to all, and so is its analysis (made when asked for).
    assert ada.get(path).status_code == 200 and bob.get(path).status_code == 200


def test_a_running_daily_is_refused_even_to_its_winner(make_player) -> None:
    loser, winner = make_player(), make_player()
    daily = prepared("SH1-C4")
    lost = start(loser, daily="SH1-C4")
    loser.send(f"/api/games/{lost['id']}/resign/")
    won = win_daily(winner, "SH1-C4")
    # Even stored (as if a job had run early), nothing of it opens while the day runs.
    for attempt in (lost, won):
        Analysis.objects.create(attempt_id=attempt["id"], index=0, settled=True)
    for client in (loser, winner):
        for attempt in (lost, won):
            assert_error(client.get(f"/api/games/{attempt['id']}/analysis/"), 403, "spoiler")
    close_day(daily)
    assert loser.get(f"/api/games/{won['id']}/analysis/").status_code == 200
