"""Evidence: the first ``k`` retrieved papers, each with its sentences ranked for the question.

Engines write from evidence and the verifier checks against it, so what an answer can cite is
decided here.
"""

from __future__ import annotations

import re
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
ANSWER_COSINE_WEIGHT = 0.4  # the same share when ordering one paper's sentences for an answer (``_answer_order``)
OPENING_PENALTY = 0.02  # ... where an abstract's first sentence (its motivation) is answered by later ones
IDENTIFYING_WEIGHT = 0.3  # ... a question word that only identifies the paper counts this share (``Focus``)

_WH_START = r"(?:what|which|how|why|who|whom|when|where|does|do|did|is|are|was|were|can|could|has|have)\b"
# "In the work that uses LLMs to generate tasks, which LLM …?": the opening clause names the paper
_IDENTIFYING_LEAD = re.compile(r"^\s*(?:in|for|on|within|from|across|regarding|according\s+to|under|with)\b[^?]*?,\s*(?=" + _WH_START + ")",
                               re.IGNORECASE)
# "… combined with UCB in the distribution-free bandit algorithm that needs …?", "…, according to the sober-look study?"
_IDENTIFYING_TAIL = re.compile(
    r"(?:,\s*)?\b(?:according\s+to|in|of|by|for|from|behind|within)\s+(?:the|a|an|this)\s+(?:[\w'’,-]+\s+){0,8}?"
    r"(?:work|paper|study|approach|method|framework|model|algorithm|analysis|authors|system|technique|benchmark|pipeline|"
    r"architecture|paradigm|setting|estimator|network|metric|procedure|scheme|strategy|formulation|theory|policy|agent|"
    r"dataset|research)s?\b.*$", re.IGNORECASE | re.DOTALL)


# a name the question writes: two capitals in one word ("ASY-DAGP", "QFM-IQM", "CHELA", "AminoAseed")
_NAME = re.compile(r"\b[\w-]*[A-Z][\w-]*[A-Z][\w-]*\b")


@dataclass(frozen=True)
class Focus:
    """What a question asks, as against the words that only say which paper it is about (``_answer_order``).

    - "In the work that uses LLMs to generate category-learning tasks, which LLM was used?" asks "which LLM was used?":
      the sentences that repeat the identifying clause describe the paper, the one with the asked words answers it.
    - "Does the analysis of ASY-DAGP rely on Lyapunov functions?": a name that recurs in the paper's sentences is the
      paper's own, which names it as its title does; the answer is the sentence with "Lyapunov".
    """

    vector: np.ndarray | None  # the asked part's embedding (unit length), when a clause only identifies the paper
    identifying: frozenset[str]  # terms of the identifying clause the asked part lacks
    names: frozenset[str]  # terms of the names the question writes: the paper's own where two of its sentences have them

    def weight(self, term: str, sentences: list[set[str]]) -> float:
        """``IDENTIFYING_WEIGHT`` for a term that only identifies the paper, else 1."""
        own = term in self.names and sum(term in present for present in sentences) >= 2
        return IDENTIFYING_WEIGHT if term in self.identifying or own else 1.0


def asked_part(question: str) -> tuple[str, str] | None:
    """``(asked, identifying)``: the question split into what it asks and the clause that names its paper ("In the
    work that …, what …?", "… in the method that …?", "…, according to the X study?"); None when no clause does."""
    lead = _IDENTIFYING_LEAD.match(question)
    start = lead.end() if lead else 0
    tail = _IDENTIFYING_TAIL.search(question, start)
    end = tail.start() if tail else len(question)
    asked = " ".join(question[start:end].split())
    if (not lead and not tail) or not asked:
        return None
    return asked, " ".join((question[:start] + " " + question[end:]).split())


def focus_of(question: str, embed: Callable[[list[str]], np.ndarray]) -> Focus | None:
    """The question's ``Focus`` (one more encode call when a clause only identifies the paper), or None when it has
    neither such a clause nor a name."""
    names = frozenset(t for name in _NAME.findall(question) for t in tokenize([name])[0])
    parts = asked_part(question)
    if parts is None:
        return Focus(None, frozenset(), names) if names else None
    asked, identifying = parts
    terms = tokenize([asked, identifying])
    return Focus(embed([asked])[0], frozenset(terms[1]) - frozenset(terms[0]), names)


@dataclass
class Evidence:
    """A source plus its sentences ranked for the question (for prompts and extractive answers)."""

    source: Source
    sentences: list[tuple[int, int, float]]  # (start, end, relevance) best first


def rank_sentences(question_vec: np.ndarray, idf: dict[str, float], sentences: list[tuple[str, dict[str, Any], np.ndarray]],
                   embed: Callable[[list[str]], np.ndarray] | None = None,
                   cosine_weight: float = COSINE_WEIGHT, title: str | None = None,
                   focus: Focus | None = None) -> list[tuple[int, int, float]]:
    """Score a paper's sentences for the question: cosine similarity plus idf-weighted term overlap.

    ``embed`` re-embeds the bare sentences (the stored vectors carry the title, which makes every
    sentence of a paper look alike); without it the stored vectors are used. The score is comparable
    across papers (``selection`` uses it to decide which papers an answer quotes).

    With the paper's ``title``, the sentences are ordered by ``_answer_order`` instead (each keeps its score):
    which sentence of this paper answers the question, not how relevant the paper is; ``focus`` (``focus_of``) makes
    that order read what the question asks rather than the clause that identifies the paper.
    """
    if not sentences:
        return []
    total = sum(idf.values()) or 1.0
    tokens = [set(words) for words in tokenize([doc for doc, _, _ in sentences])]
    stored = np.asarray([e for _, _, e in sentences], dtype=np.float32)
    vectors = embed([doc for doc, _, _ in sentences]) if embed else stored
    cosines = vectors @ question_vec
    scores = _blend(cosine_weight, cosines, idf, tokens, total)
    starts = [int(meta["start"]) for _, meta, _ in sentences]
    order = _answer_order(question_vec, idf, tokens, stored, title, total, starts, focus) if title is not None else scores
    ranked = sorted(zip(order, ((int(meta["start"]), int(meta["end"]), score) for (_, meta, _), score in zip(sentences, scores))),
                    key=lambda pair: -pair[0])
    return [sentence for _, sentence in ranked]


