"""``/ws/games/{id}/`` against games/websocket.md: playing, watching, refusals,
resends, reconnects, malformed frames, close codes and hidden information.

Every message any socket of these tests receives goes through :class:`Checked`,
which fails the test on a face-down or stock card (PRODUCT.md, anti-cheat).
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
from typing import Any

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async

from games.dailies import daily_deal_get, daily_deal_prepare, utc_today
from games.engine import Game, GameCode, Move, Stock, new_game
from games.models import Action, Attempt
from tests.support.api import legacy_daily_practice
from tests.support.search import find_win
from tests.support.sockets import (
    ORIGIN,
    Socket,
    assert_hidden,
    http_resign,
    new_player,
    socket_for,
    start,
    without_targets,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

WIN_CODE = "SH1-C4-AAAAAAE"  # tests/support/search.py wins it at once: 96 actions, 520 points
FIRST = {"type": "move", "from": "t4", "to": "f3", "count": 1}  # AD home: legal at the start
WRONG_BUILD = {"type": "move", "from": "t1", "to": "t2", "count": 1}  # 2D onto 4H
EVIL = (b"origin", b"http://evil.example")
CARD = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")


@functools.cache
def win_line() -> tuple[Move | Stock, ...]:
    line = find_win(WIN_CODE)
    assert line is not None
    return tuple(line)


# --- hidden information, checked on every message ------------------------------------------


class Checked(Socket):
    """A JSON socket that checks every message it receives for hidden cards."""

    received: list[dict[str, Any]]

    async def recv(self, timeout: float = 3) -> dict[str, Any]:
        message = await super().recv(timeout)
        assert_hidden(message)
        self.__dict__.setdefault("received", []).append(message)
        return message


@pytest_asyncio.fixture
async def sockets():
    """``open(path, client, origin)`` → a :class:`Checked` socket, closed at teardown."""
    opened: list[Socket] = []

    def open_socket(path: str, client: Any = None, origin: tuple[bytes, bytes] = ORIGIN):
        sock = socket_for(path, client, origin)
        sock.__class__ = Checked  # same communicator, only recv() checks more
        opened.append(sock)
        return sock

    yield open_socket
    # At once: closing a socket can wait a moment on the channel layer.
    await asyncio.gather(*(sock.disconnect() for sock in opened), return_exceptions=True)


# --- helpers -------------------------------------------------------------------------------


@sync_to_async
def stored(attempt_id: int) -> dict[str, Any]:
    """Everything the database holds about an attempt that an action could change."""
    a = Attempt.objects.get(pk=attempt_id)
    return {
        "status": a.status,
        "seq": a.seq,
        "state": a.state,
        "score": a.score,
        "moves": a.moves,
        "updated_at": a.updated_at,
        "actions": Action.objects.filter(attempt_id=attempt_id).count(),
    }


async def watch(sockets: Any, attempt_id: int, client: Any) -> Checked:
    """Connect to a game; the snapshot comes first (kept as ``.snapshot``)."""
    sock = sockets(f"/ws/games/{attempt_id}/", client)
    connected, _ = await sock.connect()
    assert connected
    first = await sock.recv()
    assert first["type"] == "snapshot", first
    assert first["v"] == first["game"]["seq"]
    sock.snapshot = first
    return sock


async def refused_with(
    sockets: Any, path: str, client: Any, code: int, error: str | None = None
) -> None:
    """websocket.md, close codes: accept, then close with ``code``; a game socket
    refused with 4403 or 4404 first sends one ``error`` saying why (``error``)."""
    sock = sockets(path, client)
    assert await sock.connect() == (True, None)
    if error is not None:
        error_of(await sock.recv(), error)
    assert await sock.receive_output(timeout=3) == {"type": "websocket.close", "code": code}


async def act(sock: Checked, seq: int, action: dict[str, Any]) -> dict[str, Any]:
    """Send one action; the sender gets its ``ack`` (and not the ``state`` event: the
    next message, if any, is checked by the next call)."""
    await sock.send({"seq": seq, "action": action})
    ack = await sock.recv()
    assert ack["type"] == "ack", ack
    assert ack["seq"] == seq and ack["v"] == seq + 1, ack
    return ack


def error_of(message: dict[str, Any], code: str) -> dict[str, Any]:
    assert message["type"] == "error", message
    error = message["error"]
    assert error["code"] == code, message
    assert isinstance(error["message"], str) and error["message"], message
    return error


def as_spectator(game: dict[str, Any]) -> dict[str, Any]:
    """The player's game as a spectator gets it: no ``targets``, no ``finish``."""
    return {**game, "view": {**game["view"], "targets": [], "finish": []}}


