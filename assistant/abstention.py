"""Abstention: before any engine runs, decide whether the retrieved papers can answer at all."""

from __future__ import annotations

from assistant.types import Hit
from vectorstore.keyword import tokenize
from vectorstore.store import StoredPaper

COVERAGE_PAPERS = 3  # the question's terms must occur among the papers an answer leads with
NEAREST_SHOWN = 3  # an abstention names this many nearest papers


class AbstentionPolicy:
    """Abstain when the evidence is weak: neither a close dense match nor the question's rare terms.

    ``coverage`` is the idf-weighted share of the question's topical terms found in the top
    papers; a rare name ("Nester") that MiniLM does not know still counts as evidence.
    Thresholds are calibrated by ``benchmarks/abstention.py``.
    """

    def __init__(self, min_dense: float = 0.45, min_coverage: float = 0.6, dense_floor: float = 0.1) -> None:
        self.min_dense = min_dense
        self.min_coverage = min_coverage
        self.dense_floor = dense_floor

    def should_abstain(self, top_dense: float | None, coverage: float) -> bool:
        if top_dense is None:
            return True
        if top_dense >= self.min_dense:
            return False
        return not (coverage >= self.min_coverage and top_dense >= self.dense_floor)

    def decide(self, hits: list[Hit], papers: dict[str, StoredPaper], idf: dict[str, float]) -> bool:
        """True when the retrieved ``hits`` (with their stored ``papers``) do not cover the question's terms ``idf``."""
        return self.should_abstain(hits[0].dense if hits else None, top_coverage(idf, hits, papers))


def term_coverage(idf: dict[str, float], papers: list[StoredPaper]) -> float:
    """Idf-weighted share of query terms that occur in the given papers (title or abstract)."""
    total = sum(idf.values())
    if not total or not papers:
        return 0.0
    present = set().union(*(set(t) for t in tokenize([f"{p.title} {p.abstract}" for p in papers])))
    return sum(w for term, w in idf.items() if term in present) / total


def top_coverage(idf: dict[str, float], hits: list[Hit], papers: dict[str, StoredPaper]) -> float:
    """``term_coverage`` over the first ``COVERAGE_PAPERS`` hits."""
    return term_coverage(idf, [papers[h.paper_id] for h in hits[:COVERAGE_PAPERS] if h.paper_id in papers])


def abstain_text(hits: list[Hit]) -> str:
    """What an abstention says: the papers do not cover the question, and the nearest ones."""
    lines = ["The indexed papers do not cover this question."]
    if hits:
        lines.append("\nNearest papers:")
        lines.extend(f"- {h.title}" for h in hits[:NEAREST_SHOWN])
    return "\n".join(lines)
