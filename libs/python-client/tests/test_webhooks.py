"""Webhook signatures: a delivery the real service signed verifies; anything else does not."""

from __future__ import annotations

import json
import time

import httpx

from rag_forensics import WEBHOOK_SIGNATURE_HEADER, read_webhook_event, sign_webhook, verify_webhook_signature

from .support import Hook, Service

SECRET = "whsec_test-secret"
BODY = '{"id":"e1","type":"ping","createdAt":"2026-01-01T00:00:00.000Z","data":{"note":"café"}}'
NOW = 1_800_000_000


def test_the_services_signed_ping_verifies(service: Service, webhook: Hook) -> None:
    r = httpx.post(f"{service.url}/v1/webhooks/{webhook.id}/test", headers={"x-api-key": service.api_key})
    assert r.status_code == 200, r.text
    delivery = webhook.receiver.wait_for("ping")
    header = delivery.headers[WEBHOOK_SIGNATURE_HEADER.lower()]
    assert verify_webhook_signature(webhook.secret, delivery.body, header)
    assert verify_webhook_signature(webhook.secret, delivery.body.decode("utf-8"), header)
    event = read_webhook_event(webhook.secret, delivery.body, header)
    assert event is not None and event["type"] == "ping" and delivery.headers["webhook-id"]
    # The same delivery, altered or under another secret, does not.
    assert not verify_webhook_signature(webhook.secret, delivery.body + b" ", header)
    assert not verify_webhook_signature(webhook.secret + "x", delivery.body, header)
    assert read_webhook_event("whsec_other", delivery.body, header) is None
    # Re-serialised JSON is not the raw body the signature covers.
    reserialised = json.dumps(json.loads(delivery.body))
    assert reserialised.encode() != delivery.body
    assert not verify_webhook_signature(webhook.secret, reserialised, header)


def test_sign_and_verify_round_trip() -> None:
    header = sign_webhook(SECRET, NOW, BODY)
    assert header.startswith(f"t={NOW},v1=")
    assert verify_webhook_signature(SECRET, BODY, header, now=NOW)
    assert verify_webhook_signature(SECRET.encode(), BODY.encode("utf-8"), header, now=NOW)
    assert read_webhook_event(SECRET, BODY, header, now=NOW) == json.loads(BODY)
    # Upper-case hex and spaces around the parts are accepted (as the TypeScript client does).
    t, v1 = header.split(",")
    assert verify_webhook_signature(SECRET, BODY, f" {t} , {v1.upper().replace('V1=', 'v1=')} ", now=NOW)


def test_the_replay_window() -> None:
    header = sign_webhook(SECRET, NOW, BODY)
    assert verify_webhook_signature(SECRET, BODY, header, now=NOW + 300)
    assert verify_webhook_signature(SECRET, BODY, header, now=NOW - 300)
    assert not verify_webhook_signature(SECRET, BODY, header, now=NOW + 301)
    assert not verify_webhook_signature(SECRET, BODY, header, now=NOW - 301)
    assert verify_webhook_signature(SECRET, BODY, header, now=NOW + 3000, tolerance=3600)
    assert not verify_webhook_signature(SECRET, BODY, sign_webhook(SECRET, int(time.time()) - 600, BODY))
    assert verify_webhook_signature(SECRET, BODY, sign_webhook(SECRET, int(time.time()), BODY))


def test_malformed_headers_are_refused() -> None:
    good = sign_webhook(SECRET, NOW, BODY)
    v1 = good.split("v1=")[1]
    for header in [
        None,
        "",
        f"v1={v1}",
        f"t={NOW}",
        f"t={NOW},v1={v1[:-1]}",
        f"t={NOW},v1={v1}0",
        f"t={NOW},v1={'g' * 64}",
        f"t={NOW}.5,v1={v1}",
        f"t=-{NOW},v1={v1}",
        f"t=1e9,v1={v1}",
        f"t=١٢٣,v1={v1}",
        f"t={NOW + 1},v1={v1}",
        f"t={NOW},v0={v1}",
    ]:
        assert not verify_webhook_signature(SECRET, BODY, header, now=NOW), header
        assert read_webhook_event(SECRET, BODY, header, now=NOW) is None
