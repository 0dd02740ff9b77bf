"""The HTTP client of every test and bench that talks to a real server over the
network: a browser's cookie jar and ``X-CSRFToken`` header, JSON in and out.

    player = Client(port)                        # 127.0.0.1:port, one keep-alive connection
    player.sign_up("ada", "a long passphrase")   # the csrftoken cookie, then a session
    game = player.expect("POST", "/api/games/", {"random": "SH1-C4"}, status=201)
    answer = player.request("POST", f"/api/games/{game['id']}/actions/", {...})
    answer.status, answer.body, answer.headers.get("Retry-After"), answer.ms
    player.at(other_port).expect("GET", f"/api/games/{game['id']}/")  # same jar

It lives beside ``deploy/stack.py``, which starts the servers it talks to, and
like it imports nothing of Django: ``bench/`` (plain scripts) and ``tests/``
both import ``deploy``, and neither imports the other. Tests that run the app in
process use Django's test client instead (``tests.support.api.Client``).
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any

STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)
"""What a keep-alive connection the server closed while idle raises on reuse."""


class UnexpectedAnswer(AssertionError):
    """A status other than the one expected (the message carries the body)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    """The JSON body decoded; the text when it is not JSON; ``None`` when empty."""
    headers: http.client.HTTPMessage
    """Case-insensitive: ``headers.get("Server-Timing")``."""
    ms: float
    """Round trip: from sending the request to the last byte of the body."""


class Client:
    """One player's cookie jar on one server (``at`` reaches another with the same
    jar). ``keep_alive=False``: a new HTTP/1.1 connection per request, so that a
    killed server leaves no stale connection behind."""

    def __init__(
        self,
        port: int,
        host: str = "127.0.0.1",
        *,
        timeout: float = 30.0,
        keep_alive: bool = True,
        cookies: dict[str, str] | None = None,
    ) -> None:
        self.host, self.port = host, port
        self.timeout, self.keep_alive = timeout, keep_alive
        self.cookies: dict[str, str] = {} if cookies is None else cookies
        self.username = ""
        self.conn: http.client.HTTPConnection | None = None

    def at(self, port: int) -> Client:
        """This client's cookie jar (the same dict) on the server at ``port``."""
        other = Client(
            port, self.host, timeout=self.timeout, keep_alive=self.keep_alive, cookies=self.cookies
        )
        other.username = self.username
        return other

    def request(self, method: str, path: str, body: Any = None) -> Answer:
        """One request as a browser's ``fetch`` sends it: the cookies, and on a
        request with a body (every one but a plain GET) JSON and the CSRF header."""
        headers = {"Accept": "application/json"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        payload = None
        if body is not None or method != "GET":
            payload = json.dumps({} if body is None else body).encode()
            headers["Content-Type"] = "application/json"
            if "csrftoken" in self.cookies:
                headers["X-CSRFToken"] = self.cookies["csrftoken"]
        start = time.perf_counter()
        response, raw = self._exchange(method, path, payload, headers)
        ms = (time.perf_counter() - start) * 1000
        for header in response.headers.get_all("Set-Cookie") or []:
            jar = SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        return Answer(response.status, decode(raw), response.headers, ms)

    def _exchange(
        self, method: str, path: str, payload: bytes | None, headers: dict[str, str]
    ) -> tuple[http.client.HTTPResponse, bytes]:
        if not self.keep_alive:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                conn.request(method, path, body=payload, headers=headers)
                response = conn.getresponse()
                return response, response.read()
            finally:
                conn.close()
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                return response, response.read()
            except STALE:
                # An idle keep-alive connection the server closed: once more, afresh.
                self.conn.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def expect(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        """The body of an answer that must have ``status``; else ``UnexpectedAnswer``."""
        answer = self.request(method, path, body)
        if answer.status != status:
            who = f"{self.username}: " if self.username else ""
            raise UnexpectedAnswer(
                f"{who}{method} {path} on :{self.port} → {answer.status} "
                f"(expected {status}): {answer.body}"
            )
        return answer.body

    def sign_up(self, username: str, password: str) -> dict[str, Any]:
        """A new account, signed in: the csrftoken cookie first (as a page load
        gets it), then ``register``. Returns ``me``."""
        self.username = username
        self.expect("GET", "/api/auth/me/")
        me: dict[str, Any] = self.expect(
            "POST", "/api/auth/register/", {"username": username, "password": password}, 201
        )
        if not (me["authenticated"] is True and me["username"] == username):
            raise UnexpectedAnswer(f"{username}: register answered {me}")
        if "sessionid" not in self.cookies:
            raise UnexpectedAnswer(f"{username}: register set no session cookie")
        return me

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def decode(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:  # an HTML error page, say: shown as it came
        return raw.decode(errors="replace")
