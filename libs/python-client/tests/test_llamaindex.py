"""The LlamaIndex integration (rag_forensics.llamaindex) against the real service: the example app end to end, the
node postprocessor's filter (fail-open and fail-closed on a service that cannot be reached), and the answer logger
logging the ids of the nodes the synthesizer was given, through the postprocessor's cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from rag_forensics import ForensicsClient, ForensicsConnectionError, RetryOptions
from rag_forensics.llamaindex import ForensicsAnswerLogger, ForensicsNodePostprocessor

from .support import MOBY, PLANTED, ROOT, Service, free_port, unique
from .test_docs import BLOCKS, run_block

EXAMPLE = ROOT / "examples" / "python-llamaindex" / "llamaindex_app.py"


def scored(texts: list[str]) -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(text=t), score=1.0 - i / 10) for i, t in enumerate(texts)]


def test_the_page_block_is_the_example_verbatim() -> None:
    assert BLOCKS["python-llamaindex"] == EXAMPLE.read_text(encoding="utf-8")


def test_the_example_ingests_asks_reports_and_the_planted_texts_are_gone(service: Service, tmp_path: Path) -> None:
    # docs/integrate.md's block, run as printed (it is the example file verbatim: the test above).
    out = run_block("python-llamaindex", service, tmp_path, unique("py_li_example"))
    print(json.dumps(out))
    assert out["first"]["answer"] == "Charles Dickens" and out["first"]["feedbackToken"] is True
    assert sorted(t for t in out["first"]["served"] if "Charles Dickens" in t) == sorted(PLANTED)
    # The texts logged as served are the texts the LLM's prompt carried.
    assert all(t in out["prompt"] for t in out["first"]["served"])
    assert out["trace"]["status"] == "TRACED" and out["trace"]["quarantined"] == sorted(PLANTED) and out["trace"]["approved"] == 2
    assert out["second"]["answer"] == "Herman Melville"
    assert out["second"]["served"] and not [t for t in out["second"]["served"] if t in PLANTED]


def test_the_postprocessor_drops_withheld_nodes_and_the_logger_uses_its_cache(client: ForensicsClient) -> None:
    collection = unique("py_li_filter")
    ids = client.ingest(collection, MOBY)["ids"]
    pp = ForensicsNodePostprocessor(client=client, collection=collection, ttl=60)
    assert [n.node.get_content() for n in pp.postprocess_nodes(scored(MOBY), QueryBundle("who wrote moby dick"))] == MOBY
    # A key report naming its user: the planted texts are traced and quarantined.
    report = client.report_wrong_answer(
        query="who wrote the novel moby dick",
        wrong_answer="Charles Dickens",
        served_ids=ids[:3],
        collection=collection,
        reporter=unique("user"),
    )
    event = client.wait_for_trace(report["id"], timeout=180)
    assert sorted(q["text"] or "" for q in event["quarantined"] if q["state"] == "QUARANTINED") == sorted(PLANTED)
    assert len(pp.postprocess_nodes(scored(MOBY))) == len(MOBY)  # cached for 60 s
    assert pp.handle_webhook_event({"type": "review.decided"}) is True
    kept = pp.postprocess_nodes(scored(MOBY))
    assert [n.node.get_content() for n in kept] == MOBY[2:]
    assert pp.lookups == 2

    logger = ForensicsAnswerLogger(client, collection, cache=pp.cache)
    logged = logger.log("who wrote moby dick", "Herman Melville", kept[:2])
    assert logged is not None and logger.last() is logged
    assert logged.served_ids == ids[2:4] and logged.served_texts == MOBY[2:4]
    assert pp.lookups == 2  # the ids came from the postprocessor's cache
    assert logged.feedback_token not in repr(logged)
    # Nothing the service knows: nothing logged.
    assert logger.log("q", "a", scored(["a text the service never saw"])) is None


def test_a_service_that_cannot_be_reached_fails_open_or_closed() -> None:
    with ForensicsClient(f"http://127.0.0.1:{free_port()}", "k", retry=RetryOptions(retries=0)) as down:
        assert len(ForensicsNodePostprocessor(client=down, collection="x").postprocess_nodes(scored(MOBY[:2]))) == 2
        closed = ForensicsNodePostprocessor(client=down, collection="x", on_lookup_error="closed")
        with pytest.raises(ForensicsConnectionError):
            closed.postprocess_nodes(scored(MOBY[:2]))
