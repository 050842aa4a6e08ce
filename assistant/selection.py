"""Select first, then write: which papers and sentences an answer is built from, by question shape.

Every engine answers from the same selection: the extractive engine prints it, LLM engines
condense it. A paper is in the answer only when its best sentence is about as relevant to the
question as the lead paper's (``PAPER_MARGIN``), so answers do not pad with unrelated papers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assistant.engines import Evidence

Shape = Literal["single", "list", "compare"]

_LIST = re.compile(
    r"^\s*(which|what)\s+(other\s+)?(papers|works|studies|articles|methods)\b|\b(list|show|find|name)\s+(me\s+)?(all\s+)?(the\s+)?"
    r"(papers|works|studies)\b|\ball\s+(the\s+)?papers\b|\bhow\s+many\s+papers\b|\bany\s+papers\b|\bpapers\s+(that|which|on|about)\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(r"\b(compare|comparison|contrast|versus|vs\.?|difference|differences|differ)\b", re.IGNORECASE)

LEAD_SENTENCES = 3     # single-paper answers: the lead paper's best sentences (in abstract order)
PAPER_MARGIN = 0.85    # another paper joins a single answer when its best sentence is this close to the lead's
LIST_MARGIN = 0.6      # a paper belongs in a list answer when its best sentence is this close to the best paper's
LIST_FLOOR = 0.3       # ... and at least this relevant on its own (cosine/term-overlap blend, see rank_sentences)
MAX_SINGLE_PAPERS = 2  # a single-paper question quotes at most this many papers


def question_shape(question: str) -> Shape:
    """``list`` for "which papers …", ``compare`` for "compare A and B", else ``single``."""
    if _COMPARE.search(question) and re.search(r"\band\b|\bwith\b|\bvs\b|\bversus\b|,", question, re.IGNORECASE):
        return "compare"
    if _LIST.search(question):
        return "list"
    return "single"


@dataclass(frozen=True)
class Pick:
    """One sentence chosen for the answer: ``evidence.source.abstract[start:end]``."""

    evidence: Evidence
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.evidence.source.abstract[self.start : self.end].strip()


def _best(ev: Evidence) -> float:
    return ev.sentences[0][2] if ev.sentences else 0.0


def select(question: str, evidence: list[Evidence], shape: Shape | None = None) -> list[Pick]:
    """The sentences that answer ``question``, lead paper first."""
    evidence = [ev for ev in evidence if ev.sentences]
    if not evidence:
        return []
    shape = shape or question_shape(question)
    lead = evidence[0]
    best = _best(lead)
    if shape == "list":
        top = max(_best(ev) for ev in evidence)
        members = [ev for ev in evidence if _best(ev) >= max(LIST_FLOOR, LIST_MARGIN * top)]
        return [Pick(ev, ev.sentences[0][0], ev.sentences[0][1]) for ev in members]
    if shape == "compare":
        return [Pick(ev, ev.sentences[0][0], ev.sentences[0][1]) for ev in evidence[:2]]
    picks = [Pick(lead, s, e) for s, e, _ in sorted(lead.sentences[:LEAD_SENTENCES])]
    for ev in evidence[1:MAX_SINGLE_PAPERS]:
        if _best(ev) >= PAPER_MARGIN * best:
            picks.append(Pick(ev, ev.sentences[0][0], ev.sentences[0][1]))
    return picks


def render(picks: list[Pick], shape: Shape) -> str:
    """Markdown lines with markers: a bold title where a paper first appears."""
    lines, seen = [], set()
    for pick in picks:
        source = pick.evidence.source
        head = f"**{source.title}**: " if source.number not in seen else ""
        seen.add(source.number)
        lines.append(f"- {head}{pick.text} [{source.number}]")
    if shape == "list" and lines:
        count = len(seen)
        lines.insert(0, f"{count} paper{'s' if count != 1 else ''} here {'match' if count != 1 else 'matches'}:")
    return "\n".join(lines)


NEAR_MISS_SHARE = 0.4  # share of the question's idf weight that no selected paper mentions: on topic, not answered


def unanswered(question: str, idf: dict[str, float], picks: list[Pick]) -> list[str]:
    """The question's topical words that none of the selected papers mentions, when they carry at
    least ``NEAR_MISS_SHARE`` of its idf weight (a near miss: the papers are on the topic, none says
    what was asked); else ``[]``."""
    from vectorstore.keyword import tokenize

    total = sum(idf.values())
    if not total or not picks:
        return []
    sources = {p.evidence.source.number: p.evidence.source for p in picks}.values()
    present = set().union(*(set(t) for t in tokenize([f"{s.title} {s.abstract}" for s in sources])))
    missing = {term for term in idf if term not in present}
    if sum(idf[t] for t in missing) / total < NEAR_MISS_SHARE:
        return []
    words = re.findall(r"[\w-]+", question)
    stems = tokenize(words)
    return list(dict.fromkeys(w for w, s in zip(words, stems) if s and s[0] in missing))
