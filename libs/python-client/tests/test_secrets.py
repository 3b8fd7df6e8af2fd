"""No API key and no feedback token in a repr, a str, an error or a log line (httpx's and httpcore's at DEBUG included)."""

from __future__ import annotations

import logging

import httpx
import pytest

from rag_forensics import AsyncForensicsClient, AuthenticationError, ForensicsClient, NotFoundError, RetryOptions
from rag_forensics._core import token_report_call

from .support import MOBY, Service, unique


def test_nothing_secret_is_logged_or_shown(service: Service, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    shown: list[str] = []
    with ForensicsClient(service.url, service.api_key) as client:
        shown += [repr(client), str(client), repr(client.__dict__)]
        collection = unique("py_secret")
        ids = client.ingest(collection, MOBY[:2])["ids"]
        logged = client.log_answer(collection=collection, query="who wrote moby dick", answer="Charles Dickens", served_ids=ids)
        token = logged["feedbackToken"]
        client.report_with_token(token)
        with pytest.raises(NotFoundError) as missing:
            client.get_feedback("00000000-0000-0000-0000-000000000000")
        shown += [repr(missing.value), str(missing.value), repr(missing.value.problem)]
    with ForensicsClient(service.url, "x" * 40) as unknown, pytest.raises(AuthenticationError) as refused:
        unknown.report_with_token(token + "x")
    shown += [repr(refused.value), str(refused.value)]
    call = token_report_call(token, None, None, None, None)
    shown += [repr(call), repr(call.headers)]
    text = "\n".join(shown) + "\n" + caplog.text
    assert "HTTP Request: POST" in caplog.text  # httpx did log, at DEBUG/INFO
    assert service.api_key not in text
    assert token not in text and token.split(".")[-1] not in text


def test_retry_logs_name_the_call_not_its_credentials(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    key = "rfk_very-secret-key-0123456789"
    answers = [httpx.Response(429, headers={"Retry-After": "0"}, json={"statusCode": 429, "error": "Too Many Requests", "message": "m"})]
    answers.append(httpx.Response(202, json={"id": "f"}))
    transport = httpx.MockTransport(lambda _request: answers.pop(0))
    with ForensicsClient("http://f.test", key, http_client=httpx.Client(transport=transport), sleep=lambda _s: None) as c:
        c.report_with_token("tok-secret", reporter="u")
    assert "POST /v1/feedback → 429; retry 1 of 3" in caplog.text
    assert key not in caplog.text and "tok-secret" not in caplog.text


def test_reprs_of_both_clients() -> None:
    key = "rfk_another-secret-key-0123456789"
    sync = ForensicsClient("https://forensics.example.com/", key, retry=RetryOptions(retries=1))
    assert repr(sync) == (
        "ForensicsClient(base_url='https://forensics.example.com', api_key=<set>, "
        "retry=RetryOptions(retries=1, base_delay=0.25, max_delay=30.0))"
    )
    asyncc = AsyncForensicsClient("https://forensics.example.com", key)
    for shown in [repr(sync), repr(vars(sync)), repr(asyncc), repr(vars(asyncc))]:
        assert key not in shown
    assert "api_key=<none>" in repr(ForensicsClient("http://x"))
    sync.close()
