"""Webhook signatures: ``Webhook-Signature: t=<unix seconds>,v1=<hex>``, HMAC-SHA256 of ``t + "." + raw body``.

The service signs each delivery with the endpoint's secret (``whsec_…``, shown once when the
endpoint is created), keyed with the secret's UTF-8 bytes; the body is the JSON exactly as sent.
Verify over the raw body, before parsing it: re-serialised JSON is not the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from typing import Final, Literal, TypedDict

__all__ = [
    "WEBHOOK_ID_HEADER",
    "WEBHOOK_SIGNATURE_HEADER",
    "WEBHOOK_TOLERANCE",
    "WebhookEvent",
    "WebhookEventType",
    "read_webhook_event",
    "sign_webhook",
    "verify_webhook_signature",
]

WEBHOOK_SIGNATURE_HEADER: Final = "Webhook-Signature"
WEBHOOK_ID_HEADER: Final = "Webhook-Id"
#: Seconds a signature's timestamp may be away from now (replays); the service's README says 5 minutes.
WEBHOOK_TOLERANCE: Final = 300.0

#: Event types the service publishes (README "Webhooks"); a receiver should accept others too.
WebhookEventType = Literal[
    "quarantine.created",
    "review.needed",
    "review.decided",
    "feedback.failed",
    "enhancement.created",
    "enhancement.proposed",
    "audit.finished",
    "ping",
]


class WebhookEvent(TypedDict):
    """A delivery's JSON body: ids and short facts, never texts."""

    id: str
    type: str
    createdAt: str
    data: dict[str, object]


_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_DIGITS = re.compile(r"[0-9]+")


def _bytes(value: str | bytes) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def sign_webhook(secret: str | bytes, timestamp: int, raw_body: str | bytes) -> str:
    """The header the service sends for ``raw_body`` at ``timestamp`` (for tests of a receiver)."""
    mac = hmac.new(_bytes(secret), f"{int(timestamp)}.".encode() + _bytes(raw_body), hashlib.sha256)
    return f"t={int(timestamp)},v1={mac.hexdigest()}"


def verify_webhook_signature(
    secret: str | bytes,
    raw_body: str | bytes,
    signature_header: str | None,
    *,
    tolerance: float = WEBHOOK_TOLERANCE,
    now: float | None = None,
) -> bool:
    """True when ``signature_header`` is the HMAC-SHA256, keyed with the endpoint's secret, of
    ``t + "." + raw_body``, and ``t`` is within ``tolerance`` seconds of ``now`` (default: the
    clock, seconds since the epoch). ``raw_body`` must be the body exactly as received. The
    comparison is constant-time. ``t`` must be decimal digits (what the service sends)."""
    if not signature_header:
        return False
    parts: dict[str, str] = {}
    for part in signature_header.split(","):
        key, sep, value = part.partition("=")
        if sep:
            parts[key.strip()] = value.strip()
    t = parts.get("t", "")
    if not _DIGITS.fullmatch(t):
        return False
    ts = int(t)
    current = time.time() if now is None else now
    if abs(current - ts) > tolerance:
        return False
    v1 = parts.get("v1", "")
    if not _HEX64.fullmatch(v1):
        return False
    expected = hmac.new(_bytes(secret), f"{ts}.".encode() + _bytes(raw_body), hashlib.sha256).digest()
    return hmac.compare_digest(bytes.fromhex(v1), expected)


def read_webhook_event(
    secret: str | bytes,
    raw_body: str | bytes,
    signature_header: str | None,
    *,
    tolerance: float = WEBHOOK_TOLERANCE,
    now: float | None = None,
) -> WebhookEvent | None:
    """Verifies, then parses: the event, or None when the signature does not hold."""
    if not verify_webhook_signature(secret, raw_body, signature_header, tolerance=tolerance, now=now):
        return None
    event: WebhookEvent = json.loads(raw_body)
    return event
