"""Latency on the 4,378-paper store (seed + distractors): retrieval, extractive answers, local engine,
`paperchat serve` start-up with an existing store, and peak RSS.

    python -m benchmarks.latency [--backends torch,onnx-fp32,onnx-int8,bf16] [--no-local] [--no-serve] [--llm-model qwen2.5-coder-1.5b]

Every embedding backend is timed in the same run, query by query in turn (so load on a shared machine
hits them alike): the bare query encode and the hybrid retrieval (query embedding included), with
ratios to torch. torch and ONNX fp32 read the same store (their vectors match); int8 has its own, and so
does bf16 (an fp32 store written in bf16, queried on ONNX fp32: PAPERCHAT_EMBEDDING_PRECISION=fp32 on CPUs with bf16 hardware).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from typing import Any

import numpy as np

from benchmarks.common import BACKENDS, CACHE, FP32_WRITER, DEV_QA, DISTRACTORS, SEED, build_store, default_label, parse_backends, require_shared, store_name


def pct(values: list[float]) -> str:
    ms = 1000 * np.asarray(values)
    return f"p50 {np.percentile(ms, 50):7.1f} ms   p95 {np.percentile(ms, 95):7.1f} ms"


def serve_command(port: int, data_dir: str) -> list[str]:
    """`paperchat serve` on a store, extractive engine (the one place that names the CLI module)."""
    return [sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--persist-dir", data_dir, "--engine", "extractive"]


def serve_startup(data_dir: str) -> float:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    started = time.perf_counter()
    proc = subprocess.Popen(serve_command(port, data_dir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def reading_speed(reader: Any, assistant: Any, questions: list[str], label: str) -> None:
    """One 0.5B reading of each question with its top paper: the shipped reading (only the last token output, the
    prompt's fixed head kept in the cache) against session 36's (llama-cpp-python's ``embed``, every token output), in
    turn per question."""
    from assistant.probe import MAX_ABSTRACT_CHARS, QUESTION_PROMPT

    shipped, embed = [], []
    for q in questions:
        top = assistant.paper(assistant.search(q, 1)[0].paper_id)
        t = time.perf_counter(); reader.reading(q, top.title, top.abstract); shipped.append(time.perf_counter() - t)
        prompt = QUESTION_PROMPT.format(title=top.title, abstract=top.abstract[:MAX_ABSTRACT_CHARS], question=q)
        t = time.perf_counter(); reader._hidden(prompt); embed.append(time.perf_counter() - t)
    print(f"[{label}] one 0.5B reading, embed (session 36) {pct(embed)}")
    print(f"[{label}] one 0.5B reading, shipped          {pct(shipped)}   {np.median(embed) / np.median(shipped):4.2f}x faster")


QUERY_GOAL_MS = 3.0  # query embedding p50
RETRIEVAL_GOAL_MS = 12.0  # hybrid retrieval p50, embedding included
FILTER_GOAL = 1.5  # a filtered search's p50 against the unfiltered one
# subsets of the 4,378-paper store, large to small: ICML 2024 (2,634 papers), AISTATS (~580), one prolific author
FILTERS = [{"venue": "ICML", "year": 2024}, {"venue": "AISTATS"}, {"author": "Yao Wan"}]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated, from {', '.join(BACKENDS)} (first = baseline)")
    parser.add_argument("--seed-only", action="store_true", help="the 19 seed papers only (a quick run: encoder ratios, not the 4,378-paper goal)")
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--no-serve", action="store_true")
    parser.add_argument("--llm-model", default=None, help="local model to time (default: the shipped one)")
    args = parser.parse_args()
    require_shared()
    backends = parse_backends(args.backends)
    # one fp32 store, read by torch and ONNX fp32 (their vectors match); int8 writes its own
    name, files = ("seed", [SEED]) if args.seed_only else ("seed_distractors", [SEED, *DISTRACTORS])
    assistants = {b: build_store(name, files, backend=b, writer=None if b.endswith("int8") or b == "bf16" else FP32_WRITER)
                  for b in backends}
    questions = [json.loads(line)["question"] for line in open(DEV_QA, encoding="utf-8") if line.strip()]
    questions = questions * 3
    for assistant in assistants.values():
        for q in questions[:5]:  # warm up
            assistant.search(q, 10)
            assistant.ask(q)
    encode: dict[str, list[float]] = {b: [] for b in backends}
    search: dict[str, list[float]] = {b: [] for b in backends}
    answer: dict[str, list[float]] = {b: [] for b in backends}
    filtered: list[list[float]] = [[] for _ in FILTERS]  # the default backend, each filter, same queries
    default = default_label()
    fb = default if default in backends else backends[0]  # filters are timed on the default backend (new stores)
    valid = [f for f in FILTERS if not args.seed_only]
    if valid:  # warm up: the filter catalog is read once per store generation
        assistants[fb].check_filters(valid[0])
    cold = []  # the first search with each filter reads its papers' vectors (held for the next searches)
    for f in valid:
        t = time.perf_counter(); assistants[fb].search(questions[0], 10, filters=f); cold.append(time.perf_counter() - t)
    for q in questions:  # the searches in turn per query; the answers in a pass of their own, since an answer's 0.5B
        for b, assistant in assistants.items():  # reading leaves the caches cold for whatever search follows it
            model = assistant.embedder.model
            t = time.perf_counter(); model.encode([q]); encode[b].append(time.perf_counter() - t)
            t = time.perf_counter(); assistant.search(q, 10); search[b].append(time.perf_counter() - t)
        for i, f in enumerate(valid):
            t = time.perf_counter(); assistants[fb].search(q, 10, filters=f); filtered[i].append(time.perf_counter() - t)
    for q in questions:
        for b, assistant in assistants.items():
            t = time.perf_counter(); assistant.ask(q); answer[b].append(time.perf_counter() - t)
    base = backends[0]
    first = assistants[base]
    print(f"store: {first.store.count()} chunks, {len(questions)} queries (dev questions x3), {os.cpu_count()} cores; "
          f"backends timed in turn per query, ratios to {base} in this run")
    for b in backends:
        print(f"[{b}] query encode                {pct(encode[b])}   {np.median(encode[base]) / np.median(encode[b]):4.2f}x faster than {base}"
              f"   goal p50 <= {QUERY_GOAL_MS} ms: {'met' if 1000 * np.median(encode[b]) <= QUERY_GOAL_MS else 'NOT met'}")
        print(f"[{b}] hybrid retrieval (embed incl.) {pct(search[b])}   {np.median(search[base]) / np.median(search[b]):4.2f}x faster than {base}"
              f"   goal p50 <= {RETRIEVAL_GOAL_MS} ms: {'met' if 1000 * np.median(search[b]) <= RETRIEVAL_GOAL_MS else 'NOT met'}")
        print(f"[{b}] extractive answer, end to end  {pct(answer[b])}")
    default_assistant = assistants[fb]
    if default_assistant.settings.near_miss_probe:  # what the near-miss probe adds (the local 0.5B; None when not installed)
        from assistant.probe import probe

        if probe() is not None:
            shipped = default_assistant.settings
            off_settings = shipped.with_overrides(near_miss_probe=False)
            on, off, reads = [], [], []
            for q in questions[: len(questions) // 3]:
                for mode, times in ((off_settings, off), (shipped, on)):
                    default_assistant.settings = mode
                    t = time.perf_counter(); got = default_assistant.ask(q); times.append(time.perf_counter() - t)
                reads.append(got.timings.get("near_miss_probe", 0.0))
            default_assistant.settings = shipped
            print(f"[{fb}] extractive answer, near-miss probe off {pct(off)}")
            print(f"[{fb}] extractive answer, near-miss probe on  {pct(on)}   {np.median(on) / np.median(off):4.2f}x the p50 without it"
                  f"   (its reading alone: {pct(reads)}; first token goal p50 <= 2 s: {'met' if np.median(on) <= 2 else 'NOT met'})")
            reading_speed(probe(), default_assistant, questions[: len(questions) // 3], fb)
    for f, times, first_s in zip(valid, filtered, cold):
        ratio = np.median(times) / np.median(search[fb])
        print(f"[{fb}] search filtered by {json.dumps(f)}: {pct(times)}   {ratio:4.2f}x the unfiltered p50"
              f"   goal <= {FILTER_GOAL}x: {'met' if ratio <= FILTER_GOAL else 'NOT met'}   (first search with it: {1000 * first_s:.0f} ms)")
    if not args.no_local:
        from assistant.core import Assistant
        from vectorstore.settings import Settings

        overrides = {"llm_model": args.llm_model} if args.llm_model else {}
        store = CACHE / store_name("seed_distractors", fb)  # the filters' backend's store
        local = Assistant(Settings(data_dir=store, engine="local", **overrides), auto_ingest=False)
        local.ask("warm up: what is Nester?")
        ttft, total = [], []
        for q in [x for x in questions[: len(questions) // 3]][:10]:
            answer_ = local.ask(q)
            if "first_token" in answer_.timings:
                ttft.append(answer_.timings["first_token"] + sum(answer_.timings.get(k, 0) for k in ("retrieve", "evidence", "near_miss_probe")))
                total.append(answer_.timings["total"])
        print(f"local engine ({local.settings.llm_model}) first token {pct(ttft)}")
        print(f"local engine ({local.settings.llm_model}) total       {pct(total)}")
    if not args.no_serve:
        print(f"`paperchat serve` start-up, existing store: {serve_startup(str(CACHE / 'seed_distractors')):.1f} s")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
