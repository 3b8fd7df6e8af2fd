"""What the sync and the async client share: the calls (paths, bodies, headers), retries, errors."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final
from urllib.parse import quote, urlencode

import httpx

from ._models import (
    CorrectAnswerRequest,
    IngestDocument,
    IngestRequest,
    KeyFeedbackRequest,
    LogAnswerRequest,
    QuarantineFilter,
    QuarantineState,
    RagAnswerRequest,
    ReviewNoteRequest,
    ServingStatusRequest,
    TokenFeedbackRequest,
    VettedBaselineRequest,
)
from .errors import ForensicsApiError, ForensicsConnectionError, ForensicsTimeoutError, Problem, error_for, parse_retry_after

__all__ = ["FINAL_FEEDBACK_STATUSES", "RetryOptions"]

__version__ = "0.1.0"

log = logging.getLogger("rag_forensics")

#: The statuses after which nothing more happens to a feedback event.
FINAL_FEEDBACK_STATUSES: Final = frozenset({"TRACED", "BOUNDED", "FAILED"})

DEFAULT_TIMEOUT: Final = 30.0


@dataclass(frozen=True)
class RetryOptions:
    """Retries of 429 / 503 answers (and of requests that got no answer at all).

    ``retries``: after the first attempt (default 3). ``base_delay``: the first backoff in seconds
    when the service sends no ``Retry-After``, doubled each retry and jittered to [½, 1] of it
    (default 0.25). ``max_delay``: the longest single wait, ``Retry-After`` included; a longer
    ``Retry-After`` ends the retries (default 30).
    """

    retries: int = 3
    base_delay: float = 0.25
    max_delay: float = 30.0

    def __post_init__(self) -> None:
        if self.retries < 0 or self.base_delay < 0 or self.max_delay < 0:
            raise ValueError(f"RetryOptions must not be negative: {self}")


class Secret:
    """A credential that never shows in a repr, a str, a log line or a traceback's locals."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


_SENSITIVE: Final = frozenset({"x-api-key", "authorization"})


class _Headers(dict[str, str]):
    """Request headers whose repr masks the credentials (a traceback's locals print it)."""

    def __repr__(self) -> str:
        return repr({k: ("***" if k.lower() in _SENSITIVE else v) for k, v in self.items()})


class Call:
    """One HTTP call of the API: method, path (its parameters quoted), JSON body, query, extra headers."""

    __slots__ = ("auth", "body", "headers", "method", "path", "query")

    def __init__(
        self,
        method: str,
        path: str,
        body: object = None,
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        auth: bool = True,
    ) -> None:
        self.method = method
        self.path = path
        self.body = body
        self.query = query
        self.headers = headers
        self.auth = auth

    def __repr__(self) -> str:
        return f"Call({self.method} {self.path})"


_RETRIABLE_STATUS: Final = (429, 503)
_NOT_RETRIED: Final = (httpx.UnsupportedProtocol, httpx.LocalProtocolError)


def _seg(value: str) -> str:
    """A path parameter, percent-encoded like encodeURIComponent."""
    return quote(value, safe="-_.!~*'()")


def _problem_of(status: int, content: bytes) -> Problem:
    try:
        p = json.loads(content)
    except ValueError:
        p = None
    if isinstance(p, dict) and isinstance(p.get("message"), str):
        problem: Problem = {"statusCode": status, "error": str(p.get("error", ""))}
        problem.update(p)  # type: ignore[typeddict-item]
        return problem
    text = content[:300].decode("utf-8", "replace")
    return {"statusCode": status, "error": "HttpError", "message": text or f"HTTP {status}"}


class Decision:
    """What to do after one attempt: retry after ``wait`` seconds, or raise ``error``."""

    __slots__ = ("error", "wait")

    def __init__(self, wait: float | None, error: ForensicsApiError | None) -> None:
        self.wait = wait
        self.error = error


