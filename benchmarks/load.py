"""Load: N concurrent gradio_client sessions against `paperchat serve` on loopback.

Each session asks 10 different questions (single-paper dev questions, then a follow-up that relies on
the session's own history) and checks that every answer cites the paper of its *own* question, so an
answer delivered to the wrong session is caught. Prints errors, misrouted answers and p50/p95 latency.

With ``--upload FILE`` the same run continues: after the idle round, FILE is uploaded through ``/upload``
(ingested in the background) and the sessions keep asking until the upload has finished; the p95 of the
questions asked during the upload is compared with the idle p95 of the same run (goal <= 3x, 0 errors).

    python -m benchmarks.load [--sessions 16] [--questions 10] [--engine extractive|local] [--upload FILE]
"""

from __future__ import annotations

import argparse
import json
import os
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


def session(url: str, plan: list[tuple[str, str]], results: list[dict], until: threading.Event | None = None) -> None:  # type: ignore[type-arg]
    """Ask the plan's questions in order (over and over until ``until`` is set, when given)."""
    from gradio_client import Client

    for attempt in range(5):  # 16 clients fetching the API description at once can time out on a loaded machine
        try:
            client = Client(url, verbose=False)
            break
        except Exception as exc:  # noqa: BLE001 - retried, then counted as an error
            if attempt == 4:
                results.append({"ok": False, "own": False, "cited": [], "start": time.perf_counter(), "seconds": 0.0,
                                "error": f"client could not connect: {exc!r}"})
                return
            time.sleep(2.0)
    while True:
        for question, gold in plan:
            started = time.perf_counter()
            try:
                answer = client.predict(question, api_name="/chat")
                cited = [c["paper_id"] for c in answer.get("citations", [])]
                results.append({"ok": answer.get("error") is None, "own": gold in cited, "cited": cited, "question": question, "query": answer.get("query"),
                                "start": started, "seconds": time.perf_counter() - started, "error": answer.get("error")})
            except Exception as exc:  # noqa: BLE001 - counted as an error
                results.append({"ok": False, "own": False, "cited": [], "start": started, "seconds": time.perf_counter() - started, "error": repr(exc)})
            if until is not None and until.is_set():
                return
        if until is None:
            return


def run_sessions(url: str, plans: list[list[tuple[str, str]]], until: threading.Event | None = None) -> tuple[list[dict], float]:  # type: ignore[type-arg]
    results: list[dict] = []  # type: ignore[type-arg]
    threads = [threading.Thread(target=session, args=(url, plan, results, until)) for plan in plans]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, time.perf_counter() - started


def report(label: str, results: list[dict], wall: float) -> np.ndarray:  # type: ignore[type-arg]
    seconds = np.array([r["seconds"] for r in results])
    errors = [r for r in results if not r["ok"]]
    wrong = [r for r in results if r["ok"] and not r["own"]]
    print(f"{label}: {len(results)} requests in {wall:.1f}s; errors {len(errors)}; "
          f"answers not citing their own question's paper {len(wrong)}")
    print(f"  latency per request: p50 {np.percentile(seconds, 50):.2f}s  p95 {np.percentile(seconds, 95):.2f}s  "
          f"throughput {len(results) / wall:.1f} req/s")
    for r in (errors + wrong)[:5]:
        print("  example:", r)
    return seconds


def upload_during_questions(url: str, plans: list[list[tuple[str, str]]], path: Path,
                            window: float | None = None) -> tuple[list[dict], dict, float, float]:  # type: ignore[type-arg]
    """Upload ``path`` and keep the sessions asking until the ingest has finished (or for ``window`` seconds).

    Returns (requests that started and ended during the upload, final upload report, seconds the
    ``/upload`` event took to return, upload duration).
    """
    from gradio_client import Client, handle_file

    uploader = Client(url, verbose=False)
    running, done = threading.Event(), threading.Event()
    outcome: dict = {}  # type: ignore[type-arg]

    def upload() -> None:
        t0 = time.perf_counter()
        _, first, _ = uploader.predict(handle_file(str(path)), False, api_name="/upload")
        outcome["returned"] = time.perf_counter() - t0
        outcome["start"] = t0
        running.set()
        state = first
        while state.get("state") in ("checking", "embedding"):
            if window and time.perf_counter() - t0 > window:
                break  # measured long enough: the upload goes on, the sessions stop
            time.sleep(1.0)
            state = uploader.predict(api_name="/upload_status")
        outcome["end"], outcome["report"] = time.perf_counter(), state
        done.set()

    results: list[dict] = []  # type: ignore[type-arg]
    askers = threading.Thread(target=lambda: results.extend(run_sessions(url, plans, until=done)[0]))
    askers.start()
    time.sleep(2.0)  # the sessions are asking before the upload starts
    uploader_thread = threading.Thread(target=upload)
    uploader_thread.start()
    uploader_thread.join()
    askers.join()
    during = [r for r in results if r["start"] >= outcome["start"] and r["start"] + r["seconds"] <= outcome["end"]]
    return during, outcome["report"], outcome["returned"], outcome["end"] - outcome["start"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--engine", default="extractive")
    parser.add_argument("--upload", default=None, help="a paper file to upload during a second round of questions")
    parser.add_argument("--upload-window", type=float, default=None,
                        help="stop measuring after this many seconds of the upload (default: until it has finished)")
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
    load = [os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "ui.cli", "ingest", str(SEED), "--persist-dir", tmp], check=True,
                       capture_output=True)
        proc, url = start_server(Path(tmp), args.engine)
        try:
            results, wall = run_sessions(url, plans)
            load.append(os.getloadavg())
            if args.upload:
                during, final, returned, upload_s = upload_during_questions(url, plans, Path(args.upload), args.upload_window)
                load.append(os.getloadavg())
        finally:
            proc.terminate(); proc.wait(30)
    print(f"engine {args.engine}: {args.sessions} sessions x {args.questions} questions")
    idle = report("idle", results, wall)
    if args.upload:
        busy = report(f"during the upload of {Path(args.upload).name}", during, upload_s)
        ratio = np.percentile(busy, 95) / np.percentile(idle, 95)
        outcome = final.get("summary") or final.get("error") or f"still running: {final.get('state')} {final.get('done')} / {final.get('total')} papers"
        print(f"upload: /upload returned in {returned:.2f}s; measured for {upload_s:.0f}s of it; {outcome}")
        print(f"p95 during the upload / idle p95 = {ratio:.2f}x (goal <= 3x); errors during the upload "
              f"{sum(1 for r in during if not r['ok'])} (goal 0)")
    print("load average (1, 5, 15 min) at start, after the idle round" + (", after the upload" if args.upload else "")
          + ": " + "; ".join(" ".join(f"{x:.1f}" for x in la) for la in load))


if __name__ == "__main__":
    main()
