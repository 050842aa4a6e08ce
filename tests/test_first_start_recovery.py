"""A first start killed while it ingests the bundled corpus completes the corpus on the next start."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_store_args, make_settings
from vectorstore.store import PaperStore

BUNDLED_PAPERS = 19
# `paperchat serve`, writing the bundled corpus in small batches so that a kill can land between two of them
SERVE = "import sys, ingest.pipeline as p; p.BATCH_CHUNKS = 8; from ui.cli import main; sys.exit(main(sys.argv[1:]))"


def _papers(settings) -> int:  # type: ignore[no-untyped-def]
    try:
        return PaperStore(settings).paper_count()
    except Exception:  # the collection is not created yet
        return 0


def _serve(settings, tmp_path: Path, port: int) -> subprocess.Popen[bytes]:  # type: ignore[no-untyped-def]
    return subprocess.Popen([sys.executable, "-c", SERVE, "serve", "--port", str(port), *cli_store_args(settings)],
                            cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait(proc: subprocess.Popen[bytes], until, timeout: float = 240) -> int:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n = _papers(proc.settings)  # type: ignore[attr-defined]
        if until(n):
            return n
        assert proc.poll() is None, f"serve exited early ({proc.returncode}) with {n} papers"
        time.sleep(0.05)
    raise AssertionError(f"timed out with {n} papers")


def test_killed_first_start_completes_on_restart(tmp_path: Path, request: pytest.FixtureRequest, store_checks):  # type: ignore[no-untyped-def]
    # server mode: this test reads the store while the serving process writes it
    settings = make_settings("server", tmp_path / "data", request, "first")
    first = _serve(settings, tmp_path, 7871)
    first.settings = settings  # type: ignore[attr-defined]
    try:
        partial = _wait(first, lambda n: 0 < n < BUNDLED_PAPERS)
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        first.kill()
    assert 0 < partial < BUNDLED_PAPERS
    assert PaperStore(settings).paper_count() < BUNDLED_PAPERS  # the kill left the corpus incomplete

    second = _serve(settings, tmp_path, 7872)
    second.settings = settings  # type: ignore[attr-defined]
    try:
        _wait(second, lambda n: n == BUNDLED_PAPERS)
        store = PaperStore(settings)
        deadline = time.monotonic() + 60
        while store.marker("bundled_corpus") != "done" and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        second.send_signal(signal.SIGKILL)
        second.wait(30)
    store_checks.consistent(store)  # one committed version per paper, no leftover chunks, BM25 in sync
    assert store.paper_count() == BUNDLED_PAPERS
    ids = [cid for cid, _, _ in store.iter_chunks([])]
    assert len(ids) == len(set(ids))
