"""Evidence: the first ``k`` retrieved papers, each with its sentences ranked for the question.

Engines write from evidence and the verifier checks against it, so what an answer can cite is
decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from assistant.types import Hit, Source
from vectorstore.keyword import tokenize
from vectorstore.store import PaperStore, StoredPaper

# Bare sentences are re-embedded for the first papers only: no engine quotes more than three papers'
# sentences (the extractive answer and the LLM prompt), and each re-embedded paper costs an encode call.
REEMBEDDED_PAPERS = 3
COSINE_WEIGHT = 0.5  # sentence relevance = this share of cosine similarity + the rest idf-weighted term overlap


@dataclass
class Evidence:
    """A source plus its sentences ranked for the question (for prompts and extractive answers)."""

    source: Source
    sentences: list[tuple[int, int, float]]  # (start, end, relevance) best first


def rank_sentences(question_vec: np.ndarray, idf: dict[str, float], sentences: list[tuple[str, dict[str, Any], np.ndarray]],
                   embed: Callable[[list[str]], np.ndarray] | None = None,
                   cosine_weight: float = COSINE_WEIGHT) -> list[tuple[int, int, float]]:
    """Score a paper's sentences for the question: cosine similarity plus idf-weighted term overlap.

    ``embed`` re-embeds the bare sentences (the stored vectors carry the title, which makes every
    sentence of a paper look alike); without it the stored vectors are used.
    """
    if not sentences:
        return []
    total = sum(idf.values()) or 1.0
    tokens = tokenize([doc for doc, _, _ in sentences])
    vectors = embed([doc for doc, _, _ in sentences]) if embed else np.asarray([e for _, _, e in sentences], dtype=np.float32)
    cosines = vectors @ question_vec
    ranked = []
    for (doc, meta, _), words, cosine in zip(sentences, tokens, cosines):
        present = set(words)
        overlap = sum(w for t, w in idf.items() if t in present) / total
        ranked.append((int(meta["start"]), int(meta["end"]), cosine_weight * float(cosine) + (1 - cosine_weight) * overlap))
    ranked.sort(key=lambda r: -r[2])
    return ranked


def select_evidence(store: PaperStore, embed: Callable[[list[str]], np.ndarray], vector: np.ndarray, idf: dict[str, float],
                    hits: list[Hit], papers: dict[str, StoredPaper], k: int, reembedded: int | None = None) -> list[Evidence]:
    """The first ``k`` hits as numbered sources, with the sentences of the retrieved version ranked
    (bare sentences re-embedded for the first ``reembedded`` papers, default ``REEMBEDDED_PAPERS``)."""
    reembedded = REEMBEDDED_PAPERS if reembedded is None else reembedded
    chosen = [h for h in hits[:k] if h.paper_id in papers]
    by_paper: dict[str, list[tuple[str, dict[str, Any], np.ndarray]]] = {}
    for doc, meta, emb in store.sentences_of([h.paper_id for h in chosen]):
        if meta.get("paper_hash") == papers[str(meta["paper_id"])].content_hash:
            by_paper.setdefault(str(meta["paper_id"]), []).append((doc, meta, emb))
    evidence = []
    for number, hit in enumerate(chosen, 1):
        paper = papers[hit.paper_id]
        source = Source(number, paper.id, paper.title, paper.abstract, paper.url, paper.authors, paper.venue)
        evidence.append(Evidence(source, rank_sentences(
            vector, idf, by_paper.get(hit.paper_id, []), embed=embed if number <= reembedded else None)))
    return evidence
