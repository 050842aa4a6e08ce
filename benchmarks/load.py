"""Load: N concurrent gradio_client sessions against `paperchat serve` on loopback.

Each session asks 10 different questions (single-paper dev questions, then a follow-up that relies on
the session's own history) and checks that every answer cites the paper of its *own* question, so an
answer delivered to the wrong session is caught. Prints errors, misrouted answers and p50/p95 latency.

    python benchmarks/load.py [--sessions 16] [--questions 10] [--engine extractive|local]
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

from benchmarks.common import DEV_QA, SEED, require_shared

FOLLOWUPS = {  # gold paper -> a follow-up that only makes sense after asking about it
    "icml2025-44081": "What results does it report on ManyTypes4Py?",
    "icml2025-44094": "How does it measure the smoothing effects?",
    "icml2025-44096": "How is its intrinsic cost computed?",
    "icml2025-44092": "What top-1 accuracy does it achieve?",
}


def start_server(data: Path, engine: str) -> tuple[subprocess.Popen, str]:  # type: ignore[type-arg]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--persist-dir", str(data),
                             "--engine", engine], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(1200):
        try:
            urllib.request.urlopen(url + "config", timeout=1); return proc, url
        except OSError:
            time.sleep(0.25)
    proc.kill()
    sys.exit("paperchat serve did not start")


def session(url: str, plan: list[tuple[str, str]], results: list[dict]) -> None:  # type: ignore[type-arg]
    from gradio_client import Client

    client = Client(url, verbose=False)
    for question, gold in plan:
        started = time.perf_counter()
        try:
            answer = client.predict(question, api_name="/chat")
            cited = [c["paper_id"] for c in answer.get("citations", [])]
            results.append({"ok": answer.get("error") is None, "own": gold in cited, "cited": cited, "question": question, "query": answer.get("query"),
                            "seconds": time.perf_counter() - started, "error": answer.get("error")})
        except Exception as exc:  # noqa: BLE001 - counted as an error
            results.append({"ok": False, "own": False, "cited": [], "seconds": time.perf_counter() - started, "error": repr(exc)})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--engine", default="extractive")
    args = parser.parse_args()
    require_shared()
    singles = [json.loads(l) for l in open(DEV_QA, encoding="utf-8") if l.strip()]
    singles = [(q["question"], q["gold"][0]) for q in singles if q["kind"] == "single"]
    rng = random.Random(0)
    plans = []
    for _ in range(args.sessions):
        picked = rng.sample(singles, args.questions - 1)
        with_followup = [i for i, (_, gold) in enumerate(picked) if gold in FOLLOWUPS]
        if with_followup:  # a follow-up right after its question, answered from this session's own history
            i = with_followup[0]
            picked.insert(i + 1, (FOLLOWUPS[picked[i][1]], picked[i][1]))
        else:
            picked.append(singles[0])
        plans.append(picked[: args.questions])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "ui.cli", "ingest", str(SEED), "--persist-dir", tmp], check=True,
                       capture_output=True)
        proc, url = start_server(Path(tmp), args.engine)
        try:
            results: list[dict] = []  # type: ignore[type-arg]
            threads = [threading.Thread(target=session, args=(url, plan, results)) for plan in plans]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
        finally:
            proc.terminate(); proc.wait(30)
    seconds = np.array([r["seconds"] for r in results])
    errors = [r for r in results if not r["ok"]]
    wrong = [r for r in results if r["ok"] and not r["own"]]
    print(f"engine {args.engine}: {args.sessions} sessions x {args.questions} questions = {len(results)} requests in {wall:.1f}s")
    print(f"errors {len(errors)}   answers not citing their own question's paper {len(wrong)}")
    print(f"latency per request: p50 {np.percentile(seconds, 50):.2f}s  p95 {np.percentile(seconds, 95):.2f}s  "
          f"throughput {len(results) / wall:.1f} req/s")
    for r in (errors + wrong)[:5]:
        print("  example:", r)


if __name__ == "__main__":
    main()
