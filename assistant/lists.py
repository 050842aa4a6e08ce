"""List answers: which papers match a "which papers …" question, over all candidates, and pages of them.

Membership is decided over hundreds of candidate papers (``LIST_POOL`` from each retriever) from two
cheap paper-level signals: the dense similarity the retriever already computed, and the idf-weighted
share of the topic's terms found in the title and abstract. Best supporting sentences are ranked,
re-embedded and verified only for the papers on the page shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from assistant.evidence import Evidence, select_evidence
from assistant.grounding import verify
from assistant.retrieval import HybridRetriever
from assistant.selection import LIST_CUTOFF, LIST_DENSE_WEIGHT, LIST_POOL, LIST_RELATIVE, render
from assistant.types import Citation, Hit
from vectorstore.keyword import query_terms
from vectorstore.store import StoredPaper, chunk_id

# words that make a question a list question but say nothing about its topic
_LIST_LEAD = re.compile(
    r"^\s*(?:(?:which|what)\s+(?:other\s+)?(?:papers|works|studies|articles|methods)|how\s+many\s+(?:papers|works|studies)|"
    r"(?:list|show|find|name)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:papers|works|studies)|(?:are\s+there\s+)?(?:any|all)\s+(?:the\s+)?papers|(?:papers|works|studies)(?=\s+(?:on|about|that|which|using)\b))"
    r"(?:\s+(?:here|in\s+the\s+store))?(?:\s+(?:are|is|that|which|do|does))?(?:\s+(?:about|on|in|study|studying|use|using|involve|address|there))?\s+",
    re.IGNORECASE,
)
_ALTERNATIVES = re.compile(r",|;|/|\bor\b|\band/or\b|\beither\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\b", re.IGNORECASE)


def list_topic(question: str) -> str:
    """The topic of a list question: "Which papers are about spiking neural networks?" -> "spiking neural networks"."""
    topic = _LIST_LEAD.sub("", question, count=1).strip(" ?.!")
    return topic or question


def is_how_many(question: str) -> bool:
    return bool(_HOW_MANY.search(question))


def membership_score(dense: np.ndarray, coverage: np.ndarray, dense_weight: float = LIST_DENSE_WEIGHT) -> np.ndarray:
    """A candidate's relevance for list membership: a blend of dense similarity and topic-term coverage."""
    return dense_weight * dense + (1 - dense_weight) * coverage


def alternatives(topic: str) -> list[str]:
    """The alternatives of a topic: "protein, DNA or molecule data" -> ["protein", "DNA", "molecule data"]."""
    parts = [p.strip() for p in _ALTERNATIVES.split(topic) if p and p.strip()]
    return parts or [topic]


_WORD = re.compile(r"[a-z0-9]+")
_SUFFIX = re.compile(r"(?:ies|ing|ed|es|s)$")


def forms(word: str) -> set[str]:
    """The inflections a topic word matches: "watermarking" -> watermark, watermarks, watermarking, …
    Stricter than the Porter stem, which maps "continual" and "continuous" to one token."""
    word = word.lower()
    base = _SUFFIX.sub("", word) if len(word) > 4 and not word.endswith("ss") else word
    out = {word, base} | {base + end for end in ("s", "es", "ing", "ed", "e", "er", "ers")}
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    return out


def topic_weights(retriever: HybridRetriever, topic: str) -> list[list[tuple[set[str], float]]]:
    """Per alternative of the topic: each content word's inflections and its idf weight in the store."""
    out = []
    for part in alternatives(topic):
        words = [w for w in dict.fromkeys(_WORD.findall(part.lower())) if query_terms(w)]
        idf = retriever.keyword.idf([query_terms(w)[0] for w in words])
        out.append([(forms(w), idf[query_terms(w)[0]]) for w in words])
    return out


def coverages(weights: list[list[tuple[set[str], float]]], papers: list[StoredPaper]) -> np.ndarray:
    """Per paper: the idf-weighted share of the topic's words (any inflection) in its title or abstract,
    for the alternative it covers best."""
    if not papers:
        return np.zeros(0)
    texts = [set(_WORD.findall(f"{p.title} {p.abstract}".lower())) for p in papers]
    best = np.zeros(len(papers))
    for terms in weights:
        total = sum(w for _, w in terms)
        if total:
            best = np.maximum(best, [sum(w for variants, w in terms if variants & words) / total for words in texts])
    return best


