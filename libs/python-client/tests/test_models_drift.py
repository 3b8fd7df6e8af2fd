"""The generated models cannot drift from the service: regenerated from the running service's OpenAPI
document and compared with the committed src/rag_forensics/_models.py (UPDATE_PYTHON_MODELS=1 rewrites it).
test/client-types.test.ts runs the same check in jest, beside the TypeScript types' one."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import httpx

from .support import PACKAGE, Service

GENERATOR = PACKAGE / "scripts" / "generate_models.py"
MODELS = PACKAGE / "src" / "rag_forensics" / "_models.py"


def test_the_models_are_generated_from_the_openapi_document(service: Service) -> None:
    doc = httpx.get(f"{service.url}/docs/openapi.json").text
    generated = subprocess.run(
        [sys.executable, str(GENERATOR), "-"], input=doc, capture_output=True, text=True, check=True, encoding="utf-8"
    ).stdout
    if os.environ.get("UPDATE_PYTHON_MODELS") == "1":
        MODELS.write_text(generated, encoding="utf-8")
    # A difference is an API change the Python models do not reflect: rerun with UPDATE_PYTHON_MODELS=1 and commit.
    assert MODELS.read_text(encoding="utf-8") == generated


def test_a_route_the_client_calls_must_document_its_bodies(service: Service) -> None:
    served = httpx.get(f"{service.url}/docs/openapi.json").json()
    doc = copy.deepcopy(served)
    del doc["paths"]["/v1/answers"]["post"]["responses"]["201"]["content"]
    r = subprocess.run([sys.executable, str(GENERATOR), "-"], input=json.dumps(doc), capture_output=True, text=True)
    assert r.returncode == 2 and "POST /v1/answers documents no JSON schema for its 201 response" in r.stderr
    doc = copy.deepcopy(served)
    del doc["paths"]["/v1/feedback/{id}"]
    r = subprocess.run([sys.executable, str(GENERATOR), "-"], input=json.dumps(doc), capture_output=True, text=True)
    assert r.returncode == 2 and "lacks GET /v1/feedback/{id}" in r.stderr
