"""Select first, then write: which papers and sentences an answer is built from, by question shape.

Every engine answers from the same selection: the extractive engine prints it, LLM engines
condense it. A paper is in the answer only when its best sentence is about as relevant to the
question as the lead paper's (``PAPER_MARGIN``), so answers do not pad with unrelated papers.
"""

from __future__ import annotations

import re
from typing import Literal

from assistant.evidence import Evidence

Shape = Literal["single", "list", "compare"]

_LIST = re.compile(
    r"^\s*(which|what)\s+(other\s+)?(papers|works|studies|articles|methods)\b|\b(list|show|find|name)\s+(me\s+)?(all\s+)?(the\s+)?"
    r"(papers|works|studies)\b|\ball\s+(the\s+)?papers\b|\bhow\s+many\s+papers\b|\bany\s+papers\b|\bpapers\s+(that|which|on|about)\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(r"\b(compare|comparison|contrast|versus|vs\.?|difference|differences|differ)\b", re.IGNORECASE)

LIST_POOL = 300        # a list question's candidates: this many papers from each retriever (dense and BM25), then a cut-off
LIST_SHOWN = 10        # papers on one page of a list answer (the rest: ``Assistant.list_page``)
# List membership (assistant/lists.py): score = w * dense similarity + (1 - w) * idf-weighted topic-word coverage;
# a member scores >= LIST_CUTOFF and >= LIST_RELATIVE * the best candidate's. Fitted by `python -m benchmarks.lists`
# on the calibration half of benchmarks/data/list_topics.jsonl (9 topics; macro F1 smoothed over neighbouring grid
# points): macro F1 0.812 there, 0.840 on the 8 held-out topics (README, Quality: lists).
LIST_DENSE_WEIGHT = 0.7
LIST_CUTOFF = 0.5
LIST_RELATIVE = 0.7
LEAD_SENTENCES = 3     # single-paper answers: the lead paper's best sentences (in abstract order)
PAPER_MARGIN = 0.85    # another paper joins a single answer when its best sentence is this close to the lead's
MAX_SINGLE_PAPERS = 2  # a single-paper question quotes at most this many papers


def question_shape(question: str) -> Shape:
    """``list`` for "which papers …", ``compare`` for "compare A and B", else ``single``."""
    if _COMPARE.search(question) and re.search(r"\band\b|\bwith\b|\bvs\b|\bversus\b|,", question, re.IGNORECASE):
        return "compare"
    if _LIST.search(question):
        return "list"
    return "single"


def _best(ev: Evidence) -> float:
    return ev.sentences[0][2] if ev.sentences else 0.0


def _keep(ev: Evidence, n: int) -> Evidence:
    """The paper with only its ``n`` best sentences."""
    return Evidence(ev.source, ev.sentences[:n])


def select(question: str, evidence: list[Evidence], shape: Shape | None = None) -> list[Evidence]:
    """The papers and sentences that answer ``question``, lead paper first (each paper's
    ``sentences`` cut to the chosen ones, best first)."""
    evidence = [ev for ev in evidence if ev.sentences]
    if not evidence:
        return []
    shape = shape or question_shape(question)
    if shape == "list":  # membership is decided over all candidates by assistant.lists; here: each paper's best sentence
        return [_keep(ev, 1) for ev in evidence]
    if shape == "compare":
        return [_keep(ev, 1) for ev in _compared(question, evidence)]
    lead = evidence[0]
    chosen = [_keep(lead, LEAD_SENTENCES)]
    chosen += [_keep(ev, 1) for ev in evidence[1:MAX_SINGLE_PAPERS] if _best(ev) >= PAPER_MARGIN * _best(lead)]
    return chosen


_COMPARE_WORDS = re.compile(r"\b(compare|comparison|contrast|the|differences?|between|how|does|do|differ|from|of)\b", re.IGNORECASE)


def _compared(question: str, evidence: list[Evidence]) -> list[Evidence]:
    """For "compare A and B": the paper that best matches each side (by the words it shares with that side)."""
    from vectorstore.keyword import tokenize

    sides = [p for p in re.split(r"\band\b|\bvs\.?|\bversus\b|\bwith\b|,|\bto\b", _COMPARE_WORDS.sub(" ", question)) if p.strip()]
    texts = tokenize([f"{ev.source.title} {ev.source.abstract}" for ev in evidence])
    chosen: list[Evidence] = []
    for terms in tokenize(sides):
        if not terms:
            continue
        overlap = [(len(set(terms) & set(text)), -i) for i, text in enumerate(texts)]
        best = evidence[-max(overlap)[1]]
        if max(overlap)[0] and best not in chosen:
            chosen.append(best)
    return chosen if len(chosen) >= 2 else evidence[:2]


def render(selected: list[Evidence], shape: Shape) -> str:
    """Markdown lines with markers: a bold title where a paper first appears, sentences in abstract order."""
    lines = []
    for ev in selected:
        for i, (start, end, _) in enumerate(sorted(ev.sentences)):
            head = f"**{ev.source.title}**: " if i == 0 else ""
            lines.append(f"- {head}{ev.source.abstract[start:end].strip()} [{ev.source.number}]")
    if shape == "list" and selected:
        n = len(selected)
        lines.insert(0, f"{n} paper{'s' if n != 1 else ''} here {'match' if n != 1 else 'matches'}:")
    return "\n".join(lines)


NEAR_MISS_SHARE = 0.35  # share of the question's weight that the lead paper never mentions: on topic, not answered


def unanswered(question: str, idf: dict[str, float], selected: list[Evidence]) -> list[str]:
    """The question's words that the selected papers never mention, when they carry at least
    ``NEAR_MISS_SHARE`` of its weight (idf, times rarity in English so "how much" counts little):
    a near miss, the paper is on the topic but does not say what was asked. Else ``[]``."""
    if not idf or not selected:
        return []
    weight, surface = _question_weights(question, idf)
    present = _terms([f"{ev.source.title} {ev.source.abstract}" for ev in selected])
    missing = [term for term in weight if term not in present]
    if sum(weight[t] for t in missing) < NEAR_MISS_SHARE * sum(weight.values()):
        return []
    return [surface.get(t, t) for t in missing]


def _question_weights(question: str, idf: dict[str, float]) -> tuple[dict[str, float], dict[str, str]]:
    from assistant.claims import rarity
    from vectorstore.keyword import tokenize

    words = re.findall(r"[\w-]+", question)
    surface = {stems[0]: word for word, stems in zip(words, tokenize(words)) if stems}
    return {term: value * (0.3 + 0.7 * rarity(surface.get(term, term))) for term, value in idf.items()}, surface


def _terms(texts: list[str]) -> set[str]:
    from vectorstore.keyword import tokenize

    return set().union(*(set(t) for t in tokenize(texts))) if texts else set()


def with_named_paper(question: str, idf: dict[str, float], selected: list[Evidence], evidence: list[Evidence]) -> list[Evidence]:
    """``selected`` plus a paper whose *title* holds most of what the selected papers never mention
    ("Jetfire … and QA-LoRA …": the question names a second paper), up to ``MAX_SINGLE_PAPERS``."""
    if not idf or not selected or len(selected) >= MAX_SINGLE_PAPERS:
        return selected
    weight, _ = _question_weights(question, idf)
    present = _terms([f"{ev.source.title} {ev.source.abstract}" for ev in selected])
    missing = {t: w for t, w in weight.items() if t not in present}
    if not missing:
        return selected
    chosen = {ev.source.paper_id for ev in selected}
    for ev in evidence:
        if ev.source.paper_id not in chosen and ev.sentences:
            title = _terms([ev.source.title])
            if sum(w for t, w in missing.items() if t in title) >= NAMED_SHARE * sum(missing.values()):
                return [*selected, _keep(ev, 1)]
    return selected


NAMED_SHARE = 0.5  # the share of the unanswered words a second paper's title must hold to be the paper the question names


def near_miss_text(missing: list[str], evidence: list[Evidence], papers: int = 3) -> str:
    """What a near miss says: that no paper answers it, what is missing, and the nearest papers' closest sentence."""
    quoted = ", ".join(f"“{w}”" for w in missing[:4])
    nearest = [_keep(ev, 1) for ev in evidence[:papers] if ev.sentences]
    return (f"No paper here says this: the closest one never mentions {quoted}. Nearest papers:\n"
            + render(nearest, "single"))
