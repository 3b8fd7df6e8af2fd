"""The serving status of an app's texts, as the service sees them, with a short-TTL cache.

One batched ``POST /v1/collections/:name/serving-status`` per :meth:`ServingStatusCache.lookup`
for the texts not cached (split into calls of at most 1000 texts). For an app that keeps its own
store: drop the texts whose entry says ``withheld``. The service's webhook events clear the cache
(:meth:`~ServingStatusCache.handle_webhook_event`), so a quarantine is seen before the TTL runs out
when the app receives them. The same semantics as the TypeScript client's ``ServingStatusCache``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Final, Protocol

from ._models import ServingStatus, ServingStatusEntry

__all__ = [
    "SERVING_STATUS_BATCH",
    "SERVING_STATUS_INVALIDATING_EVENTS",
    "AsyncServingStatusCache",
    "ServingStatusCache",
]

#: The service answers at most this many texts per serving-status call.
SERVING_STATUS_BATCH: Final = 1000

#: Webhook events after which a cached status may be stale.
SERVING_STATUS_INVALIDATING_EVENTS: Final = ("quarantine.created", "review.needed", "review.decided")


class _ServingStatusClient(Protocol):
    def serving_status(self, collection: str, *, texts: Sequence[str] | None = ..., ids: Sequence[str] | None = ...) -> ServingStatus: ...


class _AsyncServingStatusClient(Protocol):
    def serving_status(
        self, collection: str, *, texts: Sequence[str] | None = ..., ids: Sequence[str] | None = ...
    ) -> Awaitable[ServingStatus]: ...


class _Cache:
    def __init__(self, collection: str, ttl: float, clock: Callable[[], float] | None) -> None:
        if not ttl >= 0:
            raise ValueError(f"ttl must be >= 0, got {ttl}")
        self.collection = collection
        self.ttl = ttl
        self._clock = clock or time.monotonic
        self._entries: dict[str, tuple[ServingStatusEntry, float]] = {}
        #: Lookups made (one per ``lookup`` that had uncached texts); for tests and metrics.
        self.lookups = 0

    def _fresh(self, text: str, now: float) -> ServingStatusEntry | None:
        c = self._entries.get(text)
        return c[0] if c is not None and now - c[1] < self.ttl else None

    def _missing(self, texts: Sequence[str], now: float) -> list[str]:
        return list(dict.fromkeys(t for t in texts if self._fresh(t, now) is None))

    def _store(self, got: Mapping[str, ServingStatusEntry], now: float) -> None:
        for t, entry in got.items():
            self._entries[t] = (entry, now)

    def _answer(self, texts: Sequence[str], got: Mapping[str, ServingStatusEntry], now: float) -> list[ServingStatusEntry]:
        out: list[ServingStatusEntry] = []
        for t in texts:
            entry = got.get(t) or self._fresh(t, now)
            if entry is None:  # pragma: no cover (every text was looked up or is fresh)
                raise RuntimeError(f"no serving status for a text of {len(t)} characters")
            out.append(entry)
        return out

    def handle_webhook_event(self, event: Mapping[str, object]) -> bool:
        """A verified webhook event from the service (:func:`~rag_forensics.read_webhook_event`):
        clears the cache when serving may have changed; True when it did."""
        if event.get("type") not in SERVING_STATUS_INVALIDATING_EVENTS:
            return False
        self._entries.clear()
        return True

    def clear(self) -> None:
        self._entries.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(collection={self.collection!r}, ttl={self.ttl}, cached={len(self._entries)})"


class ServingStatusCache(_Cache):
    """``ServingStatusCache(client, collection, ttl=30.0)``: ``lookup(texts)[i]`` is the status of ``texts[i]``.

    ``ttl``: how long a looked-up status is trusted, in seconds (webhook events clear it sooner).
    ``clock``: seconds, monotonic (tests pass their own). Raises what the client raises (the caller
    picks fail-open or fail-closed).
    """

    def __init__(
        self, client: _ServingStatusClient, collection: str, *, ttl: float = 30.0, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(collection, ttl, clock)
        self.client = client

    def lookup(self, texts: Sequence[str]) -> list[ServingStatusEntry]:
        now = self._clock()
        missing = self._missing(texts, now)
        got: dict[str, ServingStatusEntry] = {}
        if missing:
            self.lookups += 1
            for i in range(0, len(missing), SERVING_STATUS_BATCH):
                batch = missing[i : i + SERVING_STATUS_BATCH]
                r = self.client.serving_status(self.collection, texts=batch)
                got.update(zip(batch, r["texts"], strict=True))
            self._store(got, now)
        return self._answer(texts, got, now)


class AsyncServingStatusCache(_Cache):
    """:class:`ServingStatusCache` over an :class:`~rag_forensics.AsyncForensicsClient`: ``await cache.lookup(texts)``."""

    def __init__(
        self, client: _AsyncServingStatusClient, collection: str, *, ttl: float = 30.0, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(collection, ttl, clock)
        self.client = client

    async def lookup(self, texts: Sequence[str]) -> list[ServingStatusEntry]:
        now = self._clock()
        missing = self._missing(texts, now)
        got: dict[str, ServingStatusEntry] = {}
        if missing:
            self.lookups += 1
            for i in range(0, len(missing), SERVING_STATUS_BATCH):
                batch = missing[i : i + SERVING_STATUS_BATCH]
                r = await self.client.serving_status(self.collection, texts=batch)
                got.update(zip(batch, r["texts"], strict=True))
            self._store(got, now)
        return self._answer(texts, got, now)
