"""The Python runner of the SDK contract (test/contract/README.md): the pattern matcher, and one table from the
vectors' calls to ForensicsClient's methods. The TypeScript runner (test/support/sdk-contract.ts) is its twin."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx

from rag_forensics import ForensicsApiError, ForensicsClient

from .support import ROOT

CONTRACT_DIR = ROOT / "test" / "contract"
Json = Any  # a JSON value as json.loads gives it
Vars = dict[str, Json]

OPERATORS = frozenset({"$type", "$oneOf", "$contains", "$length", "$each", "$any", "$save"})
WHOLE_VAR = re.compile(r"^\{\{(\w+)\}\}$")
VAR = re.compile(r"\{\{(\w+)\}\}")


@dataclass
class Vector:
    file: str
    name: str
    steps: list[dict[str, Json]]


def load_vectors() -> list[Vector]:
    files = sorted((CONTRACT_DIR / "vectors").glob("*.json"))
    return [Vector(f.name, (v := json.loads(f.read_text(encoding="utf-8")))["name"], v["steps"]) for f in files]


class _Unset(Exception):
    pass


def _text(value: Json) -> str:
    """A variable inside a string, as JavaScript's String() writes it (the vectors only put strings there)."""
    return value if isinstance(value, str) else json.dumps(value)


def interpolate(p: str, variables: Vars) -> Json:
    """``{{name}}`` replaced by variables in a string; a string that is just ``{{name}}`` becomes the variable's value."""
    whole = WHOLE_VAR.match(p)
    if whole:
        if whole[1] not in variables:
            raise _Unset(f"variable {whole[1]} is not set")
        return variables[whole[1]]

    def sub(m: re.Match[str]) -> str:
        if m[1] not in variables:
            raise _Unset(f"variable {m[1]} is not set")
        return _text(variables[m[1]])

    return VAR.sub(sub, p)


def resolve(v: Json, variables: Vars) -> Json:
    """Arguments with their variables filled in (no operators in arguments)."""
    if isinstance(v, str):
        return interpolate(v, variables)
    if isinstance(v, list):
        return [resolve(x, variables) for x in v]
    if isinstance(v, dict):
        return {k: resolve(x, variables) for k, x in v.items()}
    return v


def _same(a: Json, b: Json) -> bool:
    """JSON equality: a boolean never equals a number (Python's True == 1 does not count)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _type_ok(t: Json, v: Json) -> bool:
    is_number = isinstance(v, (int, float)) and not isinstance(v, bool)
    checks: dict[str, Callable[[], bool]] = {
        "string": lambda: isinstance(v, str),
        "number": lambda: is_number,
        "integer": lambda: is_number and float(v).is_integer(),
        "boolean": lambda: isinstance(v, bool),
        "null": lambda: v is None,
        "array": lambda: isinstance(v, list),
        "object": lambda: isinstance(v, dict),
    }
    if t not in checks:
        raise _Unset(f"unknown $type {json.dumps(t)}")
    return checks[t]()


def match(pattern: Json, value: Json, variables: Vars, at: str = "$") -> list[str]:
    """The mismatches of ``value`` against ``pattern`` (empty: it matches); ``$save``s go into ``variables`` as they match."""

    def miss(why: str) -> list[str]:
        return [f"{at}: {why} (got {json.dumps(value, ensure_ascii=False)[:200]})"]

    if isinstance(pattern, str):
        try:
            expected = interpolate(pattern, variables)
        except _Unset as e:
            return miss(str(e))
        return [] if _same(expected, value) else miss(f"expected {json.dumps(expected, ensure_ascii=False)}")
    if pattern is None or isinstance(pattern, (bool, int, float)):
        return [] if _same(pattern, value) else miss(f"expected {json.dumps(pattern)}")
    if isinstance(pattern, list):
        if not isinstance(value, list):
            return miss("expected a list")
        if len(value) != len(pattern):
            return miss(f"expected {len(pattern)} elements")
        return [m for i, (p, v) in enumerate(zip(pattern, value, strict=True)) for m in match(p, v, variables, f"{at}[{i}]")]
    keys = list(pattern)
    if any(k.startswith("$") and k != "$more" for k in keys):
        unknown = [k for k in keys if k not in OPERATORS]
        if unknown:
            return miss(f"unknown operator {', '.join(unknown)}")
        out: list[str] = []
        if "$type" in pattern:
            try:
                if not _type_ok(pattern["$type"], value):
                    out += miss(f"expected a {pattern['$type']}")
            except _Unset as e:
                out += miss(str(e))
        if "$oneOf" in pattern and not any(not match(p, value, dict(variables), at) for p in pattern["$oneOf"]):
            out += miss(f"expected one of {json.dumps(pattern['$oneOf'], ensure_ascii=False)}")
        if "$contains" in pattern:
            s = _text(interpolate(pattern["$contains"], variables))
            if not isinstance(value, str) or s not in value:
                out += miss(f"expected a string holding {json.dumps(s, ensure_ascii=False)}")
        if "$length" in pattern and not (isinstance(value, (str, list)) and len(value) == pattern["$length"]):
            out += miss(f"expected length {pattern['$length']}")
        if "$each" in pattern:
            if not isinstance(value, list):
                out += miss("expected a list")
            else:
                for i, x in enumerate(value):
                    out += match(pattern["$each"], x, dict(variables), f"{at}[{i}]")
        if not out and "$save" in pattern:
            variables[pattern["$save"]] = value
        return out
    if not isinstance(value, dict):
        return miss("expected an object")
    out = []
    for k in keys:
        if k == "$more":
            continue
        p = pattern[k]
        if isinstance(p, dict) and p.get("$absent") is True:
            if k in value:
                out.append(f"{at}.{k}: expected absent")
            continue
        if k not in value:
            out.append(f"{at}.{k}: missing")
            continue
        out += match(p, value[k], variables, f"{at}.{k}")
    if pattern.get("$more") is not True:
        out += [f"{at}.{k}: not in the contract ({json.dumps(value[k], ensure_ascii=False)[:120]})" for k in value if k not in pattern]
    return out


@dataclass
class Seen:
    """One HTTP request as the vectors see it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Json


