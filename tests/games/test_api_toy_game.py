"""A third game needs its declaration and nothing else (issue 26): the toy Baker's
Game (``tests/support/toy_bakers.py``), registered by the ``bakers_game``
fixture, is started as a practice game over HTTP in both its variants, played
to a win with the engine's own line, and refused with its own sentences."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from accounts.models import User
from games.engine import IllegalActionError, Move, new_game, solve
from games.models import Attempt, Deal
from tests.support.api import Client, assert_error
from tests.support.toy_bakers import TOY_VARIANTS, WON_DEAL


def begin(client: Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.send("/api/games/", body)
    assert response.status_code == 201, response.content
    return response.json()


def act(client: Client, attempt: dict[str, Any], seq: int, action: Move) -> Any:
    return client.send(
        f"/api/games/{attempt['id']}/actions/", {"seq": seq, "action": action.to_json()}
    )


@pytest.mark.parametrize("variant", TOY_VARIANTS)
def test_a_practice_deal_of_the_toy_game_starts_in_each_variant(bakers_game, player, variant):
    attempt = begin(player, {"random": variant, "any": True})
    assert attempt["variant"] == variant and attempt["ranked"] is False
    code = attempt["view"]["code"]
    game = new_game(code)
    assert game.code.variant_id == variant
    assert attempt["view"]["piles"] == game.view()["piles"]
    assert len(game.cells) == bakers_game.variant(variant.split("-")[1]).cells
    assert Deal.objects.get(code=code).variant == variant  # no choices to migrate


def test_the_toy_game_is_played_to_a_win_over_http(bakers_game, player):
    line = solve(new_game(WON_DEAL), nodes=30_000).line
    assert line, "the toy solver wins its deal"
    attempt = begin(player, {"code": WON_DEAL})
    body: dict[str, Any] = attempt
    for seq, move in enumerate(line):
        response = act(player, attempt, seq, move)
        assert response.status_code == 200, response.content
        body = response.json()
    assert body["status"] == "won" and body["won"] is True
    assert body["score"] == 10 * 52 and body["moves"] == len(line)
    assert Attempt.objects.get(pk=attempt["id"]).status == "won"


def test_the_toy_game_refuses_with_its_own_sentences(bakers_game, player):
    attempt = begin(player, {"code": WON_DEAL})
    game = new_game(WON_DEAL)
    wrong = next(
        Move(s, t)
        for s in game.columns
        for t in game.columns
        if game.refusal(s, t) == "wrong_build"
    )
    for action, code in ((wrong, "wrong_build"), (Move("t1", "t2", 2), "one_card_at_a_time")):
        with pytest.raises(IllegalActionError) as expected:
            game.copy().apply(action)
        refused = assert_error(act(player, attempt, 0, action), 422, code)
        assert refused["message"] == expected.value.message
        assert refused["message"].startswith(
            "Baker's Game" if code == "one_card_at_a_time" else "In Baker's Game"
        )
    assert Attempt.objects.get(pk=attempt["id"]).seq == 0


def test_without_the_fixture_the_service_knows_no_toy_game(player):
    response = player.send("/api/games/", {"random": "BG1-C4"})
    assert_error(response, 400)


def test_the_admin_filters_deals_by_the_variants_stored_without_choices(bakers_game, player):
    begin(player, {"code": WON_DEAL})
    begin(player, {"code": "SH1-C4-AAAAAJ2"})
    staff = User.objects.create_superuser("staff", password="correct horse battery")
    client = DjangoClient()
    client.force_login(staff)
    page = client.get(f"/{settings.ADMIN_PATH}games/deal/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "?variant=BG1-C4" in html and "?variant=SH1-C4" in html  # the filter's choices
    filtered = client.get(f"/{settings.ADMIN_PATH}games/deal/?variant=BG1-C4")
    assert filtered.status_code == 200
    assert WON_DEAL in filtered.content.decode()
    assert "SH1-C4-AAAAAJ2" not in filtered.content.decode()
