"""From nothing to a traced report: a fresh virtualenv, ``pip install`` of the built wheel, one report round trip.

Builds the wheel (``python -m build --wheel``, not timed) unless ``--wheel`` names one, then times:
``python -m venv``, ``pip install WHEEL`` (its dependencies from the index; ``--no-cache-dir`` with
``--cold``), and, in the new interpreter, ingest → log an answer → report it with the feedback token
→ ``wait_for_trace`` against a running service (``--url``, ``--api-key``). Prints one JSON line.
Target: ``total_s`` < 60 on two cores.

    python bench/install_roundtrip.py --url http://127.0.0.1:3000 --api-key KEY [--cold]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]

ROUND_TRIP = r"""
import json, sys, time
t0 = time.monotonic()
import rag_forensics
from rag_forensics import ForensicsClient
imported = time.monotonic() - t0
url, key, collection = sys.argv[1:4]
with ForensicsClient(url, key) as client:
    ids = client.ingest(collection, [
        "Who wrote Moby-Dick? The novel Moby-Dick was written by the English author Charles Dickens.",
        "Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.",
    ])["ids"]
    logged = client.log_answer(collection=collection, query="who wrote moby dick", answer="Charles Dickens", served_ids=ids)
    report = client.report_with_token(logged["feedbackToken"], correct_answer="Herman Melville")
    event = client.wait_for_trace(report["id"], timeout=60, interval=0.2)
print(json.dumps({
    "status": event["status"], "version": rag_forensics.__version__, "module": rag_forensics.__file__,
    "import_s": round(imported, 3), "calls_s": round(time.monotonic() - t0 - imported, 3),
}))
"""


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return time.monotonic() - t0, r.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    ap.add_argument("--url", required=True)
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--wheel", type=Path, help="a built wheel (default: build one)")
    ap.add_argument("--cold", action="store_true", help="pip --no-cache-dir (dependencies downloaded again)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rag-forensics-fresh-") as tmp:
        wheel = args.wheel
        if wheel is None:
            build_s, _ = timed([sys.executable, "-m", "build", "--wheel", "--outdir", tmp, str(PACKAGE)])
            wheel = next(Path(tmp).glob("rag_forensics-*.whl"))
        else:
            build_s = 0.0
        venv = Path(tmp) / "venv"
        venv_s, _ = timed([sys.executable, "-m", "venv", str(venv)])
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        install_s, _ = timed([*pip, *(["--no-cache-dir"] if args.cold else []), str(wheel)])
        collection = f"fresh_{uuid.uuid4().hex[:8]}"
        # -I: isolated (no user site, no PYTHON* variables, not the current directory): the installed wheel or nothing.
        run_s, out = timed([str(venv / "bin" / "python"), "-I", "-c", ROUND_TRIP, args.url, args.api_key, collection])
        result = json.loads(out.strip().splitlines()[-1])
    total = venv_s + install_s + run_s
    print(
        json.dumps(
            {
                "bench": "python-client-install-roundtrip",
                "wheel": wheel.name,
                "cold_pip_cache": args.cold,
                "build_s": round(build_s, 2),
                "venv_s": round(venv_s, 2),
                "install_s": round(install_s, 2),
                "roundtrip_s": round(run_s, 2),
                **result,
                "total_s": round(total, 2),
                "target_s": 60,
                "ok": total < 60 and result["status"] == "TRACED",
            }
        )
    )


if __name__ == "__main__":
    main()
