"""The tests that put nginx in front of ``deploy/stack.py``'s daphnes, as compose
runs it: skipped where Debian's nginx is missing, unless CI asks for every service
(``REQUIRE_SERVICES=1``, where ``.ci/run`` installs it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deploy.processes import NGINX

requires_nginx = pytest.mark.skipif(
    not Path(NGINX).exists() and os.environ.get("REQUIRE_SERVICES") != "1",
    reason="no nginx (apt-get install nginx-light)",
)
