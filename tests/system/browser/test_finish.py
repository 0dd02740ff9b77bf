"""The finish in a real browser (issue 15, deliverable 2): a win on the page
makes the foundations' cards cascade, then the result card opens — rank of how
many, time, moves and par, score, streak — with Share, whose text is
spoiler-free. The card opens by itself only at that win: a reload does not
reopen it; the toolbar's Result button and ``#result`` do.

A ranked daily is won with its proof, read from the server's database
(``server.daily``): posted from the page's own session over the API, the page
follows the moves over its websocket like any action made elsewhere, and the
last one wins the game while the page is open.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from tests.support.browser import (
    api,
    open_daily,
    post_actions,
    resign,
    screenshot,
    sign_up,
    start_practice,
    wait_moves,
)

# A card as the engine writes it (7H, TD, 10S…): none may be in the card or the text.
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[A2-9TJQK])[CDHS](?![A-Za-z0-9])")
PRACTICE_CODE = "SH1-C4-AAAAAJ2"
CASCADE_MS = 3500  # longer than a cascade (finish.js: 1.7 s of starts, 1.1 s of fall)
# Counts the dialogs the page opens, from before its scripts run.
OPENINGS = """
window.openings = 0;
const showModal = HTMLDialogElement.prototype.showModal;
HTMLDialogElement.prototype.showModal = function () {
    if (this.id === "win") window.openings += 1;
    return showModal.call(this);
};
"""


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def clock(ms: int) -> str:
    return f"{ms // 60_000}:{ms // 1000 % 60:02d}"


def win_ranked(page: Any, server: Any, variant: str = "SH1-C4") -> tuple[int, dict[str, Any]]:
    """Open today's ranked ``variant`` and win it with its proof while the page
    watches: every move but the last, then the last. Returns the attempt and the daily."""
    attempt = open_daily(page, variant)
    daily = server.daily(variant)
    proof = daily["proof"]
    assert proof, "conftest proves today's SH1-C4"
    seq = post_actions(page, attempt, 0, proof[:-1])
    wait_moves(page, len(proof) - 1)
    assert page.locator("#win").is_hidden()
    assert page.locator("#show-result").is_hidden()  # still playing
    post_actions(page, attempt, seq, proof[-1:])
    return attempt, daily


def wait_figures(page: Any) -> None:
    """The card is open and has its rank and streak (fetched once it opened)."""
    page.wait_for_selector("#win", state="visible", timeout=20_000)
    page.wait_for_selector("#win-rank-row", state="visible")
    page.wait_for_selector("#win-streak-row", state="visible")


def shared_text(page: Any) -> str:
    """Share on the result card where the browser has no share sheet (headless
    Chromium): the text it copied."""
    page.click("#win-share")
    page.wait_for_function("() => document.querySelector('#win-share-status').textContent")
    assert page.inner_text("#win-share-status") == "Copied."
    return page.evaluate("navigator.clipboard.readText()")


def test_a_ranked_win_shows_the_card_once_with_its_figures_and_a_spoiler_free_share(
    new_page, server, site
):
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    name = sign_up(page)
    attempt, daily = win_ranked(page, server)
    # The cascade first (copies of the foundations' cards, outside the board), then the card.
    page.wait_for_selector(".win-cascade .cascade-card", state="attached")
    assert page.locator("#board .win-cascade").count() == 0
    page.wait_for_timeout(700)
    screenshot(page, "finish-cascade")
    wait_figures(page)
    assert page.locator(".win-cascade").count() == 0  # gone once it fell
    screenshot(page, "finish-card")

    game = api(page, "GET", f"/api/games/{attempt}/")
    board = api(page, "GET", f"/api/leaderboard/{today()}/SH1-C4/")
    player = api(page, "GET", f"/api/players/{name}/")
    assert game["status"] == "won" and game["ranked"]
    par = daily["par"]
    assert page.inner_text("#win-title") == "You won!"
    assert page.inner_text("#win-rank") == f"{board['me']['rank']} of {board['count']}"
    assert page.inner_text("#win-time") == clock(game["elapsed_ms"])
    assert page.inner_text("#win-moves") == str(game["moves"]) == str(par)
    assert page.inner_text("#win-par") == f"par {par}"
    assert page.inner_text("#win-score") == str(game["score"])
    assert player["streak"]["current"] == 1
    assert page.inner_text("#win-streak") == "1 day"
    assert page.get_attribute("#win-leaderboard", "href") == f"/leaderboard/{today()}/SH1-C4/"

    text = shared_text(page)
    assert text == (
        f"Patience Daily {today()} · Seahaven Towers, Easy (4 cells) ✓ "
        f"{clock(game['elapsed_ms'])} · {par} moves (par {par}) · "
        f"#{board['me']['rank']} of {board['count']} · 1-day streak\n"
        f"{site}/r/{game['id']}/"  # the result's own page (issue 28)
    )
    # Spoiler-free: neither the running daily's code nor a card, in the text or the card.
    card = page.evaluate("document.getElementById('win').outerHTML")
    for shown in (text, card):
        assert daily["code"] not in shown
        assert not CARD.search(shown), CARD.search(shown)

    # While it is open the rank follows the day's board: another player finishes.
    other = new_page()
    sign_up(other)
    open_daily(other, "SH1-C4")
    resign(other)
    page.wait_for_function(
        "text => document.querySelector('#win-rank').innerText === text",
        arg=f"{board['me']['rank']} of {board['count'] + 1}",
    )
    board = api(page, "GET", f"/api/leaderboard/{today()}/SH1-C4/")
    # A resignation opens no card by itself; its Result shows the figures, and Share
    # (a counted result: test_a_ranked_loss_shares_its_own_page_and_a_practice_loss_nothing).
    other.wait_for_selector("#show-result", state="visible")
    assert other.locator("#win").is_hidden()
    other.click("#show-result")
    other.wait_for_selector("#win-rank-row", state="visible")
    assert other.inner_text("#win-title") == "Resigned"
    assert other.locator("#win-share").is_visible()

    # Shown once: a reload shows the finished board, and the Result button; the card
    # does not open, not even after the time a cascade takes.
    page.add_init_script(OPENINGS)
    page.reload()
    page.wait_for_selector("#show-result", state="visible")
    page.wait_for_function("() => document.querySelector('#connection').dataset.state === 'open'")
    page.wait_for_timeout(CASCADE_MS)
    assert page.evaluate("window.openings") == 0
    assert page.locator("#win").is_hidden()
    page.click("#show-result")
    wait_figures(page)
    assert page.inner_text("#win-rank") == f"{board['me']['rank']} of {board['count']}"
    page.click("#win-close")
    assert page.locator("#win").is_hidden()

    # The lobby's link to the result: /play/<id>/#result opens it on load.
    page.goto("/")
    page.goto(f"/play/{attempt}/#result")
    wait_figures(page)
    assert page.locator(".win-cascade").count() == 0  # no celebration on a later visit
    page.click("#win-close")
    # Closed, the hash goes (on the dialog's close event, a task after the click):
    # a reload then shows the board.
    page.wait_for_function("() => location.hash === ''")
    assert "#" not in page.url


def test_a_practice_win_under_reduced_motion_opens_the_card_at_once_without_rank(new_page):
    """A practice of a random deal: time, moves and score; no rank, streak, par or
    Share. The player's "reduced motion" (html[data-motion]) leaves out the cascade."""
    from tests.support.search import find_win

    line = find_win(PRACTICE_CODE)
    assert line is not None
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, PRACTICE_CODE)
    page.evaluate("document.documentElement.dataset.motion = 'reduced'")
    seq = post_actions(page, attempt, 0, [a.to_json() for a in line[:-1]])
    wait_moves(page, len(line) - 1)
    # Watch for any cascade from the moment of the win.
    page.evaluate(
        """() => {
            window.cascades = 0;
            new MutationObserver((records) => {
                for (const r of records)
                    for (const n of r.addedNodes)
                        if (n.classList?.contains('win-cascade')) window.cascades += 1;
            }).observe(document.body, { childList: true });
        }"""
    )
    post_actions(page, attempt, seq, [line[-1].to_json()])
    page.wait_for_selector("#win", state="visible")
    assert page.evaluate("window.cascades") == 0
    assert page.evaluate("getComputedStyle(document.getElementById('win')).animationName") == "none"
    game = api(page, "GET", f"/api/games/{attempt}/")
    assert page.inner_text("#win-moves") == str(game["moves"])
    assert page.inner_text("#win-score") == str(game["score"])
    assert page.inner_text("#win-time") == clock(game["elapsed_ms"])
    page.wait_for_timeout(500)  # nothing more to fetch for a practice
    for hidden in (
        "#win-rank-row",
        "#win-streak-row",
        "#win-par",
        "#win-share",
        "#win-leaderboard",
    ):
        assert page.locator(hidden).is_hidden(), hidden
    assert "Practice" in page.inner_text("#win-what")


