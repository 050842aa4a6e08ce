"""Two real ``paperchat ingest`` processes write different files into one ``chroma run`` server at once, while a
long-lived reader (as ``paperchat serve`` holds one) keeps loading the keyword index and caching it on disk.

Writer A finishes first; writer B is SIGKILLed right after it commits a batch written after A finished, i.e.
possibly before its own generation bump. Afterwards a *fresh* reader (which loads the disk cache the
long-lived one wrote) must hold exactly the papers in the vectors; B re-run to completion leaves every
paper of both files complete and the index equal to the vectors.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from vectorstore import KeywordIndex, PaperStore, Settings
from vectorstore.store import COUNT_TTL

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


def _writer(path: Path, settings: Settings, store_args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "ui.cli", "ingest", str(path), "--no-progress", *store_args],
                                cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def _papers(store: PaperStore, prefix: set[str]) -> int:
    """Committed papers (paper chunks) whose id is in ``prefix``."""
    page = store._collection.get(where={"kind": "paper"}, include=["metadatas"])
    return sum(1 for m in page["metadatas"] if m["paper_id"] in prefix)


def test_two_writers_and_a_kill_leave_the_index_equal_to_the_vectors(
        icml2024_jsonl: Path, tmp_path: Path, request: pytest.FixtureRequest, store_checks) -> None:
    from ingest import parse_file

    lines = icml2024_jsonl.read_text(encoding="utf-8").splitlines()
    file_a, file_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    file_a.write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    file_b.write_text("\n".join(lines[40:300]) + "\n", encoding="utf-8")  # two or three write batches
    ids_a = {p.id for p in parse_file(file_a)[0]}
    ids_b = {p.id for p in parse_file(file_b)[0]}
    settings = store_checks.make_settings("server", tmp_path / "data", request, "writers")
    store_args = store_checks.cli_store_args(settings)
    PaperStore(settings)  # create the collection before the writers race to

    stop = threading.Event()
    reader_errors: list[str] = []
    builds: list[str] = []

    def read() -> None:  # the long-lived reader: loads (and caches on disk) the index of every generation it sees
        store = PaperStore(settings)
        index = KeywordIndex(store)
        while not stop.is_set():
            try:
                builds.append(str(index.snapshot().generation))
            except Exception as exc:  # noqa: BLE001 - reported below
                reader_errors.append(repr(exc))
            time.sleep(0.02)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    a = _writer(file_a, settings, store_args, tmp_path / "a.log")
    b = _writer(file_b, settings, store_args, tmp_path / "b.log")
    watch = PaperStore(settings)
    killed_after = -1
    try:
        assert a.wait(600) == 0, (tmp_path / "a.log").read_text()
        at_a_end = _papers(watch, ids_b)
        assert b.poll() is None, "writer B finished before writer A: nothing left to race"
        deadline = time.monotonic() + 600
        while b.poll() is None and time.monotonic() < deadline:  # B commits a batch after A is done: kill it at once
            if _papers(watch, ids_b) > at_a_end:
                b.send_signal(signal.SIGKILL)
                killed_after = _papers(watch, ids_b)
                break
            time.sleep(0.005)
        b.wait(60)
    finally:
        for proc in (a, b):
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)
        time.sleep(1.0)  # the reader loads the final generation too
        stop.set()
        reader.join(60)
    assert b.returncode == -signal.SIGKILL, f"writer B was not killed mid-run: {(tmp_path / 'b.log').read_text()[-2000:]}"
    assert 0 < killed_after < len(ids_b), killed_after
    assert not reader_errors, reader_errors[:3]
    assert len(set(builds)) > 2, "the reader should have seen several generations while the writers ran"

    fresh = PaperStore(settings)
    snap = store_checks.snapshot(fresh)
    store_checks.readable(snap)  # every committed paper complete, whatever the other writer deleted
    assert ids_a <= snap.paper_ids and 0 < len(snap.paper_ids & ids_b) < len(ids_b)
    indexed = set(KeywordIndex(fresh).snapshot().ids)
    assert indexed == snap.paper_ids, (f"a fresh reader's keyword index differs from the vectors: "
                                       f"{len(snap.paper_ids - indexed)} papers missing, {len(indexed - snap.paper_ids)} extra")

    # B re-run to the end: both files complete, the index equal to the vectors (checked by a fresh reader)
    rerun = subprocess.run([sys.executable, "-m", "ui.cli", "ingest", str(file_b), "--no-progress", *store_args],
                           cwd=REPO, capture_output=True, text=True, timeout=900)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    store_checks.consistent(PaperStore(settings), ids_a | ids_b, search_all=False)


def test_a_write_whose_generation_bump_never_came_is_still_seen(tmp_path: Path, request: pytest.FixtureRequest,
                                                                 store_checks) -> None:
    """The window the test above can only hit by chance, made certain: a writer's upsert lands and the writer
    dies before its generation bump, after a long-lived reader cached the index of that same generation."""
    settings = store_checks.make_settings("server", tmp_path / "data", request, "window")
    writer = PaperStore(settings)
    meta = {"paper_id": "w1", "paper_hash": "h1", "title": "Wombat burrows", "kind": "paper", "chunk": 0, "n_chunks": 1}
    writer.add(["w1::h1::0"], [[0.1, 0.2, 0.3, 0.4]], ["Wombats dig burrows."], [meta])
    reader = KeywordIndex(PaperStore(settings))
    assert set(reader.snapshot().ids) == {"w1"}  # cached on disk under the current generation
    generation = writer.generation
    meta2 = {**meta, "paper_id": "w2", "title": "Quokka habits"}
    writer._call("upsert", ids=["w2::h1::0"], embeddings=[[0.4, 0.3, 0.2, 0.1]], documents=["Quokkas smile."],
                 metadatas=[meta2])  # ... and the writer is killed here, before ``bump_generation``
    assert writer.generation == generation
    time.sleep(COUNT_TTL + 0.1)  # a reader re-reads the chunk count at most every COUNT_TTL seconds
    assert set(reader.snapshot().ids) == {"w1", "w2"}  # the long-lived reader
    assert set(KeywordIndex(PaperStore(settings)).snapshot().ids) == {"w1", "w2"}  # a fresh one (disk cache)
