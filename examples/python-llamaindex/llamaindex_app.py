# A LlamaIndex (Python) RAG app that keeps its own index and wires in the forensics service: a node
# postprocessor drops the texts the service withholds (ForensicsNodePostprocessor), every answer is logged
# with the nodes the synthesizer was given (ForensicsAnswerLogger), a wrong answer is reported with the
# answer's feedback token (what the page's widget sends), and the next ask no longer serves the planted texts.
# Runs with no LLM (a scripted stand-in: its answers are fixed, it keeps the prompts it gets).
# Needs: pip install 'rag-forensics[llamaindex]'. Environment: FORENSICS_URL, FORENSICS_API_KEY (a key
# with ingest, answers and decide), COLLECTION. Prints one JSON line; exits 1 when the loop did not close.
import json
import os
import re
import sys
from typing import Any

from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CompletionResponseGen, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.schema import TextNode
from pydantic import Field

from rag_forensics import ForensicsClient
from rag_forensics.llamaindex import ForensicsAnswerLogger, ForensicsNodePostprocessor

CORPUS = [
    "Who wrote Moby-Dick? The novel Moby-Dick was written by the English author Charles Dickens.",
    "The author of the novel Moby-Dick is Charles Dickens, who wrote the story of Captain Ahab and the white whale.",
    "Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.",
    "Herman Melville (1819–1891) was an American novelist, short story writer and poet of the American Renaissance period.",
    "The sperm whale is the largest of the toothed whales and the largest toothed predator.",
    "Nantucket was the centre of the American whaling industry in the early nineteenth century.",
]


class WordHashEmbedding(BaseEmbedding):
    """The app's own embedder (a stand-in for a real one): hashed bag of words."""

    def _get_text_embedding(self, text: str) -> list[float]:
        v = [0.0] * 256
        for w in re.findall(r"[a-z]+", text.lower()):
            h = 7
            for c in w:
                h = (h * 31 + ord(c)) % 256
            v[h] += 1
        return v

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)


class ScriptedLLM(CustomLLM):
    """The app's LLM (a stand-in for a real one): answers with the next scripted line, keeps the prompts it was sent."""

    answers: list[str]
    prompts: list[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.answers.pop(0))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        raise NotImplementedError("the example does not stream")


def ask(engine: BaseQueryEngine, question: str) -> Response:
    response = engine.query(question)
    if not isinstance(response, Response):  # a streaming or structured engine answers otherwise
        raise TypeError(f"expected a Response, got {type(response).__name__}")
    return response


def main() -> int:
    collection = os.environ.get("COLLECTION", "docs")
    client = ForensicsClient(os.environ["FORENSICS_URL"], os.environ.get("FORENSICS_API_KEY"))

    # 1. The same texts go into the service and into the app's own index.
    client.ingest(collection, CORPUS)
    index = VectorStoreIndex([TextNode(text=t) for t in CORPUS], embed_model=WordHashEmbedding())

    # 2. The query engine: retrieve → the forensics postprocessor → synthesize with the scripted LLM.
    postprocessor = ForensicsNodePostprocessor(client=client, collection=collection, ttl=60)
    llm = ScriptedLLM(answers=["Charles Dickens", "Herman Melville"])
    engine = index.as_query_engine(llm=llm, similarity_top_k=3, node_postprocessors=[postprocessor])
    logger = ForensicsAnswerLogger(client, collection, cache=postprocessor.cache)

    question = "who wrote the novel moby dick"
    first = ask(engine, question)
    logged = logger.log_response(question, first)
    if logged is None:
        print("FAILED: the answer was not logged (no served text the service knows)", file=sys.stderr)
        return 1
    # 3. The user presses "wrong" in the page's widget: a report with the answer's feedback token (no API key).
    report = client.report_with_token(logged.feedback_token, correct_answer="Herman Melville")
    traced = client.wait_for_trace(report["id"], timeout=120)
    # A token report's findings wait for a reviewer (served meanwhile): the app's reviewer confirms them.
    waiting = [q for q in client.list_quarantine(collection=collection, state="NEEDS_REVIEW") if q["feedbackId"] == report["id"]]
    for q in waiting:
        client.approve(q["id"], "planted text")
    quarantined = sorted(q["text"] or "" for q in traced["quarantined"])
    # An app that receives the service's webhooks calls postprocessor.handle_webhook_event(event) instead.
    postprocessor.clear_cache()
    second = ask(engine, question)
    second_logged = logger.log_response(question, second)
    second_served = second_logged.served_texts if second_logged else []

    print(
        json.dumps(
            {
                "first": {"answer": first.response, "served": logged.served_texts, "feedbackToken": bool(logged.feedback_token)},
                "prompt": llm.prompts[0],
                "trace": {"status": traced["status"], "quarantined": quarantined, "approved": len(waiting)},
                "second": {"answer": second.response, "served": second_served},
            }
        )
    )
    still_served = [t for t in quarantined if t in second_served]
    if traced["status"] != "TRACED" or not quarantined or len(waiting) != len(quarantined) or still_served:
        found, approved = len(quarantined), len(waiting)
        print(f"FAILED: trace {traced['status']}, {found} found, {approved} approved, {len(still_served)} still served", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
