"""Hybrid retrieval: dense (Chroma, paper and sentence chunks) + BM25, fused per paper.

``HybridRetriever`` is a LangChain ``BaseRetriever``: drop it into any LCEL chain.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from assistant.types import Hit
from vectorstore.embeddings import Embedder
from vectorstore.keyword import KeywordIndex
from vectorstore.store import PaperStore, StoredPaper, chunk_id


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


@dataclass
class Candidates:
    """Candidate papers of one query with their dense and keyword scores."""

    ids: list[str]
    dense: np.ndarray
    bm25: np.ndarray
    papers: dict[str, StoredPaper]
    best_sentence: dict[str, tuple[float, str, dict[str, Any]]]
    paper_sim: dict[str, float]


class HybridRetriever(BaseRetriever):
    """Paper-level hybrid retriever over a ``PaperStore``; ``search`` returns ``Hit`` objects."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: PaperStore
    keyword: KeywordIndex
    embedder: Embedder
    k: int = 10
    fusion: FusionConfig = FusionConfig()

    def search(self, query: str, k: int | None = None, timings: dict[str, float] | None = None,
               vector: np.ndarray | None = None) -> list[Hit]:
        """The top ``k`` papers for ``query``, best first (``vector``: its embedding, if known)."""
        k = k or self.k
        timings = timings if timings is not None else {}
        cands = self.candidates(query, max(self.fusion.pool, k), timings, vector)
        t0 = time.perf_counter()
        if not cands.ids:
            timings["fuse"] = time.perf_counter() - t0
            return []
        fused = fuse(cands.dense, cands.bm25, self.fusion)
        order = np.argsort(-fused)[:k]
        hits = []
        for i in order:
            pid = cands.ids[i]
            paper = cands.papers[pid]
            sim, text, meta = cands.best_sentence.get(pid, (0.0, "", {}))
            hits.append(Hit(
                paper_id=pid, title=paper.title, url=paper.url, authors=paper.authors, venue=paper.venue,
                content_hash=paper.content_hash, score=float(fused[i]), dense=float(cands.dense[i]), keyword=float(cands.bm25[i]),
                text=text, start=int(meta.get("start", 0)), end=int(meta.get("end", 0)),
            ))
        timings["fuse"] = time.perf_counter() - t0
        return hits

    def candidates(self, query: str, pool: int, timings: dict[str, float] | None = None,
                   vector: np.ndarray | None = None) -> "Candidates":
        """Union of the dense and keyword candidates, each with both scores (before fusion)."""
        timings = timings if timings is not None else {}
        t0 = time.perf_counter()
        vector = self.embedder.encode([query])[0] if vector is None else vector
        t1 = time.perf_counter()
        chunks = self.store.query(vector.tolist(), n=pool * 3)
        t2 = time.perf_counter()
        keyword = dict(self.keyword.search(query, pool))
        t3 = time.perf_counter()
        timings.update(embed=t1 - t0, dense=t2 - t1, keyword=t3 - t2)

        paper_sim: dict[str, float] = {}
        best_sentence: dict[str, tuple[float, str, dict[str, Any]]] = {}
        for _, doc, meta, sim in chunks:
            pid = str(meta["paper_id"])
            if meta.get("kind") == "paper":
                paper_sim[pid] = max(sim, paper_sim.get(pid, -1.0))
            elif sim > best_sentence.get(pid, (-1.0, "", {}))[0]:
                best_sentence[pid] = (sim, doc, meta)
        ids = list(dict.fromkeys([*paper_sim, *best_sentence, *keyword]))
        versions: dict[str, set[str]] = {}
        for _, _, meta, _ in chunks:
            versions.setdefault(str(meta["paper_id"]), set()).add(str(meta.get("paper_hash", "")))
        for pid in keyword:
            indexed = self.keyword.content_hash(pid)
            if indexed:
                versions.setdefault(pid, set()).add(indexed)
        papers = self.store.papers_by_version(versions)  # only committed papers are visible
        ids = [pid for pid in ids if pid in papers]
        missing = [pid for pid in ids if pid not in paper_sim]
        if missing:  # exact paper-chunk similarity for candidates the dense pool missed
            wanted = {chunk_id(pid, papers[pid].content_hash, 0): pid for pid in missing}
            for cid, emb in self.store.chunk_embeddings(list(wanted)).items():
                paper_sim[wanted[cid]] = float(np.dot(vector, np.asarray(emb, dtype=np.float32)))
        w = self.fusion.sentence_weight
        dense = np.array([
            max(paper_sim.get(pid, 0.0), w * best_sentence[pid][0] + (1 - w) * paper_sim.get(pid, 0.0))
            if pid in best_sentence else paper_sim.get(pid, 0.0)
            for pid in ids
        ])
        bm25 = np.array([keyword.get(pid, 0.0) for pid in ids])
        return Candidates(ids, dense, bm25, papers, best_sentence, paper_sim)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        hits = self.search(query, self.k)
        papers = self.store.papers_by_version({h.paper_id: {h.content_hash} for h in hits})
        return [
            Document(page_content=papers[h.paper_id].abstract, metadata=h.model_dump(), id=h.paper_id)
            for h in hits if h.paper_id in papers
        ]
