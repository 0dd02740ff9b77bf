"""One Celery result backend a process (issue 38): Django runs each HTTP
request's sync code on a thread of its own, and every task queued from it asks
for the backend; built per thread, it was built again every request."""

from __future__ import annotations

import threading

from config.celery import app


def test_the_result_backend_is_built_once_for_every_thread():
    seen = [app.backend]
    for _ in range(3):  # one request after another, each on a thread of its own
        thread = threading.Thread(target=lambda: seen.append(app.backend))
        thread.start()
        thread.join()
    assert len({id(backend) for backend in seen}) == 1, seen
