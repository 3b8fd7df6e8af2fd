"""Retries, timeouts and errors: scripted answers (httpx.MockTransport), a silent socket, and the real rate limiter."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest

from rag_forensics import (
    AsyncForensicsClient,
    BadRequestError,
    ForensicsApiError,
    ForensicsClient,
    ForensicsConnectionError,
    ForensicsTimeoutError,
    RateLimitError,
    RetryOptions,
    ServerError,
    ServiceUnavailableError,
    parse_retry_after,
)

from .support import Service, unique

BASE = "http://forensics.test"
OK = {"id": "f1", "status": "QUEUED", "duplicate": False, "queued": True, "links": {"self": "/v1/feedback/f1"}}
Answer = httpx.Response | Exception


class Script:
    """Answers requests in order, records them."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a


def problem(status: int, message: str, headers: dict[str, str] | None = None, **extra: object) -> httpx.Response:
    error = {400: "Bad Request", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Error")
    return httpx.Response(status, json={"statusCode": status, "error": error, "message": message, **extra}, headers=headers)


def accepted() -> httpx.Response:
    return httpx.Response(202, json=OK)


def make(script: Script, retry: RetryOptions | None = None, api_key: str | None = "rfk_test-key") -> tuple[ForensicsClient, list[float]]:
    waits: list[float] = []
    c = ForensicsClient(BASE, api_key, retry=retry, http_client=httpx.Client(transport=httpx.MockTransport(script)), sleep=waits.append)
    c._random = lambda: 1.0  # the top of the jitter range: exact expected waits
    return c, waits


def report(c: ForensicsClient) -> object:
    return c.report_wrong_answer(query="q", wrong_answer="w")


def test_429_waits_for_retry_after_then_succeeds() -> None:
    s = Script(problem(429, "slow down", {"Retry-After": "2"}), accepted())
    c, waits = make(s)
    assert report(c) == OK
    assert waits == [2.0] and len(s.requests) == 2


def test_503_without_retry_after_backs_off_exponentially() -> None:
    s = Script(problem(503, "down"), problem(503, "down"), problem(503, "down"), accepted())
    c, waits = make(s)
    assert report(c) == OK
    assert waits == [0.25, 0.5, 1.0]


def test_backoff_is_jittered_to_half_full() -> None:
    s = Script(problem(503, "down"), problem(503, "down"), accepted())
    c, waits = make(s, RetryOptions(base_delay=1.0))
    c._random = lambda: 0.0
    report(c)
    assert waits == [0.5, 1.0]


def test_retries_end_with_the_typed_error() -> None:
    s = Script(*[problem(503, "a dependency is down", {"Retry-After": "1"})] * 4)
    c, waits = make(s)
    with pytest.raises(ServiceUnavailableError) as e:
        report(c)
    assert isinstance(e.value, ServerError) and isinstance(e.value, ForensicsApiError)
    assert (e.value.status, e.value.retry_after, e.value.message) == (503, 1.0, "a dependency is down")
    assert waits == [1.0, 1.0, 1.0] and len(s.requests) == 4


def test_a_retry_after_longer_than_max_delay_is_not_waited_for() -> None:
    s = Script(problem(429, "rate limit exceeded", {"Retry-After": "60"}))
    c, waits = make(s, RetryOptions(max_delay=30))
    with pytest.raises(RateLimitError) as e:
        report(c)
    assert e.value.retry_after == 60.0 and waits == [] and len(s.requests) == 1


def test_retry_after_as_an_http_date() -> None:
    at = datetime.now(timezone.utc) + timedelta(seconds=5)
    s = Script(problem(429, "later", {"Retry-After": format_datetime(at, usegmt=True)}), accepted())
    c, waits = make(s)
    report(c)
    assert len(waits) == 1 and 4.0 <= waits[0] <= 6.0


def test_other_statuses_are_not_retried() -> None:
    s = Script(problem(400, "query: required", problems=[{"path": "query", "message": "required"}]))
    c, waits = make(s)
    with pytest.raises(BadRequestError) as e:
        report(c)
    assert e.value.problem["problems"] == [{"path": "query", "message": "required"}]  # type: ignore[typeddict-item]
    assert waits == []
    s = Script(httpx.Response(500, text="<html>proxy error</html>"))
    c, waits = make(s)
    with pytest.raises(ServerError) as e5:
        report(c)
    assert e5.value.problem == {"statusCode": 500, "error": "HttpError", "message": "<html>proxy error</html>"}
    assert waits == []


def test_no_answer_is_retried_then_a_connection_error() -> None:
    s = Script(httpx.ConnectError("connection refused"), accepted())
    c, waits = make(s)
    assert report(c) == OK and waits == [0.25]
    s = Script(*[httpx.ConnectError("connection refused")] * 4)
    c, waits = make(s)
    with pytest.raises(ForensicsConnectionError) as e:
        report(c)
    assert (e.value.status, e.value.error, e.value.message) == (0, "NetworkError", "connection refused")
    assert not isinstance(e.value, ForensicsTimeoutError) and len(waits) == 3
    assert e.value.__cause__ is None and e.value.__context__ is None  # nothing of httpx's frames (their locals hold headers)


def test_a_timeout_is_a_timeout_error() -> None:
    s = Script(*[httpx.ReadTimeout("timed out")] * 2)
    c, _ = make(s, RetryOptions(retries=1))
    with pytest.raises(ForensicsTimeoutError) as e:
        report(c)
    assert e.value.status == 0 and e.value.error == "Timeout"


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join()
    for h in held:
        h.close()
    server.close()


def test_the_timeout_is_per_attempt_over_a_real_socket(silent_port: int) -> None:
    with ForensicsClient(f"http://127.0.0.1:{silent_port}", "k", timeout=0.3, retry=RetryOptions(retries=1, base_delay=0.01)) as c:
        t0 = time.monotonic()
        with pytest.raises(ForensicsTimeoutError):
            c.get_feedback("x")
        assert 0.55 < time.monotonic() - t0 < 3.0


def test_what_goes_on_the_wire() -> None:
    s = Script(accepted(), accepted(), httpx.Response(200, json={"items": []}), httpx.Response(200, json={"id": "q"}))
    c, _ = make(s)
    c.report_wrong_answer(query="q", wrong_answer="w", served_ids=("a", "b"), reporter="u1", idempotency_key="idem-1")
    c.report_with_token("tok.en", correct_answer="c")
    assert c.list_quarantine(state="NEEDS_REVIEW", collection="docs") == []
    c.approve("a/b c")
    key, token, listing, approve = s.requests
    assert key.headers["x-api-key"] == "rfk_test-key" and key.headers["idempotency-key"] == "idem-1"
    assert key.headers["content-type"] == "application/json" and key.headers["user-agent"].startswith("rag-forensics-python/")
    assert json.loads(key.content) == {"query": "q", "wrongAnswer": "w", "servedIds": ["a", "b"], "reporter": "u1"}
    assert "x-api-key" not in token.headers and token.headers["authorization"] == "FeedbackToken tok.en"
    assert json.loads(token.content) == {"correctAnswer": "c"}
    assert listing.method == "GET" and listing.url.params == httpx.QueryParams({"state": "NEEDS_REVIEW", "collection": "docs"})
    assert listing.content == b""
    assert approve.url.raw_path == b"/v1/quarantine/a%2Fb%20c/approve" and json.loads(approve.content) == {}


def test_parse_retry_after() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 120 ") == 120.0
    for unreadable in [None, "", "  ", "soon", "-1", "1.5"]:
        assert parse_retry_after(unreadable, now) is None
    at = datetime.fromtimestamp(now, timezone.utc)
    assert parse_retry_after(format_datetime(at + timedelta(seconds=9), usegmt=True), now - 0.2) == 10.0  # ceil(9.2)
    assert parse_retry_after(format_datetime(at - timedelta(hours=1), usegmt=True), now) == 0.0


@pytest.mark.anyio
async def test_the_async_client_retries_alike() -> None:
    s = Script(problem(429, "slow down", {"Retry-After": "2"}), problem(503, "down"), accepted())
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    transport = httpx.MockTransport(s)
    async with AsyncForensicsClient(BASE, "k", http_client=httpx.AsyncClient(transport=transport), sleep=sleep) as c:
        c._random = lambda: 1.0
        assert await c.report_wrong_answer(query="q", wrong_answer="w") == OK
        assert waits == [2.0, 0.5]
        s.answers = [problem(429, "later", {"Retry-After": "600"})]
        with pytest.raises(RateLimitError) as e:
            await c.report_wrong_answer(query="q", wrong_answer="w")
        assert e.value.retry_after == 600.0 and waits == [2.0, 0.5]
        s.answers = [httpx.ConnectTimeout("no")] * 4
        with pytest.raises(ForensicsTimeoutError):
            await c.get_feedback("x")


def test_the_services_rate_limit(service: Service, client: ForensicsClient) -> None:
    if service.env.get("RATE_LIMIT_REPORTER_PER_MIN") != "5":
        pytest.skip("an external service: its rate limits are its own")
    collection = unique("py_rate")
    client.ingest(collection, ["The sperm whale is the largest of the toothed whales."])
    reporter = unique("flood")
    fast = ForensicsClient(service.url, service.api_key, retry=RetryOptions(max_delay=0.5))
    send: Callable[[], object] = lambda: fast.report_wrong_answer(  # noqa: E731
        query="how large is the sperm whale", wrong_answer="small", collection=collection, reporter=reporter, idempotency_key=reporter
    )
    for _ in range(5):
        send()  # the same Idempotency-Key: one event, five requests counted
    t0 = time.monotonic()
    with pytest.raises(RateLimitError) as e:
        send()
    # The service asked for more than max_delay: not waited for, raised at once with its problem and Retry-After.
    assert time.monotonic() - t0 < 2.0
    assert e.value.status == 429 and e.value.problem["error"] == "TooManyRequests" and "reporter" in e.value.message
    assert e.value.retry_after is not None and 1 <= e.value.retry_after <= 60
    fast.close()
