"""A real SMTP server for the tests (aiosmtpd, on a free local port): the app's
mail goes out through Django's SMTP backend to it, and a test reads what it
received — no mail backend of ours is replaced."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from aiosmtpd.controller import Controller

from deploy.processes import free_port

_LINK = re.compile(r"https?://\S+")


class Mailbox:
    """What the server received, in order; a test waits for the mail it expects."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.arrived:
            self.messages.append(message)  # type: ignore[arg-type]
            self.arrived.notify_all()
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address.lower() in str(m["To"]).lower()]

    def wait_for(self, address: str, *, count: int = 1, timeout: float = 10) -> EmailMessage:
        """The ``count``-th mail to ``address``, waiting for it as long as ``timeout``."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.to(address)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"no mail #{count} to {address}: {len(self.messages)} received"
                self.arrived.wait(left)
            return self.to(address)[count - 1]


def body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None, message
    return str(part.get_content())


def link(message: EmailMessage) -> str:
    """The one link of a mail."""
    (found,) = _LINK.findall(body(message))
    return found


def link_query(message: EmailMessage) -> dict[str, str]:
    """The link's query, one value a name (``uid``, ``token``)."""
    return {k: v[0] for k, v in parse_qs(urlsplit(link(message)).query).items()}


@contextmanager
def smtp_listening() -> Iterator[tuple[Mailbox, int]]:
    """A real SMTP server on a free local port: its mailbox and the port."""
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield mailbox, controller.port
    finally:
        controller.stop()


@pytest.fixture(name="smtp")
def smtp_server(settings) -> Iterator[Mailbox]:
    """A real SMTP server, the app's mail pointed at it (Django's SMTP backend)."""
    with smtp_listening() as (mailbox, port):
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST = "127.0.0.1"
        settings.EMAIL_PORT = port
        settings.EMAIL_USE_TLS = False
        settings.EMAIL_HOST_USER = ""
        settings.EMAIL_HOST_PASSWORD = ""
        yield mailbox
