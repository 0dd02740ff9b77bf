"""The fair-play review (issue 13, deliverable 6; tests 7c and 7e): the signals
on fixed deals (no database), accounts behind one address and accounts made on
the day, staff's decisions through the services and the Django admin, and a
disqualification reaching the leaderboard's websocket, its REST page and the
player's record. Bots are in ``tests/system/hostile/test_fairplay_bot.py``; why the
tests move a clock instead of sleeping: ``tests/support/fairplay.py``."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import Client as DjangoClient

from accounts.models import User
from games.dailies import utc_today
from games.engine import Game, NeverLooked, new_game, solve
from games.engine.solver import Outcome
from games.fairplay import (
    MIN_TIMED_GAPS,
    Thresholds,
    attempt_disqualify,
    flag_reasons,
    log_signals,
    replayed,
    review_clear,
)
from games.models import Attempt, Review, ReviewDecision
from kit.errors import Conflict, Forbidden, Invalid
from tests.support.api import Client
from tests.support.fairplay import (
    HUMAN_GAPS,
    Clock,
    joined_before_today,
    make_staff,
    own_address,
    play,
    play_a_little_and_resign,
    start_daily,
    today_daily,
    with_undos,
)
from tests.support.sockets import socket_for

DEFAULTS = Thresholds(min_median_ms=250, min_gap_ms=50, same_address=3)
EASY_HARP_DEALS = ("EH1-N-AAAAAAD", "EH1-N-AAAAAAF", "EH1-N-AAAAAAL")
SEAHAVEN_DEAL = "SH1-C4-AAAAAJ2"


@functools.cache
def solver_line(code: str) -> tuple[dict[str, Any], ...]:
    result = solve(new_game(code), nodes=200_000)
    assert result.outcome is Outcome.SOLVED, code
    game = new_game(code)
    return tuple(game.apply(action).to_json() for action in result.line)


def human_ms(count: int) -> list[int]:
    ms, now = [], 3000
    for index in range(count):
        ms.append(now)
        now += int(HUMAN_GAPS[index % len(HUMAN_GAPS)] * 1000)
    return ms


def codes(reasons: list[dict[str, str]]) -> set[str]:
    return {reason["code"] for reason in reasons}


def won_signals(
    code: str, actions: list[dict[str, Any]], ms: list[int], *, proven: bool = True, **extra: Any
) -> dict:
    """The signals of a won game (what ``attempt_signals`` adds from the database),
    on a daily whose proof is the solver's line (not ``proven``: a day with none)."""
    line = list(solver_line(code))
    return {
        **log_signals(code=code, actions=actions, ms=ms, proof=line if proven else None),
        "won": True,
        "moves": sum(a["type"] != "undo" for a in actions),
        "par": len(line),
        **extra,
    }


# --- signals on fixed deals, no database ------------------------------------------------------


def test_the_defaults_are_the_settings():
    from django.conf import settings

    assert Thresholds.from_settings() == DEFAULTS
    # A game's own thresholds are its declaration's (Easy Harp: 8 passes, 75 %).
    assert DEFAULTS.never_looked == {"EH1": NeverLooked(max_passes=8, min_progress=0.75)}
    assert settings.FAIRPLAY_MIN_MEDIAN_MS == 250 and settings.FAIRPLAY_SAME_ADDRESS == 3


def test_timing_signals_and_how_many_gaps_they_need():
    line = list(solver_line(SEAHAVEN_DEAL))
    bot = log_signals(code=SEAHAVEN_DEAL, actions=line, ms=[20 * i for i in range(len(line))])
    assert (bot["median_gap_ms"], bot["min_gap_ms"], bot["gaps"]) == (20, 20, len(line) - 1)
    assert codes(flag_reasons(bot, DEFAULTS)) == {"fast_median", "fast_gap"}

    one_fast_pair = human_ms(len(line))
    one_fast_pair[10] = one_fast_pair[9] + 12
    signals = log_signals(code=SEAHAVEN_DEAL, actions=line, ms=one_fast_pair)
    assert signals["min_gap_ms"] == 12 and signals["median_gap_ms"] >= 1000
    assert codes(flag_reasons(signals, DEFAULTS)) == {"fast_gap"}

    # A game of a few actions says nothing about a pace.
    short = line[:MIN_TIMED_GAPS]
    signals = log_signals(code=SEAHAVEN_DEAL, actions=short, ms=list(range(len(short))))
    assert signals["gaps"] == MIN_TIMED_GAPS - 1
    assert flag_reasons(signals, DEFAULTS) == []