# --- playing to a win ----------------------------------------------------------------------


async def test_a_practice_game_played_to_a_win_over_the_socket(make_player, sockets):
    alice = await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    sock = await watch(sockets, attempt["id"], alice)
    assert sock.snapshot["v"] == 0
    game = new_game(WIN_CODE)
    ack: dict[str, Any] = {}
    for seq, action in enumerate(win_line()):
        assert ack.get("game", {"status": "playing"})["status"] == "playing"
        ack = await act(sock, seq, action.to_json())
        assert ack["duplicate"] is False
        game.apply(action)
        assert without_targets(ack["game"]["view"]) == game.view()
    assert game.won
    final = ack["game"]
    assert final["status"] == "won" and final["won"] is True
    assert final["score"] == 520 and final["view"]["score"] == 520
    assert final["seq"] == ack["v"] == len(win_line())
    assert final["view"]["targets"] == []

    db = await stored(attempt["id"])
    assert (db["status"], db["seq"], db["actions"]) == ("won", len(win_line()), len(win_line()))

    # Nothing more: no action (undo neither), no resignation.
    await sock.send({"seq": len(win_line()), "action": {"type": "undo"}})
    error_of(await sock.recv(), "finished")
    await sock.send({"seq": len(win_line()), "action": FIRST})
    error_of(await sock.recv(), "finished")
    await sock.send({"type": "resign"})
    error_of(await sock.recv(), "finished")
    assert await sock.receive_nothing(timeout=0.3)
    assert await stored(attempt["id"]) == db


# --- watching --------------------------------------------------------------------------------


async def test_a_spectator_sees_every_state_in_order_and_cannot_act(make_player, sockets):
    alice, bob, carol = [await new_player(make_player) for _ in range(3)]
    attempt = await start(alice, code=WIN_CODE)
    elsewhere = await start(carol, code="SH1-C4-AAAAAJ2")
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    other = await watch(sockets, elsewhere["id"], carol)  # another game: hears nothing of this
    assert watcher.snapshot["v"] == 0
    assert without_targets(watcher.snapshot["game"]["view"]) == new_game(WIN_CODE).view()

    line = [a.to_json() for a in win_line()]
    actions = [*line[:12], {"type": "undo"}, *line[11:20]]
    game = new_game(WIN_CODE)
    expected = []
    for seq, action in enumerate(actions):
        await act(player, seq, action)
        game.apply_json(action)
        expected.append(game.view())

    seen = [await watcher.recv() for _ in actions]
    assert [m["type"] for m in seen] == ["state"] * len(actions)
    assert [m["v"] for m in seen] == list(range(1, len(actions) + 1))
    for message, view in zip(seen, expected, strict=True):
        assert without_targets(message["game"]["view"]) == view
        assert message["game"]["id"] == attempt["id"]
        assert message["game"]["seq"] == message["v"]
    assert await watcher.receive_nothing(timeout=0.3)  # no ack, no duplicate event

    # The spectator asks for a snapshot: the current state.
    await watcher.send({"type": "snapshot"})
    snap = await watcher.recv()
    assert snap["type"] == "snapshot" and snap["v"] == len(actions)
    assert without_targets(snap["game"]["view"]) == game.view()

    # A spectator's action or resignation is refused, to them only, and changes nothing.
    before = await stored(attempt["id"])
    nxt = line[20]
    for frame in (
        {"seq": len(actions), "action": nxt},
        {"type": "action", "seq": len(actions), "action": nxt},
        {"type": "resign"},
    ):
        await watcher.send(frame)
        error_of(await watcher.recv(), "spectator")
    assert await player.receive_nothing(timeout=0.3)
    assert await watcher.receive_nothing(timeout=0.1)
    assert await stored(attempt["id"]) == before

    # The player resigns: the spectator hears it.
    await player.send({"type": "resign"})
    reply = await player.recv()
    assert reply["type"] == "ack" and reply["game"]["status"] == "resigned"
    resigned = await watcher.recv()
    assert resigned["type"] == "state" and resigned["game"]["status"] == "resigned"
    assert resigned["game"]["view"]["targets"] == []

    assert await other.receive_nothing(timeout=0.1)
    assert (await stored(attempt["id"]))["status"] == "resigned"


