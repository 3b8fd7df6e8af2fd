"""What the framework answer loggers return (LangChain's and LlamaIndex's): one type, framework-free."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LoggedAnswer"]


@dataclass(frozen=True)
class LoggedAnswer:
    """A logged answer: the service's answer id and feedback token, and what was logged."""

    answer_id: str
    feedback_token: str
    feedback_token_expires_at: str
    query: str
    answer: str
    #: The service ids logged as served: the known texts that reached the model (LangChain: the retrieved
    #: documents in its prompt; LlamaIndex: the nodes the response synthesizer was given).
    served_ids: list[str]
    #: Their texts, as the app's store holds them (same order).
    served_texts: list[str]

    def __repr__(self) -> str:  # the feedback token is a bearer credential for one report
        return f"{type(self).__name__}(answer_id={self.answer_id!r}, served_ids={self.served_ids!r}, feedback_token=***)"
