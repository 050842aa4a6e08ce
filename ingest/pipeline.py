"""The ingest job: parse and validate, diff against the store, embed what changed, write crash-safely."""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ingest.chunking import sentence_spans
from ingest.records import Paper, Problem, add_unique, parse_file
from vectorstore.embeddings import Embedder
from vectorstore.errors import InputError
from vectorstore.settings import Settings
from vectorstore.store import PaperStore, chunk_id

DEFAULT_CORPUS = Path(__file__).parent / "data" / "icml2025_seed.jsonl"
BATCH_CHUNKS = 1024  # large encode calls pad less (measured: 256 -> 1.19x, 1024 -> 1.04x a single call)


@dataclass
class IngestReport:
    """What an ingest did. ``str(report)`` is the one-line summary."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    seconds: float = 0.0
    chunks_written: int = 0
    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        skipped = f", {len(self.problems)} invalid skipped" if self.problems else ""
        return (f"added {self.added}, updated {self.updated}, unchanged {self.unchanged}, "
                f"removed {self.removed}{skipped} in {self.seconds:.1f}s")


def chunk_records(paper: Paper) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(id, embedded text, stored document, metadata) for a paper; the paper chunk comes last.

    The paper chunk stores the abstract verbatim and embeds ``title. abstract``; each sentence
    chunk embeds ``title: sentence`` so a sentence keeps its paper's context.
    """
    base = {
        "paper_id": paper.id, "paper_hash": paper.content_hash, "title": paper.title,
        "authors": "; ".join(paper.authors), "url": paper.url, "venue": paper.venue,
        "title_derived": paper.title_derived,
    }
    spans = sentence_spans(paper.abstract)
    n_chunks = len(spans) + 1
    records = []
    for index, span in enumerate(spans, 1):
        sentence = paper.abstract[span.start : span.end]
        meta = {**base, "kind": "sentence", "chunk": index, "n_chunks": n_chunks, "start": span.start, "end": span.end}
        records.append((chunk_id(paper.id, paper.content_hash, index), f"{paper.title}: {sentence}", sentence, meta))
    paper_meta = {**base, "kind": "paper", "chunk": 0, "n_chunks": n_chunks, "start": 0, "end": len(paper.abstract),
                  "spans": ",".join(f"{span.start}:{span.end}" for span in spans),  # sentence chunks 1.. as offsets
                  "extra": json.dumps(paper.extra, ensure_ascii=False)}
    records.append((chunk_id(paper.id, paper.content_hash, 0), f"{paper.title}. {paper.abstract}", paper.abstract, paper_meta))
    return records


def load_papers(paths: Iterable[str | Path], fmt: str = "auto", skip_invalid: bool = False) -> tuple[list[Paper], list[Problem]]:
    """Parse every file; ids must be unique across files (same id and same text is fine)."""
    papers: dict[str, Paper] = {}
    problems: list[Problem] = []
    for path in paths:
        found, bad = parse_file(path, fmt, skip_invalid)
        problems.extend(bad)
        for paper in found:
            try:
                add_unique(papers, paper)
            except InputError as exc:
                if not skip_invalid:
                    raise
                problems.append(Problem(exc))
    return list(papers.values()), problems