async def test_a_client_following_the_version_rule_learns_of_a_resignation(make_player, sockets):
    """websocket.md, Versions: keep the highest ``v``, drop a ``state`` or ``ack`` below it,
    let one with the same ``v`` replace what you have. A client doing exactly that (the
    player and a spectator) sees the resignation, which keeps the last action's ``v``."""
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    await act(player, 0, FIRST)
    await player.send({"type": "resign"})
    player_msgs = [await player.recv()]
    watcher_msgs = [await watcher.recv(), await watcher.recv()]

    def follow(snapshot: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        highest, status = snapshot["v"], snapshot["game"]["status"]
        for message in messages:
            if message["type"] in ("state", "ack") and message["v"] >= highest:
                highest, status = message["v"], message["game"]["status"]
        return status

    assert (await stored(attempt["id"]))["status"] == "resigned"
    assert follow(watcher.snapshot, watcher_msgs) == "resigned", watcher_msgs
    assert follow(player.snapshot, player.received[1:]) == "resigned", player_msgs


async def test_a_stranger_cannot_watch_todays_daily_until_they_won_theirs(make_player, sockets):
    alice, bob, eve, wendy = [await new_player(make_player) for _ in range(4)]
    today = utc_today()
    proof = (await sync_to_async(daily_deal_prepare)(date=today, variant="SH1-C4")).proof
    assert proof  # proven: Wendy can win it
    daily = await start(alice, daily="SH1-C4")
    harp = await start(alice, daily="EH1-N")
    assert daily["ranked"] is True
    # While the day runs nothing names the deal: the game says which day and variant.
    assert daily["code"] is None and daily["view"]["code"] is None
    assert daily["view"]["daily"] == {"date": today.isoformat(), "variant": "SH1-C4"}
    path = f"/ws/games/{daily['id']}/"
    player = await watch(sockets, daily["id"], alice)  # the player always may
    snapshot = player.snapshot["game"]
    assert snapshot["code"] is None and snapshot["view"]["code"] is None

    # Eve finishes her own ranked attempt (resigns), and has a practice of the same
    # cards with 2 cells, dealt before issue 36 closed running dailies to practice
    # (the API refuses it now). The daily's code, read where only the server has it.
    eve_daily = await start(eve, daily="SH1-C4")
    await http_resign(eve, eve_daily["id"])
    code = await sync_to_async(lambda: daily_deal_get(date=today, variant="SH1-C4").deal.code)()
    same_cards = str(GameCode.parse(code).same_cards()[1])
    assert same_cards.startswith("SH1-C2-")
    refused = await sync_to_async(eve.send)("/api/games/", {"code": same_cards})
    assert refused.status_code == 409, refused.content
    practice = await sync_to_async(legacy_daily_practice)(eve, "SH1-C4", same_cards)
    assert practice["ranked"] is False and practice["code"] is None
    spoilers = [path, f"/ws/games/{practice['id']}/"]

    # Bob has not started today's SH1-C4: refused; started but playing: refused.
    for target in spoilers:
        await refused_with(sockets, target, bob, 4403, "spoiler")
    bob_daily = await start(bob, daily="SH1-C4")
    for target in spoilers:
        await refused_with(sockets, target, bob, 4403, "spoiler")

    # Bob resigns his own daily over his game socket: that finishes it, and opens nothing.
    own = await watch(sockets, bob_daily["id"], bob)
    await own.send({"type": "resign"})
    reply = await own.recv()
    assert reply["type"] == "ack" and reply["game"]["status"] == "resigned"
    for target in spoilers:
        await refused_with(sockets, target, bob, 4403, "spoiler")
    # Eve resigned too: Alice's game waits for the day to end (her own practice she plays).
    await refused_with(sockets, path, eve, 4403, "spoiler")
    await watch(sockets, practice["id"], eve)

    # Wendy wins hers over her game socket: she has seen every card, so she may watch.
    mine = await start(wendy, daily="SH1-C4")
    sock = await watch(sockets, mine["id"], wendy)
    for seq, action in enumerate(proof):
        ack = await act(sock, seq, action)
    assert ack["game"]["status"] == "won" and ack["game"]["code"] is None

    watcher = await watch(sockets, daily["id"], wendy)
    assert watcher.snapshot["v"] == 0 and watcher.snapshot["game"]["player"] == alice.username
    assert watcher.snapshot["game"]["code"] is None
    assert watcher.snapshot["game"]["view"]["daily"] == daily["view"]["daily"]
    await watch(sockets, practice["id"], wendy)
    # Winning the SH1-C4 daily says nothing about today's EH1-N.
    await refused_with(sockets, f"/ws/games/{harp['id']}/", wendy, 4403, "spoiler")

    # Wendy now follows Alice's moves.
    target = daily["view"]["targets"][0]
    move = {"type": "move", "from": target["from"], "to": target["to"][0], "count": 1}
    await act(player, 0, move)
    state = await watcher.recv()
    assert state["type"] == "state" and state["v"] == 1
    assert state["game"]["code"] is None and state["game"]["view"]["code"] is None


# --- refusals, resends, reconnects -------------------------------------------------------


async def test_refusals_reach_only_the_sender(make_player, sockets):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    before = await stored(attempt["id"])

    await player.send({"seq": 0, "action": WRONG_BUILD})
    refused = await player.recv()
    error_of(refused, "wrong_build")
    assert refused["seq"] == 0
    await player.send({"seq": 5, "action": FIRST})
    conflict = error_of(await player.recv(), "seq_conflict")
    assert conflict["seq"] == 0
    await player.send({"seq": 0, "action": {"type": "undo"}})
    error_of(await player.recv(), "no_undo")
    await player.send({"seq": 0, "action": {"type": "stock"}})
    error_of(await player.recv(), "no_stock")

    assert await watcher.receive_nothing(timeout=0.3)
    assert await player.receive_nothing(timeout=0.1)
    assert await stored(attempt["id"]) == before

    # ... and the game goes on.
    await act(player, 0, FIRST)
    assert (await watcher.recv())["v"] == 1


async def test_the_sender_gets_its_ack_and_every_other_socket_the_state(make_player, sockets):
    """websocket.md: a ``state`` goes to every socket on the game but the one whose
    message made the change — its ``ack`` carries the same game. The player's other
    tab hears it like a spectator; an action over HTTP reaches every socket."""
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    player = await watch(sockets, attempt["id"], alice)
    tab = await watch(sockets, attempt["id"], alice)  # the same player, another tab
    watcher = await watch(sockets, attempt["id"], bob)
    line = [a.to_json() for a in win_line()]

    ack = await act(player, 0, line[0])
    for other in (tab, watcher):
        state = await other.recv()
        assert state["type"] == "state" and state["v"] == 1, state
        assert ack["game"]["view"]["targets"]
        assert state["game"] == (ack["game"] if other is tab else as_spectator(ack["game"]))
    assert await player.receive_nothing(timeout=0.3)

    # The tab plays the next one: now the first socket hears it, the tab only its ack.
    ack = await act(tab, 1, line[1])
    assert await player.recv() == {"type": "state", "v": 2, "game": ack["game"]}
    assert await watcher.recv() == {"type": "state", "v": 2, "game": as_spectator(ack["game"])}
    assert await tab.receive_nothing(timeout=0.3)

    # Over HTTP no socket sent it: all three hear it.
    response = await sync_to_async(alice.send)(
        f"/api/games/{attempt['id']}/actions/", {"seq": 2, "action": line[2]}
    )
    assert response.status_code == 200, response.content
    for sock in (player, tab, watcher):
        state = await sock.recv()
        assert state["type"] == "state" and state["v"] == 3, state
        game = response.json() if sock is not watcher else as_spectator(response.json())
        assert state["game"]["view"] == game["view"]

    # A resignation from the tab: its ack; the others the finished game.
    await tab.send({"type": "resign"})
    reply = await tab.recv()
    assert reply["type"] == "ack" and reply["game"]["status"] == "resigned"
    for other in (player, watcher):
        state = await other.recv()
        assert state["type"] == "state" and state["game"]["status"] == "resigned"
    for sock in (player, tab, watcher):
        assert await sock.receive_nothing(timeout=0.2)


async def test_a_resent_action_is_applied_once(make_player, sockets):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)

    await player.send({"seq": 0, "action": FIRST})
    await player.send({"seq": 0, "action": FIRST})
    acks = [await player.recv() for _ in range(2)]
    assert [a["type"] for a in acks] == ["ack", "ack"], acks
    assert [a["duplicate"] for a in acks] == [False, True]
    assert all(a["seq"] == 0 and a["v"] == 1 for a in acks)
    assert acks[0]["game"]["view"] == acks[1]["game"]["view"]
    assert await player.receive_nothing(timeout=0.3)

    assert (await watcher.recv())["v"] == 1
    assert await watcher.receive_nothing(timeout=0.1)
    db = await stored(attempt["id"])
    assert db["seq"] == 1 and db["actions"] == 1

    # Another action at an old seq is a conflict naming the current seq.
    await player.send({"seq": 0, "action": win_line()[1].to_json()})
    message = await player.recv()
    assert error_of(message, "seq_conflict")["seq"] == 1
    assert message["seq"] == 0
    assert await watcher.receive_nothing(timeout=0.3)
    assert await stored(attempt["id"]) == db


