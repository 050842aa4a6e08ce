"""Ingest throughput against the bare embedding cost.

Ingests the 2,634 ICML 2024 papers into a fresh store, times a bare ``SentenceTransformer.encode``
of exactly the texts paperchat embeds (same model, batch size and normalization), then times a
re-ingest of the unchanged file. The model is loaded and warmed up before anything is timed.

    python -m benchmarks.ingest                      # embedded Chroma in a temp dir
    python -m benchmarks.ingest --chroma-url http://127.0.0.1:8000
    python -m benchmarks.ingest --limit 300          # a quick run on the first 300 papers
    python -m benchmarks.ingest --breakdown          # also encode in ingest's batches of 256 chunks
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from vectorstore.settings import Settings

from benchmarks.common import SHARED
from ingest import ingest, load_papers
from ingest.pipeline import BATCH_CHUNKS, chunk_records
from vectorstore.embeddings import Embedder
from vectorstore.store import PaperStore

DEFAULT_PAPERS = SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"
ENCODE_GOAL = 1.2  # ingest seconds / bare encode seconds
REINGEST_GOAL = 0.05  # unchanged re-ingest seconds / bare encode seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ingest", description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--embedded", action="store_true", help="embedded Chroma in a fresh temp dir (default)")
    where.add_argument("--chroma-url", metavar="URL", help="a running Chroma server; a fresh collection is used and deleted")
    parser.add_argument("--papers", type=Path, default=DEFAULT_PAPERS, help=f"JSONL to ingest (default {DEFAULT_PAPERS})")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N papers of the file")
    parser.add_argument("--breakdown", action="store_true", help=f"also time the encode in ingest's calls of {BATCH_CHUNKS} chunks")
    args = parser.parse_args(argv)
    if not args.papers.is_file():
        parser.error(f"{args.papers} not found; pass --papers or check out shared/ beside the repository")

    workdir = Path(tempfile.mkdtemp(prefix="paperchat-bench-"))
    settings = Settings(data_dir=workdir / "data", chroma_url=args.chroma_url, collection=f"bench-{uuid.uuid4().hex[:8]}")
    try:
        papers_file = args.papers
        if args.limit:
            papers_file = workdir / "papers.jsonl"
            with open(args.papers) as src:
                papers_file.write_text("".join(line for _, line in zip(range(args.limit), src)))
        label = f"{args.papers}" + (f" (first {args.limit})" if args.limit else "")
        return run(papers_file, settings, args.breakdown, label)
    finally:
        if args.chroma_url:
            try:
                PaperStore(settings).client.delete_collection(settings.collection)
            except Exception as exc:  # the numbers are printed already; just say what is left behind
                print(f"note: could not delete collection {settings.collection}: {exc}", file=sys.stderr)
        shutil.rmtree(workdir, ignore_errors=True)


def run(papers_file: Path, settings: Settings, breakdown: bool = False, label: str = "") -> int:
    papers, _ = load_papers([papers_file])
    texts = [text for paper in papers for _, text, _, _ in chunk_records(paper)]

    embedder = Embedder(settings.embedding_model, settings.embed_batch_size)
    model = embedder.model  # the same cached SentenceTransformer that ingest uses
    model.encode(texts[:256], batch_size=settings.embed_batch_size, normalize_embeddings=True)  # warm-up
    import chromadb  # noqa: F401  (import time is not ingest time)

    started = time.perf_counter()
    model.encode(texts, batch_size=settings.embed_batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    encode = time.perf_counter() - started

    batched = None
    if breakdown:  # what ingest does: one encode call per ~BATCH_CHUNKS chunks, sorted by length only within it
        started = time.perf_counter()
        for start in range(0, len(texts), BATCH_CHUNKS):
            model.encode(texts[start : start + BATCH_CHUNKS], batch_size=settings.embed_batch_size, normalize_embeddings=True)
        batched = time.perf_counter() - started

    first = ingest([papers_file], settings, progress=False)
    again = ingest([papers_file], settings, progress=False)
    assert first.added == len(papers) and again.unchanged == len(papers) and again.chunks_written == 0, (first, again)
    assert first.chunks_written == len(texts)

    where = settings.chroma_url or "embedded"
    rows = [
        ("store", where),
        ("papers", f"{len(papers):,}"),
        ("chunks", f"{len(texts):,}"),
        ("bare encode", f"{encode:.1f} s"),
        *([("encode in 256-chunk calls", f"{batched:.1f} s  ({batched / encode:.2f} x bare)")] if batched is not None else []),
        ("ingest", f"{first.seconds:.1f} s"),
        ("papers/s", f"{len(papers) / first.seconds:.1f}"),
        ("ingest / encode", f"{first.seconds / encode:.2f}  (goal <= {ENCODE_GOAL})"),
        ("re-ingest (unchanged)", f"{again.seconds:.2f} s"),
        ("re-ingest / encode", f"{again.seconds / encode:.3f}  (goal < {REINGEST_GOAL})"),
    ]
    width = max(len(name) for name, _ in rows)
    print(f"ingest benchmark: {label or papers_file}")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