def _blend(cosine_weight: float, cosines: np.ndarray, weight: dict[str, float], tokens: list[set[str]], total: float) -> list[float]:
    """Per sentence: ``cosine_weight`` of its cosine plus the rest of the share of ``total`` its terms carry."""
    return [cosine_weight * float(cosine) + (1 - cosine_weight) * sum(w for t, w in weight.items() if t in present) / total
            for present, cosine in zip(tokens, cosines)]


def _answer_order(question_vec: np.ndarray, idf: dict[str, float], tokens: list[set[str]], stored: np.ndarray,
                  title: str, total: float, starts: list[int], focus: Focus | None = None) -> list[float]:
    """How well each sentence of one paper answers the question, compared within the paper only.

    The question's words that the title holds say which paper is meant (retrieval found it by them); the
    sentence that answers is the one with the *other* words. So the title's terms count nothing here, and a
    term counts more the fewer of the paper's sentences have it. The cosine is the stored ``title: sentence``
    vector's, which keeps what "we" and "it" refer to. The abstract's first sentence, which sets out the problem, loses
    ``OPENING_PENALTY``. With a ``focus``, the cosine is the asked part's, and a term that only identifies the paper (in
    the identifying clause alone, or of the paper's own name) counts ``IDENTIFYING_WEIGHT``. The settings were chosen
    on ``benchmarks/data/answerability_train1-3`` and are reported on files 4-6 and the near-miss sets' answerable
    questions (``python -m benchmarks.sentences``).
    """
    titled = set(tokenize([title])[0])
    n = len(tokens)
    vector = focus.vector if focus is not None and focus.vector is not None else question_vec
    weight = {t: w * (focus.weight(t, tokens) if focus is not None else 1.0)
              * np.log(1 + n / (1 + sum(t in present for present in tokens))) / np.log(1 + n) for t, w in idf.items() if t not in titled}
    first = min(starts)
    return [score - OPENING_PENALTY * (start == first)
            for score, start in zip(_blend(ANSWER_COSINE_WEIGHT, stored @ vector, weight, tokens, total), starts)]


def select_evidence(store: PaperStore, embed: Callable[[list[str]], np.ndarray], vector: np.ndarray, idf: dict[str, float],
                    hits: list[Hit], papers: dict[str, StoredPaper], k: int, reembedded: int | None = None,
                    answer: bool = False) -> list[Evidence]:
    """The first ``k`` hits as numbered sources, with the sentences of the retrieved version ranked
    (bare sentences re-embedded for the first ``reembedded`` papers, default ``REEMBEDDED_PAPERS``);
    ``answer``: each paper's sentences in the order that answers a question about it (``_answer_order``)."""
    reembedded = REEMBEDDED_PAPERS if reembedded is None else reembedded
    chosen = [h for h in hits[:k] if h.paper_id in papers]
    by_paper = _stored_sentences(store, [h.paper_id for h in chosen], papers)
    evidence = []
    for number, hit in enumerate(chosen, 1):
        paper = papers[hit.paper_id]
        source = Source(number, paper.id, paper.title, paper.abstract, paper.url, paper.authors, paper.venue)
        evidence.append(Evidence(source, rank_sentences(
            vector, idf, by_paper.get(hit.paper_id, []), embed=embed if number <= reembedded else None,
            title=paper.title if answer else None)))
    return evidence


def refocus(store: PaperStore, evidence: list[Evidence], papers: dict[str, StoredPaper], question_vec: np.ndarray,
            idf: dict[str, float], focus: Focus) -> list[Evidence]:
    """``evidence`` (answer order) with each paper's sentences in the answer order read through ``focus``; each
    sentence keeps its score. The stored vectors of the same versions are fetched again: no sentence is embedded."""
    by_paper = _stored_sentences(store, [ev.source.paper_id for ev in evidence], papers)
    focused = []
    for ev in evidence:
        scores = {(start, end): score for start, end, score in ev.sentences}
        rows = by_paper.get(ev.source.paper_id, [])
        if {(int(meta["start"]), int(meta["end"])) for _, meta, _ in rows} != set(scores):
            focused.append(ev)  # the stored version changed since the evidence was read: keep its order
            continue
        order = rank_sentences(question_vec, idf, rows, title=ev.source.title, focus=focus)
        focused.append(Evidence(ev.source, [(start, end, scores[(start, end)]) for start, end, _ in order]))
    return focused


def _stored_sentences(store: PaperStore, ids: list[str],
                      papers: dict[str, StoredPaper]) -> dict[str, list[tuple[str, dict[str, Any], np.ndarray]]]:
    """Each paper's stored sentences (text, metadata, vector) of the version in ``papers``."""
    by_paper: dict[str, list[tuple[str, dict[str, Any], np.ndarray]]] = {}
    for doc, meta, emb in store.sentences_of(ids):
        paper = papers.get(str(meta["paper_id"]))
        if paper is not None and meta.get("paper_hash") == paper.content_hash:
            by_paper.setdefault(str(meta["paper_id"]), []).append((doc, meta, emb))
    return by_paper