async def test_reconnecting_gives_the_current_snapshot(make_player, sockets):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    sock = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    game = new_game(WIN_CODE)
    for seq, action in enumerate(win_line()[:5]):
        await act(sock, seq, action.to_json())
        game.apply(action)
    # Once a spectator has heard the last state, no event of these actions is still
    # on its way (a late one would reach the new socket, which is not their sender).
    assert [(await watcher.recv())["v"] for _ in range(5)] == [1, 2, 3, 4, 5]
    await sock.disconnect()

    again = await watch(sockets, attempt["id"], alice)
    assert again.snapshot["v"] == 5 == (await stored(attempt["id"]))["actions"]
    assert without_targets(again.snapshot["game"]["view"]) == game.view()
    assert again.snapshot["game"]["view"]["targets"] == game.targets_json()

    # The action in flight when the connection dropped, sent again: not applied twice.
    await again.send({"seq": 4, "action": win_line()[4].to_json()})
    dup = await again.recv()
    assert dup["type"] == "ack" and dup["duplicate"] is True and dup["v"] == 5
    assert await again.receive_nothing(timeout=0.3)
    ack = await act(again, 5, win_line()[5].to_json())
    assert ack["duplicate"] is False and ack["v"] == 6


async def test_snapshot_and_ping_are_answered(make_player, sockets):
    alice, bob = await new_player(make_player), await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    await act(player, 0, FIRST)
    assert (await watcher.recv())["v"] == 1
    for sock in (player, watcher):
        await sock.send({"type": "ping"})
        assert await sock.recv() == {"type": "pong"}
        await sock.send({"type": "snapshot"})
        snap = await sock.recv()
        assert snap["type"] == "snapshot" and snap["v"] == 1 and snap["game"]["seq"] == 1
    # Under 64 KiB (60 000 bytes of UTF-8) is no error; extra fields of a ping are ignored.
    await player.send_to(text_data='{"type": "ping", "pad": "' + "é" * 30_000 + '"}')
    assert await player.recv() == {"type": "pong"}
    assert await player.receive_nothing(timeout=0.1)
    assert await watcher.receive_nothing(timeout=0.1)


