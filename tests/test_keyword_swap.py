"""The keyword index is replaced as one object: searches during a rebuild never mix two generations."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

from vectorstore.keyword import KeywordIndex, analyzer_key
from vectorstore.settings import Settings

# two corpora that alternate: every paper mentions "alpha"; a search sees exactly one corpus
CORPORA = {
    "x": [(f"x{i}", f"alpha beta paper {i} " + "gamma " * i) for i in range(12)],
    "y": [(f"y{i}", f"alpha delta paper {i}") for i in range(5)],
}


class FlippingStore:
    """Stands in for ``PaperStore`` (the part ``KeywordIndex`` reads): the generation and its chunks change together."""

    def __init__(self, data_dir: Path) -> None:
        self.settings = Settings(data_dir=data_dir, collection="flip")
        self.location = str(data_dir)
        self.current = ("x-0", "x")  # one reference: (generation, corpus)
        self.flips = 0

    @property
    def generation(self) -> str:
        return self.current[0]

    @property
    def state_key(self) -> str:
        return self.current[0]

    def flip(self) -> None:
        self.flips += 1
        corpus = "y" if self.current[1] == "x" else "x"
        self.current = (f"{corpus}-{self.flips}", corpus)

    def paper_chunks(self) -> Iterator[tuple[str, str, dict[str, Any], np.ndarray]]:
        _, corpus = self.current
        for pid, text in CORPORA[corpus]:
            yield (f"{pid}::h{corpus}::0", text, {"paper_id": pid, "paper_hash": f"h{corpus}", "title": pid, "kind": "paper"},
                   np.zeros(4, dtype=np.float32))


def test_searches_during_rebuilds_see_one_generation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "getswitchinterval", sys.getswitchinterval)
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, to hit any half-swapped state
    store = FlippingStore(tmp_path)
    index = KeywordIndex(store)  # type: ignore[arg-type]
    stop = threading.Event()
    problems: list[str] = []

    def search() -> None:
        while not stop.is_set():
            try:
                found = index.search("alpha", 50)
                idf = index.idf(["alpha"])["alpha"]
            except Exception as exc:  # a half-swapped index: scores of one corpus, ids of the other
                problems.append(repr(exc))
                continue
            ids = {pid for pid, _ in found}
            if ids not in ({p for p, _ in CORPORA["x"]}, {p for p, _ in CORPORA["y"]}):
                problems.append(f"mixed or partial result: {sorted(ids)}")
            if not 0 < idf < 1:  # "alpha" is in every paper of either corpus
                problems.append(f"idf of alpha {idf}")

    def write() -> None:
        while not stop.is_set():
            store.flip()
            index.refresh()

    try:
        threads = [threading.Thread(target=search) for _ in range(3)] + [threading.Thread(target=write)]
        for t in threads:
            t.start()
        stop.wait(8)
    finally:
        stop.set()
        for t in threads:
            t.join()
        sys.setswitchinterval(0.005)
    assert store.flips > 20
    assert not problems, f"{len(problems)} inconsistent searches, e.g. {problems[:3]}"


def test_cache_key_includes_the_analyzer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import vectorstore.keyword as keyword

    store = FlippingStore(tmp_path)
    with_stemmer = KeywordIndex(store).root  # type: ignore[arg-type]
    monkeypatch.setattr(keyword, "_STEMMER", False)  # PyStemmer missing: other tokens, so another cache
    assert "none" in analyzer_key()
    assert KeywordIndex(store).root != with_stemmer  # type: ignore[arg-type]


def _paper(pid: str) -> tuple[list[str], list[list[float]], list[str], list[dict[str, Any]]]:
    meta = {"paper_id": pid, "paper_hash": "h1", "title": f"Paper {pid}", "kind": "paper", "chunk": 0, "n_chunks": 1}
    return [f"{pid}::h1::0"], [[0.1, 0.2, 0.3, 0.4]], [f"abstract of {pid} about wombats"], [meta]


def test_two_writers_on_one_server_leave_the_index_equal_to_the_vectors(tmp_path: Path, request: pytest.FixtureRequest):
    """Two writers (two clients of one `chroma run` server) interleave; the second dies after writing, before its
    final bump. The keyword index must still hold every committed paper, and the store must stay dirty."""
    from conftest import make_settings
    from vectorstore.store import PaperStore

    settings = make_settings("server", tmp_path, request, "writers")
    a, b = PaperStore(settings), PaperStore(settings)
    a.bump_generation()
    b.bump_generation()
    a.add(*_paper("a1"))
    a.bump_generation(commit=True)  # writer A is done
    reader = KeywordIndex(PaperStore(settings))
    assert set(reader.snapshot().ids) == {"a1"}
    b.add(*_paper("b1"))  # writer B writes after A's commit, then is killed before its own final bump
    committed = {p.id for p in PaperStore(settings).papers()}
    assert committed == {"a1", "b1"}
    assert set(reader.snapshot().ids) == committed  # the long-lived reader
    assert set(KeywordIndex(PaperStore(settings)).snapshot().ids) == committed  # a new reader (disk cache)
    assert PaperStore(settings).dirty  # the next ingest bumps again