def test_a_won_practice_of_the_daily_has_par_and_shares_without_rank_or_streak(
    new_page, server, site
):
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    name = sign_up(page)
    win_ranked(page, server)
    wait_figures(page)
    daily = server.daily("SH1-C4")
    # A practice of today's daily, dealt before issue 36 closed them (such games exist).
    practice = server.legacy_daily_practice(name, "SH1-C4")
    page.goto(f"/play/{practice}/")
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    proof = daily["proof"]
    seq = post_actions(page, practice, 0, proof[:-1])
    wait_moves(page, len(proof) - 1)
    post_actions(page, practice, seq, proof[-1:])
    page.wait_for_selector("#win", state="visible", timeout=20_000)
    page.wait_for_selector("#win-par", state="visible")
    assert page.inner_text("#win-par") == f"par {daily['par']}"
    assert "Daily · practice" in page.inner_text("#win-what")
    page.wait_for_timeout(500)  # a practice has no rank nor streak to fetch
    assert page.locator("#win-rank-row").is_hidden()
    assert page.locator("#win-streak-row").is_hidden()
    game = api(page, "GET", f"/api/games/{practice}/")
    assert shared_text(page) == (
        f"Patience Daily {today()} · Seahaven Towers, Easy (4 cells) (practice) ✓ "
        f"{clock(game['elapsed_ms'])} · {game['moves']} moves (par {daily['par']})\n"
        f"{site}/daily/{today()}/"
    )