# --- malformed frames ------------------------------------------------------------------------


def frame(**fields: Any) -> dict[str, Any]:
    return {"text_data": json.dumps(fields)}


BAD_FRAMES = {
    "not_json": ({"text_data": '{"seq": 0, "action": '}, "bad_json"),
    "json_array": ({"text_data": json.dumps([{"seq": 0, "action": FIRST}])}, "bad_json"),
    "json_string": ({"text_data": '"hello"'}, "bad_json"),
    "json_number": ({"text_data": "42"}, "bad_json"),
    "json_null": ({"text_data": "null"}, "bad_json"),
    "nested_too_deep": ({"text_data": "[" * 30_000 + "]" * 30_000}, "bad_json"),
    "binary_frame": ({"bytes_data": json.dumps({"seq": 0, "action": FIRST}).encode()}, "bad_frame"),
    "unknown_type": (frame(type="teleport", seq=0, action=FIRST), "bad_type"),
    "type_not_a_string": (frame(type=["action"], seq=0, action=FIRST), "bad_type"),
    "seq_string": (frame(seq="0", action=FIRST), "invalid"),
    "seq_true": (frame(seq=True, action=FIRST), "invalid"),
    "seq_float": (frame(seq=1.0, action=FIRST), "invalid"),
    "seq_zero_float": (frame(seq=0.0, action=FIRST), "invalid"),
    "seq_negative": (frame(seq=-1, action=FIRST), "invalid"),
    "seq_missing": (frame(action=FIRST), "invalid"),
    "action_string": (frame(seq=0, action="move t4 f3"), "invalid"),
    "action_list": (frame(seq=0, action=[FIRST]), "invalid"),
    "action_null": (frame(seq=0, action=None), "invalid"),
    "action_missing": (frame(seq=0), "invalid"),
    "unknown_pile": (frame(seq=0, action={**FIRST, "to": "f9"}), "bad_pile"),
    "stock_pile_in_seahaven": (frame(seq=0, action={**FIRST, "from": "s"}), "bad_pile"),
    "unknown_action_type": (frame(seq=0, action={"type": "teleport"}), "bad_action_type"),
    "count_string": (frame(seq=0, action={**FIRST, "count": "1"}), "bad_count"),
    "extra_field_in_frame": (frame(seq=0, action=FIRST, speed=2), "invalid"),
    "extra_field_in_action": (frame(seq=0, action={**FIRST, "speed": 2}), "extra_field"),
    "over_64_kib": (frame(type="ping", pad="x" * 65_536), "too_large"),
    # 40 000 characters, 80 000 bytes of UTF-8: a frame's size is in bytes.
    "over_64_kib_of_utf8": (
        {"text_data": '{"type": "ping", "pad": "' + "é" * 40_000 + '"}'},
        "too_large",
    ),
}


