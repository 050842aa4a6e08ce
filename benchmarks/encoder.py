"""Single-query encode latency of the ONNX encoder alone: fp32 and int8, queries back to back and spaced apart,
ONNX Runtime's thread spinning off (paperchat's setting) and on, with the CPU the process burns per wall second.

    python -m benchmarks.encoder [--gap-ms 50] [--rounds 3]

Why spinning stays off: it speeds up queries that follow each other, but keeps cores busy between queries.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from vectorstore import Settings  # first: sets the offline environment

from benchmarks.common import DEV_QA, require_shared
from vectorstore.embeddings import embedding_model_path
from vectorstore.onnx_backend import OnnxEncoder, exported_model


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gap-ms", type=float, default=50.0, help="pause between spaced queries")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the dev questions")
    args = parser.parse_args()
    require_shared()
    import onnxruntime as ort

    questions = [json.loads(line)["question"] for line in open(DEV_QA, encoding="utf-8") if line.strip()] * args.rounds
    cache = Settings().onnx_cache if Settings().onnx_cache.is_dir() else Path(tempfile.mkdtemp())
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