def test_a_ranked_loss_shares_its_own_page_and_a_practice_loss_nothing(new_page, server, site):
    """A resigned ranked daily counts (on the board, with its page ``/r/<id>/``):
    its card offers Share, whose text says what the board's row says — not won,
    score, time, moves, rank — and names no card nor the running daily's code.
    A practice of the same daily, resigned, keeps no Share (nothing counted)."""
    page = new_page(360, 740)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    name = sign_up(page)
    attempt = open_daily(page, "SH1-C4")
    daily = server.daily("SH1-C4")
    # Some cards home first: the proof up to its first foundation move, 12 moves at least
    # (the proof is the solver's of the day, so where its first card goes home varies).
    proof = daily["proof"]
    first_home = next(i for i, a in enumerate(proof) if str(a.get("to", "")).startswith("f"))
    played = max(12, first_home + 1)
    post_actions(page, attempt, 0, proof[:played])
    wait_moves(page, played)
    resign(page)
    page.wait_for_selector("#show-result", state="visible")
    assert page.locator("#win").is_hidden()  # a loss opens no card by itself
    page.click("#show-result")
    wait_figures(page)
    assert page.inner_text("#win-title") == "Resigned"
    assert page.locator("#win-share").is_visible()
    game = api(page, "GET", f"/api/games/{attempt}/")
    board = api(page, "GET", f"/api/leaderboard/{today()}/SH1-C4/")
    assert game["status"] == "resigned" and game["ranked"] and game["score"] > 0
    screenshot(page, "finish-card-loss-360x740")
    text = shared_text(page)
    assert text == (
        f"Patience Daily {today()} · Seahaven Towers, Easy (4 cells) ✗ Resigned · "
        f"score {game['score']} · {clock(game['elapsed_ms'])} · {game['moves']} moves · "
        f"#{board['me']['rank']} of {board['count']}\n"
        f"{site}/r/{attempt}/"
    )
    card = page.evaluate("document.getElementById('win').outerHTML")
    for shown in (text, card):
        assert daily["code"] not in shown
        assert not CARD.search(shown), CARD.search(shown)
    # The link is the result's page, open to anyone: it reads as the share text does.
    page.goto(f"/r/{attempt}/")
    line = page.inner_text("#result-line")
    assert line.startswith(f"Not won · score {game['score']} · {game['moves']} moves · "), line

    # A practice of the daily (dealt before issue 36 closed them), resigned: no Share.
    practice = server.legacy_daily_practice(name, "SH1-C4")
    page.goto(f"/play/{practice}/")
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    post_actions(page, practice, 0, daily["proof"][:3])
    wait_moves(page, 3)
    resign(page)
    page.click("#show-result")
    page.wait_for_selector("#win", state="visible")
    assert "Daily · practice" in page.inner_text("#win-what")
    page.wait_for_timeout(500)  # nothing to fetch that could show it
    assert page.locator("#win-share").is_hidden()


