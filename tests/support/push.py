"""A push service for the tests (issue 28's reminders): a real HTTP server on a
free local port that receives what the app posts, as a browser vendor's push
service would, and answers what the test tells it to; and a subscription made
as a browser makes one — its own P-256 key pair and auth secret — so a test can
decrypt what arrived (http_ece, RFC 8291) and check the VAPID JWT (RFC 8292)
against the public key of the settings. Nothing of the app is replaced."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from config.settings import vapid_pair


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """What arrived, in order; ``answers[path]``: the status to give (201 unless said)."""

    origin: str = ""
    received: list[Received] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)
    retry_after: str | None = None
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def to(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]


class BrowserSubscription:
    """A subscription as ``PushManager.subscribe`` makes it, with its private key."""

    def __init__(self, service: PushService, name: str | None = None) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.path = f"/push/{name or b64url(os.urandom(9))}"
        self.endpoint = f"{service.origin}{self.path}"
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.p256dh = b64url(public)

    def json(self, **extra: Any) -> dict[str, Any]:
        """``subscription.toJSON()``, as the client posts it."""
        keys = {"p256dh": self.p256dh, "auth": b64url(self.auth)}
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": keys, **extra}

    def decrypt(self, received: Received) -> dict[str, Any]:
        assert received.headers.get("content-encoding") == "aes128gcm", received.headers
        plain = http_ece.decrypt(
            received.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def vapid_claims(received: Received, public_key: str) -> dict[str, Any]:
    """The VAPID JWT's claims, once its ES256 signature verifies against
    ``public_key`` (the settings'); the header's ``k`` must be that key too."""
    scheme, _, params = received.headers["authorization"].partition(" ")
    assert scheme == "vapid", received.headers["authorization"]
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == public_key
    head, claims, signature = fields["t"].split(".")
    raw = unb64url(signature)
    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    verifier.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if not
    assert json.loads(unb64url(head)) == {"typ": "JWT", "alg": "ES256"}
    return json.loads(unb64url(claims))


@pytest.fixture(name="push")
def push_service(settings) -> Iterator[PushService]:
    """A push service listening on a free local port, the app allowed to post to
    it (``PUSH_ENDPOINT_TEST_ORIGINS``, the tests' setting) and given a VAPID pair."""
    service = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with service.arrived:
                service.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                service.arrived.notify_all()
            status = service.answers.get(self.path, 201)
            self.send_response(status)
            if service.retry_after and status in (429, 503):
                self.send_header("Retry-After", service.retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    service.origin = f"http://127.0.0.1:{server.server_address[1]}"
    settings.PUSH_ENDPOINT_TEST_ORIGINS = [service.origin]
    pair = vapid_pair()
    settings.VAPID_PUBLIC_KEY = pair["VAPID_PUBLIC_KEY"]
    settings.VAPID_PRIVATE_KEY = pair["VAPID_PRIVATE_KEY"]
    settings.VAPID_SUBJECT = "mailto:ops@example.org"
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def wait_quiet(service: PushService, count: int, timeout: float = 5) -> None:
    """Until ``count`` posts arrived (the app's post returns after the answer, so
    this only guards the handler thread's append)."""
    deadline = time.monotonic() + timeout
    with service.arrived:
        while len(service.received) < count:
            left = deadline - time.monotonic()
            assert left > 0, f"{len(service.received)} of {count} pushes arrived"
            service.arrived.wait(left)
