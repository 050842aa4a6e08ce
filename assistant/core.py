"""``Assistant``: the one entry point the CLI, the UI and scripts use."""

from __future__ import annotations

import re
import threading
import time
from typing import Any, Iterator, Mapping, Sequence

from assistant.conversation import standalone_query
from assistant.engines import Engine, EngineError, Evidence, ExtractiveEngine, make_engine, rank_sentences
from assistant.grounding import Source, misattributed, verify
from assistant.retrieval import FusionConfig, HybridRetriever
from assistant.types import Answer, Hit
from vectorstore.embeddings import Embedder
from vectorstore.errors import PaperchatError
from vectorstore.keyword import KeywordIndex, query_terms
from vectorstore.settings import Settings
from vectorstore.store import PaperStore, StoredPaper

MAX_QUESTION_CHARS = 2000
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


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


def term_coverage(idf: dict[str, float], papers: list[StoredPaper]) -> float:
    """Idf-weighted share of query terms that occur in the given papers (title or abstract)."""
    from vectorstore.keyword import tokenize

    total = sum(idf.values())
    if not total or not papers:
        return 0.0
    present = set().union(*(set(t) for t in tokenize([f"{p.title} {p.abstract}" for p in papers])))
    return sum(w for term, w in idf.items() if term in present) / total


