"""The package installs like a real one (issue 61 item 4): ``python -m build`` makes the wheel, which goes into a fresh
virtualenv (``pip install``, its dependencies from the index) and does one report round trip against the real service
from outside the source tree (bench/install_roundtrip.py, whose JSON line with the timings is printed)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from .support import PACKAGE, Service

# tomllib is 3.11+ and the package supports 3.10: the one version line of [project].
_VERSION = re.search(r'^version = "([^"]+)"$', (PACKAGE / "pyproject.toml").read_text(encoding="utf-8"), re.M)
assert _VERSION is not None
VERSION = _VERSION[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # --no-isolation: the pinned hatchling of requirements-dev.txt, already in this venv (no download per run).
    r = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(PACKAGE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    [built] = out.glob("rag_forensics-*.whl")
    return built


def test_the_wheel_holds_the_package_typed_licensed_and_nothing_else(wheel: Path) -> None:
    assert wheel.name == f"rag_forensics-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"rag_forensics-{VERSION}.dist-info"
        meta = Parser().parsestr(z.read(f"{info}/METADATA").decode("utf-8"))
    assert {"rag_forensics/__init__.py", "rag_forensics/py.typed", "rag_forensics/_models.py", f"{info}/licenses/LICENSE"} <= set(names)
    assert [n for n in names if not n.startswith(("rag_forensics/", f"{info}/"))] == []
    assert (meta["Name"], meta["Version"], meta["License-Expression"]) == ("rag-forensics", VERSION, "MIT")
    assert meta["Requires-Python"] == ">=3.10"
    requires = meta.get_all("Requires-Dist") or []
    assert any(r.startswith("httpx") for r in requires)
    # The framework integrations are extras: nothing of them is installed without asking.
    assert sorted(meta.get_all("Provides-Extra") or []) == ["langchain", "llamaindex"]
    assert [r for r in requires if r.startswith(("langchain-core", "llama-index-core")) and "extra ==" not in r] == []
    # The README is the package's long description.
    assert "rag-forensics" in (meta.get_payload() or "")


def test_a_fresh_venv_installs_the_wheel_and_reports(wheel: Path, service: Service, capsys: pytest.CaptureFixture[str]) -> None:
    bench = PACKAGE / "bench" / "install_roundtrip.py"
    r = subprocess.run(
        [sys.executable, str(bench), "--url", service.url, "--api-key", service.api_key, "--wheel", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    line = json.loads(r.stdout.strip().splitlines()[-1])
    assert line["status"] == "TRACED"
    assert line["version"] == VERSION
    # Imported from the fresh venv's site-packages, not from the source tree.
    assert "/site-packages/rag_forensics/" in line["module"]
    assert not line["module"].startswith(str(PACKAGE))
    with capsys.disabled():
        print(f"\n{json.dumps(line)}")
