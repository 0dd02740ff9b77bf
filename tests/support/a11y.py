"""Accessibility in real Chromium: axe-core (the engine axe-playwright-python
ships, injected into the page under test) and its serious and critical
findings, and what makes a page wider than the screen (a page never scrolls
sideways)."""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe

SERIOUS = {"serious", "critical"}

axe = Axe()

# What makes the page wider than the screen: the element reaching furthest right
# that no scrolling or clipping box of its own holds in.
WIDEST = """() => {
    if (document.documentElement.scrollWidth <= innerWidth) return "";
    const held = (el) => {
        for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
            if (getComputedStyle(up).overflowX !== "visible") return true;
        return false;
    };
    let far = null, right = 0;
    for (const el of document.body.querySelectorAll("*")) {
        const r = el.getBoundingClientRect().right;
        if (r > right && !held(el)) [far, right] = [el, r];
    }
    const name = far.id ? "#" + far.id : far.tagName.toLowerCase() + "." + far.classList[0];
    return `${name} reaches ${Math.round(right)} px of ${innerWidth}`;
}"""


def violations(page: Any) -> list[str]:
    """The serious and critical axe violations of the page as it is now, one line each."""
    found = axe.run(page).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:5])
        for v in found
        if v["impact"] in SERIOUS
    ]


def serious_violations(page: Any, within: str | None = None) -> list[str]:
    """axe-core's serious and critical findings on the page as it stands (or in
    the element ``within`` selects), one short line each: the rule and its first
    targets."""
    found = axe.run(page, context=within).response["violations"]
    return [
        f"{v['id']}: {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in SERIOUS
    ]
