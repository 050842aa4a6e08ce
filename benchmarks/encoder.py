"""Single-query encode latency of the ONNX encoder alone: fp32 and int8, queries back to back and spaced apart,
ONNX Runtime's thread spinning off (paperchat's setting) and on, with the CPU the process burns per wall second.

    python -m benchmarks.encoder [--gap-ms 50] [--rounds 3]

Why spinning stays off: it speeds up queries that follow each other, but keeps cores busy between queries.

With ``--batching``: ingest-sized encodes instead. The chunk texts of the first ``--papers`` ICML 2024 papers,
in batches of 64 texts (the batch before ``TOKEN_BUDGET``) against batches cut at several token budgets, fp32
and int8, best of ``--rounds`` runs each, with each vector's cosine to fp32 in batches of 64:

    python -m benchmarks.encoder --batching [--papers 400] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from vectorstore import Settings  # first: sets the offline environment

from benchmarks.common import DEV_QA, SHARED, require_shared
from vectorstore.embeddings import embedding_model_path
from vectorstore.onnx_backend import TOKEN_BUDGET, OnnxEncoder, exported_model


def _timed(encoder: OnnxEncoder, questions: list[str], gap: float) -> tuple[float, float, float]:
    """(p50 ms, p95 ms, process CPU seconds per wall second) over ``questions``, ``gap`` seconds apart."""
    for q in questions[:10]:
        encoder.encode([q])
    times = []
    cpu, wall = time.process_time(), time.perf_counter()
    for q in questions:
        if gap:
            time.sleep(gap)
        t = time.perf_counter(); encoder.encode([q]); times.append(time.perf_counter() - t)
    busy = (time.process_time() - cpu) / (time.perf_counter() - wall)
    times.sort()
    return 1000 * statistics.median(times), 1000 * times[int(0.95 * (len(times) - 1))], busy


def batching(papers: int, rounds: int, cache: Path) -> None:
    """Texts/s of ingest-sized encodes by batch shape, against 64 texts a batch, and cosine to fp32."""
    import numpy as np

    from ingest import load_papers
    from ingest.pipeline import chunk_records

    found, _ = load_papers([SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"])
    texts = [record[1] for paper in found[:papers] for record in chunk_records(paper)]
    budgets = (0, 256, 384, 512, 768, 1024, 2048)  # 0: 64 texts a batch, whatever their length
    print(f"{len(texts)} chunk texts of {papers} papers; best of {rounds} runs; default budget {TOKEN_BUDGET}")
    reference = None
    for precision in ("fp32", "int8"):
        encoder = OnnxEncoder(exported_model(embedding_model_path(Settings().embedding_model), precision, cache))
        encoder.encode(texts[:64], batch_size=64)
        best: dict[int, float] = {}
        vectors = {}
        for _ in range(rounds):  # interleaved, so a slow minute on a shared machine hits every shape
            for budget in budgets:
                encoder.token_budget = budget or 10**9
                start = time.perf_counter()
                vectors[budget] = encoder.encode(texts, batch_size=64)
                best[budget] = min(best.get(budget, float("inf")), time.perf_counter() - start)
        if reference is None:
            reference = vectors[0]
        for budget in budgets:
            cosine = (vectors[budget] * reference).sum(axis=1)
            shape = f"{budget} tokens" if budget else "64 texts"
            print(f"{precision} {shape:>11}  {len(texts) / best[budget]:6.1f} texts/s  {best[0] / best[budget]:4.2f}x"
                  f"  cosine to fp32 mean {cosine.mean():.4f} min {cosine.min():.4f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gap-ms", type=float, default=50.0, help="pause between spaced queries")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the dev questions (--batching: runs per shape)")
    parser.add_argument("--batching", action="store_true", help="ingest-sized encodes by batch shape instead")
    parser.add_argument("--papers", type=int, default=400, help="--batching: papers whose chunks are encoded")
    args = parser.parse_args()
    require_shared()
    cache = Settings().onnx_cache if Settings().onnx_cache.is_dir() else Path(tempfile.mkdtemp())
    if args.batching:
        batching(args.papers, args.rounds, cache)
        return
    import onnxruntime as ort

    questions = [json.loads(line)["question"] for line in open(DEV_QA, encoding="utf-8") if line.strip()] * args.rounds
    print(f"{len(questions)} single-question encodes per row; spaced = {args.gap_ms:.0f} ms apart")
    for precision in ("fp32", "int8"):
        folder = exported_model(embedding_model_path(Settings().embedding_model), precision, cache)
        for spin in ("0", "1"):
            encoder = OnnxEncoder(folder)
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            options.add_session_config_entry("session.intra_op.allow_spinning", spin)
            encoder.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
            for label, gap in (("back to back", 0.0), ("spaced", args.gap_ms / 1000)):
                p50, p95, busy = _timed(encoder, questions, gap)
                print(f"{precision} spinning {'on ' if spin == '1' else 'off'} {label:12s} p50 {p50:5.2f} ms  p95 {p95:5.2f} ms"
                      f"  CPU busy {busy:4.2f} cores{'  (paperchat)' if spin == '0' else ''}")


if __name__ == "__main__":
    main()