@pytest.mark.parametrize(("sent", "code"), BAD_FRAMES.values(), ids=BAD_FRAMES.keys())
async def test_a_malformed_frame_gets_an_error_and_changes_nothing(
    make_player, sockets, sent, code
):
    alice = await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    sock = await watch(sockets, attempt["id"], alice)
    before = await stored(attempt["id"])

    await sock.send_to(**sent)
    message = await sock.recv()
    error_of(message, code)
    assert await sock.receive_nothing(timeout=0.1)
    assert await stored(attempt["id"]) == before

    # The socket stays usable.
    ack = await act(sock, 0, FIRST)
    assert ack["duplicate"] is False
    assert (await stored(attempt["id"]))["actions"] == 1


# --- close codes -------------------------------------------------------------------------------


async def test_close_codes(make_player, sockets):
    alice = await new_player(make_player)
    attempt = await start(alice, code=WIN_CODE)
    path = f"/ws/games/{attempt['id']}/"
    await refused_with(sockets, path, None, 4401)  # no session
    await refused_with(sockets, f"/ws/games/{attempt['id'] + 10_000}/", alice, 4404, "not_found")
    await refused_with(sockets, "/ws/games/0/", alice, 4404, "not_found")
    await refused_with(sockets, "/ws/games/99999999999999999999999/", alice, 4404, "not_found")
    await refused_with(sockets, "/ws/games/abc/", alice, 4404)
    await refused_with(sockets, "/ws/nope/", alice, 4404)
    await refused_with(sockets, "/ws/nope/", None, 4404)
    # A bad board says why first, in the REST leaderboard's words (issue 25).
    await refused_with(sockets, "/ws/leaderboard/2026-13-01/SH1-C4/", None, 4400, "bad_date")
    await refused_with(sockets, "/ws/leaderboard/yesterday/SH1-C4/", None, 4400, "bad_date")
    await refused_with(sockets, "/ws/leaderboard/2026-01-01/SH1-C9/", None, 4400, "bad_code")
    await refused_with(sockets, "/ws/leaderboard/2026-01-01/XX/", None, 4400, "bad_variant")

    # A foreign Origin is refused during the handshake, signed in or not.
    for target, client in ((path, alice), ("/ws/leaderboard/2026-01-01/SH1-C4/", None)):
        sock = sockets(target, client, origin=EVIL)
        connected, _ = await sock.connect()
        assert connected is False

    # None of this touched the game; the player still plays.
    sock = await watch(sockets, attempt["id"], alice)
    await act(sock, 0, FIRST)


