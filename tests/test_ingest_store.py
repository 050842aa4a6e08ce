"""Ingest into real Chroma (embedded and server) with the real packaged embedding model.

Covers every format, derived titles of the bare format, idempotency, updates, pruning,
--skip-invalid, and that the BM25 keyword index always holds exactly the stored papers.
"""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from pathlib import Path

import pytest

from ingest.cleaning import clean_text
from ingest import ingest, parse_file
from ingest.pipeline import chunk_records
from vectorstore import KeywordIndex, PaperStore, Settings

SUMMARY = re.compile(r"^added (\d+), updated (\d+), unchanged (\d+), removed (\d+)(?:, (\d+) invalid skipped)? in \d+\.\ds$")
NESTER = "icml2025-44081"  # the seed paper whose abstract introduces Nester


def summary(stdout: str) -> tuple[int, ...]:
    """(added, updated, unchanged, removed, skipped) from the CLI's one-line report."""
    match = SUMMARY.match(stdout.strip())
    assert match, f"unexpected ingest summary: {stdout!r}"
    return tuple(int(g or 0) for g in match.groups())


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_format(path_stem: Path, rows: list[dict], fmt: str) -> Path:
    """The same rows as JSONL, a JSON array, CSV or CSV with quoted newlines."""
    if fmt == "jsonl":
        return write_jsonl(path_stem.with_suffix(".jsonl"), rows)
    if fmt == "json":
        path = path_stem.with_suffix(".json")
        path.write_text(json.dumps(rows, indent=2))
        return path
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["id", "title", "authors", "abstract", "url", "venue"])
    writer.writeheader()
    for row in rows:
        row = {**row, "authors": "; ".join(row["authors"])}
        if fmt == "csv_multiline":
            row["abstract"] = textwrap.fill(row["abstract"], 60, break_on_hyphens=False, break_long_words=False)
        writer.writerow(row)
    path = path_stem.with_suffix(".csv")
    path.write_text(out.getvalue())
    return path


def n_chunks(paths: list[Path]) -> int:
    return sum(len(chunk_records(p)) for path in paths for p in parse_file(path)[0])


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "csv_multiline"])
def test_ingest_format(fmt: str, settings: Settings, seed_jsonl: Path, tmp_path: Path, store_checks) -> None:
    rows = sorted(records(seed_jsonl), key=lambda r: len(r["abstract"]))[:3]  # the three shortest: fast
    path = write_format(tmp_path / "papers", rows, fmt)
    report = ingest([path], settings, progress=False)
    assert (report.added, report.updated, report.unchanged, report.removed, report.problems) == (3, 0, 0, 0, [])
    assert report.chunks_written == n_chunks([path]) == PaperStore(settings).count()
    stored = {p.id: p for p in PaperStore(settings).papers()}
    assert set(stored) == {r["id"] for r in rows}
    for row in rows:
        paper = stored[row["id"]]
        assert (paper.title, paper.authors, paper.url, paper.venue) == (row["title"], row["authors"], row["url"], row["venue"])
        assert paper.abstract == clean_text(row["abstract"])  # LaTeX and hyphen breaks cleaned at ingest
        assert not paper.title_derived
    store_checks.consistent(PaperStore(settings), {r["id"] for r in rows})


