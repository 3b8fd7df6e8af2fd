"""The client's overhead per call over the raw httpx call; prints one JSON line.

Both sides make the same call, ``POST /v1/collections/:name/serving-status`` with the same body and
headers over one keep-alive ``httpx.Client``, interleaved, N times each: the raw side encodes the
JSON, posts and decodes the answer itself; the client side is ``ForensicsClient.serving_status``.
The server is a stub in a child process answering a fixed serving-status body (the default), or a
real service (``--url`` and ``--api-key``: one text is ingested into a fresh collection first).
``in_process`` repeats the comparison over ``httpx.MockTransport`` (no socket): the client's own
CPU cost. Target: ``overhead_p50_ms`` <= 2.

    python bench/overhead.py [--calls 2000] [--url http://127.0.0.1:3000 --api-key KEY]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable

import httpx

from rag_forensics import ForensicsClient, RetryOptions

TARGET_MS = 2.0
TEXTS = ["The sperm whale is the largest of the toothed whales and the largest toothed predator."]
ANSWER = {"collection": "bench", "ids": [], "texts": [{"id": "d1", "known": True, "status": "ACTIVE", "withheld": False}]}

STUB = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
BODY = json.dumps(json.loads(sys.argv[1])).encode()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 65536  # headers and body in one write (else delayed ACKs add 40 ms)
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
        self.wfile.flush()
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.serve_forever()
"""


def quantile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[int(q * 100) - 1] if len(samples) > 1 else samples[0]


def compare(raw: Callable[[], object], client: Callable[[], object], calls: int) -> dict[str, float]:
    for _ in range(min(50, calls)):  # warm both (connections, caches)
        raw()
        client()
    r: list[float] = []
    c: list[float] = []
    for i in range(calls):
        # Alternate which goes first, so neither side always meets a just-warmed socket.
        order = (raw, client) if i % 2 == 0 else (client, raw)
        for fn in order:
            t0 = time.perf_counter()
            fn()
            (r if fn is raw else c).append((time.perf_counter() - t0) * 1000)
    raw_p50, client_p50 = statistics.median(r), statistics.median(c)
    return {
        "raw_p50_ms": round(raw_p50, 4),
        "client_p50_ms": round(client_p50, 4),
        "overhead_p50_ms": round(client_p50 - raw_p50, 4),
        "raw_p90_ms": round(quantile(r, 0.9), 4),
        "client_p90_ms": round(quantile(c, 0.9), 4),
    }


def pair(http: httpx.Client, base: str, key: str, collection: str) -> tuple[Callable[[], object], Callable[[], object]]:
    url = f"{base}/v1/collections/{collection}/serving-status"
    headers = {"accept": "application/json", "content-type": "application/json", "x-api-key": key}

    def raw() -> object:
        res = http.post(url, content=json.dumps({"texts": TEXTS}).encode(), headers=headers)
        res.raise_for_status()
        return json.loads(res.content)

    client = ForensicsClient(base, key, http_client=http, retry=RetryOptions(retries=0))

    def sdk() -> object:
        return client.serving_status(collection, texts=TEXTS)

    return raw, sdk


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--url", help="a running service (default: a stub server in a child process)")
    ap.add_argument("--api-key", default="bench-key")
    args = ap.parse_args()

    stub = None
    if args.url:
        base, collection = args.url.rstrip("/"), f"bench_{uuid.uuid4().hex[:8]}"
        with ForensicsClient(base, args.api_key) as setup:
            setup.ingest(collection, TEXTS)
        server = base
    else:
        stub = subprocess.Popen([sys.executable, "-c", STUB, json.dumps(ANSWER)], stdout=subprocess.PIPE, text=True)
        port = stub.stdout.readline().strip() if stub.stdout else ""
        base, collection, server = f"http://127.0.0.1:{port}", "bench", "stub"
    try:
        with httpx.Client() as http:
            over_socket = compare(*pair(http, base, args.api_key, collection), args.calls)
        mock = httpx.Client(transport=httpx.MockTransport(lambda _req: httpx.Response(200, json=ANSWER)))
        in_process = compare(*pair(mock, "http://bench.invalid", args.api_key, "bench"), args.calls)
    finally:
        if stub is not None:
            stub.terminate()
            stub.wait()
    print(
        json.dumps(
            {
                "bench": "python-client-overhead",
                "server": server,
                "calls": args.calls,
                **over_socket,
                "in_process": in_process,
                "target_ms": TARGET_MS,
                "ok": over_socket["overhead_p50_ms"] <= TARGET_MS,
                "python": sys.version.split()[0],
                "httpx": httpx.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