def test_the_solver_line_and_a_win_at_par_without_exploring():
    line = list(solver_line(SEAHAVEN_DEAL))
    exact = won_signals(SEAHAVEN_DEAL, line, human_ms(len(line)))
    assert exact["solver_line"] is True and exact["undos"] == 0
    assert codes(flag_reasons(exact, DEFAULTS)) == {"solver_line", "par_no_exploration"}

    # Two moves taken back and played again: the log is not the proof, what stands is.
    again = with_undos(line, at=(3, 17))
    signals = won_signals(SEAHAVEN_DEAL, again, human_ms(len(again)))
    assert signals["solver_line"] is False and signals["undos"] == 2
    assert signals["moves"] == len(line) + 2 > signals["par"]
    assert (signals["proof_line"], signals["proof_share"]) == ("exact", 1.0)
    [reason] = flag_reasons(signals, DEFAULTS)
    assert reason == {
        "code": "proof_line",
        "text": f"what stayed after its 2 undos (the standing line, {len(line)} actions, par "
        f"{len(line)}) is exactly the daily's proof, every action (stock taps included): the "
        "solver's line, found by a program; 2 actions were tried and taken back on the way",
    }
    # Without a proof (an unproven day) there is nothing to compare with.
    unproven = won_signals(SEAHAVEN_DEAL, again, human_ms(len(again)), proven=False)
    assert unproven["proof_line"] is None and flag_reasons(unproven, DEFAULTS) == []

    # The same line with par unknown (an unproven day): nothing to compare with.
    assert codes(flag_reasons({**exact, "par": None}, DEFAULTS)) == {"solver_line"}


def take_back(game: Game) -> dict[str, Any] | None:
    moves = (m.to_json() for m in game.legal_moves)
    return next((m for m in moves if m.get("from", "").startswith("f")), None)


def test_a_take_back_from_a_foundation_that_stands_is_exploration():
    line = list(solver_line(SEAHAVEN_DEAL))
    game = new_game(SEAHAVEN_DEAL)
    played: list[dict[str, Any]] = []
    rest = list(line)
    while rest:
        game.apply(game.parse_action(rest[0]))
        played.append(rest.pop(0))
        back = take_back(game)
        if back is not None and rest:
            break
    else:
        pytest.fail("no take-back anywhere on the line")
    # Taken back and sent home again by a tap: the take-back stands in the line.
    kept = [*played, back, {"type": "tap", "from": back["to"]}, *rest]
    signals = log_signals(code=SEAHAVEN_DEAL, actions=kept, ms=human_ms(len(kept)))
    assert signals["take_backs"] == 1 and signals["undos"] == 0 and signals["replayed"]
    # Taken back and undone: a detour, which shows nothing on a foundation.
    undone = [*played, back, {"type": "undo"}, *rest]
    signals = log_signals(code=SEAHAVEN_DEAL, actions=undone, ms=human_ms(len(undone)))
    assert signals["take_backs"] == 0 and signals["undos"] == 1 and signals["replayed"]