@pytest.mark.parametrize(("width", "height"), [(360, 640), (640, 360)])
def test_the_result_card_fits_the_viewport(new_page, server, width, height):
    page = new_page(width=width, height=height)
    sign_up(page)
    win_ranked(page, server)
    wait_figures(page)
    box = page.locator("#win").bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, box
    # All of it shown: nothing scrolled away inside the card.
    assert page.evaluate(
        """() => {
            const d = document.getElementById('win');
            return d.scrollHeight <= d.clientHeight && d.scrollWidth <= d.clientWidth;
        }"""
    )
    for hook in ("#win-share", "#win-close", "#win-streak", "#win-rank"):
        inner = page.locator(hook).bounding_box()
        assert (
            inner
            and inner["y"] + inner["height"] <= height
            and inner["x"] + inner["width"] <= width
        ), hook
    screenshot(page, f"finish-card-{width}x{height}")


# A phone's share sheet, as the page sees it: what it was given is kept.
SHARE_SHEET = """
navigator.canShare = (data) => typeof data.text === "string";
navigator.share = async (data) => { window.shared = data; };
"""


def test_on_a_phone_share_opens_the_share_sheet_with_the_same_text(chromium, site, server):
    context = chromium.new_context(
        base_url=site, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        context.set_default_timeout(10_000)
        context.add_init_script(SHARE_SHEET)
        page = context.new_page()
        sign_up(page)
        attempt, _daily = win_ranked(page, server)
        wait_figures(page)
        assert page.evaluate("matchMedia('(pointer: coarse)').matches")
        page.tap("#win-share")
        page.wait_for_function("() => window.shared")
        shared = page.evaluate("window.shared")
        # The result's page as the link (its preview shows the result line), the text beside it.
        assert set(shared) == {"text", "url"}
        assert shared["url"] == f"{site}/r/{attempt}/"
        assert shared["text"].startswith(
            f"Patience Daily {today()} · Seahaven Towers, Easy (4 cells) ✓ "
        )
        assert shared["text"].endswith(" · 1-day streak")
        assert page.inner_text("#win-share-status") == ""  # not the clipboard
        screenshot(page, "finish-card-390x844")
    finally:
        context.close()


SHARE = """async (cases) => {
    const { shareText } = await import("/static/frontend/js/finish.js");
    return cases.map(shareText);
}"""

RANKED_WIN = {
    "date": "2026-12-02",
    "origin": "https://patience.example",
    "variant": "SH1-C1",
    "ranked": True,
    "ms": 192_000,
    "moves": 98,
    "par": 87,
    "rank": 12,
    "count": 340,
    "streak": 5,
}
"""A ranked Seahaven win, as the finish card shares it."""


def test_the_share_text_of_each_kind_of_win(new_page):
    page = new_page()
    page.goto("/")
    base = {"date": "2026-12-02", "origin": "https://patience.example"}
    texts = page.evaluate(
        SHARE,
        [
            RANKED_WIN,
            {
                **base,
                "variant": "EH1-N",
                "ranked": True,
                "ms": 760_500,
                "moves": 372,
                "par": None,
                "rank": 1,
                "count": 1,
                "streak": 1,
            },
            # A practice of the daily: no rank nor streak, even if given.
            {
                **base,
                "variant": "SH1-C2",
                "ranked": False,
                "ms": 3_725_000,
                "moves": 1,
                "par": 60,
                "rank": 3,
                "count": 9,
                "streak": 4,
            },
            # A streak not yet counted (the result is being checked): left out.
            {
                **base,
                "variant": "SH1-C4",
                "ranked": True,
                "ms": 59_999,
                "moves": 61,
                "par": 61,
                "rank": 2,
                "count": 2,
                "streak": 0,
            },
        ],
    )
    link = "\nhttps://patience.example/daily/2026-12-02/"
    # A ranked result with its id links to its own page (issue 28); a practice, to the day.
    own = page.evaluate(
        SHARE, [{**RANKED_WIN, "id": 1234}, {**RANKED_WIN, "ranked": False, "id": 9}]
    )
    assert own[0].endswith("\nhttps://patience.example/r/1234/")
    assert own[1].endswith(link)
    assert texts == [
        "Patience Daily 2026-12-02 · Seahaven Towers, Hard (1 cell) ✓ 3:12 · 98 moves (par 87)"
        " · #12 of 340 · 5-day streak" + link,
        "Patience Daily 2026-12-02 · Easy Harp ✓ 12:40 · 372 moves · #1 of 1 · 1-day streak" + link,
        "Patience Daily 2026-12-02 · Seahaven Towers, Medium (2 cells) (practice) ✓ 1:02:05"
        " · 1 move (par 60)" + link,
        "Patience Daily 2026-12-02 · Seahaven Towers, Easy (4 cells) ✓ 0:59 · 61 moves (par 61)"
        " · #2 of 2" + link,
    ]


def test_the_share_text_of_a_ranked_loss(new_page):
    """Not won: the result's status, score, time, moves and rank — the board row's
    figures, as its page says them — no par and no streak even if given."""
    page = new_page()
    page.goto("/")
    loss = {**RANKED_WIN, "id": 1234, "score": 420, "rank": 120}
    texts = page.evaluate(
        SHARE, [{**loss, "status": "resigned"}, {**loss, "status": "abandoned", "rank": None}]
    )
    assert texts == [
        "Patience Daily 2026-12-02 · Seahaven Towers, Hard (1 cell) ✗ Resigned · score 420"
        " · 3:12 · 98 moves · #120 of 340\nhttps://patience.example/r/1234/",
        "Patience Daily 2026-12-02 · Seahaven Towers, Hard (1 cell) ✗ Abandoned · score 420"
        " · 3:12 · 98 moves\nhttps://patience.example/r/1234/",
    ]


def test_the_share_text_is_in_the_players_language_but_the_brand(new_page):
    page = new_page(locale="tr-TR")
    page.goto("/")
    assert page.get_attribute("html", "lang") == "tr"
    [text] = page.evaluate(
        SHARE,
        [RANKED_WIN],
    )
    assert text == (
        "Patience Daily 2026-12-02 · Seahaven Towers, Zor (1 hücre) ✓ 3:12 · 98 hamle (par 87)"
        " · 340 içinde #12 · 5 günlük seri\nhttps://patience.example/daily/2026-12-02/"
    )
