"""BM25 keyword index over the papers in the store (title + abstract).

The index is derived from Chroma, never written independently: it is cached on disk under
the collection's *generation* token, which every write changes after it, and the chunk count, which
a write changes even when its writer is killed before changing the generation (``PaperStore.state_key``).
So whatever happens to an ingest (crash included, several writers on one server), the index in use matches Chroma.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from vectorstore.store import PaperStore
from vectorstore.text import QUESTION_WORDS

_STEMMER: Any = None


def _stemmer() -> Any:
    """The English Porter stemmer of PyStemmer, or None when it is not installed."""
    global _STEMMER
    if _STEMMER is None:
        try:
            import Stemmer

            _STEMMER = Stemmer.Stemmer("english")
        except ImportError:  # PyStemmer missing: plain tokens
            _STEMMER = False
    return _STEMMER or None


def tokenize(texts: list[str]) -> list[list[str]]:
    """Lower-cased, stop-worded, Porter-stemmed tokens (the BM25 analyzer)."""
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False)


def words(texts: list[str]) -> list[list[str]]:
    """The analyzer's tokens before stemming (lower-cased, stop-worded): readable words, e.g. for labels."""
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", stemmer=None, return_ids=False, show_progress=False)


def stem(words: list[str]) -> list[str]:
    """The analyzer's stems of ``words`` (the words themselves when PyStemmer is missing)."""
    stemmer = _stemmer()
    return list(stemmer.stemWords(words)) if stemmer else list(words)


def query_terms(text: str) -> list[str]:
    """Distinct topical terms of a question (analyzer tokens minus question words)."""
    stemmer = _stemmer()
    stop = {stemmer.stemWord(w) for w in QUESTION_WORDS} if stemmer else set(QUESTION_WORDS)
    return [t for t in dict.fromkeys(tokenize([text])[0]) if t and t not in stop]


@dataclass(frozen=True)
class KeywordSnapshot:
    """One generation of the index: everything a search reads, built together and replaced as one object."""

    generation: str | None = None  # the store's ``state_key`` (generation and chunk count) it was built from
    retriever: Any = None
    ids: tuple[str, ...] = ()
    hashes: Mapping[str, str] = field(default_factory=dict)
    df: np.ndarray = field(default_factory=lambda: np.zeros(0))
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)  # paper chunk id -> its stored embedding
    records: Mapping[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # paper chunk id -> (document, metadata)
    masks: dict[frozenset[str], np.ndarray] = field(default_factory=dict, compare=False)  # filter -> its papers (see mask)

    def content_hash(self, paper_id: str) -> str | None:
        return self.hashes.get(paper_id)

    def paper_vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        """The stored embeddings of those paper chunks this generation holds (a chunk id names its content
        version, so a held vector is that chunk's; the others must be read from the store)."""
        return {cid: self.vectors[cid] for cid in chunk_ids if cid in self.vectors}

    def paper_records(self, chunk_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """(document, metadata) of those paper chunks this generation holds, like ``PaperStore.chunks``."""
        return {cid: self.records[cid] for cid in chunk_ids if cid in self.records}

    def idf(self, terms: list[str]) -> dict[str, float]:
        n = len(self.ids)
        vocab: dict[str, int] = self.retriever.vocab_dict if self.retriever is not None and n else {}
        out = {}
        for term in terms:
            index = vocab.get(term)
            df = float(self.df[index]) if index is not None and index < len(self.df) else 0.0
            out[term] = float(np.log(1 + (n - df + 0.5) / (df + 0.5)))
        return out

    def mask(self, allowed: frozenset[str]) -> np.ndarray:
        """Which of this generation's papers are in ``allowed`` (kept for the next searches with the same filter)."""
        found = self.masks.get(allowed)
        if found is None:
            found = np.fromiter((pid in allowed for pid in self.ids), dtype=bool, count=len(self.ids))
            if len(self.masks) >= 8:
                self.masks.clear()
            self.masks[allowed] = found
        return found

    def search(self, query: str, n: int, allowed: frozenset[str] | None = None) -> list[tuple[str, float]]:
        """Top ``n`` papers by BM25 (score > 0), among the ``allowed`` paper ids if given."""
        if not self.ids or self.retriever is None:
            return []
        tokens = tokenize([query])
        if not tokens or not tokens[0]:
            return []
        # bm25s only scores tokens in its vocabulary; unknown ones simply contribute nothing
        vocab = self.retriever.vocab_dict
        known = [t for t in tokens[0] if t in vocab]
        if not known:
            return []
        scores = self.retriever.get_scores(known)
        if allowed is not None:
            scores = np.where(self.mask(allowed), scores, 0.0)
        n = min(n, len(self.ids))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top])]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]


def analyzer_key() -> str:
    """What decides the tokens (stemmer, stopwords, bm25s version): part of the cache key, so a changed
    analyser (PyStemmer missing, another stopword list) never reuses an index built with another."""
    import bm25s
    from bm25s.stopwords import STOPWORDS_EN

    stemmer = "porter-english" if _stemmer() else "none"
    stop = hashlib.sha256("\n".join(sorted(STOPWORDS_EN)).encode()).hexdigest()[:12]
    return f"{stemmer}|{stop}|{getattr(bm25s, '__version__', '?')}|k1=1.2|b=0.75"