@pytest.mark.parametrize("code", EASY_HARP_DEALS)
def test_easy_harp_won_without_looking_is_flagged_by_the_defaults(code):
    """The default thresholds catch the solver's own line (which knows every card)
    on fixed deals, also when it is not the daily's proof: one look through the
    stock first makes it another line, off par, still never needing a look."""
    line = list(solver_line(code))
    stock = len(new_game(code).piles["s"])
    looked_once = [{"type": "stock"}] * (stock + 1) + line
    signals = won_signals(code, looked_once, human_ms(len(looked_once)), proven=False)
    assert signals["hidden_cards"] and signals["undos"] == 0
    assert signals["passes"] <= DEFAULTS.never_looked["EH1"].max_passes
    assert signals["progress_share"] >= DEFAULTS.never_looked["EH1"].min_progress
    assert codes(flag_reasons(signals, DEFAULTS)) == {"never_looked"}
    reason = flag_reasons(signals, DEFAULTS)[0]["text"]
    assert "Easy Harp won with no undo taking back a look" in reason
    assert "never needed to look" in reason
    # On a day whose proof it is, its card moves are the proof's too.
    proven = won_signals(code, looked_once, human_ms(len(looked_once)))
    assert proven["proof_line"] == "card_moves"
    assert codes(flag_reasons(proven, DEFAULTS)) == {"never_looked", "proof_line"}
    [text] = [r["text"] for r in flag_reasons(proven, DEFAULTS) if r["code"] == "proof_line"]
    assert text == (
        f"its line ({len(looked_once)} actions, par {len(line)}) makes exactly the daily's "
        "proof's card moves, in its order (only the stock taps differ): the solver's line, "
        "which knows every face-down and stock card"
    )

    # Moves taken back that uncovered nothing are no looking: still flagged.
    first_looks = looks(code, looked_once)
    blind = [i for i, a in enumerate(looked_once) if a["type"] == "move"]
    blind = [i for i in blind if i not in first_looks][:2]
    detoured = with_undos(looked_once, at=blind)
    signals = won_signals(code, detoured, human_ms(len(detoured)), proven=False)
    assert (signals["undos"], signals["look_undos"]) == (2, 0)
    [reason] = flag_reasons(signals, DEFAULTS)
    assert reason["code"] == "never_looked"
    assert "(2 undos of actions that uncovered nothing)" in reason["text"]
    # Whoever takes back a look (a card turned up) now and then: not flagged.
    explored = with_undos(looked_once, at=[i for i in first_looks if i > stock][:2])
    signals = won_signals(code, explored, human_ms(len(explored)), proven=False)
    assert (signals["undos"], signals["look_undos"]) == (2, 2)
    assert flag_reasons(signals, DEFAULTS) == []
    # A lost game is never "perfect play".
    lost = won_signals(code, line[:50], human_ms(50), won=False)
    assert flag_reasons(lost, DEFAULTS) == []


def looks(code: str, actions: list[dict[str, Any]]) -> list[int]:
    """The indices of ``actions`` that showed a hidden card for the first time."""
    return [i for i, played in enumerate(replayed(new_game(code), actions)) if played.shown]


def test_account_and_address_reasons_read_well():
    base = log_signals(code=SEAHAVEN_DEAL, actions=[], ms=[])
    reasons = flag_reasons(
        {
            **base,
            "joined": "2026-12-01",
            "joined_same_day": True,
            "address": "198.51.100.7",
            "same_address_accounts": 3,
        },
        DEFAULTS,
    )
    assert reasons == [
        {"code": "new_account", "text": "account created on 2026-12-01, the daily's own day"},
        {
            "code": "shared_address",
            "text": "3 accounts played this daily from 198.51.100.7 (flagged from 3)",
        },
    ]
    assert flag_reasons({**base, "same_address_accounts": 2, "address": "x"}, DEFAULTS) == []


# --- reviews in the database ------------------------------------------------------------------

db = pytest.mark.django_db(transaction=True)


def review_of(attempt_id: int) -> Review:
    return Review.objects.get(attempt_id=attempt_id)


@db
def test_several_accounts_from_one_address_are_flagged(make_player, clock):
    crowd = [make_player() for _ in range(3)]
    for client in crowd:
        joined_before_today(client)
        client.defaults["REMOTE_ADDR"] = "198.51.100.7"
    elsewhere = make_player()
    joined_before_today(elsewhere)
    own_address(elsewhere)

    first, second = (play_a_little_and_resign(c, clock) for c in crowd[:2])
    assert not review_of(first).flagged and not review_of(second).flagged  # two is a household
    third = play_a_little_and_resign(crowd[2], clock)
    other = play_a_little_and_resign(elsewhere, clock)

    # The third account flags all three (the first two are reviewed again).
    for attempt_id in (first, second, third):
        review = review_of(attempt_id)
        assert Attempt.objects.get(pk=attempt_id).address == "198.51.100.7"
        assert review.reasons == [
            {
                "code": "shared_address",
                "text": "3 accounts played this daily from 198.51.100.7 (flagged from 3)",
            }
        ]
        assert review.signals["same_address_accounts"] == 3
    assert review_of(other).flagged is False
    assert review_of(other).signals["same_address_accounts"] == 1
    # Another day's variant from the same address is another daily: counted apart.
    fourth = play_a_little_and_resign(crowd[0], clock, variant="EH1-N")
    assert review_of(fourth).signals["same_address_accounts"] == 1