def test_paper_chunks_record_their_sentence_spans(settings: Settings, seed_jsonl: Path, tmp_path: Path, monkeypatch) -> None:
    """Retrieval cuts a shown sentence from its paper chunk by the recorded spans instead of reading it from Chroma:
    each cut must equal the stored sentence chunk, and a search must not read sentence chunks."""
    from assistant.retrieval import HybridRetriever, sentence_of
    from vectorstore import Embedder

    rows = sorted(records(seed_jsonl), key=lambda r: len(r["abstract"]))[:4]
    ingest([write_jsonl(tmp_path / "p.jsonl", rows)], settings, progress=False)
    store = PaperStore(settings)
    page = store._call("get", include=["documents", "metadatas"])
    by_id = {i: (d, m) for i, d, m in zip(page["ids"], page["documents"], page["metadatas"])}
    papers = {m["paper_id"]: (d, m) for d, m in by_id.values() if m["kind"] == "paper"}
    sentences = [(i, d, m) for i, (d, m) in by_id.items() if m["kind"] == "sentence"]
    assert len(sentences) > 4
    for cid, doc, meta in sentences:
        cut = sentence_of(papers[meta["paper_id"]], meta["chunk"])
        assert cut is not None and cut[0] == doc and (cut[1]["start"], cut[1]["end"]) == (meta["start"], meta["end"])
    assert sentence_of(papers[rows[0]["id"]], 0) is None and sentence_of(papers[rows[0]["id"]], 99) is None

    retriever = HybridRetriever(store=store, keyword=KeywordIndex(store), embedder=Embedder.from_settings(store.settings), k=4)
    reads: list[list[str]] = []
    real = store.chunks
    monkeypatch.setattr(store, "chunks", lambda ids: reads.append(ids) or real(ids))
    hits = retriever.search(rows[0]["title"])
    assert hits and all(h.text and h.end > h.start for h in hits)
    assert all(not ids for ids in reads), f"sentence chunks read from Chroma: {reads}"


def test_bare_format_derives_titles(settings: Settings, seed_bare: Path, run_cli, store_checks) -> None:
    report = ingest([seed_bare], settings, progress=False)
    assert (report.added, report.unchanged, report.problems) == (19, 0, [])
    store = PaperStore(settings)
    stored = {p.id: p for p in store.papers()}
    parsed = {p.id: p for p in parse_file(seed_bare)[0]}
    assert set(stored) == set(parsed)
    for pid, paper in stored.items():
        assert paper.title_derived is True
        assert paper.title == parsed[pid].title
        assert paper.abstract == parsed[pid].abstract
    (nester,) = [p for p in stored.values() if "We present Nester" in p.abstract]
    assert nester.title.startswith("Nester")
    before = store_checks.consistent(store, set(parsed))

    # ids are stable across runs: another process re-reads the file and finds nothing new
    result = run_cli("ingest", seed_bare, *store_checks.cli_store_args(settings))
    assert result.returncode == 0, result.stderr
    assert summary(result.stdout) == (0, 0, 19, 0, 0)
    assert store_checks.snapshot(PaperStore(settings)).chunks == before.chunks


# --------------------------------------------------------------------------- idempotency


def test_second_ingest_changes_nothing(settings: Settings, seed_jsonl: Path, tmp_path: Path, store_checks) -> None:
    first = ingest([seed_jsonl], settings, progress=False)
    assert (first.added, first.chunks_written) == (19, n_chunks([seed_jsonl]))
    store = PaperStore(settings)
    count, generation = store.count(), store.generation
    before = store_checks.consistent(store, {r["id"] for r in records(seed_jsonl)})

    second = ingest([seed_jsonl], settings, progress=False)
    assert (second.added, second.updated, second.unchanged, second.removed, second.chunks_written) == (0, 0, 19, 0, 0)
    assert store.count() == count
    assert store.generation == generation  # nothing written, so the BM25 cache stays valid
    assert store_checks.snapshot(store).chunks == before.chunks

    # the same papers in the other formats are the same papers
    rows = records(seed_jsonl)
    for fmt in ("json", "csv", "csv_multiline"):
        report = ingest([write_format(tmp_path / f"seed-{fmt}", rows, fmt)], settings, progress=False)
        assert (report.unchanged, report.chunks_written) == (19, 0), fmt
    assert store.count() == count


