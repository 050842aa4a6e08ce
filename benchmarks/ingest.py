"""Ingest throughput against the bare embedding cost, for each embedding backend in one run.

For each backend (torch, ONNX fp32, ONNX int8, and bf16: an fp32 store whose ingest runs torch in bf16
autocast), with paper chunks embedded (``/encode``, the default) or given the mean of their sentence vectors
(``/mean``, ``PAPERCHAT_PAPER_VECTOR=mean``):
ingests the 2,634 ICML 2024 papers into a fresh store, times a bare encode of exactly the texts paperchat
embeds with that configuration (same model, batch size and normalization), then times a re-ingest of the
unchanged file. Models are loaded, exported and warmed up before anything is timed. Papers/s are compared
with the first configuration (torch/encode: the ingest before the ONNX work).

    python -m benchmarks.ingest                      # embedded Chroma in a temp dir, all backends
    python -m benchmarks.ingest --backends torch/encode,bf16/encode,onnx-int8/encode --limit 500
    python -m benchmarks.ingest --chroma-url http://127.0.0.1:8000
    python -m benchmarks.ingest --limit 300          # a quick run on the first 300 papers
    python -m benchmarks.ingest --breakdown          # also encode in ingest's calls of 1,024 chunks
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from vectorstore.settings import Settings

from benchmarks.common import SHARED, backend_settings, default_label, parse_backends
from ingest import ingest, load_papers
from ingest.pipeline import BATCH_CHUNKS, chunk_records, derived_paper_chunks
from vectorstore.embeddings import BF16_MIN_TEXTS, Embedder
from vectorstore.onnx_backend import TOKEN_BUDGET
from vectorstore.store import PaperStore

DEFAULT_PAPERS = SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"
ENCODE_GOAL = 1.2  # ingest seconds / bare encode seconds
REINGEST_GOAL = 0.05  # unchanged re-ingest seconds / bare encode seconds
SPEEDUP_GOAL = 2.0  # papers/s of the default configuration / papers/s of torch/encode
CONFIGS = ("torch/encode", "onnx-fp32/encode", "onnx-int8/encode", "bf16/encode", "onnx-int8/mean")
DEFAULT = f"{default_label()}/encode"  # what a new store gets on this machine
FAST = ("bf16/encode", "onnx-int8/mean")  # PAPERCHAT_EMBEDDING_PRECISION=fp32 (bf16 batches on), PAPERCHAT_PAPER_VECTOR=mean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ingest", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--embedded", action="store_true", help="embedded Chroma in a fresh temp dir (default)")
    where.add_argument("--chroma-url", metavar="URL", help="a running Chroma server; a fresh collection is used and deleted")
    parser.add_argument("--papers", type=Path, default=DEFAULT_PAPERS, help=f"JSONL to ingest (default {DEFAULT_PAPERS})")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N papers of the file")
    parser.add_argument("--breakdown", action="store_true", help=f"also time the encode in ingest's calls of {BATCH_CHUNKS} chunks")
    parser.add_argument("--backends", default=",".join(CONFIGS), help=f"comma-separated backend/paper-vectors (default {','.join(CONFIGS)}; "
                                                                         "first = baseline)")
    args = parser.parse_args(argv)
    backends = parse_backends(args.backends)
    if not args.papers.is_file():
        parser.error(f"{args.papers} not found; pass --papers or check out shared/ beside the repository")

    workdir = Path(tempfile.mkdtemp(prefix="paperchat-bench-"))
    base = Settings(data_dir=workdir / "data", chroma_url=args.chroma_url)
    runs = {b: base.with_overrides(collection=f"bench-{uuid.uuid4().hex[:8]}", **backend_settings(b)) for b in backends}
    try:
        papers_file = args.papers
        if args.limit:
            papers_file = workdir / "papers.jsonl"
            with open(args.papers) as src:
                papers_file.write_text("".join(line for _, line in zip(range(args.limit), src)))
        label = f"{args.papers}" + (f" (first {args.limit})" if args.limit else "")
        results = {b: run(papers_file, settings, args.breakdown, f"{label} [{b}]") for b, settings in runs.items()}
        first = backends[0]
        print(f"papers/s against {first}, same run ({os.cpu_count()} cores); the default here is {DEFAULT}, the fast options "
              f"{' and '.join(FAST)}:")
        for b, rate in results.items():
            speedup = rate / results[first]
            goal = f"  (goal >= {SPEEDUP_GOAL}x: {'met' if speedup >= SPEEDUP_GOAL else 'NOT met'})" if b in (DEFAULT, *FAST) else ""
            print(f"  {b:<17} {rate:6.1f} papers/s  {speedup:5.2f}x{goal}")
        return 0
    finally:
        if args.chroma_url:
            for settings in runs.values():
                try:
                    PaperStore(settings).client.delete_collection(settings.collection)
                except Exception as exc:  # the numbers are printed already; just say what is left behind
                    print(f"note: could not delete collection {settings.collection}: {exc}", file=sys.stderr)
        shutil.rmtree(workdir, ignore_errors=True)


def run(papers_file: Path, settings: Settings, breakdown: bool = False, label: str = "") -> float:
    """Print one backend's rows; return its ingest papers/s."""
    settings = PaperStore(settings).settings  # ``auto`` resolved as ingest will (a new store: int8, embedded paper chunks)
    papers, _ = load_papers([papers_file])
    records = [r for paper in papers for r in chunk_records(paper)]
    derived = set(derived_paper_chunks(records, settings.paper_vector))
    texts = [r[1] for i, r in enumerate(records) if i not in derived]  # what ingest embeds

    embedder = Embedder.from_settings(settings)  # the same cached encoders that ingest uses (exported first for ONNX)
    embedder.encode(texts[:64])  # warm-up of the encoder, and of the bf16 batch model where it runs
    embedder.encode_documents(texts[:BF16_MIN_TEXTS])
    import chromadb  # noqa: F401  (import time is not ingest time)

    started = time.perf_counter()
    embedder.encode_documents(texts)  # ingest's encoder (bf16 batches where they run), same batch size
    encode = time.perf_counter() - started

    batched = None
    if breakdown:  # what ingest does: one encode call per ~BATCH_CHUNKS chunks, sorted by length only within it
        started = time.perf_counter()
        for start in range(0, len(texts), BATCH_CHUNKS):
            embedder.encode_documents(texts[start : start + BATCH_CHUNKS])
        batched = time.perf_counter() - started

    first = ingest([papers_file], settings, progress=False)
    again = ingest([papers_file], settings, progress=False)
    assert first.added == len(papers) and again.unchanged == len(papers) and again.chunks_written == 0, (first, again)
    assert first.chunks_written == len(records)

    where = settings.chroma_url or "embedded"
    budget = f" and <= {TOKEN_BUDGET} tokens" if embedder.backend == "onnx" and not embedder.bf16 else ""
    rows = [
        ("store", where),
        ("papers", f"{len(papers):,}"),
        ("chunks", f"{len(records):,} ({len(texts):,} embedded)"),
        ("backend", f"{embedder.label}, paper vectors: {settings.paper_vector}"),
        ("bare encode", f"{encode:.1f} s  ({len(texts) / encode:.0f} texts/s, batch size {settings.embed_batch_size}{budget})"),
        *([(f"encode in {BATCH_CHUNKS}-chunk calls", f"{batched:.1f} s  ({batched / encode:.2f} x bare)")] if batched is not None else []),
        ("ingest", f"{first.seconds:.1f} s"),
        ("papers/s", f"{len(papers) / first.seconds:.1f}"),
        ("ingest / encode", f"{first.seconds / encode:.2f}  (goal <= {ENCODE_GOAL})"),
        ("re-ingest (unchanged)", f"{again.seconds:.2f} s"),
        ("re-ingest / encode", f"{again.seconds / encode:.3f}  (goal < {REINGEST_GOAL})"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"ingest benchmark: {label or papers_file}")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}", flush=True)
    return len(papers) / first.seconds


if __name__ == "__main__":
    sys.exit(main())