@dataclass
class Candidates:
    """A list question's candidate papers with their membership signals, in retrieval-pool order."""

    ids: list[str]
    dense: np.ndarray
    coverage: np.ndarray
    papers: dict[str, StoredPaper]


def list_candidates(retriever: HybridRetriever, query: str, vector: np.ndarray,
                    allowed: set[str] | None = None, pool: int = LIST_POOL) -> Candidates:
    """The dense and keyword candidates of topic ``query`` (``pool`` from each side, ``vector`` its embedding)
    with their stored papers and membership signals."""
    if allowed is not None and not allowed:
        return Candidates([], np.zeros(0), np.zeros(0), {})
    cands = retriever.candidates(query, pool, vector=vector, allowed=allowed)
    chunks = retriever.store.chunks([chunk_id(pid, cands.versions[pid], 0) for pid in cands.ids])
    papers = {}
    for pid in cands.ids:
        found = chunks.get(chunk_id(pid, cands.versions[pid], 0))
        if found is not None:  # absent: deleted by a concurrent ingest
            papers[pid] = StoredPaper.from_chunk(*found)
    keep = [i for i, pid in enumerate(cands.ids) if pid in papers]
    ids = [cands.ids[i] for i in keep]
    return Candidates(ids, cands.dense[keep], coverages(topic_weights(retriever, query), [papers[pid] for pid in ids]), papers)


def members(cands: Candidates, cutoff: float = LIST_CUTOFF, relative: float = LIST_RELATIVE,
            dense_weight: float = LIST_DENSE_WEIGHT) -> list[str]:
    """The candidates that match, most relevant first: membership score at least ``cutoff`` and at
    least ``relative`` times the best candidate's."""
    if not cands.ids:
        return []
    scores = membership_score(cands.dense, cands.coverage, dense_weight)
    bar = max(cutoff, relative * float(scores.max()))
    order = np.argsort(-scores, kind="stable")
    return [cands.ids[i] for i in order if scores[i] >= bar]


def papers_by_id(retriever: HybridRetriever, ids: list[str]) -> dict[str, StoredPaper]:
    """The committed version of each paper id that is still in the store."""
    snapshot = retriever.keyword.snapshot()
    wanted = {pid: chunk_id(pid, version, 0) for pid in ids if (version := snapshot.content_hash(pid))}
    chunks = retriever.store.chunks(list(wanted.values()))
    return {pid: StoredPaper.from_chunk(*chunks[cid]) for pid, cid in wanted.items() if cid in chunks}


@dataclass
class Page:
    """One page of a list: its papers as hits, the verified markdown lines and their citations."""

    hits: list[Hit]
    text: str
    citations: list[Citation]


def page(retriever: HybridRetriever, embed: Callable[[list[str]], np.ndarray], question: str, vector: np.ndarray,
         idf: dict[str, float], ids: list[str], offset: int, papers: dict[str, StoredPaper] | None = None) -> Page:
    """``ids`` (one page of members) as "- **Title**: best sentence [n]" lines, each citation verified,
    numbered from ``offset + 1`` (the n-th member of the whole list is ``[n]``)."""
    papers = papers if papers is not None else papers_by_id(retriever, ids)
    hits = [Hit(paper_id=pid, title=p.title, url=p.url, authors=p.authors, venue=p.venue, content_hash=p.content_hash,
                score=0.0) for pid in ids if (p := papers.get(pid)) is not None]
    evidence = select_evidence(retriever.store, embed, vector, idf, hits, papers, len(hits), reembedded=len(hits))
    shown = [Evidence(ev.source, ev.sentences[:1]) for ev in evidence if ev.sentences]
    for hit, ev in zip(hits, evidence):
        if ev.sentences:
            start, end, score = ev.sentences[0]
            hit.text, hit.start, hit.end, hit.score = ev.source.abstract[start:end], start, end, score
    text, citations, _ = verify(render(shown, "single"), [ev.source for ev in shown], question)
    if offset:
        text = re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)) + offset}]", text)
        citations = [c.model_copy(update={"number": c.number + offset}) for c in citations]
    return Page(hits, text, citations)


def heading(total: int, shown: int, how_many: bool) -> str:
    """The first line of a list answer: the count, and how many are shown."""
    papers = f"{total} paper{'s' if total != 1 else ''}"
    if how_many:
        return f"**{papers}** match{'es' if total == 1 else ''}." + (f" The {shown} most relevant:" if shown < total else "")
    if shown < total:
        return f"{papers} match, showing {shown}:"
    return f"{papers} match{'es' if total == 1 else ''}:"
