"""A visitor refused a guest sees why at once, and is offered an account (issue
39): the 31st guest an hour from one network (a school, a café, a carrier) tapped
Play and nothing seemed to happen — the message was written at the foot of the
lobby (y = 1264 on an 844 px screen), with no way on. Real Chromium at the five
sizes; the guest door's answer is the server's throttle refusal (its shape:
``kit/http.py``), given to the page at its network edge, as a busy network's
31st visitor gets it."""

from __future__ import annotations

import pytest

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

REFUSAL = {
    "error": {
        "code": "throttled",
        "message": "Too many requests: try again in 1500 s.",
        "params": {"wait": 1500, "scope": "guest"},
    }
}


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_refused_guest_sees_why_on_the_screen_and_may_sign_up(new_page, width, height):
    page = new_page(width=width, height=height)
    page.route(
        "**/api/auth/guest/",
        lambda route: route.fulfill(status=429, json=REFUSAL, headers={"Retry-After": "1500"}),
    )
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    play = page.locator("#deals [data-start]").first
    play.scroll_into_view_if_needed()
    play.click()
    error = page.locator("#lobby-error")
    error.wait_for(state="visible")
    page.wait_for_timeout(600)  # the smooth scroll
    assert "Too many requests" in error.inner_text()
    box = error.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= height, box
    signup = page.locator("#lobby-error-signup")
    assert signup.is_visible()
    assert signup.get_attribute("href").startswith("/signup/?next=")
    signup.click()
    page.wait_for_url("**/signup/**")
