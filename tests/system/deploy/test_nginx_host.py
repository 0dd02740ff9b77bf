"""nginx in front, on a port that is not 80 (compose serves on 8080 by default):
a browser's POST and its websocket carry ``Origin: http://host:port``, which
Django and the socket's origin check compare with the Host they are given. nginx
passed ``$host`` (the port dropped), so every POST of a signed-in page was
refused 403 (csrf_failed) and every socket 403 at the handshake. It passes the
Host the browser sent."""

from __future__ import annotations

import base64
import http.client
import json
import secrets
import socket
from http.cookies import SimpleCookie

from tests.support.api import requires_postgres, requires_redis
from tests.support.nginx import requires_nginx
from tests.support.stack import throwaway_stack

pytestmark = [
    requires_postgres,
    requires_redis,
    requires_nginx,
]


def test_a_browsers_post_and_socket_through_nginx_on_another_port_are_let_in() -> None:
    with throwaway_stack("nginxhost", daphnes=1, nginx=True) as stack:
        port = stack.nginx_port
        assert port is not None
        site = f"127.0.0.1:{port}"
        browser = {"Host": site, "Origin": f"http://{site}", "Accept": "application/json"}

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/auth/me/", headers={"Host": site})
        me = conn.getresponse()
        me.read()
        jar = SimpleCookie()
        for header in me.headers.get_all("Set-Cookie") or []:
            jar.load(header)
        token = jar["csrftoken"].value
        conn.request(
            "POST",
            "/api/auth/guest/",
            body=b"{}",
            headers={
                **browser,
                "Content-Type": "application/json",
                "Cookie": f"csrftoken={token}",
                "X-CSRFToken": token,
            },
        )
        guest = conn.getresponse()
        body = guest.read()
        assert guest.status == 201, body  # before: 403 csrf_failed, the Origin's port unmatched
        assert json.loads(body)["guest"] is True
        conn.close()

        key = base64.b64encode(secrets.token_bytes(16)).decode()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(
                (
                    f"GET /ws/leaderboard/2026-01-01/SH1-C4/ HTTP/1.1\r\nHost: {site}\r\n"
                    f"Origin: http://{site}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            answer = sock.recv(4096).decode("latin-1")
        assert answer.startswith("HTTP/1.1 101"), answer  # before: 403 at the handshake
