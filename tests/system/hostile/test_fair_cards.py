"""Issue 28, deliverable 3, played as an attacker (PRODUCT.md, "Fair daily
deals"): a day's link preview — the OpenGraph and Twitter cards of
``/daily/<date>/`` and their image ``/og/<date>.png`` — is shown to anyone
while the day runs, so nothing of its deals may be in it.

Today's Seahaven and Easy Harp dailies run and a player wins one. A visitor
and a winner read the page's cards and the image in each language: no byte
names a running daily's code (or a part of it), and the PNG carries no text
chunk. Then the deal under today's Seahaven daily is swapped for another one
(tomorrow's, prepared by the job) with everything public left as it was: the
cards and the image are byte for byte the same — they are drawn from public
figures only, not from anything the deal decides.
"""

from __future__ import annotations

from games.dailies import utc_today
from tests.support.api import win_daily
from tests.support.hidden import Wire, assert_bare_png, meta_cards, prepared, swap_deal

VARIANTS = ("SH1-C4", "EH1-N")


def test_a_running_days_cards_and_image_hold_nothing_of_its_deals(make_player, anon):
    wire = Wire()
    today = utc_today()
    dailies = [prepared(variant) for variant in VARIANTS]
    winner = make_player()
    win_daily(winner, "SH1-C4")
    seen: dict[str, tuple[str, bytes]] = {}
    for language in ("en", "id", "bg", "tr"):
        for who, client in (("visitor", anon), ("winner", winner)):
            client.cookies["django_language"] = language
            page = wire.http(f"{who} {language} page", client.get(f"/daily/{today}/"))
            image = wire.http(f"{who} {language} image", client.get(f"/og/{today}.png"))
            assert page.status_code == 200 and image.status_code == 200
            assert 'property="og:image"' in page.content.decode()
            assert_bare_png(image.content, f"{who} {language}")
            seen[f"{who} {language}"] = (meta_cards(page.content), image.content)
    for daily in dailies:
        wire.assert_never_named(daily)

    # Another deal under today's Seahaven daily; its public figures unchanged.
    swap_deal(dailies[0])
    for language in ("en", "bg"):
        for who, client in (("visitor", anon), ("winner", winner)):
            client.cookies["django_language"] = language
            page = client.get(f"/daily/{today}/")
            image = client.get(f"/og/{today}.png")
            assert (meta_cards(page.content), image.content) == seen[f"{who} {language}"], who
