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
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from ingest import ingest
from vectorstore import KeywordIndex, PaperStore, Settings

N_PAPERS = 300
CHANGED = range(0, N_PAPERS, 3)  # papers whose abstract changes in the second version of the file
PAPERCHAT = Path(sys.executable).parent / "paperchat"
BAR = re.compile(rb"(\d+)/(\d+) \[")
SUMMARY = re.compile(r"^added (\d+), updated (\d+), unchanged (\d+), removed (\d+) in")


@dataclass(frozen=True)
class Corpus:
    v1: Path
    v2: Path
    ids: set[str]


@pytest.fixture(scope="module")
def corpus(icml2024_jsonl: Path, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """The first 300 ICML 2024 papers, and a second version of the file with 100 abstracts changed."""
    folder = tmp_path_factory.mktemp("crash-corpus")
    lines = icml2024_jsonl.read_text().splitlines()[:N_PAPERS]
    v1 = folder / "papers-v1.jsonl"
    v1.write_text("\n".join(lines) + "\n")
    rows = [json.loads(line) for line in lines]
    for i in CHANGED:
        rows[i]["abstract"] += " Code and data are released so that every experiment can be reproduced."
    v2 = folder / "papers-v2.jsonl"
    v2.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return Corpus(v1, v2, {r["id"] for r in rows})


@pytest.fixture(scope="module")
def reference(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory, store_checks):
    """Snapshots (with embeddings) of uninterrupted ingests of v1, then of v2 on top, in their own dir."""
    settings = Settings(data_dir=tmp_path_factory.mktemp("crash-reference"), collection="crash-reference")
    report = ingest([corpus.v1], settings, progress=False)
    assert report.added == N_PAPERS
    v1 = store_checks.snapshot(PaperStore(settings), embeddings=True)
    report = ingest([corpus.v2], settings, progress=False)
    assert (report.updated, report.unchanged) == (len(CHANGED), N_PAPERS - len(CHANGED))
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


# Kill moments for a fresh ingest of 300 papers, one run each; every run resumes the previous one.
FRESH: list[tuple[str, When, bool]] = [
    ("start-up, 1.5 s in", lambda p: p.elapsed >= 1.5, False),
    ("generation bumped, model loading", lambda p: p.bar_at is not None and p.elapsed >= p.bar_at + 0.5, False),
    ("right after the first batch commit", lambda p: p.done > 0, False),
    ("mid-batch, 2 s after a commit", lambda p: p.commit_at is not None and p.elapsed >= p.commit_at + 2.0, False),
]
# Kill moments for the update to v2 (new versions are written before the old ones are deleted).
UPDATE: list[tuple[str, When, bool]] = [
    ("new versions of a first batch committed, old ones not yet deleted", lambda p: p.done > 0, False),
    # the delete phase is short: if the run finishes before the kill lands, that is fine
    ("all new versions committed, deleting old ones", lambda p: 0 < p.total == p.done, True),
]


def test_killed_ingest_resumes_to_the_same_store(settings: Settings, corpus: Corpus, reference, store_checks) -> None:
    ref_v1, ref_v2 = reference
    store_args = store_checks.cli_store_args(settings)
    reader_store: PaperStore | None = None
    index: KeywordIndex | None = None

    def reader() -> tuple[PaperStore, KeywordIndex]:
        nonlocal reader_store, index
        if reader_store is None:
            reader_store = PaperStore(settings)
            index = KeywordIndex(reader_store)
        assert index is not None
        return reader_store, index

    def check_reader_view(every_paper_present: bool) -> int:
        """What a concurrent reader sees after a kill: complete papers only, BM25 equal to them."""
        store, bm25 = reader()
        snap = store_checks.snapshot(store)
        store_checks.readable(snap)
        committed = {pid for pid, _ in snap.paper_chunks()}
        assert committed <= corpus.ids
        if every_paper_present:  # an update never makes a paper disappear, even when killed
            assert committed == corpus.ids
            allowed = {(pid, h) for s in (ref_v1, ref_v2) for pid, h in s.paper_chunks()}
            assert set(snap.paper_chunks()) <= allowed
        bm25.refresh()
        assert set(bm25._ids) == committed
        return len(committed)

    # -- version 1, killed four times, then finished
    runs: list[Run] = []
    for moment, when, may_finish in FRESH:
        runs.append(run_and_kill([str(corpus.v1), *store_args], moment, when, may_finish))
        check_reader_view(every_paper_present=False)
    assert all(r.killed for r in runs), runs
    assert any(0 < r.done < r.total for r in runs), f"no kill landed between two batches: {runs}"
    added, updated, unchanged, removed = run_to_completion([str(corpus.v1), *store_args])
    assert 0 < unchanged < N_PAPERS, "the killed runs should have committed some papers, not all"
    assert (added + unchanged, updated, removed) == (N_PAPERS, 0, 0)
    final_v1 = assert_same_store(settings, ref_v1, corpus.ids, store_checks)

    # -- version 2 (100 abstracts changed), killed twice, then finished
    for moment, when, may_finish in UPDATE:
        runs.append(run_and_kill([str(corpus.v2), *store_args], moment, when, may_finish))
        check_reader_view(every_paper_present=True)
    assert runs[len(FRESH)].killed and 0 < runs[len(FRESH)].done < len(CHANGED), runs
    added, updated, unchanged, removed = run_to_completion([str(corpus.v2), *store_args])
    assert (added, removed, updated + unchanged) == (0, 0, N_PAPERS)
    assert updated < len(CHANGED)  # the first kill had committed some new versions
    assert_same_store(settings, ref_v2, corpus.ids, store_checks)
    assert final_v1.ids != ref_v2.ids

    # -- and once more: nothing left to do
    assert run_to_completion([str(corpus.v2), *store_args]) == (0, 0, N_PAPERS, 0)
    assert_same_store(settings, ref_v2, corpus.ids, store_checks)


def assert_same_store(settings: Settings, ref, ids: set[str], store_checks):
    """Same chunk ids, documents, metadata and (nearly) embeddings as the uninterrupted run; consistent."""
    store = PaperStore(settings)
    snap = store_checks.snapshot(store, embeddings=True)
    assert snap.ids == ref.ids, f"{len(snap.ids - ref.ids)} extra, {len(ref.ids - snap.ids)} missing chunks"
    assert snap.paper_ids == ref.paper_ids == ids
    assert snap.chunks == ref.chunks
    for cid, vector in ref.embeddings.items():  # batches differ between the runs: allow float noise
        assert float(np.dot(vector, snap.embeddings[cid])) > 0.9999, cid
    store_checks.consistent(store, ids)
    return snap
