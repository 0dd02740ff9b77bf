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

import datetime as dt
import io
import re

from django.core.cache import cache
from PIL import Image

from games.dailies import utc_today
from tests.support.api import win_daily
from tests.support.hidden import Wire, prepared

VARIANTS = ("SH1-C4", "EH1-N")
CARD = re.compile(r'<meta (?:property="og:[^"]+"|name="(?:twitter:[^"]+|description)") [^>]*>')


def cards(html: bytes) -> str:
    return "\n".join(CARD.findall(html.decode()))


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
            with Image.open(io.BytesIO(image.content)) as png:
                assert png.format == "PNG" and not png.info.get("text"), png.info
                assert not {k for k in png.info if k not in ("dpi", "gamma", "srgb")}, png.info
            seen[f"{who} {language}"] = (cards(page.content), image.content)
    for daily in dailies:
        wire.assert_never_named(daily)

    # Another deal under today's Seahaven daily; its public figures unchanged.
    other = prepared("SH1-C4", today + dt.timedelta(days=1))
    running = dailies[0]
    assert other.deal.code != running.deal.code
    running.deal, running.proof, running.par = other.deal, other.proof, other.par
    running.save(update_fields=["deal", "proof", "par"])
    cache.clear()
    for language in ("en", "bg"):
        for who, client in (("visitor", anon), ("winner", winner)):
            client.cookies["django_language"] = language
            page = client.get(f"/daily/{today}/")
            image = client.get(f"/og/{today}.png")
            assert (cards(page.content), image.content) == seen[f"{who} {language}"], who
