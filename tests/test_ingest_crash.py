"""SIGKILL a real ``paperchat ingest`` at several moments, re-run it, and compare with an uninterrupted run.

The ingest runs on a pseudo-terminal so that it draws its progress bar; the test reads the bar to
kill at chosen moments (start-up, model loading, right after a batch commit, mid-batch, while old
versions are deleted) instead of guessing times. Between kills a reader in this process checks
what a concurrent reader (e.g. ``paperchat serve``) would see. At the end the store must equal a
store built without interruption: same chunks, same papers, no duplicates, BM25 in sync.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from ingest import ingest, parse_file
from ingest.pipeline import BATCH_CHUNKS, chunk_records
from vectorstore import KeywordIndex, PaperStore, Settings

# three write batches and a short fourth (BATCH_CHUNKS = 1024 chunks, ~127 papers): the run killed 0.5 s after its first
# commit always leaves a whole batch unwritten. With 300 papers it had only the short last batch left, which a fast
# machine encoded while the batch before was written to a Chroma server, and wrote within the 0.5 s
N_PAPERS = 400
PAPERCHAT = Path(sys.executable).parent / "paperchat"
BAR = re.compile(rb"(\d+)/(\d+) \[")
SUMMARY = re.compile(r"^added (\d+), updated (\d+), unchanged (\d+), removed (\d+) in")


@dataclass(frozen=True)
class Corpus:
    v1: Path
    v2: Path  # the same papers, ``changed`` of them with a new abstract
    ids: set[str]
    changed: int


@pytest.fixture(scope="module")
def corpus(icml2024_jsonl: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The first N_PAPERS ICML 2024 papers, and a second version of the file with some of them changed.

    The update must span more than one write batch and leave over 50 papers after its first batch
    (so the resumed run still draws its bar): enough papers change for any ``BATCH_CHUNKS``.
    """
    folder = tmp_path_factory.mktemp("crash-corpus")
    lines = icml2024_jsonl.read_text().splitlines()[:N_PAPERS]
    v1 = folder / "papers-v1.jsonl"
    v1.write_text("\n".join(lines) + "\n")
    papers = parse_file(v1)[0]
    per_batch = math.ceil(BATCH_CHUNKS / (sum(len(chunk_records(p)) for p in papers) / len(papers)))
    changed = min(N_PAPERS, max(100, per_batch + 60))
    rows = [json.loads(line) for line in lines]
    for i in range(changed):  # spread over the file
        rows[i * N_PAPERS // changed]["abstract"] += " Code and data are released so that every experiment can be reproduced."
    v2 = folder / "papers-v2.jsonl"
    v2.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return Corpus(v1, v2, {r["id"] for r in rows}, changed)


@pytest.fixture(scope="module")
def reference(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory, store_checks):
    """Snapshots (with embeddings) of uninterrupted ingests of v1, then of v2 on top, in their own dir."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("crash-reference"), collection="crash-reference")
    report = ingest([corpus.v1], settings, progress=False)
    assert report.added == N_PAPERS
    v1 = store_checks.snapshot(PaperStore(settings), embeddings=True)
    report = ingest([corpus.v2], settings, progress=False)
    assert (report.updated, report.unchanged) == (corpus.changed, N_PAPERS - corpus.changed)
    v2 = store_checks.snapshot(PaperStore(settings), embeddings=True)
    return v1, v2


# --------------------------------------------------------------------------- killing


@dataclass
class Run:
    moment: str
    killed: bool
    seconds: float
    done: int  # papers committed by this run, per its progress bar
    total: int  # papers this run had to embed (0: it had not drawn its bar yet)


@dataclass
class Progress:
    """What the running ingest has shown so far (seconds since it started)."""

    elapsed: float = 0.0
    done: int = 0  # papers committed, per the progress bar
    total: int = 0  # papers to embed; 0 until the bar is drawn
    bar_at: float | None = None  # when the bar appeared (the generation is bumped just before)
    commit_at: float | None = None  # when the first batch was committed


When = Callable[[Progress], bool]


def run_and_kill(args: list[str], moment: str, when: When, may_finish: bool = False, deadline: float = 300) -> Run:
    """Run ``paperchat ingest ARGS`` on a pty (so it draws its progress bar) and SIGKILL it when ``when`` says."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))  # wide: the bar keeps "n/N ["
    output = bytearray()

    def read() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO once the child is gone
                return
            if not data:
                return
            output.extend(data)

    started = time.monotonic()
    proc = subprocess.Popen([str(PAPERCHAT), "ingest", *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    now = Progress()
    try:
        while True:
            now.elapsed = time.monotonic() - started
            bars = BAR.findall(bytes(output))
            if bars:
                now.done, now.total = int(bars[-1][0]), int(bars[-1][1])
                now.bar_at = now.elapsed if now.bar_at is None else now.bar_at
                if now.done and now.commit_at is None:
                    now.commit_at = now.elapsed
            if proc.poll() is not None:
                break
            if when(now):
                proc.send_signal(signal.SIGKILL)
                break
            if now.elapsed > deadline:
                proc.kill()
                pytest.fail(f"ingest never reached the moment {moment!r} in {deadline}s; output:\n{output.decode(errors='replace')[-2000:]}")
            time.sleep(0.02)
        proc.wait(30)
    finally:
        reader.join(10)
        os.close(master)
    text = output.decode(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    if proc.returncode == 0:
        assert may_finish, f"ingest finished before the moment {moment!r}; output:\n{text[-2000:]}"
        return Run(moment, False, now.elapsed, now.done, now.total)
    assert proc.returncode == -signal.SIGKILL, f"ingest failed before the moment {moment!r} (exit {proc.returncode}):\n{text[-2000:]}"
    return Run(moment, True, now.elapsed, now.done, now.total)


def run_to_completion(args: list[str]) -> tuple[int, ...]:
    proc = subprocess.run([str(PAPERCHAT), "ingest", *args], capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr == "", proc.stderr[-3000:]
    match = SUMMARY.match(proc.stdout)
    assert match, proc.stdout
    return tuple(int(g) for g in match.groups())


# Kill moments for a fresh ingest of N_PAPERS papers, one run each; every run resumes the previous one.
FRESH: list[tuple[str, When, bool]] = [
    ("start-up, 1.5 s in", lambda p: p.elapsed >= 1.5, False),
    ("generation bumped, model loading", lambda p: p.bar_at is not None and p.elapsed >= p.bar_at + 0.5, False),
    ("right after the first batch commit", lambda p: p.done > 0, False),
    # soon after the commit: the next batch is being embedded or written, and one more is left after it
    ("mid-batch, 0.5 s after a commit", lambda p: p.commit_at is not None and p.elapsed >= p.commit_at + 0.5, False),
]
# Kill moments for the update to v2 (new versions are written before the old ones are deleted).
UPDATE: list[tuple[str, When, bool]] = [
    ("new versions of a first batch committed, old ones not yet deleted", lambda p: p.done > 0, False),
    # the delete phase is short: if the run finishes before the kill lands, that is fine
    ("all new versions committed, deleting old ones", lambda p: 0 < p.total == p.done, True),
]


class Reader:
    """Opens the store as a reader does between the runs.

    Server: one long-lived client and KeywordIndex, as ``paperchat serve`` holds them, so the index
    has to notice every change by itself. Embedded: Chroma caches the vectors per process, and a
    process that had the store open does not see vectors written later by another process, so each
    look opens a copy of the data dir, as a newly started process would.
    """

    def __init__(self, settings: Settings, scratch: Path) -> None:
        self.settings, self.scratch, self.looks = settings, scratch, 0
        self.server: tuple[PaperStore, KeywordIndex] | None = None

    def open(self) -> tuple[PaperStore, KeywordIndex]:
        if self.settings.chroma_url:
            if self.server is None:
                store = PaperStore(self.settings)
                self.server = (store, KeywordIndex(store))
            return self.server
        self.looks += 1
        copy = self.scratch / f"look-{self.looks}"
        if self.settings.chroma_dir.exists():
            shutil.copytree(self.settings.chroma_dir, copy / "chroma")
        store = PaperStore(self.settings.with_overrides(data_dir=copy))
        return store, KeywordIndex(store)


def test_killed_ingest_resumes_to_the_same_store(settings: Settings, corpus: Corpus, reference, tmp_path: Path, store_checks) -> None:
    ref_v1, ref_v2 = reference
    store_args = store_checks.cli_store_args(settings)
    reader = Reader(settings, tmp_path / "looks")

    def check_after_kill(every_paper_present: bool) -> None:
        """What a reader sees after a kill: complete papers only, and BM25 holding exactly those."""
        store, index = reader.open()
        snap = store_checks.snapshot(store)
        store_checks.readable(snap)
        committed = {pid for pid, _ in snap.paper_chunks()}
        assert committed <= corpus.ids
        if every_paper_present:  # an update never makes a paper disappear, even when killed
            assert committed == corpus.ids
            allowed = {(pid, h) for s in (ref_v1, ref_v2) for pid, h in s.paper_chunks()}
            assert set(snap.paper_chunks()) <= allowed
        assert set(index.snapshot().ids) == committed

    def assert_same_as(ref: Any) -> Any:  # conftest.Snapshot
        """Same chunk ids, documents, metadata and (nearly) embeddings as the uninterrupted run; consistent."""
        store, _ = reader.open()
        snap = store_checks.snapshot(store, embeddings=True)
        assert snap.ids == ref.ids, f"{len(snap.ids - ref.ids)} extra, {len(ref.ids - snap.ids)} missing chunks"
        assert snap.paper_ids == ref.paper_ids == corpus.ids
        assert snap.chunks == ref.chunks
        for cid, vector in ref.embeddings.items():  # batches differ between the runs: allow float noise
            assert float(np.dot(vector, snap.embeddings[cid])) > 0.9999, cid
        store_checks.consistent(store, corpus.ids)
        return snap

    # -- version 1, killed four times, then finished
    runs: list[Run] = []
    for moment, when, may_finish in FRESH:
        runs.append(run_and_kill([str(corpus.v1), *store_args], moment, when, may_finish))
        check_after_kill(every_paper_present=False)
    assert all(r.killed for r in runs), runs
    assert any(0 < r.done < r.total for r in runs), f"no kill landed between two batches: {runs}"
    added, updated, unchanged, removed = run_to_completion([str(corpus.v1), *store_args])
    assert 0 < unchanged < N_PAPERS, "the killed runs should have committed some papers, not all"
    assert (added + unchanged, updated, removed) == (N_PAPERS, 0, 0)
    final_v1 = assert_same_as(ref_v1)

    # -- version 2 (a third of the abstracts changed), killed twice, then finished
    for moment, when, may_finish in UPDATE:
        runs.append(run_and_kill([str(corpus.v2), *store_args], moment, when, may_finish))
        check_after_kill(every_paper_present=True)
    assert runs[len(FRESH)].killed and 0 < runs[len(FRESH)].done < corpus.changed, runs
    added, updated, unchanged, removed = run_to_completion([str(corpus.v2), *store_args])
    assert (added, removed, updated + unchanged) == (0, 0, N_PAPERS)
    assert updated < corpus.changed  # the first kill had committed some new versions
    assert final_v1.ids != assert_same_as(ref_v2).ids

    # -- and once more: nothing left to do
    assert run_to_completion([str(corpus.v2), *store_args]) == (0, 0, N_PAPERS, 0)
    assert_same_as(ref_v2)
    print("\n".join(f"{r.moment}: {'killed' if r.killed else 'finished'} at {r.seconds:.1f}s, {r.done}/{r.total} papers" for r in runs))
