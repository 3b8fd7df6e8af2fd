"""ServingStatusCache: the TypeScript cache's semantics (TTL, batches of 1000, webhook invalidation)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rag_forensics import (
    SERVING_STATUS_BATCH,
    AsyncServingStatusCache,
    ForensicsClient,
    ServingStatus,
    ServingStatusCache,
    ServingStatusEntry,
)

from .support import MOBY, unique


def entry(text: str, withheld: bool) -> ServingStatusEntry:
    return {"id": f"id:{text}", "known": True, "status": "QUARANTINED" if withheld else "ACTIVE", "withheld": withheld}


class FakeClient:
    def __init__(self) -> None:
        self.withheld: set[str] = set()
        self.calls: list[list[str]] = []

    def serving_status(self, collection: str, *, texts: Sequence[str] | None = None, ids: Sequence[str] | None = None) -> ServingStatus:
        assert texts is not None and ids is None and len(texts) <= SERVING_STATUS_BATCH
        self.calls.append(list(texts))
        return {"collection": collection, "ids": [], "texts": [entry(t, t in self.withheld) for t in texts]}


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_one_lookup_for_the_uncached_texts_kept_for_the_ttl() -> None:
    fake, clock = FakeClient(), Clock()
    cache = ServingStatusCache(fake, "docs", ttl=30, clock=clock)
    assert [e["withheld"] for e in cache.lookup(["a", "b", "a"])] == [False, False, False]
    assert fake.calls == [["a", "b"]] and cache.lookups == 1
    fake.withheld.add("a")
    clock.t += 29.9
    assert [e["withheld"] for e in cache.lookup(["a", "c"])] == [False, False]  # "a" still cached, "c" looked up
    assert fake.calls[-1] == ["c"] and cache.lookups == 2
    assert cache.lookup(["a", "c"]) and cache.lookups == 2  # all cached: no call
    clock.t += 0.1  # "a" is 30 s old now: stale
    assert [e["withheld"] for e in cache.lookup(["a", "c"])] == [True, False]
    assert fake.calls[-1] == ["a"]


def test_webhook_events_clear_it() -> None:
    fake = FakeClient()
    cache = ServingStatusCache(fake, "docs", ttl=3600)
    cache.lookup(["a"])
    fake.withheld.add("a")
    assert cache.handle_webhook_event({"type": "ping"}) is False
    assert cache.lookup(["a"])[0]["withheld"] is False
    for event_type in ["quarantine.created", "review.needed", "review.decided"]:
        assert cache.handle_webhook_event({"id": "e", "type": event_type, "createdAt": "", "data": {}}) is True
    assert cache.lookup(["a"])[0]["withheld"] is True
    cache.clear()
    assert cache.lookup(["a"]) and len(fake.calls) == 3


def test_batches_of_at_most_1000_texts() -> None:
    fake = FakeClient()
    texts = [f"t{i}" for i in range(2500)]
    fake.withheld = {"t1999", "t2000"}
    cache = ServingStatusCache(fake, "docs")
    out = cache.lookup(texts)
    assert [len(c) for c in fake.calls] == [1000, 1000, 500] and cache.lookups == 1
    assert [t for t, e in zip(texts, out, strict=True) if e["withheld"]] == ["t1999", "t2000"]


def test_ttl_zero_caches_nothing_and_negative_is_refused() -> None:
    fake = FakeClient()
    cache = ServingStatusCache(fake, "docs", ttl=0)
    cache.lookup(["a"])
    cache.lookup(["a"])
    assert len(fake.calls) == 2
    with pytest.raises(ValueError, match="ttl"):
        ServingStatusCache(fake, "docs", ttl=-1)
    with pytest.raises(ValueError, match="ttl"):
        ServingStatusCache(fake, "docs", ttl=float("nan"))


@pytest.mark.anyio
async def test_the_async_cache() -> None:
    fake = FakeClient()

    class AsyncFake:
        async def serving_status(
            self, collection: str, *, texts: Sequence[str] | None = None, ids: Sequence[str] | None = None
        ) -> ServingStatus:
            return fake.serving_status(collection, texts=texts, ids=ids)

    fake.withheld.add("b")
    cache = AsyncServingStatusCache(AsyncFake(), "docs", ttl=30)
    assert [e["withheld"] for e in await cache.lookup(["a", "b"])] == [False, True]
    await cache.lookup(["a", "b"])
    assert cache.lookups == 1
    assert cache.handle_webhook_event({"type": "review.decided"})
    await cache.lookup(["b"])
    assert cache.lookups == 2


def test_against_the_service(client: ForensicsClient) -> None:
    collection = unique("py_cache")
    ids = client.ingest(collection, MOBY)["ids"]
    cache = ServingStatusCache(client, collection)
    got = cache.lookup([*MOBY, "never ingested"])
    assert [e["id"] for e in got] == [*ids, None]
    assert [e["known"] for e in got] == [True] * len(MOBY) + [False]