def test_writes_overlap_the_next_encode_in_order_and_a_failed_write_stops_the_ingest(
        settings: Settings, seed_jsonl: Path, monkeypatch: pytest.MonkeyPatch, store_checks) -> None:
    """Batch k is written while batch k+1 is embedded: one write at a time, in order, progress counted only for
    written papers; a failed write is raised from ``ingest`` and no later batch is written."""
    import threading

    from ingest import pipeline

    monkeypatch.setattr(pipeline, "BATCH_CHUNKS", 20)  # ~3 seed papers a batch
    writes: list[tuple[str, list[str]]] = []
    progress: list[int] = []
    real_add = PaperStore.add

    def add(self: PaperStore, ids: list[str], *args: object) -> None:
        writes.append((threading.current_thread().name, sorted({cid.split("::")[0] for cid in ids})))
        if len(writes) == 3:
            raise RuntimeError("disk full")
        real_add(self, ids, *args)

    monkeypatch.setattr(PaperStore, "add", add)
    with pytest.raises(RuntimeError, match="disk full"):
        ingest([seed_jsonl], settings, progress=False, on_progress=lambda done, total: progress.append(done))
    assert len(writes) == 3 and all(name.startswith("ingest-write") for name, _ in writes)
    order = [r["id"] for r in records(seed_jsonl)]
    written = [pid for _, papers in writes[:2] for pid in papers]
    assert sorted(written, key=order.index) == order[: len(written)]  # the first papers, batch by batch
    assert progress == [0, len(writes[0][1]), len(written)]
    snap = store_checks.snapshot(PaperStore(settings))
    store_checks.readable(snap)
    assert snap.paper_ids == set(written)  # the failed batch and everything after it: not written

    monkeypatch.setattr(PaperStore, "add", real_add)  # the next ingest completes the rest
    report = ingest([seed_jsonl], settings, progress=False)
    assert (report.added, report.unchanged) == (19 - len(written), len(written))
    store_checks.consistent(PaperStore(settings), set(order))


# --------------------------------------------------------------------------- updates


def test_update_replaces_old_chunks(settings: Settings, seed_jsonl: Path, tmp_path: Path, store_checks) -> None:
    ingest([seed_jsonl], settings, progress=False)
    store = PaperStore(settings)
    index = KeywordIndex(store)  # kept across the update: it must notice the change itself
    assert index.search("Nester neuro-symbolic type inference", 3)[0][0] == NESTER
    old = store.paper(NESTER)
    assert old is not None
    old_chunks = {cid for cid, _, m in store.iter_chunks(["metadatas"]) if m["paper_id"] == NESTER}
    count = store.count()

    rows = records(seed_jsonl)
    new_abstract = ("We study quokka populations on Rottnest Island with camera traps. "
                    "A hierarchical occupancy model estimates their density. It beats transect counts.")
    rows = [{**r, "abstract": new_abstract} if r["id"] == NESTER else r for r in rows]
    changed = write_jsonl(tmp_path / "changed.jsonl", rows)
    new_paper = next(p for p in parse_file(changed)[0] if p.id == NESTER)
    report = ingest([changed], settings, progress=False)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 18, 0)
    assert report.chunks_written == len(chunk_records(new_paper))

    snap = store_checks.consistent(store, {r["id"] for r in rows})
    assert snap.hashes_of(NESTER) == {new_paper.content_hash} != {old.content_hash}
    assert not (old_chunks & snap.ids)
    assert not any(old.content_hash in cid for cid in snap.ids)
    assert store.count() == count - len(old_chunks) + len(chunk_records(new_paper))
    updated = store.paper(NESTER)
    assert updated is not None and updated.abstract == new_abstract
    assert not any("Nester" in (doc or "") for _, doc, _ in store.iter_chunks(["documents"]))

    for bm25 in (index, KeywordIndex(store)):  # the old instance and a fresh one
        assert bm25.search("quokka camera traps", 3)[0][0] == NESTER
        assert bm25.search("Nester", 19) == []  # the word was only in the old abstract

    # metadata-only changes (authors here) are updates too
    rows = [{**r, "authors": ["A. Newauthor"]} if r["id"] == NESTER else r for r in rows]
    report = ingest([write_jsonl(tmp_path / "authors.jsonl", rows)], settings, progress=False)
    assert (report.updated, report.unchanged) == (1, 18)
    updated = store.paper(NESTER)
    assert updated is not None and updated.authors == ["A. Newauthor"]
    assert len(store_checks.consistent(store).hashes_of(NESTER)) == 1


# --------------------------------------------------------------------------- pruning


