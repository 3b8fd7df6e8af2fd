"""The asynchronous client (httpx.AsyncClient): the same methods as ForensicsClient, awaited."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import cast

import anyio
import httpx

from . import _core
from ._core import NOW, BaseClient, Call, RetryOptions, _Now
from ._models import (
    CorrectAnswerResult,
    FeedbackAccepted,
    FeedbackEvent,
    IngestDocument,
    IngestResult,
    LoggedAnswer,
    QuarantineDecision,
    QuarantineList,
    QuarantineRecord,
    QuarantineState,
    RagAnswer,
    ServingStatus,
    VettedBaseline,
)
from .errors import TraceTimeoutError

__all__ = ["AsyncForensicsClient"]


class AsyncForensicsClient(BaseClient):
    """Typed asynchronous client of the RAG forensics service (asyncio or trio, through httpx and anyio).

    Every method is one HTTP call (``wait_for_trace`` polls). A non-2xx answer raises a
    :class:`~rag_forensics.ForensicsApiError` subclass carrying ``status``, ``problem`` (the
    service's ``{statusCode, error, message}``) and ``retry_after``. 429 and 503 answers, and
    requests that got no answer, are retried with exponential backoff, honouring ``Retry-After``.

    ``api_key``: a service key (``rfk_…``) or any key with the needed permission, sent as
    ``X-API-Key``; not needed for feedback-token calls. ``timeout``: seconds per attempt (httpx's:
    each of connect, read, write and pool wait). ``http_client``: your own ``httpx.AsyncClient``
    (proxies, TLS, transports); it is not closed by :meth:`aclose`. ``sleep``: waits between
    retries and polls (tests pass their own).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        retry: RetryOptions | None = None,
        timeout: float | httpx.Timeout = _core.DEFAULT_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        super().__init__(base_url, api_key, retry, timeout)
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._sleep = sleep or anyio.sleep

    async def aclose(self) -> None:
        """Closes the connection pool (not an ``http_client`` passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncForensicsClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    # ── the API ───────────────────────────────────────────────────────────────────────────────
    async def ingest(self, collection: str, documents: Iterable[IngestDocument | str]) -> IngestResult:
        """Adds texts (``{"text", "id"?, "metadata"?}`` or plain strings) to a collection, idempotent by
        text hash; ``ids[i]`` of the result is the service's id of ``documents[i]``."""
        return cast(IngestResult, await self._send(_core.ingest_call(collection, documents)))

    async def serving_status(
        self, collection: str, *, texts: Sequence[str] | None = None, ids: Sequence[str] | None = None
    ) -> ServingStatus:
        """Which of these texts (as the app stores them) or service ids the service withholds from serving."""
        return cast(ServingStatus, await self._send(_core.serving_status_call(collection, texts, ids)))

    async def set_vetted_baseline(self, collection: str, before: datetime | str | _Now | None = NOW) -> VettedBaseline:
        """Admin: the collection's vetted baseline. Texts registered before ``before`` (default: now) are
        vouched for: a report never takes them out of serving on its own. ``None`` clears it; a future
        instant is refused (400). See docs/trust.md, "Vetted baseline"."""
        return cast(VettedBaseline, await self._send(_core.vetted_baseline_call(collection, before)))

    async def log_answer(
        self,
        *,
        query: str,
        answer: str,
        served_ids: Sequence[str],
        collection: str | None = None,
        served_scores: Sequence[float] | None = None,
    ) -> LoggedAnswer:
        """Logs an external RAG's answer with the service ids of the texts it served → answer id and feedback token."""
        return cast(LoggedAnswer, await self._send(_core.log_answer_call(query, answer, served_ids, collection, served_scores)))

    async def rag_answer(self, query: str, *, collection: str | None = None, k: int | None = None) -> RagAnswer:
        """The service's built-in RAG: retrieves (quarantined texts excluded), answers, logs."""
        return cast(RagAnswer, await self._send(_core.rag_answer_call(query, collection, k)))

    async def report_wrong_answer(
        self,
        *,
        query: str,
        wrong_answer: str,
        served_ids: Sequence[str] | None = None,
        collection: str | None = None,
        correct_answer: str | None = None,
        reporter: str | None = None,
        k: int | None = None,
        idempotency_key: str | None = None,
    ) -> FeedbackAccepted:
        """A wrong-answer report from a back end holding a key (``feedback`` scope), naming its user in
        ``reporter``. The idempotency key makes a retried report the same event (``duplicate: True``)."""
        call = _core.report_call(query, wrong_answer, served_ids, collection, correct_answer, reporter, k, idempotency_key)
        return cast(FeedbackAccepted, await self._send(call))

    async def report_with_token(
        self,
        feedback_token: str,
        *,
        correct_answer: str | None = None,
        wrong_answer: str | None = None,
        reporter: str | None = None,
        answer_id: str | None = None,
    ) -> FeedbackAccepted:
        """A report with the feedback token of a logged answer (what the widget sends; no API key).
        One token → one event: a repeat returns it with ``duplicate: True``."""
        call = _core.token_report_call(feedback_token, correct_answer, wrong_answer, reporter, answer_id)
        return cast(FeedbackAccepted, await self._send(call))

    async def get_feedback(self, feedback_id: str) -> FeedbackEvent:
        """A feedback event: status, verdicts, quarantined texts, verification, enhancements."""
        return cast(FeedbackEvent, await self._send(_core.get_feedback_call(feedback_id)))

    async def wait_for_trace(self, feedback_id: str, *, timeout: float = 120.0, interval: float = 0.5) -> FeedbackEvent:  # noqa: ASYNC109 (the sync client's signature)
        """Polls a feedback event until it is TRACED, BOUNDED or FAILED (the whole pipeline is done then);
        raises :class:`~rag_forensics.TraceTimeoutError` after ``timeout`` seconds."""
        until = time.monotonic() + timeout
        while True:
            event = await self.get_feedback(feedback_id)
            if event["status"] in _core.FINAL_FEEDBACK_STATUSES:
                return event
            if time.monotonic() >= until:
                raise TraceTimeoutError(feedback_id, event["status"], timeout)
            await self._sleep(interval)

    async def set_correct_answer(self, feedback_id: str, correct_answer: str) -> CorrectAnswerResult:
        """The correct-answer follow-up of a report: creates its benign-text enhancement. With ``decide``
        (reviewer, admin) it is served at once; a ``feedback`` key may only suggest one for an event it
        reported (PROPOSED until a reviewer approves; 403 for another's event)."""
        return cast(CorrectAnswerResult, await self._send(_core.correct_answer_call(feedback_id, correct_answer)))

    async def list_quarantine(self, *, state: QuarantineState | None = None, collection: str | None = None) -> list[QuarantineRecord]:
        """Quarantine records, filtered by state and collection."""
        return cast(QuarantineList, await self._send(_core.list_quarantine_call(state, collection)))["items"]

    async def approve(self, quarantine_id: str, note: str | None = None) -> QuarantineDecision:
        """Reviewer decision: a NEEDS_REVIEW text stays out of serving (``decide`` permission)."""
        return cast(QuarantineDecision, await self._send(_core.decision_call("approve", quarantine_id, note)))

    async def restore(self, quarantine_id: str, note: str | None = None) -> QuarantineDecision:
        """Reviewer decision: the text is served again, exactly as it was (``decide`` permission)."""
        return cast(QuarantineDecision, await self._send(_core.decision_call("restore", quarantine_id, note)))

    # ── transport ─────────────────────────────────────────────────────────────────────────────
    async def _send(self, call: Call) -> object:
        url, headers, content = self._prepare(call)
        attempt = 0
        while True:
            try:
                res = await self._http.request(call.method, url, headers=headers, content=content, timeout=self.timeout)
            except httpx.TransportError as exc:
                decision = self._after_failure(call, attempt, exc)
            else:
                if 200 <= res.status_code < 300:
                    return _core.parse_body(res)
                decision = self._after_response(call, attempt, res)
            if decision.error is not None:
                raise decision.error
            await self._sleep(cast(float, decision.wait))
            attempt += 1