def _store_state(store: PaperStore) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(paper id -> committed hash, paper id -> all its chunk ids)."""
    committed: dict[str, str] = {}
    chunks: dict[str, list[str]] = defaultdict(list)
    for cid, _, meta in store.iter_chunks(["metadatas"]):
        pid = str(meta.get("paper_id"))
        chunks[pid].append(cid)
        if meta.get("kind") == "paper":
            committed[pid] = str(meta.get("paper_hash"))
    return committed, chunks


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="paper", desc="embedding", disable=not enabled, file=sys.stderr, smoothing=0.1)


def ingest(
    paths: Iterable[str | Path] = (DEFAULT_CORPUS,),
    settings: Settings | None = None,
    *,
    fmt: str = "auto",
    prune: bool = False,
    skip_invalid: bool = False,
    reset: bool = False,
    progress: bool | None = None,
    store: PaperStore | None = None,
    on_progress: Callable[[int, int], object] | None = None,
    capped: bool = False,
) -> IngestReport:
    """Ingest paper files into the store; idempotent, incremental and safe to kill at any moment.

    Everything is validated before the first write: an invalid record raises ``InputError``
    (or, with ``skip_invalid``, is reported in ``IngestReport.problems``) and the store is untouched.
    ``on_progress(done, total)`` is called with the papers embedded so far (0 before the first batch);
    ``capped`` applies the per-upload caps (``Settings.upload_max_bytes``, ``upload_max_papers``).
    """
    started = time.perf_counter()
    settings = settings or Settings()
    paths = list(paths)
    if capped:
        check_upload_bytes(paths, settings.upload_max_bytes)
    papers, problems = load_papers(paths, fmt, skip_invalid)
    if capped:
        check_upload_papers(paths, len(papers), settings.upload_max_papers)
    store = store or PaperStore(settings)
    settings = store.settings  # the embedding precision resolved against the store (``auto``)
    embedder = Embedder.from_settings(settings)
    if reset:
        store.reset()
    report = IngestReport(problems=problems)
    committed, chunks = _store_state(store)

    todo: list[Paper] = []
    stale: list[str] = []
    for paper in papers:
        current = committed.get(paper.id)
        prefix = f"{paper.id}::{paper.content_hash}::"
        stale.extend(c for c in chunks.get(paper.id, []) if not c.startswith(prefix))
        if current == paper.content_hash:
            report.unchanged += 1
            continue
        if current is None:
            report.added += 1
        else:
            report.updated += 1
        todo.append(paper)
    wanted = {p.id for p in papers}
    for pid, ids in chunks.items():
        if pid in wanted:
            continue
        if pid in committed and not prune:
            continue
        if pid in committed:
            report.removed += 1
        stale.extend(ids)  # pruned papers, and leftovers of a crashed ingest with no committed version

    if prune and problems and stale:
        raise InputError("--prune with --skip-invalid would remove papers whose records were skipped", "fix the input or drop --prune")
    if todo or stale or store.dirty:
        store.bump_generation()
        show = progress if progress is not None else (sys.stderr.isatty() and len(todo) > 50)
        done = 0
        if on_progress is not None:
            on_progress(0, len(todo))
        # one writer thread: batch k is written to Chroma while batch k+1 is embedded, in order, one write at a time;
        # progress is counted there, as each write commits
        with _progress(len(todo), show) as bar, ThreadPoolExecutor(1, thread_name_prefix="ingest-write") as writer:

            def write(records: list[tuple[str, str, str, dict[str, Any]]], vectors: np.ndarray, papers: int) -> int:
                nonlocal done
                written = _write_records(store, records, vectors)
                done += papers
                bar.update(papers)
                if on_progress is not None:
                    on_progress(done, len(todo))
                return written

            pending: Future[int] | None = None
            for batch in _batches(todo):
                records = [r for paper in batch for r in chunk_records(paper)]
                vectors = chunk_vectors(embedder, records, settings.paper_vector)
                if pending is not None:
                    report.chunks_written += pending.result()  # re-raises a failed write, before the next is queued
                pending = writer.submit(write, records, vectors, len(batch))
            if pending is not None:
                report.chunks_written += pending.result()
        # old versions go only after the new ones are committed, so a paper never disappears
        store.delete(sorted(set(stale)))
        store.bump_generation(commit=True)
    report.seconds = time.perf_counter() - started
    return report


UPLOAD_FIX = "split the file, add it with `paperchat ingest` (no cap), or raise {var}"


def check_upload_bytes(paths: list[str | Path], cap: int) -> None:
    """Refuse an upload over ``cap`` bytes (``InputError``, one line naming the cap and the fix), before reading it."""
    for path in paths:
        try:
            size = Path(path).stat().st_size
        except OSError:
            continue  # parse_file reports a missing file with its own message
        if size > cap:
            raise InputError(f"{size:,} bytes is over the upload cap of {cap:,} bytes",
                             UPLOAD_FIX.format(var="PAPERCHAT_UPLOAD_MAX_BYTES"), path=path)


def check_upload_papers(paths: list[str | Path], count: int, cap: int) -> None:
    """Refuse an upload of more than ``cap`` papers (``InputError``), before anything is written."""
    if count > cap:
        raise InputError(f"{count:,} papers is over the upload cap of {cap:,} papers",
                         UPLOAD_FIX.format(var="PAPERCHAT_UPLOAD_MAX_PAPERS"), path=paths[0] if len(paths) == 1 else "")


def derived_paper_chunks(records: list[tuple[str, str, str, dict[str, Any]]], paper_vector: str) -> list[int]:
    """Indexes of the records whose vector is the mean of their sentences' (``paper_vector="mean"``), not embedded."""
    if paper_vector != "mean":
        return []
    return [i for i, r in enumerate(records) if r[3]["kind"] == "paper" and int(r[3]["n_chunks"]) > 1]