# --- hidden information: Easy Harp ---------------------------------------------------------


def visible_cards(view: dict[str, Any]) -> set[str]:
    return {card for cards in view["piles"].values() for card in cards if card}


async def test_easy_harp_never_shows_a_hidden_card(make_player, sockets):
    """Random play (stock taps, moves from ``targets``, undos) with a spectator: every
    message of both sockets passes :func:`assert_hidden`, each view is the engine's
    player view, and no refusal names a card that is not face up."""
    alice, bob = await new_player(make_player), await new_player(make_player)
    code = "EH1-N-AAAAAJ2"
    attempt = await start(alice, code=code)
    player = await watch(sockets, attempt["id"], alice)
    watcher = await watch(sockets, attempt["id"], bob)
    game: Game = new_game(code)
    assert without_targets(player.snapshot["game"]["view"]) == game.view()
    rng = random.Random(20261129)
    view = player.snapshot["game"]["view"]

    for seq in range(30):
        moves = [
            {"type": "move", "from": t["from"], "to": to, "count": t["count"]}
            for t in view["targets"]
            for to in t["to"]
        ]
        choices: list[dict[str, Any]] = [{"type": "stock"}, *moves]
        if view["undo"] and rng.random() < 0.15:
            action: dict[str, Any] = {"type": "undo"}
        else:
            action = rng.choice(choices)
        ack = await act(player, seq, action)
        game.apply_json(action)
        view = ack["game"]["view"]
        assert without_targets(view) == game.view()
        assert view["targets"] == game.targets_json()
        state = await watcher.recv()
        assert state["v"] == seq + 1
        assert without_targets(state["game"]["view"]) == game.view()

    # Refusals that touch face-down cards name none of them.
    before = await stored(attempt["id"])
    seen = visible_cards(view)
    columns = [f"t{i}" for i in range(1, 10)]
    probes = [
        {"type": "move", "from": t, "to": u, "count": n}
        for t in columns
        for u in ("t1", "t9", "f")
        for n in (1, 2, 9)
        if t != u
    ]
    probes += [{"type": "double_tap", "from": t, "count": 2} for t in columns]
    probes += [{"type": "tap", "from": "s"}, {"type": "move", "from": "s", "to": "t1"}]
    refused = []
    for probe in probes:
        try:
            game.copy().apply_json(probe)
        except ValueError:  # MalformedError and IllegalActionError
            refused.append(probe)
    assert len(refused) > 20
    for probe in refused:
        await player.send({"seq": 30, "action": probe})
        message = await player.recv()
        assert message["type"] == "error", (probe, message)
        named = set(CARD.findall(message["error"]["message"]))
        assert named <= seen, (probe, message)
    assert await watcher.receive_nothing(timeout=0.3)
    assert await stored(attempt["id"]) == before


async def test_actions_over_the_socket_share_the_players_rate_limit(make_player, sockets, settings):
    """The per-player action budget (issue 7) is the same over HTTP and the socket."""
    from django.core.cache import cache

    alice = await new_player(make_player)
    attempt = await start(alice, random="EH1-N")
    sock = await watch(sockets, attempt["id"], alice)
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {
        **framework["DEFAULT_THROTTLE_RATES"],
        "actions": "2/min",
    }
    settings.REST_FRAMEWORK = framework
    await sync_to_async(cache.clear)()
    for seq in range(2):
        await act(sock, seq, {"type": "stock"})
    await sock.send({"seq": 2, "action": {"type": "stock"}})
    error_of(await sock.recv(), "throttled")
    response = await sync_to_async(alice.send)(
        f"/api/games/{attempt['id']}/actions/", {"seq": 2, "action": {"type": "stock"}}
    )
    assert response.status_code == 429
    assert (await stored(attempt["id"]))["seq"] == 2  # nothing applied over the limit
