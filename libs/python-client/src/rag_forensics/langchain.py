"""LangChain integration (``pip install 'rag-forensics[langchain]'``; needs ``langchain-core`` only).

- :class:`ForensicsRetriever` wraps any LangChain retriever and drops the documents whose texts the
  service withholds from serving (quarantined, withheld for review, purged); each document the
  service knows gets ``metadata["forensicsId"]``, its service id.
- :class:`ForensicsAnswerLogger` is a callback handler that logs each answer of a chain
  (``POST /v1/answers``) with the service ids of the documents the model was given, and hands back
  the answer id and the feedback token (``last()``, ``answer_for(run_id)``, ``on_logged``).

The names and semantics of the TypeScript ``@forensics/langchain`` (libs/langchain).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, BaseCallbackHandler, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.messages import BaseMessage
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict, PrivateAttr
except ImportError as e:  # pragma: no cover (the extra is installed where the tests run)
    raise ImportError("rag_forensics.langchain needs the langchain extra: pip install 'rag-forensics[langchain]'") from e

from ._logged import LoggedAnswer
from ._models import ServingStatusEntry
from .async_client import AsyncForensicsClient
from .client import ForensicsClient
from .serving import AsyncServingStatusCache, ServingStatusCache

__all__ = ["FORENSICS_ID", "ForensicsAnswerLogger", "ForensicsRetriever", "LoggedRagAnswer"]

#: Metadata key the retriever writes: the service's id of a text it knows (the answer logger sends these as servedIds).
FORENSICS_ID = "forensicsId"


def _page_content(doc: Document) -> str:
    return doc.page_content


class ForensicsRetriever(BaseRetriever):
    """Wraps an app's own retriever and drops the texts the forensics service withholds from serving.

    One batched ``serving-status`` lookup per call for the texts not cached; statuses are kept
    ``ttl`` seconds and cleared by the service's webhook events (:meth:`handle_webhook_event`).
    ``client`` serves ``invoke``; ``async_client`` (optional) serves ``ainvoke`` without a thread.
    ``on_lookup_error``: ``"open"`` (default) passes the documents unfiltered when the service cannot
    be reached, ``"closed"`` raises. ``text_of``: the text the service ingested for a document
    (default ``page_content``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: BaseRetriever
    collection: str
    client: ForensicsClient
    async_client: AsyncForensicsClient | None = None
    ttl: float = 30.0
    text_of: Callable[[Document], str] = _page_content
    on_lookup_error: Literal["open", "closed"] = "open"

    _cache: ServingStatusCache = PrivateAttr()
    _async_cache: AsyncServingStatusCache | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        self._cache = ServingStatusCache(self.client, self.collection, ttl=self.ttl)
        if self.async_client is not None:
            self._async_cache = AsyncServingStatusCache(self.async_client, self.collection, ttl=self.ttl)

    @property
    def lookups(self) -> int:
        """Lookups made (one per call that had uncached texts), both caches together; for tests and metrics."""
        return self._cache.lookups + (self._async_cache.lookups if self._async_cache else 0)

    def handle_webhook_event(self, event: Mapping[str, object]) -> bool:
        """A verified webhook event (:func:`~rag_forensics.read_webhook_event`): clears the cache when serving may have changed."""
        cleared = self._cache.handle_webhook_event(event)
        if self._async_cache is not None:
            cleared = self._async_cache.handle_webhook_event(event) or cleared
        return cleared

    def clear_cache(self) -> None:
        self._cache.clear()
        if self._async_cache is not None:
            self._async_cache.clear()

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        docs = self.retriever.invoke(query, config={"callbacks": run_manager.get_child("inner")})
        try:
            statuses = self._cache.lookup([self.text_of(d) for d in docs])
        except Exception:
            if self.on_lookup_error == "closed":
                raise
            return docs
        return _keep_served(docs, statuses)

    async def _aget_relevant_documents(self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        docs = await self.retriever.ainvoke(query, config={"callbacks": run_manager.get_child("inner")})
        try:
            if self._async_cache is not None:
                statuses = await self._async_cache.lookup([self.text_of(d) for d in docs])
            else:  # no async client: the sync one, off the event loop
                import anyio.to_thread

                statuses = await anyio.to_thread.run_sync(self._cache.lookup, [self.text_of(d) for d in docs])
        except Exception:
            if self.on_lookup_error == "closed":
                raise
            return docs
        return _keep_served(docs, statuses)


def _keep_served(docs: Sequence[Document], statuses: Sequence[ServingStatusEntry]) -> list[Document]:
    out: list[Document] = []
    for doc, status in zip(docs, statuses, strict=True):
        if status["withheld"]:
            continue
        if status["id"] is not None:
            doc = doc.model_copy(update={"metadata": {**doc.metadata, FORENSICS_ID: status["id"]}})
        out.append(doc)
    return out


#: The logged answer (`LoggedAnswer`, shared with the other framework's logger), under this module's name.
LoggedRagAnswer = LoggedAnswer


@dataclass
class _RootRun:
    input: object
    docs: list[Document] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)


def _pick(v: object, keys: Sequence[str]) -> str | None:
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        for k in keys:
            x = v.get(k)
            if isinstance(x, str):
                return x
    return None


def _message_text(m: BaseMessage) -> str:
    return str(m.text)  # the text parts joined


def _default_answer_of(output: object) -> str | None:
    if isinstance(output, str):
        return output
    if isinstance(output, BaseMessage):
        return _message_text(output)
    if isinstance(output, Mapping):
        picked = _pick(output, ("answer", "text", "output"))
        if picked is not None:
            return picked
        inner = output.get("output")
        return _default_answer_of(inner) if inner is not None else None
    return None


class ForensicsAnswerLogger(BaseCallbackHandler):
    """Logs every RAG answer a chain gives (``POST /v1/answers``) with the service ids of the documents
    actually passed to the model: the documents the outermost retriever of the run returned whose text
    appears in a prompt the model received (all of them when no model call was seen). The answer id and
    feedback token come back through ``on_logged``, :meth:`answer_for` and :meth:`last`.

    Pass it per call: ``chain.invoke(question, config={"callbacks": [logger]})``. It logs with the sync
    client when the root run ends (for ``ainvoke`` LangChain runs it in a worker thread). A failed
    logging call is kept in ``errors`` (and LangChain warns) rather than failing the app's answer;
    ``raise_error=True`` makes it fail the run instead.
    """

    def __init__(
        self,
        client: ForensicsClient,
        collection: str,
        *,
        query_of: Callable[[object], str | None] | None = None,
        answer_of: Callable[[object], str | None] | None = None,
        id_of: Callable[[Document], str | None] | None = None,
        on_logged: Callable[[LoggedRagAnswer, UUID], None] | None = None,
        raise_error: bool = False,
    ) -> None:
        self.client = client
        self.collection = collection
        self.query_of = query_of or (lambda i: _pick(i, ("question", "query", "input")))
        self.answer_of = answer_of or _default_answer_of
        self.id_of = id_of or (lambda d: v if isinstance(v := d.metadata.get(FORENSICS_ID), str) else None)
        self.on_logged = on_logged
        self.raise_error = raise_error
        self.errors: list[Exception] = []
        self._lock = threading.Lock()
        self._parents: dict[UUID, UUID | None] = {}
        self._retriever_runs: set[UUID] = set()
        self._roots: dict[UUID, _RootRun] = {}
        self._logged: dict[UUID, LoggedRagAnswer | None] = {}
        self._last: UUID | None = None

    def answer_for(self, run_id: UUID) -> LoggedRagAnswer | None:
        """The logged answer of a root run (None when nothing was logged: no served text the service knows)."""
        with self._lock:
            return self._logged.get(run_id)

    def last(self) -> LoggedRagAnswer | None:
        """The most recent root run's logged answer."""
        with self._lock:
            return self._logged.get(self._last) if self._last is not None else None

    def _root_of(self, run_id: UUID) -> UUID:
        rid = run_id
        while (p := self._parents.get(rid)) is not None:
            rid = p
        return rid

    def on_chain_start(
        self, serialized: dict[str, Any] | None, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id
            if parent_run_id is None:
                self._roots[run_id] = _RootRun(input=inputs)

    def on_retriever_start(
        self, serialized: dict[str, Any] | None, query: str, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id
            self._retriever_runs.add(run_id)

    def on_retriever_end(self, documents: Sequence[Document], *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        with self._lock:
            # A retriever inside another (ForensicsRetriever's inner one) returned texts the outer one may have dropped.
            if parent_run_id is not None and parent_run_id in self._retriever_runs:
                return
            root = self._roots.get(self._root_of(run_id))
            if root is not None:
                root.docs.extend(documents)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id
            root = self._roots.get(self._root_of(run_id))
            if root is not None:
                root.prompts.extend(_message_text(m) for batch in messages for m in batch)

    def on_llm_start(
        self, serialized: dict[str, Any] | None, prompts: list[str], *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        with self._lock:
            self._parents[run_id] = parent_run_id
            root = self._roots.get(self._root_of(run_id))
            if root is not None:
                root.prompts.extend(prompts)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        if parent_run_id is not None:
            return
        with self._lock:
            run = self._roots.pop(run_id, None)
            if run is None:
                return
            self._last = run_id
            self._logged[run_id] = None
        try:
            logged = self._log(run, outputs)
        except Exception as e:
            self.errors.append(e)
            raise
        with self._lock:
            self._logged[run_id] = logged
        if logged is not None and self.on_logged is not None:
            self.on_logged(logged, run_id)

    def _log(self, run: _RootRun, outputs: object) -> LoggedRagAnswer | None:
        query = self.query_of(run.input)
        answer = self.answer_of(outputs)
        passed = [d for d in run.docs if any(d.page_content in p for p in run.prompts)] if run.prompts else run.docs
        served: dict[str, str] = {}
        for d in passed:
            sid = self.id_of(d)
            if sid and sid not in served:
                served[sid] = d.page_content
        if not query or not answer or not served:
            return None
        r = self.client.log_answer(collection=self.collection, query=query, answer=answer, served_ids=list(served))
        return LoggedRagAnswer(
            answer_id=r["answerId"],
            feedback_token=r["feedbackToken"],
            feedback_token_expires_at=r["feedbackTokenExpiresAt"],
            query=query,
            answer=answer,
            served_ids=list(served),
            served_texts=list(served.values()),
        )
