"""Typed errors: a non-2xx answer of the service, after retries, with its ``{statusCode, error, message}`` body."""

from __future__ import annotations

import math
import re
import time
from email.utils import parsedate_to_datetime
from typing import TypedDict

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "ForensicsApiError",
    "ForensicsConnectionError",
    "ForensicsTimeoutError",
    "NotFoundError",
    "PermissionDeniedError",
    "Problem",
    "RateLimitError",
    "ServerError",
    "ServiceUnavailableError",
    "TraceTimeoutError",
    "error_for",
    "parse_retry_after",
]


class Problem(TypedDict, total=False):
    """The service's error body: ``{statusCode, error, message}`` (400s may add ``problems``, and more may come)."""

    statusCode: int
    error: str
    message: str


class ForensicsApiError(Exception):
    """A non-2xx answer of the service, after retries (status 0: no answer at all).

    ``status`` is the HTTP status, ``problem`` the parsed error body (a synthetic one when the body
    was not the service's JSON), ``retry_after`` the seconds the service asked to wait
    (``Retry-After`` of a 429 / 503) or None, ``method`` and ``path`` the request (never its
    headers, body or query: nothing secret is kept).
    """

    def __init__(self, status: int, problem: Problem, retry_after: float | None, method: str, path: str) -> None:
        self.status = status
        self.problem = problem
        self.retry_after = retry_after
        self.method = method
        self.path = path
        super().__init__(f"{method} {path} → {status or 'no response'}: {self.message}")

    @property
    def message(self) -> str:
        return str(self.problem.get("message", ""))

    @property
    def error(self) -> str:
        """The problem's ``error`` (``Not Found``, ``Too Many Requests``, …; ``NetworkError`` / ``Timeout`` for status 0)."""
        return str(self.problem.get("error", ""))

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(status={self.status}, error={self.error!r}, message={self.message!r}, method={self.method!r}, path={self.path!r})"


class BadRequestError(ForensicsApiError):
    """400: the request was refused (``problem`` may list ``problems``)."""


class AuthenticationError(ForensicsApiError):
    """401: no key, a wrong one, or an invalid / expired feedback token."""


class PermissionDeniedError(ForensicsApiError):
    """403: the key lacks the permission (scope or role) the route needs."""


class NotFoundError(ForensicsApiError):
    """404."""


class ConflictError(ForensicsApiError):
    """409: the state does not allow it (e.g. a decision on a record already decided)."""


class RateLimitError(ForensicsApiError):
    """429 after the retries (or with a ``Retry-After`` longer than ``RetryOptions.max_delay``)."""


class ServerError(ForensicsApiError):
    """5xx."""


class ServiceUnavailableError(ServerError):
    """503 after the retries: a dependency of the service is down, nothing was stored."""


class ForensicsConnectionError(ForensicsApiError):
    """No answer at all (status 0) after the retries: connection refused, reset, DNS, …"""


class ForensicsTimeoutError(ForensicsConnectionError):
    """No answer within the timeout (status 0), after the retries."""


class TraceTimeoutError(TimeoutError):
    """``wait_for_trace`` gave up: the event was still not TRACED, BOUNDED or FAILED."""

    def __init__(self, feedback_id: str, status: str, timeout: float) -> None:
        self.feedback_id = feedback_id
        self.status = status
        self.timeout = timeout
        super().__init__(f"feedback {feedback_id} still {status} after {timeout:g} s")


_BY_STATUS: dict[int, type[ForensicsApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_for(status: int, problem: Problem, retry_after: float | None, method: str, path: str) -> ForensicsApiError:
    """The error class of a status (ForensicsApiError itself for the others)."""
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else ForensicsApiError)
    return cls(status, problem, retry_after, method, path)


_DIGITS = re.compile(r"[0-9]+")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); None when absent or unreadable.

    ``now`` is seconds since the epoch (default: the clock). A date in the past is 0.
    """
    if value is None or not value.strip():
        return None
    v = value.strip()
    if _DIGITS.fullmatch(v):
        return float(int(v))
    try:
        at = parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if at is None or at.tzinfo is None:
        return None
    wait = at.timestamp() - (time.time() if now is None else now)
    return float(max(0, math.ceil(wait)))
