"""Hybrid retrieval: dense (Chroma, paper and sentence chunks) + BM25, fused per paper.

``HybridRetriever`` is a LangChain ``BaseRetriever``: drop it into any LCEL chain.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

from assistant.types import Hit
from vectorstore.embeddings import Embedder
from vectorstore.keyword import KeywordIndex, KeywordSnapshot
from vectorstore.store import PaperStore, StoredPaper, chunk_id, nearest_rows, split_chunk_id


OVERSAMPLE_SHARE = 0.08  # a filter keeping at least this share of the papers: search unfiltered deeper and mask (see _nearest)
MAX_OVERSAMPLE = 3000  # ... at most this many chunks deep
SUBSET_PAPERS = 3000  # a filter keeping at most this many papers: their chunks' vectors are read once and compared exactly
SUBSET_CHUNKS_HELD = 50_000  # ... and the most recent such subsets are kept in memory up to this many chunks in all (~77 MB)
EXACT_CHUNKS = 60_000  # a store of at most this many chunks is searched exactly in memory (~92 MB of vectors, held per
                       # generation): a scan of 36k rows takes ~3 ms on 2 cores, Chroma's HNSW query ~4-5 ms, and exact
                       # recall is 1. Past it (about 6,000 papers) Chroma's index answers: a scan grows with the store.


@dataclass(frozen=True)
class FusionConfig:
    """How dense and keyword rankings are combined (defaults chosen by benchmarks/retrieval.py)."""

    method: str = "convex"  # "convex" (normalized score blend) or "rrf"
    dense_weight: float = 0.5  # convex: weight of the dense score; rrf: weight of the dense rank
    rrf_k: int = 60
    sentence_weight: float = 0.5  # dense paper score = max(paper chunk, w * best sentence + (1-w) * paper)
    pool: int = 40  # candidates taken from each side


def _minmax(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.ones_like(values)


def fuse(dense: np.ndarray, bm25: np.ndarray, f: FusionConfig) -> np.ndarray:
    """Combine per-paper dense and BM25 scores into one ranking score."""
    if f.method == "dense":
        return dense
    if f.method == "bm25":
        return bm25
    if f.method == "rrf":
        rank_d = np.argsort(np.argsort(-dense))
        rank_k = np.argsort(np.argsort(-bm25))
        score_k = np.where(bm25 > 0, 1.0 / (f.rrf_k + rank_k + 1), 0.0)
        return f.dense_weight / (f.rrf_k + rank_d + 1) + (1 - f.dense_weight) * score_k
    return f.dense_weight * _minmax(dense) + (1 - f.dense_weight) * _minmax(bm25)


def sentence_of(paper_chunk: tuple[str, dict[str, Any]], index: int) -> tuple[str, dict[str, Any]] | None:
    """Sentence chunk ``index`` (document, metadata) cut from its paper chunk by the spans ingest recorded
    (None for stores written before the spans were)."""
    abstract, meta = paper_chunk
    spans = str(meta.get("spans") or "").split(",")
    if not meta.get("spans") or not 1 <= index <= len(spans):
        return None
    start, end = (int(x) for x in spans[index - 1].split(":"))
    shared = {k: v for k, v in meta.items() if k not in ("spans", "extra")}
    return abstract[start:end], {**shared, "kind": "sentence", "chunk": index, "start": start, "end": end}


@dataclass
class Candidates:
    """Candidate papers of one query with their dense and keyword scores (ids only, no documents)."""

    ids: list[str]
    dense: np.ndarray
    bm25: np.ndarray
    versions: dict[str, str]  # paper id -> committed content hash
    best_sentence: dict[str, tuple[float, str]]  # paper id -> (similarity, sentence chunk id)
    paper_sim: dict[str, float]
    snapshot: KeywordSnapshot  # the keyword index generation they were read with (holds the paper chunks)


class HybridRetriever(BaseRetriever):
    """Paper-level hybrid retriever over a ``PaperStore``; ``search`` returns ``Hit`` objects."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: PaperStore
    keyword: KeywordIndex
    embedder: Embedder
    k: int = 10
    fusion: FusionConfig = FusionConfig()
    _subsets: OrderedDict[tuple[str | None, frozenset[str]], tuple[list[str], np.ndarray]] = PrivateAttr(default_factory=OrderedDict)
    _subsets_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _whole: tuple[str | None, list[str] | None, np.ndarray | None] = PrivateAttr(default=("", None, None))

    def search(self, query: str, k: int | None = None, timings: dict[str, float] | None = None,
               vector: np.ndarray | None = None, allowed: set[str] | None = None) -> list[Hit]:
        """The top ``k`` papers for ``query``, best first (``vector``: its embedding, if known; ``allowed``: only these paper ids)."""
        return self.retrieve(query, k, timings, vector, allowed)[0]

    def retrieve(self, query: str, k: int | None = None, timings: dict[str, float] | None = None,
                 vector: np.ndarray | None = None, allowed: set[str] | None = None) -> tuple[list[Hit], dict[str, StoredPaper]]:
        """Like ``search``, plus the stored papers of the hits (read in the same Chroma call)."""
        k = k or self.k
        timings = timings if timings is not None else {}
        if allowed is not None and not allowed:
            return [], {}
        cands = self.candidates(query, max(self.fusion.pool, k), timings, vector, allowed)
        t0 = time.perf_counter()
        fused = fuse(cands.dense, cands.bm25, self.fusion)
        order = [int(i) for i in np.argsort(-fused, kind="stable")[:k]]
        top = [cands.ids[i] for i in order]
        # documents and metadata only for the papers shown: the paper chunk and its best sentence
        wanted = [chunk_id(pid, cands.versions[pid], 0) for pid in top]
        chunks = cands.snapshot.paper_records(wanted)  # the keyword snapshot holds the paper chunks
        for pid in top:  # a sentence chunk is a span of its paper chunk, which records the spans
            if pid in cands.best_sentence and (paper_chunk := chunks.get(chunk_id(pid, cands.versions[pid], 0))):
                sentence = sentence_of(paper_chunk, split_chunk_id(cands.best_sentence[pid][1])[2])
                if sentence is not None:
                    chunks[cands.best_sentence[pid][1]] = sentence
        wanted += [cands.best_sentence[pid][1] for pid in top if pid in cands.best_sentence]
        chunks.update(self.store.chunks([cid for cid in wanted if cid not in chunks]))  # read the rest
        hits: list[Hit] = []
        papers: dict[str, StoredPaper] = {}
        meta: dict[str, Any]
        for i, pid in zip(order, top):
            found = chunks.get(chunk_id(pid, cands.versions[pid], 0))
            if found is None:  # deleted by a concurrent ingest since the candidates were read
                continue
            paper = papers[pid] = StoredPaper.from_chunk(*found)
            text, meta = "", {}
            if pid in cands.best_sentence and cands.best_sentence[pid][1] in chunks:
                text, meta = chunks[cands.best_sentence[pid][1]]
            hits.append(Hit(
                paper_id=pid, title=paper.title, url=paper.url, authors=paper.authors, venue=paper.venue,
                content_hash=paper.content_hash, score=float(fused[i]), dense=float(cands.dense[i]), keyword=float(cands.bm25[i]),
                text=text or "", start=int(meta.get("start", 0)), end=int(meta.get("end", 0)),
            ))
        timings["fuse"] = time.perf_counter() - t0
        return hits, papers

    def _subset(self, allowed: frozenset[str], generation: str | None) -> tuple[list[str], np.ndarray]:
        """The chunk ids and vectors of the allowed papers, read once per store generation and kept for the
        next questions with the same filter (a researcher asks several)."""
        key = (generation, allowed)
        with self._subsets_lock:
            if key in self._subsets:
                self._subsets.move_to_end(key)
                return self._subsets[key]
        held = self.store.vectors_among(allowed)
        with self._subsets_lock:
            self._subsets[key] = held
            while len(self._subsets) > 1 and sum(len(ids) for ids, _ in self._subsets.values()) > SUBSET_CHUNKS_HELD:
                self._subsets.popitem(last=False)
        return held

    def _whole_store(self, generation: str | None) -> tuple[list[str] | None, np.ndarray | None]:
        """Every chunk's id and vector when the store is embedded and has at most ``EXACT_CHUNKS`` chunks (read once
        per store generation, then held), else ``(None, None)``: Chroma's index is searched."""
        held_for, ids, vectors = self._whole
        if held_for != generation:
            snapshot = self.keyword.snapshot()
            chunks = sum(int(meta.get("n_chunks", 1)) for _, meta in snapshot.records.values())
            embedded = self.store.settings.chroma_url is None  # a server's vectors stay there: reading them all costs network
            ids, vectors = self.store.all_vectors() if embedded and chunks <= EXACT_CHUNKS else (None, None)
            self._whole = (generation, ids, vectors)
        return ids, vectors

    def _nearest(self, vector: np.ndarray, n: int, allowed: frozenset[str] | None, generation: str | None) -> list[tuple[str, float]]:
        """The ``n`` nearest chunks of the allowed papers. Chroma's filtered query costs tens of ms, and more with
        thousands of ids, so up to ``SUBSET_PAPERS`` papers are compared exactly (their vectors read once per
        filter and store generation, then held), a larger subset is searched unfiltered ``1/share`` times deeper
        and masked, and only a mask that leaves fewer than ``n`` goes through Chroma's filter."""
        if allowed is None:
            ids, vectors = self._whole_store(generation)
            if ids is not None and vectors is not None:
                return nearest_rows(ids, vectors, vector, n)
            return self.store.nearest_ids(vector.tolist(), n=n)
        if len(allowed) <= SUBSET_PAPERS:
            return nearest_rows(*self._subset(allowed, generation), vector, n)
        share = len(allowed) / max(len(self.keyword.snapshot().ids), 1)
        if share >= OVERSAMPLE_SHARE:
            deeper = self.store.nearest_ids(vector.tolist(), n=min(int(n / share * 2), MAX_OVERSAMPLE))
            kept = [hit for hit in deeper if split_chunk_id(hit[0])[0] in allowed][:n]
            if len(kept) >= n:
                return kept
        return self.store.nearest_ids(vector.tolist(), n=n, where={"paper_id": {"$in": sorted(allowed)}})

    def candidates(self, query: str, pool: int, timings: dict[str, float] | None = None,
                   vector: np.ndarray | None = None, allowed: set[str] | None = None) -> Candidates:
        """Union of the dense and keyword candidates, each with both scores (before fusion).

        Reads chunk ids and distances only: a chunk id names its paper, version and position,
        and a paper chunk commits its version, so only candidates without one in the pool need a lookup.
        """
        timings = timings if timings is not None else {}
        t0 = time.perf_counter()
        if vector is None:
            vector = self.embedder.encode([query])[0]
            timings["embed"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        # a filter applies before ranking: the dense side compares only the allowed papers' chunks, BM25 only their scores
        subset = frozenset(allowed) if allowed is not None else None
        indexed_now = self.keyword.snapshot()  # one generation for the search and the versions it names
        nearest = self._nearest(vector, pool * 3, subset, indexed_now.generation)
        t2 = time.perf_counter()
        keyword = dict(indexed_now.search(query, pool, subset))
        t3 = time.perf_counter()
        timings.update(dense=t2 - t1, keyword=t3 - t2)

        paper_sim: dict[tuple[str, str], float] = {}
        best_sentence: dict[tuple[str, str], tuple[float, str]] = {}
        for cid, sim in nearest:
            pid, version, index = split_chunk_id(cid)
            key = (pid, version)
            if index == 0:
                paper_sim[key] = max(sim, paper_sim.get(key, -1.0))
            elif sim > best_sentence.get(key, (-1.0, ""))[0]:
                best_sentence[key] = (sim, cid)
        indexed = [(pid, indexed_version) for pid in keyword if (indexed_version := indexed_now.content_hash(pid))]
        keys = list(dict.fromkeys([*paper_sim, *best_sentence, *indexed]))
        unseen = {chunk_id(pid, version, 0): (pid, version) for pid, version in keys if (pid, version) not in paper_sim}
        # exact paper-chunk similarity for candidates the dense pool missed; absent = not committed
        t4 = time.perf_counter()
        held = indexed_now.paper_vectors(list(unseen))  # the keyword snapshot holds every committed paper chunk's vector
        for cid, emb in [*held.items(), *self.store.chunk_embeddings([c for c in unseen if c not in held]).items()]:
            paper_sim[unseen[cid]] = float(np.dot(vector, emb))
        timings["lookup"] = time.perf_counter() - t4
        versions: dict[str, str] = {}
        for pid, version in (key for key in keys if key in paper_sim):  # committed only; two versions only mid-update
            if pid not in versions or paper_sim[(pid, version)] > paper_sim[(pid, versions[pid])]:
                versions[pid] = version
        ids = list(versions)
        w = self.fusion.sentence_weight
        sims = {pid: paper_sim[(pid, v)] for pid, v in versions.items()}
        sentences = {pid: best_sentence[(pid, v)] for pid, v in versions.items() if (pid, v) in best_sentence}
        dense = np.array([
            max(sims[pid], w * sentences[pid][0] + (1 - w) * sims[pid]) if pid in sentences else sims[pid]
            for pid in ids
        ])
        bm25 = np.array([keyword.get(pid, 0.0) for pid in ids])
        return Candidates(ids, dense, bm25, versions, sentences, sims, indexed_now)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits, papers = self.retrieve(query, self.k)
        return [
            Document(page_content=papers[h.paper_id].abstract, metadata=h.model_dump(), id=h.paper_id)
            for h in hits if h.paper_id in papers
        ]
