"""The two Python clients have the same methods, and every call of the TypeScript client has its Python name."""

from __future__ import annotations

import inspect
import re

import rag_forensics
from rag_forensics import AsyncForensicsClient, ForensicsClient

from .support import ROOT

# TypeScript method → Python method, where the name is not just snake_case.
RENAMED: dict[str, str] = {}
# Python calls the TypeScript client lacks (yet).
PYTHON_ONLY: set[str] = set()


def public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in vars(cls).items()
        if callable(fn) and not name.startswith("_") and name not in ("close", "aclose")
    }


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def test_sync_and_async_have_the_same_methods_and_signatures() -> None:
    sync, asyncc = public_methods(ForensicsClient), public_methods(AsyncForensicsClient)
    assert sorted(sync) == sorted(asyncc)
    for name, sig in sync.items():
        assert [(p.name, p.kind, p.default) for p in sig.parameters.values()] == [
            (p.name, p.kind, p.default) for p in asyncc[name].parameters.values()
        ], name
        assert inspect.iscoroutinefunction(getattr(AsyncForensicsClient, name)), name
    init = [p.name for p in inspect.signature(ForensicsClient.__init__).parameters.values()]
    assert init == [p.name for p in inspect.signature(AsyncForensicsClient.__init__).parameters.values()]


def test_every_typescript_call_has_a_python_one() -> None:
    source = (ROOT / "libs/client/src/forensics-client.ts").read_text(encoding="utf-8")
    body = source[source.index("export class ForensicsClient") :]
    ts = {m for m in re.findall(r"^  (?:async )?([a-z][A-Za-z]+)\(", body, re.M) if m not in ("constructor", "call", "backoff")}
    assert ts, "no methods found in forensics-client.ts"
    expected = {RENAMED.get(m, snake(m)) for m in ts}
    assert expected | PYTHON_ONLY == set(public_methods(ForensicsClient))


def test_the_typescript_index_exports_have_python_counterparts() -> None:
    index = (ROOT / "libs/client/src/index.ts").read_text(encoding="utf-8")
    names = {n for n in re.findall(r"\b([A-Za-z_]+)\b", " ".join(re.findall(r"export \{([^}]*)\}", index))) if n != "type"}
    # Options objects are keyword arguments in Python (RetryOptions stays a class).
    skip = {"ForensicsClientOptions", "WaitOptions", "ServingStatusCacheOptions", "VerifyOptions"}
    missing = [n for n in sorted(names - skip) if not hasattr(rag_forensics, n) and not hasattr(rag_forensics, snake(n))]
    assert missing == []
    assert rag_forensics.parse_retry_after("1") == 1.0
