"""The fixtures: the real service (session), clients, a webhook endpoint with a local receiver. See support.py."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from rag_forensics import AsyncForensicsClient, ForensicsClient

from .support import DROPPED_ENV, ROOT, SERVICE_ENV, STARTUP_TIMEOUT, Hook, Receiver, Service, free_port, healthy, stop


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    external = os.environ.get("FORENSICS_URL")
    if external:
        key = os.environ.get("FORENSICS_API_KEY")
        if not key:
            pytest.fail("FORENSICS_URL is set without FORENSICS_API_KEY (an admin key)")
        yield Service(url=external.rstrip("/"), api_key=key)
        return
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the tests start the real service (npm install at the repository root first)")
    data_root = Path(tempfile.mkdtemp(prefix="rag-forensics-pytest-"))
    # As root, the embedded PostgreSQL runs as the 'postgres' user, which must be able to enter it.
    data_root.chmod(0o755)
    port = free_port()
    key = "pytest-" + secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(SERVICE_ENV, PORT=str(port), DATA_DIR=str(data_root / "data"), API_KEYS=key)
    log_file = data_root / "service.log"
    started = time.monotonic()
    with log_file.open("wb") as log:
        proc = subprocess.Popen(
            [node, "--import", "tsx", "apps/cli/src/main.ts", "serve"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    svc = Service(url=f"http://127.0.0.1:{port}", api_key=key, log_file=log_file, env=env)
    try:
        while not healthy(svc.url):
            if proc.poll() is not None:
                pytest.fail(f"the service exited with {proc.returncode} before it was healthy:\n{svc.log_tail()}")
            if time.monotonic() - started > STARTUP_TIMEOUT:
                pytest.fail(f"the service was not healthy after {STARTUP_TIMEOUT:.0f} s:\n{svc.log_tail()}")
            time.sleep(0.5)
        svc.started_in = time.monotonic() - started
        yield svc
    finally:
        seconds, killed = stop(proc)
        if os.environ.get("FORENSICS_TEST_LOG"):  # keep the service's log (it goes with the data dir)
            shutil.copyfile(log_file, os.environ["FORENSICS_TEST_LOG"])
        if killed is not None:
            message = f"the service did not stop within {seconds:.0f} s of SIGTERM; killed:\n{killed}\n{svc.log_tail(1500)}"
            warnings.warn(message, stacklevel=1)
        shutil.rmtree(data_root, ignore_errors=True)


@pytest.fixture
def client(service: Service) -> Iterator[ForensicsClient]:
    with ForensicsClient(service.url, service.api_key) as c:
        yield c


@pytest.fixture
async def async_client(service: Service) -> AsyncIterator[AsyncForensicsClient]:
    async with AsyncForensicsClient(service.url, service.api_key) as c:
        yield c


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def webhook(service: Service) -> Iterator[Hook]:
    """A webhook endpoint of the service pointing at a fresh local receiver (deleted afterwards)."""
    receiver = Receiver()
    headers = {"x-api-key": service.api_key}
    r = httpx.post(
        f"{service.url}/v1/webhooks",
        headers=headers,
        json={"url": receiver.url, "events": ["quarantine.created", "review.needed", "review.decided"]},
    )
    assert r.status_code == 201, r.text
    body = r.json()
    try:
        yield Hook(id=body["id"], secret=body["secret"], receiver=receiver)
    finally:
        httpx.delete(f"{service.url}/v1/webhooks/{body['id']}", headers=headers)
        receiver.close()
