"""The Content-Security-Policy seen from a real Chromium page: every violation
its document sees (a listener on ``securitypolicyviolation``, from before the
page's own scripts run), every script error it logs, and every report it sends
to the report endpoint."""

from __future__ import annotations

from typing import Any

REPORT = "/csp-report/"

# Every violation the page's document sees, from before its own scripts run.
LISTEN = """
window.cspSeen = [];
document.addEventListener("securitypolicyviolation", (e) => {
    window.cspSeen.push(e.effectiveDirective);
    window.cspViolation(`${location.pathname}: ${e.effectiveDirective} blocked ` +
        `${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


class Watched:
    """A page whose violations, script errors and reports sent are collected."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.violations: list[str] = []
        self.errors: list[str] = []
        self.reports: list[str] = []
        page.expose_function("cspViolation", self._violation)
        page.add_init_script(LISTEN)
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        page.on("console", self._console)
        page.on("request", self._request)

    def _violation(self, text: str) -> None:
        self.violations.append(text)

    def _console(self, message: Any) -> None:
        # A 4xx/5xx answer is the app's business (a refused move, the 404 page);
        # every other error in the console is a script that failed.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(f"{self.page.url}: {message.text}")

    def _request(self, request: Any) -> None:
        if request.url.endswith(REPORT):
            self.reports.append(request.post_data or "")

    def visit(self, path: str, ready: str = "main") -> None:
        self.page.goto(path)
        self.page.wait_for_selector(ready)
        self.page.wait_for_load_state("networkidle")

    def assert_clean(self) -> None:
        assert not self.violations, self.violations
        assert not self.reports, self.reports
        assert not self.errors, self.errors
