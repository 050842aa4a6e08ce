"""Shared fixtures: isolated data dirs, a real Chroma server, stores in both modes, CLI runner, store checks.

Everything here runs the real parts: the packaged all-MiniLM-L6-v2 model, embedded Chroma
(``PersistentClient``) and a Chroma server started with ``chroma run``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

from vectorstore import KeywordIndex, PaperStore, Settings

REPO = Path(__file__).resolve().parents[1]
# CI clones the repo into its own folder with shared/ beside it.
SHARED = Path(__file__).resolve().parents[2] / "shared"
BIN = Path(sys.executable).parent
MODES = ("embedded", "server")


# --------------------------------------------------------------------------- data


@pytest.fixture(scope="session")
def shared() -> Path:
    """The read-only shared data folder next to the repository."""
    if not (SHARED / "data").is_dir():
        pytest.fail(
            f"shared test data not found at {SHARED}: these tests need the shared/ folder beside the "
            f"repository checkout ({REPO.name}/ and shared/ in the same parent directory)",
            pytrace=False,
        )
    return SHARED


@pytest.fixture(scope="session")
def seed_jsonl(shared: Path) -> Path:
    """The 19 ICML 2025 seed papers with ids, titles, authors and URLs."""
    return shared / "data" / "icml2025_seed" / "papers.jsonl"


@pytest.fixture(scope="session")
def seed_bare(shared: Path) -> Path:
    """The same 19 abstracts as a bare text file: a header line, then blank-line separated abstracts."""
    return shared / "data" / "icml2025_seed" / "abstracts.txt"


@pytest.fixture(scope="session")
def icml2024_jsonl(shared: Path) -> Path:
    """2,634 ICML 2024 papers (for the crash test and the benchmark)."""
    return shared / "data" / "icml2024_abstracts" / "papers.jsonl"


# --------------------------------------------------------------------------- isolation


def _clean_environ(data_dir: Path) -> dict[str, str | None]:
    """PAPERCHAT_* from the developer's shell must not leak into tests."""
    changes: dict[str, str | None] = {k: None for k in os.environ if k.startswith("PAPERCHAT_")}
    changes["PAPERCHAT_DATA_DIR"] = str(data_dir)
    # one ONNX export per test session, shared by every test's data dir (and by their subprocesses)
    changes["PAPERCHAT_ONNX_CACHE_DIR"] = str(data_dir / "onnx-cache")
    # the near-miss probe reads every single-paper question with the local 0.5B (about 1.4 s each): off in-process, on
    # in tests/test_near_miss_probe.py (the real model on the seed store); the CLI and server subprocesses the tests
    # start get a clean PAPERCHAT_* environment (tests/ui_server.py), so they run the default, with it on
    changes["PAPERCHAT_NEAR_MISS_PROBE"] = "false"
    return changes


@pytest.fixture(scope="session", autouse=True)
def _session_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Session-wide: nothing (session fixtures included) may touch ~/.local/share/paperchat."""
    data_dir = tmp_path_factory.mktemp("session-data")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in _clean_environ(data_dir).items():
            if value is None:
                mp.delenv(key, raising=False)
            else:
                mp.setenv(key, value)
        yield data_dir


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Per test: PAPERCHAT_DATA_DIR points to the test's own temp dir (subprocesses inherit it)."""
    data_dir = tmp_path / "paperchat-data"
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(data_dir))
    return data_dir


