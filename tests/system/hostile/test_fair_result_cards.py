"""Issue 28, a player's result shared (``/r/<game id>/`` and its image
``/og/r/<game id>.png``), played as an attacker (PRODUCT.md, "Fair daily
deals"): the page and the image are open to anyone while the day runs, so
nothing of its deal may be in them — only what the public board shows of the
result.

Today's Seahaven and Easy Harp dailies run: one account wins the Seahaven one,
another resigns the Easy Harp one (hidden cards: it has seen some), a third
plays the Seahaven one part way along the solver's line — cards home, every
card face up — and resigns (a loss the result card shares, finish.js), a
fourth account's result is disqualified (on no board). A visitor, the winner,
the losers and a fresh account read each page and image in two languages: no
byte names a running daily's code or key, the page's result (its cards and the
section shown) names no card, the PNG has no text chunk, and no text drawn on
the image (``result_lines``, what ``draw_result`` draws) names a card or the
code. The disqualified result is a 404 for all of them, and its 404 says
nothing either. Then the deal under today's Seahaven daily is swapped for
another with everything public unchanged: the page's cards and the image are
byte for byte the same — drawn from the board's figures only.
"""

from __future__ import annotations

import re

from django.utils import translation

from frontend.social import result_figures, result_lines
from games.fairplay import attempt_disqualify
from tests.support.api import win_daily
from tests.support.fairplay import make_staff
from tests.support.hidden import (
    Wire,
    assert_bare_png,
    meta_cards,
    prepared,
    secrets_of,
    swap_deal,
)

# A card as any page or the engine writes one: KS, TH, 10♥, A♠ …
CARD_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK]|10)[SHDC♠♥♦♣](?![A-Za-z0-9])")


SHOWN = re.compile(r'<section [^>]*id="result".*?</section>', re.S)


def _resign_daily(client, variant: str, actions: list | None = None) -> int:
    started = client.send("/api/games/", {"daily": variant})
    assert started.status_code in (200, 201), started.content
    game = started.json()
    for seq, action in enumerate(actions if actions is not None else [{"type": "stock"}]):
        played = client.send(f"/api/games/{game['id']}/actions/", {"seq": seq, "action": action})
        assert played.status_code == 200, played.content
    resigned = client.send(f"/api/games/{game['id']}/resign/", None)
    assert resigned.status_code == 200, resigned.content
    return int(game["id"])


def test_a_shared_result_of_a_running_day_holds_nothing_of_its_deal(make_player, anon):
    wire = Wire()
    dailies = [prepared(variant) for variant in ("SH1-C4", "EH1-N")]
    winner, loser, cheat, fresh = make_player(), make_player(), make_player(), make_player()
    home = make_player()
    won = win_daily(winner, "SH1-C4")["id"]
    lost = _resign_daily(loser, "EH1-N")
    # A Seahaven loss part way along the solver's line: cards home, the rest all face up.
    lost_home = _resign_daily(home, "SH1-C4", dailies[0].proof[:12])
    hidden = win_daily(cheat, "SH1-C4")["id"]
    staff = make_staff()
    attempt_disqualify(attempt_id=hidden, staff=staff, reason="second account")

    seen: dict[str, tuple[str, bytes]] = {}
    readers = (
        ("visitor", anon), ("winner", winner), ("loser", loser), ("home", home), ("fresh", fresh)
    )  # fmt: skip
    for language in ("en", "bg"):
        for who, client in readers:
            client.cookies["django_language"] = language
            for attempt_id in (won, lost, lost_home):
                where = f"{who} {language} {attempt_id}"
                page = wire.http(f"{where} page", client.get(f"/r/{attempt_id}/"))
                image = wire.http(f"{where} image", client.get(f"/og/r/{attempt_id}.png"))
                assert page.status_code == 200 and image.status_code == 200, where
                assert f"/og/r/{attempt_id}.png" in page.content.decode()
                [shown] = SHOWN.findall(page.content.decode())
                assert not CARD_TEXT.search(shown), (where, shown)
                assert not CARD_TEXT.search(meta_cards(page.content)), where
                assert_bare_png(image.content, where)
                seen[where] = (meta_cards(page.content), image.content)
            # A result on no board: nothing to share, and the 404 says nothing of the deal.
            assert (
                wire.http(f"{who} {language} hidden", client.get(f"/r/{hidden}/")).status_code
                == 404
            )
            gone = wire.http(f"{who} {language} hidden png", client.get(f"/og/r/{hidden}.png"))
            assert gone.status_code == 404

    # What the image draws: the board's figures in words, no card, no code.
    secrets = [s for daily in dailies for s in secrets_of(daily)]
    for language in ("en", "bg"):
        with translation.override(language):
            for attempt_id in (won, lost, lost_home):
                figures = result_figures(attempt_id)
                assert figures is not None
                drawn = "\n".join(result_lines(figures))
                assert not CARD_TEXT.search(drawn), drawn
                assert not any(secret in drawn for secret in secrets), drawn
                assert set(figures) == {
                    "attempt", "player", "date", "variant", "name", "level", "won",
                    "score", "ms", "moves", "rank", "count", "pending",
                }  # fmt: skip
    for daily in dailies:
        wire.assert_never_named(daily)

    # Another deal under today's Seahaven daily, its public figures unchanged.
    swap_deal(dailies[0])
    for language in ("en", "bg"):
        for who, client in readers:
            client.cookies["django_language"] = language
            where = f"{who} {language} {won}"
            page, image = client.get(f"/r/{won}/"), client.get(f"/og/r/{won}.png")
            assert (meta_cards(page.content), image.content) == seen[where], where
