"""docs/integrate.md's Python blocks are run as printed against the real service, and pass ruff and mypy --strict.

The blocks are marked ``<!-- run: python -->`` and ``<!-- run: python-app -->`` (the second is
examples/python-rag/rag_app.py verbatim); test/integrate-docs-langchain.test.ts checks that every
block of the page is run by a test, these two by ``run_block("python")`` / ``run_block("python-app")`` here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rag_forensics import ForensicsClient

from .support import MOBY, PACKAGE, PLANTED, ROOT, Service, unique

PAGE = ROOT / "docs" / "integrate.md"
EXAMPLE = ROOT / "examples" / "python-rag" / "rag_app.py"


def named_blocks(markdown: str) -> dict[str, str]:
    """Fenced blocks preceded by ``<!-- run: NAME -->`` (blank lines between allowed), as test/support/docs-blocks.ts reads them."""
    lines = markdown.split("\n")
    out: dict[str, str] = {}
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not re.match(r"^```\s*$", lines[end]):
            end += 1
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        m = re.match(r"^<!-- run: ([a-z0-9-]+) -->$", lines[j].strip()) if j >= 0 else None
        if m:
            out[m.group(1)] = "\n".join(lines[i + 1 : end]) + "\n"
        i = end + 1
    return out


BLOCKS = named_blocks(PAGE.read_text(encoding="utf-8"))


def write_block(name: str, directory: Path) -> Path:
    file = directory / f"{name.replace('-', '_')}.py"
    file.write_text(BLOCKS[name], encoding="utf-8")
    return file


def run_block(name: str, service: Service, directory: Path, collection: str) -> Any:
    """Runs one block as a program with this interpreter; its last stdout line, parsed."""
    env = {**os.environ, "FORENSICS_URL": service.url, "FORENSICS_API_KEY": service.api_key, "COLLECTION": collection}
    r = subprocess.run([sys.executable, str(write_block(name, directory))], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{name} exited with {r.returncode}:\n{r.stderr}\n{r.stdout}"
    return json.loads(r.stdout.strip().split("\n")[-1])


def test_the_page_has_the_python_blocks_and_the_app_is_the_example_verbatim() -> None:
    assert {"python", "python-app"} <= set(BLOCKS)
    assert EXAMPLE.read_text(encoding="utf-8") == BLOCKS["python-app"]


def test_the_blocks_pass_ruff_and_mypy_strict(tmp_path: Path) -> None:
    files = [str(write_block(name, tmp_path)) for name in ("python", "python-app")]
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed beside this interpreter")
    config = ["--config", str(PACKAGE / "pyproject.toml")]
    lint = subprocess.run([ruff, "check", *config, *files], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run([ruff, "format", "--check", "--diff", *config, *files], capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    from mypy import api

    out, err, status = api.run(["--strict", "--no-incremental", "--python-version", "3.10", *files])
    assert status == 0, out + err


def test_the_sdk_block(service: Service, client: ForensicsClient, tmp_path: Path) -> None:
    collection = unique("docs_py")
    out = run_block("python", service, tmp_path, collection)
    assert out["status"] == "TRACED"
    assert out["duplicate"] is True
    assert out["notFound"] == 404
    # The planted text (the first ingested) went to review on the anonymous report, was approved, and is withheld now.
    planted, melville = (e["id"] for e in client.serving_status(collection, texts=[MOBY[0], MOBY[3]])["texts"])
    assert planted in out["approved"]
    assert planted in out["withheld"]
    assert melville not in out["withheld"]


def test_the_app_block_no_longer_serves_the_quarantined_texts(service: Service, tmp_path: Path) -> None:
    out = run_block("python-app", service, tmp_path, unique("docs_pyapp"))
    # First ask: the app's own store served the planted texts, and the answer was logged with them.
    assert out["first"]["answer"] == "Charles Dickens"
    assert [t for t in out["first"]["served"] if t in PLANTED] == PLANTED
    assert out["trace"]["status"] == "TRACED"
    assert sorted(out["trace"]["quarantined"]) == sorted(PLANTED)
    # The signed webhook reached the app's receiver and cleared the cache (its TTL is 60 s).
    assert "quarantine.created" in out["webhooks"]
    # Second ask: the filter dropped them; the store still holds them.
    assert out["second"]["served"]
    assert not set(out["second"]["served"]) & set(PLANTED)