@dataclass
class Recorder:
    """An httpx request hook that keeps what the client sends (the request still goes to the real service)."""

    seen: list[Seen] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> None:
        content = request.content
        self.seen.append(
            Seen(
                method=request.method,
                path=request.url.path,
                query=dict(parse_qsl(request.url.query.decode("ascii"), keep_blank_values=True)),
                headers={k.lower(): v for k, v in request.headers.items()},
                body=json.loads(content) if content else None,
            )
        )


def match_requests(expected: dict[str, Json], seen: list[Seen], variables: Vars) -> list[str]:
    """The request patterns of a step against what the client sent (every request must match; headers named only)."""
    if not seen:
        return ["no request was sent"]
    out: list[str] = []
    for i, s in enumerate(seen):
        out += match(expected["method"], s.method, variables, f"request[{i}].method")
        out += match(expected["path"], s.path, variables, f"request[{i}].path")
        out += match(expected.get("query", {}), s.query, variables, f"request[{i}].query")
        out += match({**expected.get("headers", {}), "$more": True}, s.headers, variables, f"request[{i}].headers")
        out += match(expected.get("body"), s.body, variables, f"request[{i}].body")
    return out


A = dict[str, Json]


def _kw(a: A, names: dict[str, str], *positional: str) -> dict[str, Json]:
    """The vector's JSON argument names → this client's keyword arguments (those given, less the positional ones)."""
    rest = {k: v for k, v in a.items() if k not in positional}
    unknown = set(rest) - set(names)
    if unknown:
        raise TypeError(f"arguments not in the table: {sorted(unknown)}")
    return {names[k]: v for k, v in rest.items()}


LOG = {"query": "query", "answer": "answer", "servedIds": "served_ids", "collection": "collection", "servedScores": "served_scores"}
REPORT = {
    "query": "query",
    "wrongAnswer": "wrong_answer",
    "servedIds": "served_ids",
    "collection": "collection",
    "correctAnswer": "correct_answer",
    "reporter": "reporter",
    "k": "k",
    "idempotencyKey": "idempotency_key",
}
TOKEN_REPORT = {"correctAnswer": "correct_answer", "wrongAnswer": "wrong_answer", "reporter": "reporter", "answerId": "answer_id"}
LOOKUP = {"texts": "texts", "ids": "ids"}
RAG = {"collection": "collection", "k": "k"}
FILTER = {"state": "state", "collection": "collection"}

#: The vectors' calls → this client's methods.
CALLS: dict[str, Callable[[ForensicsClient, A], object]] = {
    "ingest": lambda c, a: c.ingest(a["collection"], a["documents"]),
    "servingStatus": lambda c, a: c.serving_status(a["collection"], **_kw(a, LOOKUP, "collection")),
    # Left out: the client's default (now); null: None.
    "setVettedBaseline": lambda c, a: c.set_vetted_baseline(a["collection"], *([a["before"]] if "before" in a else [])),
    "logAnswer": lambda c, a: c.log_answer(**_kw(a, LOG)),
    "ragAnswer": lambda c, a: c.rag_answer(a["query"], **_kw(a, RAG, "query")),
    "reportWrongAnswer": lambda c, a: c.report_wrong_answer(**_kw(a, REPORT)),
    "reportWithToken": lambda c, a: c.report_with_token(a["feedbackToken"], **_kw(a, TOKEN_REPORT, "feedbackToken")),
    "getFeedback": lambda c, a: c.get_feedback(a["id"]),
    "waitForTrace": lambda c, a: c.wait_for_trace(a["id"], timeout=180, interval=0.25),
    "setCorrectAnswer": lambda c, a: c.set_correct_answer(a["id"], a["correctAnswer"]),
    "listQuarantine": lambda c, a: c.list_quarantine(**_kw(a, FILTER)),
    "approve": lambda c, a: c.approve(a["id"], a.get("note")),
    "restore": lambda c, a: c.restore(a["id"], a.get("note")),
}


def run_step(step: dict[str, Json], url: str, keys: dict[str, str | None], variables: Vars) -> list[str]:
    """Runs one step: the call (with the key of the step's ``client``), then its request and its response or error
    against the vector; the mismatches."""
    fn = CALLS.get(step["call"])
    if fn is None:
        return [f"unknown call {step['call']}"]
    recorder = Recorder()
    args = resolve(step.get("args", {}), variables)
    result: object = None
    error: Exception | None = None
    key = keys[step.get("client", "admin")]
    with httpx.Client(event_hooks={"request": [recorder]}) as http, ForensicsClient(url, key, http_client=http) as client:
        try:
            result = fn(client, args)
        except Exception as e:  # any failure is a mismatch to report
            error = e
    out = match_requests(step["request"], recorder.seen, variables) if "request" in step else []
    if "error" in step:
        if not isinstance(error, ForensicsApiError):
            got = repr(error) if error else f"a result {result!r:.200}"
            out.append(f"expected the client's API error, got {got}")
        else:
            out += match(step["error"], {"status": error.status, "problem": dict(error.problem)}, variables, "error")
    elif error is not None:
        out.append(f"the call failed: {error!r}")
    else:
        out += match(step.get("response"), result, variables, "response")
    return out
