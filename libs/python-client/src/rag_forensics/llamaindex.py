"""LlamaIndex integration (``pip install 'rag-forensics[llamaindex]'``; needs ``llama-index-core`` only).

- :class:`ForensicsNodePostprocessor` drops the nodes whose texts the service withholds from serving
  (quarantined, withheld for review, purged): put it in a query engine's ``node_postprocessors`` and
  the synthesizer never sees them.
- :class:`ForensicsAnswerLogger` logs a query engine's answer (``POST /v1/answers``) with the service
  ids of the nodes the synthesizer was given (``response.source_nodes``), and hands back the answer id
  and the feedback token.

The names and semantics of the TypeScript ``@forensics/llamaindex`` (libs/llamaindex).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

try:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore, QueryBundle
    from pydantic import ConfigDict, PrivateAttr
except ImportError as e:  # pragma: no cover (the extra is installed where the tests run)
    raise ImportError("rag_forensics.llamaindex needs the llamaindex extra: pip install 'rag-forensics[llamaindex]'") from e

from ._logged import LoggedAnswer
from ._models import ServingStatusEntry
from .client import ForensicsClient
from .serving import ServingStatusCache

__all__ = ["ForensicsAnswerLogger", "ForensicsNodePostprocessor", "LoggedLlamaAnswer", "node_text"]


def node_text(node: BaseNode) -> str:
    """A node's text as the service ingested it, by default: its content without metadata."""
    return node.get_content(metadata_mode=MetadataMode.NONE)


class ForensicsNodePostprocessor(BaseNodePostprocessor):
    """A node postprocessor that drops the nodes whose texts the forensics service withholds from serving.

    One batched ``serving-status`` lookup per call for the texts not cached; the cache
    (:class:`~rag_forensics.ServingStatusCache`, shared with :class:`ForensicsAnswerLogger` through
    ``cache``) keeps statuses ``ttl`` seconds and is cleared by the service's webhook events
    (:meth:`handle_webhook_event`). ``on_lookup_error``: ``"open"`` (default) passes the nodes
    unfiltered when the service cannot be reached, ``"closed"`` raises. Nodes pass unchanged: no id is
    written into their metadata, which the synthesizer would put into the prompt.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: ForensicsClient
    collection: str
    ttl: float = 30.0
    text_of: Callable[[BaseNode], str] = node_text
    on_lookup_error: Literal["open", "closed"] = "open"

    _cache: ServingStatusCache = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._cache = ServingStatusCache(self.client, self.collection, ttl=self.ttl)

    @classmethod
    def class_name(cls) -> str:
        return "ForensicsNodePostprocessor"

    @property
    def cache(self) -> ServingStatusCache:
        """The statuses looked up; give it to ForensicsAnswerLogger so logging needs no second lookup."""
        return self._cache

    @property
    def lookups(self) -> int:
        """Lookups made (one per call that had uncached texts); for tests and metrics."""
        return self._cache.lookups

    def handle_webhook_event(self, event: Mapping[str, object]) -> bool:
        """A verified webhook event (:func:`~rag_forensics.read_webhook_event`): clears the cache when serving may have changed."""
        return self._cache.handle_webhook_event(event)

    def clear_cache(self) -> None:
        self._cache.clear()

    def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        if not nodes:
            return nodes
        try:
            statuses = self._cache.lookup([self.text_of(n.node) for n in nodes])
        except Exception:
            if self.on_lookup_error == "closed":
                raise
            return nodes
        return [n for n, s in zip(nodes, statuses, strict=True) if not s["withheld"]]


#: The logged answer (`LoggedAnswer`, shared with the other framework's logger), under this module's name.
LoggedLlamaAnswer = LoggedAnswer


class ForensicsAnswerLogger:
    """Logs a LlamaIndex RAG answer with the forensics service (``POST /v1/answers``): the query, the answer
    and the service ids of the nodes the response synthesizer was given (``response.source_nodes``: in a
    retriever query engine, the retrieved nodes after every postprocessor). Ids are found by text through
    the serving-status cache (the postprocessor's, when given: no second lookup). :meth:`log_response`
    returns the answer id and feedback token for the page's widget, or None when no served text is known
    to the service."""

    def __init__(
        self,
        client: ForensicsClient,
        collection: str,
        *,
        cache: ServingStatusCache | None = None,
        text_of: Callable[[BaseNode], str] = node_text,
    ) -> None:
        self.client = client
        self.collection = collection
        self.cache = cache if cache is not None else ServingStatusCache(client, collection)
        self.text_of = text_of
        self._last: LoggedLlamaAnswer | None = None

    def log_response(self, query: str | QueryBundle, response: Response) -> LoggedLlamaAnswer | None:
        """After ``response = engine.query(query)``: logs it."""
        return self.log(query, response.response or "", response.source_nodes)

    def log(self, query: str | QueryBundle, answer: str, nodes: Sequence[NodeWithScore]) -> LoggedLlamaAnswer | None:
        """The same for an answer collected otherwise (a stream's text and its ``source_nodes``)."""
        q = query.query_str if isinstance(query, QueryBundle) else query
        texts = list(dict.fromkeys(self.text_of(n.node) for n in nodes))
        if not q or not answer or not texts:
            return None
        statuses: list[ServingStatusEntry] = self.cache.lookup(texts)
        served: dict[str, str] = {}
        for text, s in zip(texts, statuses, strict=True):
            if s["known"] and s["id"] is not None and s["id"] not in served:
                served[s["id"]] = text
        if not served:
            return None
        r = self.client.log_answer(collection=self.collection, query=q, answer=answer, served_ids=list(served))
        self._last = LoggedLlamaAnswer(
            answer_id=r["answerId"],
            feedback_token=r["feedbackToken"],
            feedback_token_expires_at=r["feedbackTokenExpiresAt"],
            query=q,
            answer=answer,
            served_ids=list(served),
            served_texts=list(served.values()),
        )
        return self._last

    def last(self) -> LoggedLlamaAnswer | None:
        """The most recent logged answer."""
        return self._last