def chunk_vectors(embedder: Embedder, records: list[tuple[str, str, str, dict[str, Any]]], paper_vector: str) -> np.ndarray:
    """One vector per record of ``chunk_records``. ``paper_vector="mean"``: a paper chunk gets the normalised mean of
    its sentence chunks' vectors, so only sentences are embedded (``"encode"``: every record's text is embedded)."""
    derived = derived_paper_chunks(records, paper_vector)
    skip = set(derived)
    encoded = [i for i in range(len(records)) if i not in skip]
    vectors = np.zeros((len(records), embedder.dimension), dtype=np.float32)
    vectors[encoded] = embedder.encode_documents([records[i][1] for i in encoded])
    for i in derived:  # a paper's sentence chunks are the n_chunks - 1 records just before its paper chunk
        mean = vectors[i - int(records[i][3]["n_chunks"]) + 1 : i].mean(axis=0)
        vectors[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return vectors


def _batches(papers: list[Paper]) -> Iterator[list[Paper]]:
    """Consecutive papers with about ``BATCH_CHUNKS`` chunks together (one encode call and one write each)."""
    batch: list[Paper] = []
    size = 0
    for paper in papers:
        batch.append(paper)
        size += len(sentence_spans(paper.abstract)) + 1
        if size >= BATCH_CHUNKS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _write_records(store: PaperStore, records: list[tuple[str, str, str, dict[str, Any]]], vectors: np.ndarray) -> int:
    order = sorted(range(len(records)), key=lambda i: records[i][3]["kind"] == "paper")  # paper chunks last: each commits its paper
    store.add(
        [records[i][0] for i in order], vectors[order],
        [records[i][2] for i in order], [records[i][3] for i in order],
    )
    return len(records)


BUNDLED = "bundled_corpus"  # collection metadata: "pending" from the first write of the auto-ingest until it completes


def ensure_corpus(store: PaperStore, settings: Settings, announce: Callable[[str], object] = print) -> IngestReport | None:
    """Ingest the bundled ICML 2025 corpus into an empty store, or complete it after a killed first start.

    The store is marked ``pending`` before the first write and ``done`` after the last, so a store
    left non-empty by a killed auto-ingest is completed (incrementally: committed papers are kept),
    while a store the user filled with their own papers is never touched.
    """
    state = store.marker(BUNDLED)
    if state == "pending":
        announce(f"the first ingest of the bundled corpus was interrupted: completing it ({DEFAULT_CORPUS.name}) ...")
    elif store.count() > 0:
        return None
    else:
        announce(f"store is empty: ingesting the bundled ICML 2025 corpus ({DEFAULT_CORPUS.name}) ...")
        store.set_marker(BUNDLED, "pending")
    report = ingest([DEFAULT_CORPUS], settings, store=store, progress=False)
    store.set_marker(BUNDLED, "done")
    return report
