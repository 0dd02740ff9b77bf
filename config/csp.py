"""``POST /csp-report/``: where browsers report what the Content-Security-Policy
blocked (``report-uri`` in ``CONTENT_SECURITY_POLICY``). Each report is logged
as one warning line: a blocked script or style on our pages is a bug or an
attack, and either way someone should see it.

Browsers send it without a CSRF token or session, so it is CSRF-exempt; it is
limited per address (``CSP_REPORT_RATE``) and, like every body, to 64 KiB
(``BodySizeLimitMiddleware``); it stores nothing.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import Throttled

from kit.api import client_address, rate_limit
from kit.http import describe_error, error_body

log = logging.getLogger("csp")

FIELDS = ("document-uri", "effective-directive", "violated-directive", "blocked-uri")
FIELDS_NEW = ("documentURL", "effectiveDirective", "effectiveDirective", "blockedURL")
"""The same fields in the Reporting API's ``csp-violation`` body."""


def violations(body: Any) -> list[dict[str, Any]]:
    """The violations of a report: ``{"csp-report": {…}}`` (``report-uri``) or a
    list of ``{"type": "csp-violation", "body": {…}}`` (the Reporting API)."""
    if isinstance(body, dict) and isinstance(body.get("csp-report"), dict):
        report = body["csp-report"]
        return [{field: report.get(field) for field in FIELDS}]
    if isinstance(body, list) and body and all(isinstance(item, dict) for item in body):
        found = []
        for item in body:
            report = item.get("body")
            if item.get("type") == "csp-violation" and isinstance(report, dict):
                found.append({a: report.get(b) for a, b in zip(FIELDS, FIELDS_NEW, strict=True)})
        if found:
            return found
    raise ValueError("not a Content-Security-Policy report")


@csrf_exempt
def csp_report(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        response = JsonResponse(
            error_body("method_not_allowed", "Reports are POSTed here."), status=405
        )
        response["Allow"] = "POST"
        return response
    try:
        rate_limit("csp-reports", client_address(request))
    except Throttled as exc:
        status, body, headers = describe_error(exc) or (429, {}, {})
        return JsonResponse(body, status=status, headers=headers)
    try:
        found = violations(json.loads(request.body))
    except (ValueError, RecursionError):
        return JsonResponse(
            error_body("bad_report", "Expected a Content-Security-Policy report (JSON)."),
            status=400,
        )
    for violation in found:
        log.warning(
            "content security policy violation: %s",
            " ".join(f"{key}={str(value)[:200]!r}" for key, value in violation.items()),
        )
    return HttpResponse(status=204)