def start(client: Client, body: dict[str, Any], **headers: str) -> Any:
    response = client.post("/api/games/", body, format="json", **headers)
    assert response.status_code == 201, response.content
    return response


@db
def test_the_address_is_the_one_the_throttles_see(make_player, settings):
    behind_proxy = make_player()
    forged = make_player()
    practice = make_player()
    # No proxy configured (NUM_PROXIES=0): X-Forwarded-For is the client's to forge.
    forged.defaults["REMOTE_ADDR"] = "192.0.2.44"
    game = start(forged, {"daily": "SH1-C4"}, HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert Attempt.objects.get(pk=game.json()["id"]).address == "192.0.2.44"
    # One proxy in front: the address it appended is believed, not the rest.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    game = start(behind_proxy, {"daily": "SH1-C4"}, HTTP_X_FORWARDED_FOR="10.9.9.9, 203.0.113.9")
    assert Attempt.objects.get(pk=game.json()["id"]).address == "203.0.113.9"
    # Practice games keep no address.
    game = start(practice, {"random": "SH1-C4"})
    assert Attempt.objects.get(pk=game.json()["id"]).address is None


def a_newcomer_and_a_regular(make_player: Any, clock: Clock) -> tuple[Any, Any, int, int]:
    """Two players, each at an address of its own, the second's account made before
    today, who each played a little of today's daily and resigned: the players and
    their attempts' ids."""
    newcomer, regular = make_player(), make_player()
    joined_before_today(regular)
    for client in (newcomer, regular):
        own_address(client)
    return (
        newcomer,
        regular,
        play_a_little_and_resign(newcomer, clock),
        play_a_little_and_resign(regular, clock),
    )


@db
def test_an_account_made_on_the_day_is_flagged(make_player, clock):
    _, _, new_id, old_id = a_newcomer_and_a_regular(make_player, clock)

    review = review_of(new_id)
    assert codes(review.reasons) == {"new_account"}
    assert review.signals["joined_same_day"] is True
    assert review.signals["joined"] == utc_today().isoformat()
    assert review_of(old_id).flagged is False
    # Flagged, still ranked: only staff take a result off the board.
    assert Attempt.objects.get(pk=new_id).disqualified is False


@db
def test_disqualify_needs_a_reason_staff_and_a_finished_ranked_result(make_player, clock):
    player = make_player()
    own_address(player)
    attempt_id = play_a_little_and_resign(player, clock)
    staff = make_staff()

    for reason in ("", "   \n"):
        with pytest.raises(Invalid) as refused:
            attempt_disqualify(attempt_id=attempt_id, staff=staff, reason=reason)
        assert refused.value.code == "reason_required"
        assert "reason" in refused.value.message
    with pytest.raises(Invalid) as refused:
        attempt_disqualify(attempt_id=attempt_id, staff=staff, reason="x" * 501)
    assert refused.value.code == "reason_too_long"
    not_staff = User.objects.get(username=player.username)
    with pytest.raises(Forbidden) as refused:
        attempt_disqualify(attempt_id=attempt_id, staff=not_staff, reason="mine")
    assert refused.value.code == "not_staff"
    playing = start_daily(make_player(), "SH1-C4")  # ranked, still being played
    with pytest.raises(Conflict) as refused:
        attempt_disqualify(attempt_id=playing["id"], staff=staff, reason="too early")
    assert refused.value.code == "not_reviewable"
    assert not Attempt.objects.filter(disqualified=True).exists()
    assert not ReviewDecision.objects.exists()

    # Twice is once: one decision stored, the first reason kept.
    attempt_disqualify(attempt_id=attempt_id, staff=staff, reason="solver line")
    attempt_disqualify(attempt_id=attempt_id, staff=staff, reason="again")
    [decision] = ReviewDecision.objects.all()
    assert (decision.decision, decision.reason, decision.staff_username) == (
        "disqualified",
        "solver line",
        "referee",
    )
    # Clearing puts it back (logged too); clearing again changes nothing.
    review_clear(attempt_id=attempt_id, staff=staff)
    review_clear(attempt_id=attempt_id, staff=staff)
    assert Attempt.objects.get(pk=attempt_id).disqualified is False
    assert [d.decision for d in ReviewDecision.objects.all()] == ["disqualified", "cleared"]


def admin_client(staff: User) -> DjangoClient:
    client = DjangoClient()
    client.force_login(staff)
    return client


ADMIN = f"/{settings.ADMIN_PATH}"
CHANGELIST = f"{ADMIN}games/review/"


def disqualify(admin: DjangoClient, review_id: int, reason: str) -> Any:
    """The queue's Disqualify action on one review, confirmed with ``reason``."""
    body = {"action": "disqualify", "_selected_action": [review_id], "apply": "1", "reason": reason}
    return admin.post(CHANGELIST, body)


@db
def test_the_admin_review_queue_disqualifies_with_a_reason_and_clears(make_player, clock):
    flagged_player, fine_player, flagged_id, fine_id = a_newcomer_and_a_regular(make_player, clock)
    flagged, fine = review_of(flagged_id), review_of(fine_id)
    staff = make_staff()
    admin = admin_client(staff)

    # The queue: flagged and undecided, with the reasons and links to the evidence.
    page = admin.get(CHANGELIST, {"flagged__exact": "1", "decision": "undecided"})
    assert page.status_code == 200
    text = page.content.decode()
    assert flagged_player.username in text and fine_player.username not in text
    assert "the daily&#x27;s own day" in text or "the daily's own day" in text
    assert f"{ADMIN}games/attempt/{flagged_id}/change/" in text
    detail = admin.get(f"{CHANGELIST}{flagged.pk}/change/").content.decode()
    assert f"/replay/{flagged_id}/" in detail and "joined_same_day" in detail

    # "Disqualify" asks for a reason on a page of its own.
    ask = admin.post(
        CHANGELIST, {"action": "disqualify", "_selected_action": [flagged.pk], "index": "0"}
    )
    assert ask.status_code == 200
    assert b'name="reason"' in ask.content and b'name="apply"' in ask.content
    # An empty reason is refused there, clearly, and nothing happens.
    empty = admin.post(
        CHANGELIST,
        {"action": "disqualify", "_selected_action": [flagged.pk], "apply": "1", "reason": " "},
    )
    assert empty.status_code == 200
    assert b"Give a reason" in empty.content and b"This field is required" in empty.content
    assert Attempt.objects.get(pk=flagged_id).disqualified is False
    # With a reason: done, logged with the staff user, back to the queue.
    done = disqualify(admin, flagged.pk, "Second account of a banned player")
    assert done.status_code == 302
    assert Attempt.objects.get(pk=flagged_id).disqualified is True
    review = review_of(flagged_id)
    assert review.decision == "disqualified" and review.decided_by == staff
    assert review.decision_reason == "Second account of a banned player"
    [decision] = review.decisions.all()
    assert decision.staff == staff and decision.staff_username == "referee"

    # "Clear" on the other: reviewed, fine; it stays on the board.
    cleared = admin.post(
        CHANGELIST, {"action": "clear", "_selected_action": [fine.pk], "index": "0"}
    )
    assert cleared.status_code == 302
    assert review_of(fine_id).decision == "cleared"
    assert Attempt.objects.get(pk=fine_id).disqualified is False
    undecided = admin.get(CHANGELIST, {"decision": "undecided"}).content.decode()
    assert flagged_player.username not in undecided and fine_player.username not in undecided

    # Someone without staff rights gets the admin's sign-in page, and changes nothing.
    stranger = DjangoClient()
    stranger.force_login(User.objects.get(username=fine_player.username))
    refused = stranger.post(
        CHANGELIST, {"action": "clear", "_selected_action": [flagged.pk], "index": "0"}
    )
    assert refused.status_code == 302 and f"{ADMIN}login/" in refused["Location"]
    assert review_of(flagged_id).decision == "disqualified"


# --- 7e: a disqualification reaches the live leaderboard ---------------------------------------


def board(client: Any) -> list[dict[str, Any]]:
    response = client.get(f"/api/leaderboard/{utc_today().isoformat()}/SH1-C4/")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def three_finishers(make_player: Any, clock: Clock) -> tuple[Any, Any, Any]:
    """cheat wins fast like a script (first), bea wins at a person's pace
    (second), cal resigns (third)."""
    daily = today_daily("SH1-C4")
    cheat, bea, cal = make_player(), make_player(), make_player()
    for client in (cheat, bea, cal):
        joined_before_today(client)
        own_address(client)
    game = start_daily(cheat, "SH1-C4")
    play(cheat, game["id"], daily.proof, clock, gaps=(0.02,), first=1.0)
    game = start_daily(bea, "SH1-C4")
    play(bea, game["id"], with_undos(daily.proof, at=(4, 9)), clock, gaps=HUMAN_GAPS)
    play_a_little_and_resign(cal, clock)
    return cheat, bea, cal


@pytest.mark.asyncio
@db
async def test_disqualifying_a_result_updates_the_leaderboard_live(make_player, monkeypatch):
    clock = Clock(monkeypatch)
    cheat, bea, cal = await sync_to_async(three_finishers)(make_player, clock)
    cheat_attempt = await Attempt.objects.aget(player__username=cheat.username)
    review = await Review.objects.aget(attempt=cheat_attempt)
    assert review.flagged and {"fast_median", "fast_gap"} <= codes(review.reasons)

    # Nothing is automatic: flagged, the result still leads the board.
    rows = await sync_to_async(board)(bea)
    assert [(r["rank"], r["player"]) for r in rows] == [
        (1, cheat.username),
        (2, bea.username),
        (3, cal.username),
    ]

    sock = socket_for(f"/ws/leaderboard/{utc_today().isoformat()}/SH1-C4/")
    connected, _ = await sock.connect()
    assert connected
    assert (await sock.recv())["type"] == "subscribed"
    staff = await sync_to_async(make_staff)()
    admin = await sync_to_async(admin_client)(staff)
    try:
        response = await sync_to_async(disqualify)(
            admin, review.pk, "Replayed the solver's line at 20 ms a move"
        )
        assert response.status_code == 302
        event = await sock.recv()
        assert event == {
            "type": "removed",
            "date": utc_today().isoformat(),
            "variant": "SH1-C4",
            "count": 2,
            "player": cheat.username,
        }
        assert await sock.receive_nothing(timeout=0.3)

        # The REST board no longer lists it; the ranks below moved up.
        rows = await sync_to_async(board)(bea)
        assert [(r["rank"], r["player"]) for r in rows] == [(1, bea.username), (2, cal.username)]
        # The player's record shows it.
        record = (await sync_to_async(bea.get)(f"/api/players/{cheat.username}/")).json()
        assert record["disqualified"] == 1 and record["played"] == 0
        assert record["disqualifications"] == [
            {
                "date": utc_today().isoformat(),
                "variant": "SH1-C4",
                "reason": "Replayed the solver's line at 20 ms a move",
            }
        ]
        # The decision names the staff user.
        decision = await ReviewDecision.objects.aget(review=review)
        assert (decision.decision, decision.staff_id, decision.staff_username) == (
            "disqualified",
            staff.pk,
            "referee",
        )

        # Cleared after all: back on the board, announced like a finish.
        await sync_to_async(review_clear)(attempt_id=cheat_attempt.pk, staff=staff)
        event = await sock.recv()
        assert event["type"] == "rows" and event["count"] == 3
        assert [(r["rank"], r["player"]) for r in event["rows"]] == [(1, cheat.username)]
    finally:
        await sock.disconnect()
