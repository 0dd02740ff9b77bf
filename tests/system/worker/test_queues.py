"""A mail is delivered while the solver's queue is stuffed (issue 38): real
Celery workers of the two classes compose, Kubernetes and ``make stack`` run
(``deploy.stack.QUEUES``), the real broker, a real SMTP server. Before, every
task shared one queue, so a password-reset mail waited 65 s behind six Easy
Harp analyses, a verification mail 4 minutes behind practice-pool fills.

The heavy worker is absent here (as when every one of them is busy with a
minute-long search): the daily deals of a month of future days wait on its
queue, each up to a minute of search, and the interactive worker delivers the
mail within seconds, through the SMTP server, leaving them all queued."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from accounts.mail import mail_password_reset
from accounts.models import User
from deploy.processes import QUEUES
from games.dailies import utc_today
from games.engine import ALL_VARIANTS
from games.tasks import prepare_daily_deal
from tests.support.api import requires_postgres, requires_redis
from tests.support.celery_worker import real_broker, worker_env, workers
from tests.support.smtp import Mailbox, smtp_listening

pytestmark = [requires_postgres, requires_redis, pytest.mark.django_db(transaction=True)]

MAIL_WITHIN_S = 10.0  # the target for a reset mail with the heavy queue full


@pytest.fixture
def mailbox_port() -> Iterator[tuple[Mailbox, int]]:
    with smtp_listening() as found:
        yield found


def test_a_reset_mail_goes_out_while_the_heavy_queue_is_full(mailbox_port, tmp_path: Path):
    mailbox, port = mailbox_port
    user = User.objects.create_user(
        "mailme", email="mailme@example.org", password="a long passphrase", email_verified=True
    )
    with real_broker(), workers(tmp_path) as start:
        days = [utc_today() + dt.timedelta(days=100 + n) for n in range(30)]
        for day in days:  # a month of searches, each up to a minute: the heavy queue
            for variant in ALL_VARIANTS:
                prepare_daily_deal.delay(day.isoformat(), variant)
        queued = len(days) * len(ALL_VARIANTS)
        asked = time.monotonic()
        mail_password_reset.delay(user.pk)
        email = {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(port),
        }
        start("--pool", "solo", queues=QUEUES["interactive"], env=worker_env(**email))
        mail = mailbox.wait_for("mailme@example.org", timeout=MAIL_WITHIN_S + 20)
        waited = time.monotonic() - asked
        assert "reset" in str(mail["Subject"]).lower()
        assert waited < MAIL_WITHIN_S, f"the mail took {waited:.1f} s"
        broker = redis.Redis.from_url(settings.REDIS_URL)
        assert broker.llen("heavy") == queued  # all still waiting for a heavy worker
