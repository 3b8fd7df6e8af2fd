"""The SDK contract, Python side (test/contract/README.md): every vector of test/contract/vectors run with
ForensicsClient against the real service (the session fixture's). test/sdk-contract.test.ts runs the same files
with the TypeScript client."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from rag_forensics import ForensicsClient

from .contract import CALLS, CONTRACT_DIR, Vector, load_vectors, match, run_step
from .support import Service, unique

VECTORS = load_vectors()
MATCHER = json.loads((CONTRACT_DIR / "matcher-cases.json").read_text(encoding="utf-8"))
WRONG_KEY = "rfk_" + secrets.token_hex(16)


@pytest.mark.parametrize("case", MATCHER["cases"], ids=[f"case {i}" for i in range(len(MATCHER["cases"]))])
def test_the_matcher_reads_the_vectors_as_the_typescript_runner_does(case: dict[str, Any]) -> None:
    variables = dict(MATCHER["vars"])
    mismatches = match(case["pattern"], case["value"], variables)
    assert (not mismatches) is case["match"], mismatches
    if "saved" in case:
        assert {k: v for k, v in variables.items() if k not in MATCHER["vars"]} == case["saved"]


def test_every_call_is_in_a_vector_and_every_method_in_the_table() -> None:
    assert len(VECTORS) >= 11
    used = {s["call"] for v in VECTORS for s in v.steps}
    assert sorted(set(CALLS) - used) == []
    # Python names → the table's (TypeScript) names: a new method needs a row and a vector.
    methods = {n for n, f in vars(ForensicsClient).items() if callable(f) and not n.startswith("_") and n != "close"}
    snake = {"".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in name): name for name in CALLS}
    assert sorted(methods - set(snake)) == []


@pytest.mark.parametrize("vector", VECTORS, ids=[v.file for v in VECTORS])
def test_vector(vector: Vector, service: Service) -> None:
    variables: dict[str, Any] = {
        "collection": unique("contract"),
        "reporter": unique("contract-user"),
        "nonce": secrets.token_hex(6),
        "apiKey": service.api_key,
        "wrongKey": WRONG_KEY,
        "tomorrow": (datetime.now(timezone.utc) + timedelta(days=1)).isoformat().replace("+00:00", "Z"),
    }
    keys = {"admin": service.api_key, "none": None, "wrongKey": WRONG_KEY}
    for i, step in enumerate(vector.steps):
        mismatches = run_step(step, service.url, keys, variables)
        assert (f"{i} {step['call']}", mismatches) == (f"{i} {step['call']}", [])