def test_prune_removes_missing_papers(settings: Settings, seed_jsonl: Path, tmp_path: Path, run_cli, store_checks) -> None:
    ingest([seed_jsonl], settings, progress=False)
    store = PaperStore(settings)
    rows = records(seed_jsonl)
    kept, dropped = rows[:15], rows[15:]
    subset = write_jsonl(tmp_path / "subset.jsonl", kept)

    report = ingest([subset], settings, progress=False)  # without --prune nothing goes
    assert (report.unchanged, report.removed, report.chunks_written) == (15, 0, 0)
    assert len(store.papers()) == 19

    result = run_cli("ingest", subset, "--prune", *store_checks.cli_store_args(settings))
    assert result.returncode == 0, result.stderr
    assert summary(result.stdout) == (0, 0, 15, 4, 0)
    snap = store_checks.consistent(store, {r["id"] for r in kept})
    gone = {r["id"] for r in dropped}
    assert not [cid for cid, (_, m) in snap.chunks.items() if m["paper_id"] in gone]
    assert store.count() == n_chunks([subset])
    index = KeywordIndex(store)
    for row in dropped:
        assert not {pid for pid, _ in index.search(f"{row['title']} {row['abstract']}", 19)} & gone


# --------------------------------------------------------------------------- keyword index


def test_keyword_index_follows_add_update_prune(settings: Settings, seed_jsonl: Path, tmp_path: Path, monkeypatch, store_checks) -> None:
    """One long-lived KeywordIndex (as a server holds it) stays equal to the store through every change."""
    store = PaperStore(settings)
    index = KeywordIndex(store)
    assert index.search("neural networks", 5) == []

    rows = sorted(records(seed_jsonl), key=lambda r: len(r["abstract"]))[:5]
    path = write_jsonl(tmp_path / "five.jsonl", rows)

    def ids_in_index() -> set[str]:
        return set(index.snapshot().ids)

    ingest([path], settings, progress=False)  # add
    assert ids_in_index() == {r["id"] for r in rows}
    store_checks.consistent(store, {r["id"] for r in rows})

    rows[0] = {**rows[0], "abstract": "Axolotl limb regeneration studied with single-cell atlases. Results are new."}
    ingest([write_jsonl(path, rows)], settings, progress=False)  # update
    assert index.search("axolotl regeneration", 5)[0][0] == rows[0]["id"]
    store_checks.consistent(store, {r["id"] for r in rows})

    ingest([write_jsonl(path, rows[:3])], settings, prune=True, progress=False)  # prune
    assert ids_in_index() == {r["id"] for r in rows[:3]}
    for row in rows[3:]:
        assert row["id"] not in {pid for pid, _ in index.search(row["title"], 5)}
    store_checks.consistent(store, {r["id"] for r in rows[:3]})

    # unchanged store: a new index loads the cached one from disk instead of rebuilding it
    monkeypatch.setattr(KeywordIndex, "_build", lambda self: pytest.fail("rebuilt although the store did not change"))
    assert KeywordIndex(store).search("axolotl regeneration", 5)[0][0] == rows[0]["id"]


# --------------------------------------------------------------------------- --skip-invalid


def test_skip_invalid_ingests_the_valid_records(settings: Settings, seed_jsonl: Path, tmp_path: Path, run_cli, store_checks) -> None:
    lines = seed_jsonl.read_text().splitlines()
    good = sorted(lines, key=len)[:3]
    first = json.loads(good[0])
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([
        good[0],
        '{"id": "broken", "abstract": ',                               # 2: malformed JSON
        json.dumps({"id": "no-abstract", "title": "Only a title"}),      # 3: no abstract
        good[1],
        json.dumps({**first, "abstract": "Same id, other text."}),      # 5: id clash
        json.dumps({"id": "huge", "abstract": "word " * 210_000}),       # 6: 1 MB abstract
        good[2],
    ]) + "\n")

    result = run_cli("ingest", path, "--skip-invalid", *store_checks.cli_store_args(settings))
    assert result.returncode == 0, result.stderr
    assert summary(result.stdout) == (3, 0, 0, 0, 4)
    assert "Traceback" not in result.stderr
    skipped = result.stderr_lines
    assert len(skipped) == 4, result.stderr
    for line_number, text in zip((2, 3, 5, 6), skipped):
        assert text.startswith(f"skipped {path}:{line_number}: "), text
    assert "malformed JSON" in skipped[0] and "no abstract" in skipped[1]
    assert "also used at" in skipped[2] and "characters" in skipped[3]
    store_checks.consistent(PaperStore(settings), {json.loads(line)["id"] for line in good})