class BaseClient:
    """Configuration and the API's calls; the subclasses send them (httpx.Client / httpx.AsyncClient)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        retry: RetryOptions | None,
        timeout: float | httpx.Timeout,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL, e.g. https://forensics.example.com")
        self.base_url = base_url.rstrip("/")
        self._api_key = Secret(api_key) if api_key else None
        self.retry = retry or RetryOptions()
        self.timeout = timeout
        self._random: Callable[[], float] = random.random

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"{type(self).__name__}(base_url={self.base_url!r}, api_key=<{key}>, retry={self.retry!r})"

    # ── requests ──────────────────────────────────────────────────────────────────────────────
    def _prepare(self, call: Call) -> tuple[str, _Headers, bytes | None]:
        url = self.base_url + call.path
        if call.query:
            url += "?" + urlencode(call.query)
        headers = _Headers(_BASE_HEADERS)
        content = None
        if call.body is not None:
            headers["content-type"] = "application/json"
            content = json.dumps(call.body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        if call.headers:
            headers.update(call.headers)
        if call.auth and self._api_key is not None:
            headers["x-api-key"] = self._api_key.reveal()
        return url, headers, content

    def _after_response(self, call: Call, attempt: int, res: httpx.Response) -> Decision:
        """A non-2xx answer: retry (429 / 503 within the limits) or the typed error."""
        retry_after = parse_retry_after(res.headers.get("retry-after"))
        status = res.status_code
        if status in _RETRIABLE_STATUS and attempt < self.retry.retries:
            wait = self._backoff(attempt) if retry_after is None else retry_after
            if wait <= self.retry.max_delay:
                log.info("%s %s → %d; retry %d of %d in %.2f s", call.method, call.path, status, attempt + 1, self.retry.retries, wait)
                return Decision(wait, None)
        return Decision(None, error_for(status, _problem_of(status, res.content), retry_after, call.method, call.path))

    def _after_failure(self, call: Call, attempt: int, exc: httpx.TransportError) -> Decision:
        """No answer at all: retry with backoff, then ForensicsConnectionError (ForensicsTimeoutError for a timeout)."""
        if attempt < self.retry.retries and not isinstance(exc, _NOT_RETRIED):
            wait = self._backoff(attempt)
            log.info(
                "%s %s: %s; retry %d of %d in %.2f s", call.method, call.path, type(exc).__name__, attempt + 1, self.retry.retries, wait
            )
            return Decision(wait, None)
        timeout = isinstance(exc, httpx.TimeoutException)
        problem: Problem = {"statusCode": 0, "error": "Timeout" if timeout else "NetworkError", "message": str(exc) or type(exc).__name__}
        cls = ForensicsTimeoutError if timeout else ForensicsConnectionError
        error: ForensicsApiError = cls(0, problem, None, call.method, call.path)
        return Decision(None, error)

    def _backoff(self, attempt: int) -> float:
        """base · 2^attempt, jittered to [½, 1] of it, capped at max_delay."""
        full = min(self.retry.max_delay, self.retry.base_delay * (1 << min(attempt, 62)))
        return full / 2 + self._random() * (full / 2)


_BASE_HEADERS: Final = {"accept": "application/json", "user-agent": f"rag-forensics-python/{__version__}"}


def parse_body(res: httpx.Response) -> object:
    content = res.content
    return json.loads(content) if content else None


# ── the API's calls, shared by both clients ────────────────────────────────────────────────────


def ingest_call(collection: str, documents: Iterable[IngestDocument | str]) -> Call:
    docs: list[IngestDocument] = [{"text": d} if isinstance(d, str) else d for d in documents]
    body: IngestRequest = {"documents": docs}
    return Call("POST", f"/v1/collections/{_seg(collection)}/documents", body)


def serving_status_call(collection: str, texts: Sequence[str] | None, ids: Sequence[str] | None) -> Call:
    body: ServingStatusRequest = {}
    if texts is not None:
        body["texts"] = list(texts)
    if ids is not None:
        body["ids"] = list(ids)
    return Call("POST", f"/v1/collections/{_seg(collection)}/serving-status", body)


class _Now:
    """The default of set_vetted_baseline's ``before``: now (the service's clock)."""

    def __repr__(self) -> str:
        return "NOW"


NOW: Final = _Now()


def vetted_baseline_call(collection: str, before: datetime | str | _Now | None) -> Call:
    body: VettedBaselineRequest = {}
    if isinstance(before, datetime):
        if before.tzinfo is None:
            raise ValueError("before must be timezone-aware (e.g. datetime.now(timezone.utc))")
        body["before"] = before.isoformat()
    elif before is None or isinstance(before, str):
        body["before"] = before
    return Call("PUT", f"/v1/collections/{_seg(collection)}/vetted-before", body)


def log_answer_call(
    query: str, answer: str, served_ids: Sequence[str], collection: str | None, served_scores: Sequence[float] | None
) -> Call:
    body: LogAnswerRequest = {"query": query, "answer": answer, "servedIds": list(served_ids)}
    if collection is not None:
        body["collection"] = collection
    if served_scores is not None:
        body["servedScores"] = list(served_scores)
    return Call("POST", "/v1/answers", body)


def rag_answer_call(query: str, collection: str | None, k: int | None) -> Call:
    body: RagAnswerRequest = {"query": query}
    if collection is not None:
        body["collection"] = collection
    if k is not None:
        body["k"] = k
    return Call("POST", "/v1/rag/answer", body)


def report_call(
    query: str,
    wrong_answer: str,
    served_ids: Sequence[str] | None,
    collection: str | None,
    correct_answer: str | None,
    reporter: str | None,
    k: int | None,
    idempotency_key: str | None,
) -> Call:
    body: KeyFeedbackRequest = {"query": query, "wrongAnswer": wrong_answer}
    if served_ids is not None:
        body["servedIds"] = list(served_ids)
    if collection is not None:
        body["collection"] = collection
    if correct_answer is not None:
        body["correctAnswer"] = correct_answer
    if reporter is not None:
        body["reporter"] = reporter
    if k is not None:
        body["k"] = k
    headers = {"idempotency-key": idempotency_key} if idempotency_key else None
    return Call("POST", "/v1/feedback", body, headers=headers)


def token_report_call(
    feedback_token: str, correct_answer: str | None, wrong_answer: str | None, reporter: str | None, answer_id: str | None
) -> Call:
    if not feedback_token:
        raise ValueError("feedback_token is empty")
    body: TokenFeedbackRequest = {}
    if correct_answer is not None:
        body["correctAnswer"] = correct_answer
    if wrong_answer is not None:
        body["wrongAnswer"] = wrong_answer
    if reporter is not None:
        body["reporter"] = reporter
    if answer_id is not None:
        body["answerId"] = answer_id
    return Call("POST", "/v1/feedback", body, headers=_Headers(authorization=f"FeedbackToken {feedback_token}"), auth=False)


def get_feedback_call(feedback_id: str) -> Call:
    return Call("GET", f"/v1/feedback/{_seg(feedback_id)}")


def correct_answer_call(feedback_id: str, correct_answer: str) -> Call:
    body: CorrectAnswerRequest = {"correctAnswer": correct_answer}
    return Call("POST", f"/v1/feedback/{_seg(feedback_id)}/correct-answer", body)


def list_quarantine_call(state: QuarantineState | None, collection: str | None) -> Call:
    query: QuarantineFilter = {}
    if state is not None:
        query["state"] = state
    if collection is not None:
        query["collection"] = collection
    return Call("GET", "/v1/quarantine", query={k: str(v) for k, v in query.items()})


def decision_call(action: str, quarantine_id: str, note: str | None) -> Call:
    body: ReviewNoteRequest = {} if note is None else {"note": note}
    return Call("POST", f"/v1/quarantine/{_seg(quarantine_id)}/{action}", body)