class KeywordIndex:
    """BM25 over paper texts, keyed by paper id; rebuilt lazily when the store's generation changes.

    The state of one generation is a ``KeywordSnapshot`` swapped as one reference; one thread builds at a
    time (under a lock no search waits on once an index exists); every search takes the reference once,
    so a search never mixes two generations.
    """

    def __init__(self, store: PaperStore) -> None:
        self.store = store
        key = hashlib.sha256(f"{store.location}|{store.settings.collection}|{analyzer_key()}".encode()).hexdigest()[:16]
        self.root = store.settings.cache_dir / "bm25" / key
        self._lock = threading.Lock()
        self._state = KeywordSnapshot()

    def _load_or_build(self, generation: str) -> KeywordSnapshot:
        import bm25s

        folder = self.root / generation
        try:
            retriever = bm25s.BM25.load(str(folder), load_corpus=False, mmap=False)
            ids = json.loads((folder / "paper_ids.json").read_text())
            hashes = json.loads((folder / "paper_hashes.json").read_text())
            records = {cid: (doc, meta) for cid, doc, meta in json.loads((folder / "paper_records.json").read_text())}
            vector_ids = json.loads((folder / "vector_ids.json").read_text())
            matrix = np.load(folder / "vectors.npy")
        except Exception:
            retriever, ids, hashes, records, vectors = self._build()
            vector_ids = list(vectors)  # keyword-only candidates are scored from these, not read per query
            matrix = np.stack([vectors[i] for i in vector_ids]) if vector_ids else np.zeros((0, 0), dtype=np.float32)
            # a write during the build (another process) changed the generation: use this index for
            # now, but never cache it under a generation whose contents it may not match
            if self.store.state_key == generation:
                self._save(folder, retriever, ids, hashes, vector_ids, matrix, records)
        df = np.diff(retriever.scores["indptr"]) if ids else np.zeros(0)
        return KeywordSnapshot(generation, retriever, tuple(ids), dict(zip(ids, hashes)), df, dict(zip(vector_ids, matrix)), records)

    def _build(self) -> tuple[Any, list[str], list[str], dict[str, tuple[str, dict[str, Any]]], dict[str, np.ndarray]]:
        """BM25 over the paper chunks, their paper ids and versions, and their records and vectors by chunk id (one read)."""
        import bm25s

        ids: list[str] = []
        hashes: list[str] = []
        texts: list[str] = []
        records: dict[str, tuple[str, dict[str, Any]]] = {}
        vectors: dict[str, np.ndarray] = {}
        for cid, doc, meta, vector in self.store.paper_chunks():
            records[cid], vectors[cid] = (doc, meta), vector
            ids.append(str(meta["paper_id"]))
            hashes.append(str(meta.get("paper_hash", "")))
            texts.append(f"{meta.get('title', '')}\n{doc}")
        retriever = bm25s.BM25(k1=1.2, b=0.75)
        if texts:
            retriever.index(tokenize(texts), show_progress=False)
        return retriever, ids, hashes, records, vectors

    def _save(self, folder: Path, retriever: Any, ids: list[str], hashes: list[str], vector_ids: list[str], matrix: np.ndarray,
              records: dict[str, tuple[str, dict[str, Any]]]) -> None:
        if not ids:
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=".tmp-"))
            retriever.save(str(tmp))
            (tmp / "paper_ids.json").write_text(json.dumps(ids))
            (tmp / "paper_hashes.json").write_text(json.dumps(hashes))
            (tmp / "vector_ids.json").write_text(json.dumps(vector_ids))
            np.save(tmp / "vectors.npy", matrix)
            (tmp / "paper_records.json").write_text(json.dumps([[cid, doc, meta] for cid, (doc, meta) in records.items()]))
            os.replace(tmp, folder)
            for old in self.root.iterdir():  # keep only the current generation
                if old.name != folder.name:
                    shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass  # a read-only cache only costs a rebuild next time

    def snapshot(self) -> KeywordSnapshot:
        """The index for the store's current generation (loaded or built when it changed).

        One thread rebuilds at a time; while it does, other threads that already have an index keep
        searching the previous generation's snapshot instead of waiting (during an ingest the generation
        changes after every batch, and answers must not queue behind each rebuild). Dense hits the
        previous snapshot lacks are still found, and keyword hits it names are checked against the store.
        """
        generation = self.store.state_key  # generation and chunk count
        state = self._state
        if state.generation == generation:
            return state
        if not self._lock.acquire(blocking=state.generation is None):
            return state  # another thread is building the new generation: use the previous one meanwhile
        try:
            state = self._state
            if state.generation != generation:
                state = self._state = self._load_or_build(generation)
        finally:
            self._lock.release()
        return state

    def refresh(self) -> None:
        self.snapshot()

    def content_hash(self, paper_id: str) -> str | None:
        """The indexed version (content hash) of a paper, if it is in the index."""
        return self._state.content_hash(paper_id)

    def idf(self, terms: list[str]) -> dict[str, float]:
        """BM25 idf of each term; a term absent from the corpus gets the highest idf."""
        return self.snapshot().idf(terms)

    def search(self, query: str, n: int) -> list[tuple[str, float]]:
        """Top papers for ``query``: (paper id, BM25 score), best first, scores > 0."""
        return self.snapshot().search(query, n)
