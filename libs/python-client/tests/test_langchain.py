"""The LangChain integration (rag_forensics.langchain) against the real service: the example app end to end, the
retriever's filter (sync and async, fail-open and fail-closed on a service that cannot be reached), and the answer
logger logging the ids of the documents the model was given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from rag_forensics import AsyncForensicsClient, ForensicsClient
from rag_forensics.langchain import FORENSICS_ID, ForensicsAnswerLogger, ForensicsRetriever, LoggedRagAnswer

from .support import MOBY, PLANTED, ROOT, Service, free_port, unique
from .test_docs import BLOCKS, run_block

EXAMPLE = ROOT / "examples" / "python-langchain" / "langchain_app.py"


def store_of(texts: list[str]) -> InMemoryVectorStore:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    store.add_documents([Document(page_content=t) for t in texts])
    return store


def quarantine_planted(client: ForensicsClient, collection: str, ids: list[str]) -> None:
    """A key report naming its user: the service traces it and takes the two planted texts out of serving."""
    report = client.report_wrong_answer(
        query="who wrote the novel moby dick",
        wrong_answer="Charles Dickens",
        served_ids=ids[:3],
        collection=collection,
        reporter=unique("user"),
    )
    event = client.wait_for_trace(report["id"], timeout=180)
    assert sorted(q["text"] or "" for q in event["quarantined"] if q["state"] == "QUARANTINED") == sorted(PLANTED)


def test_the_page_block_is_the_example_verbatim() -> None:
    assert BLOCKS["python-langchain"] == EXAMPLE.read_text(encoding="utf-8")


def test_the_example_ingests_asks_reports_and_the_planted_texts_are_gone(service: Service, tmp_path: Path) -> None:
    # docs/integrate.md's block, run as printed (it is the example file verbatim: the test above).
    out = run_block("python-langchain", service, tmp_path, unique("py_lc_example"))
    print(json.dumps(out))
    assert out["first"]["answer"] == "Charles Dickens" and out["first"]["feedbackToken"] is True
    assert sorted(t for t in out["first"]["served"] if "Charles Dickens" in t) == sorted(PLANTED)
    assert out["trace"] == {"status": "TRACED", "quarantined": out["trace"]["quarantined"]}
    assert sorted(out["trace"]["quarantined"]) == sorted(PLANTED)
    assert out["second"]["answer"] == "Herman Melville"
    assert out["second"]["served"] and not [t for t in out["second"]["served"] if t in PLANTED]


def test_the_retriever_drops_withheld_texts_sync_and_async(client: ForensicsClient, service: Service) -> None:
    collection = unique("py_lc_filter")
    ids = client.ingest(collection, MOBY)["ids"]
    inner = store_of(MOBY).as_retriever(search_kwargs={"k": len(MOBY)})
    retriever = ForensicsRetriever(retriever=inner, client=client, collection=collection, ttl=60)
    before = retriever.invoke("who wrote moby dick")
    assert sorted(d.page_content for d in before) == sorted(MOBY)
    assert {d.metadata[FORENSICS_ID] for d in before} == set(ids)
    quarantine_planted(client, collection, ids)
    # Cached for 60 s: still served until the cache is cleared (a webhook event does it: handle_webhook_event).
    assert len(retriever.invoke("who wrote moby dick")) == len(MOBY)
    assert retriever.handle_webhook_event({"type": "quarantine.created"}) is True
    after = retriever.invoke("who wrote moby dick")
    assert sorted(d.page_content for d in after) == sorted(MOBY[2:])
    assert retriever.lookups == 2

    async def ask_async() -> list[Document]:
        async with AsyncForensicsClient(service.url, service.api_key) as ac:
            r = ForensicsRetriever(retriever=inner, client=client, async_client=ac, collection=collection)
            return await r.ainvoke("who wrote moby dick")

    import anyio

    assert sorted(d.page_content for d in anyio.run(ask_async)) == sorted(MOBY[2:])
    # No async client: ainvoke uses the sync one off the event loop, with the same answer.
    plain = ForensicsRetriever(retriever=inner, client=client, collection=collection)
    assert sorted(d.page_content for d in anyio.run(plain.ainvoke, "who wrote moby dick")) == sorted(MOBY[2:])


def test_a_service_that_cannot_be_reached_fails_open_or_closed() -> None:
    inner = store_of(MOBY).as_retriever(search_kwargs={"k": 2})
    # A port nothing listens on: a real connection refused, no retries.
    from rag_forensics import ForensicsConnectionError, RetryOptions

    with ForensicsClient(f"http://127.0.0.1:{free_port()}", "k", retry=RetryOptions(retries=0)) as down:
        open_ = ForensicsRetriever(retriever=inner, client=down, collection="x")
        assert len(open_.invoke("moby dick")) == 2
        closed = ForensicsRetriever(retriever=inner, client=down, collection="x", on_lookup_error="closed")
        with pytest.raises(ForensicsConnectionError):
            closed.invoke("moby dick")


def test_the_logger_logs_the_documents_the_model_was_given(client: ForensicsClient) -> None:
    collection = unique("py_lc_logger")
    ids = client.ingest(collection, MOBY)["ids"]
    retriever = ForensicsRetriever(retriever=store_of(MOBY).as_retriever(search_kwargs={"k": 3}), client=client, collection=collection)
    prompt = ChatPromptTemplate.from_template("Context:\n{context}\nQuestion: {question}")
    # Only the first retrieved document reaches the prompt: only its id is logged as served.
    first_only = RunnableLambda(lambda docs: docs[0].page_content)
    model = FakeListChatModel(responses=["an answer"])
    chain = {"context": retriever | first_only, "question": RunnablePassthrough()} | prompt | model | StrOutputParser()
    seen: list[LoggedRagAnswer] = []
    logger = ForensicsAnswerLogger(client, collection, on_logged=lambda a, _run: seen.append(a), raise_error=True)
    assert chain.invoke("who wrote moby dick", config={"callbacks": [logger]}) == "an answer"
    logged = logger.last()
    assert logged is not None and seen == [logged]
    assert len(logged.served_ids) == 1 and logged.served_ids[0] in ids
    assert logged.served_texts == [MOBY[ids.index(logged.served_ids[0])]]
    assert (logged.query, logged.answer) == ("who wrote moby dick", "an answer")
    assert logged.feedback_token and logged.feedback_token not in repr(logged)
    # The token is the service's: a report with it is accepted, and names the logged answer.
    report = client.report_with_token(logged.feedback_token, correct_answer="Herman Melville")
    assert report["answerId"] == logged.answer_id

    # ainvoke: LangChain runs the (sync) handler off the event loop; the answer is logged the same way.
    import anyio

    async_model = FakeListChatModel(responses=["an async answer"])
    async_chain = {"context": retriever | first_only, "question": RunnablePassthrough()} | prompt | async_model | StrOutputParser()
    assert anyio.run(lambda: async_chain.ainvoke("who wrote the whale", config={"callbacks": [logger]})) == "an async answer"
    again = logger.last()
    assert again is not None and again is not logged and again.answer == "an async answer" and len(again.served_ids) == 1
    assert logger.errors == []