# --------------------------------------------------------------------------- chroma server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _heartbeat(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``chroma run`` server on a free port; yields its URL."""
    executable = BIN / "chroma"
    if not executable.exists():
        pytest.fail(f"{executable} not found: install chromadb into this venv (pip install 'chromadb>=1,<2')", pytrace=False)
    root = tmp_path_factory.mktemp("chroma-server")
    log_path = root / "server.log"
    url = ""
    for _attempt in range(3):  # the free port can be taken between probing and binding
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        log = open(log_path, "ab")
        proc = subprocess.Popen(
            [str(executable), "run", "--path", str(root / "db"), "--host", "127.0.0.1", "--port", str(port)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and not _heartbeat(url):
            time.sleep(0.1)
        if proc.poll() is None and _heartbeat(url):
            break
        proc.terminate()
        proc.wait(10)
        log.close()
    else:
        tail = log_path.read_text(errors="replace")[-2000:]
        pytest.fail(f"`chroma run` did not answer its heartbeat at {url}; log:\n{tail}", pytrace=False)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


# --------------------------------------------------------------------------- settings


def unique_collection(prefix: str = "t") -> str:
    """A fresh collection name (3-512 chars of [a-zA-Z0-9._-])."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def make_settings(mode: str, data_dir: Path, request: pytest.FixtureRequest, prefix: str = "t") -> Settings:
    """Default Settings (real packaged model) for one store mode, with a fresh collection."""
    chroma_url = request.getfixturevalue("chroma_server") if mode == "server" else None
    return Settings(data_dir=data_dir, chroma_url=chroma_url, collection=unique_collection(prefix))


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def settings(mode: str, _data_dir: Path, request: pytest.FixtureRequest) -> Settings:
    """Settings for an empty store, once embedded and once against the Chroma server."""
    return make_settings(mode, _data_dir, request)


@pytest.fixture(scope="session", params=MODES)
def seeded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, seed_jsonl: Path) -> Settings:
    """A store per mode pre-filled with the 19 seed papers; tests must leave it unchanged."""
    from ingest import ingest

    settings = make_settings(str(request.param), tmp_path_factory.mktemp(f"seeded-{request.param}"), request, "seeded")
    report = ingest([seed_jsonl], settings, progress=False)
    assert report.added == 19, report
    return settings


def cli_store_args(settings: Settings) -> list[str]:
    """The CLI flags that point a subprocess at the same store as ``settings``."""
    args = ["--persist-dir", str(settings.data_dir), "--collection", settings.collection]
    if settings.chroma_url:
        args += ["--chroma-url", settings.chroma_url]
    return args


# --------------------------------------------------------------------------- the CLI


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., CliResult]:
    """Run ``python -m ui.cli ARGS`` for real (cwd outside the repo), return its output."""

    def run(*args: str, timeout: float = 300) -> CliResult:
        proc = subprocess.run(
            [sys.executable, "-m", "ui.cli", *map(str, args)],
            capture_output=True, text=True, timeout=timeout, cwd=tmp_path, stdin=subprocess.DEVNULL,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    return run


# --------------------------------------------------------------------------- store checks


@dataclass
class Snapshot:
    """Every chunk of a collection: id -> (document, metadata), plus embeddings if asked for."""

    chunks: dict[str, tuple[str, dict[str, Any]]]
    embeddings: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ids(self) -> set[str]:
        return set(self.chunks)

    def paper_chunks(self) -> list[tuple[str, str]]:
        """(paper id, paper hash) of every paper chunk, i.e. every committed version."""
        return [(str(m["paper_id"]), str(m["paper_hash"])) for _, m in self.chunks.values() if m.get("kind") == "paper"]

    @property
    def paper_ids(self) -> set[str]:
        return {pid for pid, _ in self.paper_chunks()}

    def papers(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """paper id -> (abstract, paper-chunk metadata); assumes one paper chunk per paper."""
        return {str(m["paper_id"]): (d, m) for d, m in self.chunks.values() if m.get("kind") == "paper"}

    def hashes_of(self, paper_id: str) -> set[str]:
        return {str(m["paper_hash"]) for _, m in self.chunks.values() if m["paper_id"] == paper_id}


def snapshot(store: PaperStore, embeddings: bool = False) -> Snapshot:
    """Every chunk of the store. A `chroma run` server right after a killed writer has been seen (once, under a
    loaded CI run) to answer ``count`` with fewer records than ``get`` returns for a moment, so a mismatch is read
    again for up to 20 s before it fails."""
    deadline = time.monotonic() + 20
    while True:
        snap, count = _snapshot(store, embeddings), store.count()
        if len(snap.chunks) == count or time.monotonic() > deadline:
            assert len(snap.chunks) == count, f"get returned {len(snap.chunks)} chunks, count says {count}"
            return snap
        time.sleep(1)


def _snapshot(store: PaperStore, embeddings: bool) -> Snapshot:
    include = ["documents", "metadatas"] + (["embeddings"] if embeddings else [])
    chunks: dict[str, tuple[str, dict[str, Any]]] = {}
    vectors: dict[str, np.ndarray] = {}
    offset = 0
    while True:  # paged like PaperStore.iter_chunks, but also returns embeddings
        page = store._collection.get(include=include, limit=5000, offset=offset)
        for i, cid in enumerate(page["ids"]):
            assert cid not in chunks, f"chunk id {cid} returned twice"
            chunks[cid] = (page["documents"][i], dict(page["metadatas"][i]))
            if embeddings:
                vectors[cid] = np.asarray(page["embeddings"][i], dtype=np.float32)
        if len(page["ids"]) < 5000:
            break
        offset += 5000
    return Snapshot(chunks, vectors)


def check_readable(snap: Snapshot) -> None:
    """What must hold at every moment, crashes included: each committed version is complete."""
    by_version: dict[tuple[str, str], set[int]] = defaultdict(set)
    for cid, (_, meta) in snap.chunks.items():
        pid, h, index = str(meta["paper_id"]), str(meta["paper_hash"]), int(meta["chunk"])
        assert cid == f"{pid}::{h}::{index}", f"chunk id {cid} does not match its metadata"
        by_version[(pid, h)].add(index)
    for pid, h in snap.paper_chunks():
        n = int(snap.chunks[f"{pid}::{h}::0"][1]["n_chunks"])
        assert by_version[(pid, h)] == set(range(n)), f"committed paper {pid}@{h} is missing chunks"


def check_consistent(store: PaperStore, expected_papers: set[str] | None = None, search_all: bool = True) -> Snapshot:
    """The state after a finished ingest: one complete version per paper, no leftovers, BM25 in sync."""
    snap = snapshot(store)
    check_readable(snap)
    committed = Counter(pid for pid, _ in snap.paper_chunks())
    duplicates = sorted(pid for pid, n in committed.items() if n > 1)
    assert not duplicates, f"papers with more than one committed version: {duplicates[:5]}"
    hash_of = dict(snap.paper_chunks())
    orphans = [cid for cid, (_, m) in snap.chunks.items() if hash_of.get(str(m["paper_id"])) != m["paper_hash"]]
    assert not orphans, f"chunks without their committed paper chunk: {orphans[:5]}"
    if expected_papers is not None:
        assert set(committed) == expected_papers
    assert {p.id for p in store.papers()} == set(committed)

    index = KeywordIndex(store)
    index.refresh()
    assert sorted(index.snapshot().ids) == sorted(committed), "the BM25 index does not hold exactly the stored papers"
    if search_all:
        papers = snap.papers()
        for pid, (abstract, meta) in papers.items():
            hits = index.search(f"{meta['title']} {abstract}", 3)
            assert hits and hits[0][0] == pid, f"BM25 does not find paper {pid} by its own text: {hits}"
            assert {h for h, _ in hits} <= set(papers)
    return snap


@pytest.fixture(scope="session")
def store_checks() -> Any:
    """The helpers above, for test modules (conftest is not imported directly)."""

    class Checks:
        snapshot = staticmethod(snapshot)
        readable = staticmethod(check_readable)
        consistent = staticmethod(check_consistent)
        cli_store_args = staticmethod(cli_store_args)
        make_settings = staticmethod(make_settings)
        unique_collection = staticmethod(unique_collection)

    return Checks