class Assistant:
    """Question answering over the paper store, with verified citations.

    ``Assistant()`` opens the embedded store in the default data directory and ingests the
    bundled ICML 2025 corpus if it is empty. Keyword arguments override ``Settings`` fields
    (``persist_dir``/``data_dir``, ``chroma_url``, ``engine``, ``k``, ...).
    """

    def __init__(self, settings: Settings | None = None, *, persist_dir: str | None = None,
                 engine: str | Engine | None = None, auto_ingest: bool = True, announce: Any = None,
                 fusion: FusionConfig | None = None, abstention: AbstentionPolicy | None = None, **overrides: Any) -> None:
        settings = settings or Settings()
        self.settings = settings.with_overrides(data_dir=persist_dir, engine=engine if isinstance(engine, str) else None, **overrides)
        self.embedder = Embedder.from_settings(self.settings)
        self.store = PaperStore(self.settings)
        if auto_ingest:
            from ingest.pipeline import ensure_corpus

            ensure_corpus(self.store, self.settings, announce or (lambda msg: None))
        self.retriever = HybridRetriever(store=self.store, keyword=KeywordIndex(self.store), embedder=self.embedder,
                                         k=max(10, self.settings.k), fusion=fusion or FusionConfig())
        self.abstention = abstention or AbstentionPolicy()
        self._engine: Engine | None = engine if engine is not None and not isinstance(engine, str) else None
        self._engine_lock = threading.Lock()

    # -- engine ----------------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The answer engine in use (built on first use)."""
        with self._engine_lock:
            if self._engine is None:
                self._engine = make_engine(self.settings)
            return self._engine

    @property
    def engine_name(self) -> str:
        return self.engine.name

    # -- retrieval -----------------------------------------------------------------------------------
    def search(self, query: str, k: int = 10) -> list[Hit]:
        """Paper-level hybrid search: one ``Hit`` per paper, best first."""
        return self.retriever.search(_clean(query), k)

    def paper(self, paper_id: str) -> StoredPaper | None:
        """The stored paper with its full abstract, or None."""
        return self.store.paper(paper_id)

    def count(self) -> int:
        """Number of chunks in the store."""
        return self.store.count()

    def paper_count(self) -> int:
        """Number of papers in the store."""
        return self.store.paper_count()

    # -- answering ----------------------------------------------------------------------------------
    def ask(self, question: str, history: Sequence[Mapping[str, str]] | None = None) -> Answer:
        """Answer ``question`` (with earlier ``history`` messages, oldest first)."""
        answer: Answer | None = None
        for item in self.stream(question, history):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(self, question: str, history: Sequence[Mapping[str, str]] | None = None) -> Iterator[str | Answer]:
        """Yield the answer text as it is produced (``str`` deltas), then the final verified ``Answer``.

        While streaming, markers ``[n]`` refer to the n-th retrieved paper; the final ``Answer``
        carries the verified text, renumbered to match ``Answer.citations``.
        """
        for kind, payload in self.stream_events(question, history):
            if kind in ("delta", "answer"):
                yield payload

    def stream_events(self, question: str, history: Sequence[Mapping[str, str]] | None = None) -> Iterator[tuple[str, Any]]:
        """Like ``stream`` with one more event: ``("hits", list[Hit])`` as soon as retrieval is done.

        Events: ``("hits", hits)``, then ``("delta", text)`` pieces, then ``("answer", Answer)``.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        question = _clean(question)
        if not question:
            yield "answer", Answer(question="", text="Please type a question about the papers.", error="empty question")
            return
        query = standalone_query(question, _history(history))
        t0 = time.perf_counter()
        vector = self.embedder.encode([query])[0]
        timings["embed"] = time.perf_counter() - t0
        hits, papers = self.retriever.retrieve(query, max(self.settings.k, 5), timings, vector=vector)
        timings["retrieve"] = time.perf_counter() - t0
        yield "hits", hits
        idf = self.retriever.keyword.idf(query_terms(query))
        coverage = term_coverage(idf, [papers[h.paper_id] for h in hits[:3] if h.paper_id in papers])
        base = dict(question=question, query=query, hits=hits)
        if self.abstention.should_abstain(hits[0].dense if hits else None, coverage):
            timings["total"] = time.perf_counter() - started
            text = _abstain_text(hits)
            yield "delta", text
            yield "answer", Answer(**base, text=text, abstained=True, engine=self._engine_label(), timings=timings)
            return

        t1 = time.perf_counter()
        evidence = self._evidence(vector, idf, hits, papers)
        timings["evidence"] = time.perf_counter() - t1
        try:
            engine = self.engine
        except PaperchatError as exc:
            yield "answer", Answer(**base, text=f"Error: {exc}", error=str(exc), engine=self.settings.engine, timings=timings)
            return
        llm = not isinstance(engine, ExtractiveEngine)
        use = evidence[:3] if llm else evidence
        t2 = time.perf_counter()
        raw: list[str] = []
        try:
            for piece in engine.stream(question if not llm else query, use):
                if not raw:
                    timings["first_token"] = time.perf_counter() - t2
                raw.append(piece)
                yield "delta", piece
        except PaperchatError as exc:
            timings["total"] = time.perf_counter() - started
            yield "answer", Answer(**base, text=f"Error: {exc}", error=str(exc), engine=engine.name, timings=timings)
            return
        timings["generate"] = time.perf_counter() - t2
        text = "".join(raw).strip()
        if not text:
            timings["total"] = time.perf_counter() - started
            text = _abstain_text(hits)
            yield "answer", Answer(**base, text=text, abstained=True, engine=engine.name, timings=timings)
            return
        t3 = time.perf_counter()
        cleaned, citations = verify(text, [ev.source for ev in use], question, attribute=0.6 if llm else None)
        timings["verify"] = time.perf_counter() - t3
        if llm and (not citations or misattributed(text, [ev.source for ev in use])):
            # the model's text could not be checked against the abstracts, or it mixed two papers up
            # ("Nester reports a Hessian structure [2]"): show what the abstracts do say
            fallback = "".join(ExtractiveEngine().stream(question, evidence))
            cleaned, citations = verify(fallback, [ev.source for ev in evidence], question)
            cleaned = "_The model's answer could not be verified against the abstracts; their most relevant sentences:_\n" + cleaned
        if not citations:
            cleaned += "\n\n_No verified citation: this answer is not grounded in the indexed abstracts._"
        timings["total"] = time.perf_counter() - started
        yield "answer", Answer(**base, text=cleaned, citations=citations, grounded=bool(citations),
                               engine=engine.name, timings=timings)

    def _engine_label(self) -> str:
        return self._engine.name if self._engine is not None else self.settings.engine

    def _evidence(self, vector: Any, idf: dict[str, float], hits: list[Hit], papers: dict[str, StoredPaper]) -> list[Evidence]:
        chosen = [h for h in hits[: self.settings.k] if h.paper_id in papers]
        by_paper: dict[str, list[tuple[str, dict, Any]]] = {}
        for doc, meta, emb in self.store.sentences_of([h.paper_id for h in chosen]):
            if meta.get("paper_hash") == papers[str(meta["paper_id"])].content_hash:
                by_paper.setdefault(str(meta["paper_id"]), []).append((doc, meta, emb))
        evidence = []
        for number, hit in enumerate(chosen, 1):
            paper = papers[hit.paper_id]
            source = Source(number, paper.id, paper.title, paper.abstract, paper.url, paper.authors, paper.venue)
            evidence.append(Evidence(source, rank_sentences(
                vector, idf, by_paper.get(hit.paper_id, []), embed=self.embedder.encode if number <= 3 else None)))
        return evidence


def _clean(text: str) -> str:
    text = _CONTROL.sub(" ", str(text or ""))
    return " ".join(text.split())[:MAX_QUESTION_CHARS]


def _history(history: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]]:
    out = []
    for message in history or []:
        if isinstance(message, Mapping) and message.get("role") in ("user", "assistant"):
            content = message.get("content")
            out.append({"role": str(message["role"]), "content": content if isinstance(content, str) else str(content or "")})
    return out


def _abstain_text(hits: list[Hit]) -> str:
    lines = ["The indexed papers do not cover this question."]
    if hits:
        lines.append("\nNearest papers:")
        lines.extend(f"- {h.title}" for h in hits[:3])
    return "\n".join(lines)
