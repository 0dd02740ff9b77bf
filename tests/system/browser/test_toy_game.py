"""A third game in real Chromium (issue 26): a daphne whose service has the toy
Baker's Game registered (``tests/support/toy_asgi.py``) and nothing else changed deals it,
the client lays it out from the shipped declaration alone (eight columns,
cells, each foundation's suit), plays a move, and says its refusal in the
game's own sentence."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from deploy.processes import one_daphne
from games.engine import DoubleTap, IllegalActionError, Move, new_game
from tests.support.browser import api, screenshot
from tests.support.toy_bakers import WON_DEAL

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def toy_site(server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    name = f"patience_toy_{secrets.token_hex(4)}"
    redis = server.env["REDIS_URL"].rsplit("/", 1)[0] + "/1"  # its own groups
    env = {**server.env, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}"}
    env["REDIS_URL"] = redis
    log = tmp_path_factory.mktemp("toy-daphne") / "daphne.log"
    with one_daphne(name, env, log, app="tests.support.toy_asgi:application") as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def toy_page(chromium: Any, toy_site: str) -> Iterator[Any]:
    context = chromium.new_context(
        base_url=toy_site, viewport={"width": 1366, "height": 768}, locale="en-GB"
    )
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def test_the_toy_game_is_laid_out_from_its_declaration_and_played(toy_page, bakers_game):
    # bakers_game: this process's engine knows the toy too, to check the server's moves.
    page = toy_page
    page.goto("/signup/")
    page.fill("input[name=username]", f"p{secrets.token_hex(4)}")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: urlparse(url).path == "/")  # the lobby, signed in
    attempt = api(page, "POST", "/api/games/", {"code": WON_DEAL})
    page.goto(f"/play/{attempt['id']}/")
    page.wait_for_selector("#board .pile[data-pile=t8] .card")

    piles = page.eval_on_selector_all("#board .pile", "els => els.map(e => e.dataset.pile)")
    assert sorted(piles) == sorted(new_game(WON_DEAL).pile_ids)
    # Each foundation's suit, from the declaration shipped in the catalogue.
    symbols = [page.inner_text(f'#board .pile[data-pile="f{i}"] .slot') for i in range(1, 5)]
    assert symbols == ["♠", "♥", "♦", "♣"]
    assert "spades" in (page.get_attribute('#board .pile[data-pile="f1"]', "aria-label") or "")

    # One move, by double click: where the engine's double tap plays it.
    game = new_game(WON_DEAL)
    pile, resolved = next((p, r) for p in game.columns if (r := _double_tap(game, p)) is not None)
    top = len(game.piles[pile]) - 1
    page.locator(f'#board .pile[data-pile="{pile}"] .card[data-index="{top}"]').dblclick()
    page.wait_for_function("() => document.querySelector('#moves').textContent.trim() === '1'")
    game.apply(resolved)
    shown = api(page, "GET", f"/api/games/{attempt['id']}/")["view"]["piles"]
    assert shown == game.view()["piles"]
    wrong = next(
        Move(s, t)
        for s in game.columns
        for t in game.columns
        if game.refusal(s, t) == "wrong_build"
    )
    screenshot(page, "toy-bakers-game")

    # A refusal, said by the client from the game's own sentence.
    said = page.evaluate(
        """async ([id, action]) => {
            const token = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1];
            const r = await fetch(`/api/games/${id}/actions/`, {method: "POST",
                headers: {"Content-Type": "application/json", "X-CSRFToken": token},
                body: JSON.stringify({seq: 1, action})});
            const { error } = await r.json();
            const { describeRefusal } = await import("/static/frontend/js/reasons.js");
            return [r.status, error.code, describeRefusal(error, "BG1")];
        }""",
        [attempt["id"], wrong.to_json()],
    )
    assert said[:2] == [422, "wrong_build"]
    assert said[2].startswith("In Baker's Game a card goes only onto the next higher card"), said


def _double_tap(game: Any, pile: str) -> Any:
    if not game.piles[pile]:
        return None
    try:
        return game.copy().apply(DoubleTap(pile))
    except IllegalActionError:
        return None


def test_the_client_says_each_games_sentences_with_their_plurals(new_page):
    """The service's own server (no toy): the sentences are the declarations'
    (a plural by its count), a game's own only for that game, and with no game
    known only those every game says alike; else the server's words."""
    page = new_page()
    page.goto("/")
    said = page.evaluate(
        """async () => {
            const { describeRefusal, isReason } = await import("/static/frontend/js/reasons.js");
            const e = (have) => ({code: "not_enough_cards", message: "x",
                                  params: {src: "t1", have, n: 9}});
            const wrong = {code: "wrong_build", message: "server words", params: {}};
            return [describeRefusal(e(1), "SH1"), describeRefusal(e(5), "EH1"),
                    describeRefusal(e(5), ""), describeRefusal(wrong, ""),
                    isReason("one_card_at_a_time", "EH1"), isReason("one_card_at_a_time", "SH1")];
        }"""
    )
    assert said == [
        "Column 1 holds 1 card; 9 cannot be moved from it.",
        "Column 1 holds 5 cards; 9 cannot be moved from it.",
        "Column 1 holds 5 cards; 9 cannot be moved from it.",
        "server words",
        True,
        False,
    ]
