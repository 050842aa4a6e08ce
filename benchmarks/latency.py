"""Latency on the 4,378-paper store (seed + distractors): retrieval, extractive answers, local engine,
`paperchat serve` start-up with an existing store, and peak RSS.

    python -m benchmarks.latency [--no-local] [--no-serve] [--llm-model qwen2.5-coder-1.5b]

Baseline in the same run: a bare `SentenceTransformer.encode` of each query, so the retrieval
figure can be read as a multiple of the unavoidable query embedding.
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np

from benchmarks.common import CACHE, DEV_QA, DISTRACTORS, SEED, build_store, require_shared


def pct(values: list[float]) -> str:
    ms = 1000 * np.asarray(values)
    return f"p50 {np.percentile(ms, 50):7.1f} ms   p95 {np.percentile(ms, 95):7.1f} ms"


def serve_startup(data_dir: str) -> float:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--persist-dir", data_dir,
                             "--engine", "extractive"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - started < 300:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
                return time.perf_counter() - started
            except OSError:
                time.sleep(0.1)
        return float("nan")
    finally:
        proc.terminate(); proc.wait(20)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--no-serve", action="store_true")
    parser.add_argument("--llm-model", default=None, help="local model to time (default: the shipped one)")
    args = parser.parse_args()
    require_shared()
    assistant = build_store("seed_distractors", [SEED, *DISTRACTORS])
    questions = [json.loads(line)["question"] for line in open(DEV_QA, encoding="utf-8") if line.strip()]
    questions = questions * 3
    model = assistant.embedder.model
    for q in questions[:5]:  # warm up
        assistant.search(q, 10)
    encode, search, answer = [], [], []
    for q in questions:
        t = time.perf_counter(); model.encode([q]); encode.append(time.perf_counter() - t)
        t = time.perf_counter(); assistant.search(q, 10); search.append(time.perf_counter() - t)
        t = time.perf_counter(); assistant.ask(q); answer.append(time.perf_counter() - t)
    print(f"store: {assistant.store.count()} chunks, {len(questions)} queries (dev questions x3), 2 cores")
    print(f"bare query encode (baseline)      {pct(encode)}")
    print(f"hybrid retrieval (embed included) {pct(search)}   ratio to encode p50 {np.median(search) / np.median(encode):.1f}x")
    print(f"extractive answer, end to end     {pct(answer)}")
    if not args.no_local:
        from assistant.core import Assistant
        from vectorstore.settings import Settings

        overrides = {"llm_model": args.llm_model} if args.llm_model else {}
        local = Assistant(Settings(data_dir=CACHE / "seed_distractors", engine="local", **overrides), auto_ingest=False)
        local.ask("warm up: what is Nester?")
        ttft, total = [], []
        for q in [x for x in questions[: len(questions) // 3]][:10]:
            answer_ = local.ask(q)
            if "first_token" in answer_.timings:
                ttft.append(answer_.timings["first_token"] + answer_.timings.get("retrieve", 0) + answer_.timings.get("evidence", 0))
                total.append(answer_.timings["total"])
        print(f"local engine ({local.settings.llm_model}) first token {pct(ttft)}")
        print(f"local engine ({local.settings.llm_model}) total       {pct(total)}")
    if not args.no_serve:
        print(f"`paperchat serve` start-up, existing store: {serve_startup(str(CACHE / 'seed_distractors')):.1f} s")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
