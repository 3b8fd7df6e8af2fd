"""The client against the real service: every call of the API, with the service's own answers."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from rag_forensics import (
    AuthenticationError,
    BadRequestError,
    FeedbackAccepted,
    ForensicsApiError,
    ForensicsClient,
    NotFoundError,
    PermissionDeniedError,
    ServingStatusCache,
    read_webhook_event,
)

from .support import MOBY, PLANTED, Hook, Service, unique


def test_token_report_review_and_serving_status(client: ForensicsClient) -> None:
    collection = unique("py_token")
    ingested = client.ingest(collection, MOBY)
    assert ingested["inserted"] == len(MOBY)
    ids = ingested["ids"]
    # The same texts again: idempotent by text hash, the same ids.
    assert client.ingest(collection, [{"text": t} for t in MOBY])["ids"] == ids

    logged = client.log_answer(collection=collection, query="who wrote moby dick", answer="Charles Dickens", served_ids=ids[:3])
    assert logged["feedbackToken"]
    report = client.report_with_token(logged["feedbackToken"], correct_answer="Herman Melville")
    assert report["status"] in ("RECEIVED", "QUEUED") and report["duplicate"] is False
    again = client.report_with_token(logged["feedbackToken"])
    assert again["duplicate"] is True and again["id"] == report["id"]

    event = client.wait_for_trace(report["id"], timeout=180)
    assert event["status"] == "TRACED"
    assert event["correctAnswer"] == "Herman Melville"
    judged = {v["documentId"] for v in event["verdicts"]}
    assert set(ids[:3]) <= judged

    # An anonymous (token) report: its findings wait for a reviewer, the texts served meanwhile.
    waiting = [q for q in client.list_quarantine(collection=collection, state="NEEDS_REVIEW") if q["feedbackId"] == report["id"]]
    assert waiting and {q["documentId"] for q in waiting} <= set(ids[:2])
    assert all(q["servedDuringReview"] for q in waiting)
    decided = [client.approve(q["id"], "planted text") for q in waiting]
    assert {d["state"] for d in decided} == {"QUARANTINED"}

    status = client.serving_status(collection, ids=ids)
    withheld = {s["id"] for s in status["ids"] if s["withheld"]}
    assert withheld == {q["documentId"] for q in waiting}
    by_text = client.serving_status(collection, texts=[*MOBY, "a text it never saw"])["texts"]
    assert [s["withheld"] for s in by_text[:-1]] == [i in withheld for i in ids]
    assert by_text[-1] == {"id": None, "known": False, "status": None, "withheld": False}

    # Undo: restored, served again.
    restored = client.restore(waiting[0]["id"], "second look")
    assert restored["state"] == "RESTORED"
    assert client.serving_status(collection, ids=[waiting[0]["documentId"]])["ids"][0]["withheld"] is False
    assert [q["state"] for q in client.list_quarantine(collection=collection, state="RESTORED")] == ["RESTORED"]


def test_key_report_quarantines_and_the_webhook_clears_the_cache(client: ForensicsClient, webhook: Hook) -> None:
    collection = unique("py_key")
    ids = client.ingest(collection, MOBY)["ids"]
    cache = ServingStatusCache(client, collection, ttl=60)
    assert [e["withheld"] for e in cache.lookup(MOBY)] == [False] * len(MOBY)
    assert cache.lookups == 1

    logged = client.log_answer(collection=collection, query="who wrote the novel moby dick", answer="Charles Dickens", served_ids=ids[:3])
    reporter = unique("user")

    def report() -> FeedbackAccepted:
        return client.report_wrong_answer(
            query="who wrote the novel moby dick",
            wrong_answer="Charles Dickens",
            served_ids=ids[:3],
            collection=collection,
            reporter=reporter,
            idempotency_key=logged["answerId"],
        )

    first = report()
    retried = report()  # the same Idempotency-Key: the same event
    assert retried["id"] == first["id"] and retried["duplicate"] is True

    event = client.wait_for_trace(first["id"], timeout=180)
    assert event["status"] == "TRACED"
    quarantined = sorted(q["text"] or "" for q in event["quarantined"] if q["state"] == "QUARANTINED")
    assert quarantined == sorted(PLANTED)

    # Cached for 60 s: still "served" until the signed quarantine.created delivery clears the cache.
    assert [e["withheld"] for e in cache.lookup(PLANTED)] == [False, False]
    delivery = webhook.receiver.wait_for("quarantine.created")
    hook_event = read_webhook_event(webhook.secret, delivery.body, delivery.headers.get("webhook-signature"))
    assert hook_event is not None and hook_event["type"] == "quarantine.created"
    assert cache.handle_webhook_event(hook_event) is True
    assert [e["withheld"] for e in cache.lookup(MOBY)] == [True, True, False, False, False]
    assert cache.lookups == 2


def test_correct_answer_follow_up(client: ForensicsClient) -> None:
    collection = unique("py_correct")
    ids = client.ingest(collection, MOBY)["ids"]
    report = client.report_wrong_answer(
        query="who wrote moby dick", wrong_answer="Charles Dickens", served_ids=ids[:2], collection=collection, reporter=unique("user")
    )
    client.wait_for_trace(report["id"], timeout=180)
    result = client.set_correct_answer(report["id"], "Herman Melville")
    # The test key is an admin's (decide): the enhancement is served at once.
    assert result["served"] is True and result["enhancement"]["state"] == "ACTIVE"
    assert result["enhancement"]["feedbackId"] == report["id"] and result["enhancement"]["correctAnswer"] == "Herman Melville"
    event = client.get_feedback(report["id"])
    assert [e["id"] for e in event["enhancements"]] == [result["enhancement"]["id"]]


def test_rag_answer_and_vetted_baseline(client: ForensicsClient) -> None:
    collection = unique("py_rag")
    client.ingest(collection, MOBY)
    answer = client.rag_answer("who wrote moby dick", collection=collection, k=3)
    assert len(answer["contexts"]) == 3 and answer["feedbackToken"] and answer["answerId"]

    vetted = client.set_vetted_baseline(collection)
    assert vetted["name"] == collection and vetted["vettedBefore"] is not None and vetted["vettedTexts"] == len(MOBY)
    earlier = client.set_vetted_baseline(collection, datetime.now(timezone.utc) - timedelta(days=1))
    assert earlier["vettedTexts"] == 0
    assert client.set_vetted_baseline(collection, None)["vettedBefore"] is None
    with pytest.raises(BadRequestError) as refused:
        client.set_vetted_baseline(collection, datetime.now(timezone.utc) + timedelta(days=1))
    assert refused.value.status == 400


def test_typed_errors_carry_the_services_problem(client: ForensicsClient, service: Service) -> None:
    with pytest.raises(NotFoundError) as missing:
        client.get_feedback("00000000-0000-0000-0000-000000000000")
    e = missing.value
    assert isinstance(e, ForensicsApiError)
    assert (e.status, e.problem["statusCode"], e.problem["error"]) == (404, 404, "Not Found")
    assert "does not exist" in e.message and e.method == "GET" and e.path == "/v1/feedback/00000000-0000-0000-0000-000000000000"

    with pytest.raises(BadRequestError) as bad:
        client.log_answer(query="", answer="x", served_ids=["no-such-id"])
    assert bad.value.problem["statusCode"] == 400 and bad.value.message

    with ForensicsClient(service.url, "not-a-key-" + "0" * 30) as wrong, pytest.raises(AuthenticationError) as unauthorized:
        wrong.list_quarantine()
    assert unauthorized.value.status == 401

    with pytest.raises(AuthenticationError):
        client.report_with_token("not.a.token")

    # A read-only key may not decide.
    created = httpx.post(
        f"{service.url}/v1/admin/keys", headers={"x-api-key": service.api_key}, json={"name": unique("svc"), "scopes": ["answers"]}
    )
    assert created.status_code == 201, created.text
    with ForensicsClient(service.url, created.json()["key"]) as narrow, pytest.raises(PermissionDeniedError) as denied:
        narrow.approve("00000000-0000-0000-0000-000000000000")
    assert denied.value.status == 403 and json.dumps(denied.value.problem)
