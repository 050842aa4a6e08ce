"""``Assistant``: the one door the CLI, the browser app and scripts use.

It orchestrates; each stage has its own module, in data-flow order:
``conversation`` (the standalone query) -> ``retrieval`` (hybrid search) -> ``abstention`` ->
``evidence`` (the first k papers, sentences ranked) -> ``engines`` (the text) -> ``grounding``
(every citation checked) -> one ``Answer``, assembled in one place.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Iterable, Iterator, Mapping, Sequence

from assistant.abstention import AbstentionPolicy, abstain_text, term_coverage
from assistant.conversation import Candidates, candidates
from assistant.engines import Engine, ExtractiveEngine, make_engine
from assistant.engines.chat import ChatEngine
from assistant.evidence import Evidence, focus_of, refocus, select_evidence
from assistant.filters import LISTING_ENGINE, CatalogCache, Filters, listing, topicless
from assistant.grounding import verify
from assistant import lists
from assistant.paper_map import PaperMap, PaperMapCache
from assistant.probe import probe
from assistant.selection import (LIST_SHOWN, Paraphrases, Shape, asks, gap_features, learned_gap, names_all, near_miss_text, question_shape, render,
                                 requote, select, unanswered, with_named_paper)
from assistant.related import related as find_related
from assistant.retrieval import FusionConfig, HybridRetriever
from assistant.types import Answer, Citation, Hit, ListPage, Removed
from ingest.pipeline import IngestReport, ensure_corpus, ingest
from vectorstore.embeddings import Embedder
from vectorstore.errors import InputError, PaperchatError
from vectorstore.keyword import KeywordIndex, query_terms
from vectorstore.settings import Settings
from vectorstore.store import PaperStore, StoredPaper
from vectorstore.text import printable

MAX_QUESTION_CHARS = 2000
MIN_HITS = 5  # an answer lists at least this many retrieved papers (eval's recall@5 reads them), even when k is smaller
LIST_LIMIT = 50  # papers a question naming only filters lists
MAX_PAGE = 100  # papers one ``list_page`` call returns at most
SEARCH_DEPTH = 10  # papers a search returns unless asked otherwise (and the LangChain retriever's depth, at least k)
ATTRIBUTE_SUPPORT = 0.6  # a sentence an LLM left unmarked gets the marker of a source supporting it this well
CONFIDENT_DENSE = 0.5  # a question that refers back is still searched as typed when it alone matches a paper this well
OWN_TERMS_FOUND = 0.5  # a short unreferring question takes the history only if the paper it leads to has this share of its terms
UNVERIFIED = "_The model's answer could not be verified against the abstracts; their most relevant sentences:_\n"
SECOND_DRAFT = "\n\n_Checking kept nothing of that draft; a second one:_\n\n"  # streamed only; the verified answer replaces it
SECOND_DRAFT_TIMING = "second_draft"  # in ``Answer.timings`` when a second draft was written (``paperchat eval`` counts them)
QUOTES = "_From the abstracts:_\n"
UNGROUNDED = "\n\n_No verified citation: this answer is not grounded in the indexed abstracts._"


@dataclass
class _Search:
    """One query's retrieval: what an answer is built from."""

    query: str
    vector: Any
    hits: list[Hit]
    papers: dict[str, StoredPaper]
    idf: dict[str, float]
    answerable: bool


@dataclass
class _Turn:
    """What one question has produced so far; ``answer()`` turns it into the ``Answer``."""

    question: str
    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    text: str = ""
    citations: list[Citation] = field(default_factory=list)
    abstained: bool = False
    near_miss: bool = False
    fallback: bool = False
    removed: list[Removed] = field(default_factory=list)
    engine: str = ""
    error: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    filters: Filters = field(default_factory=Filters)
    match_count: int | None = None
    members: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.text, self.error = f"Error: {message}", message

    def answer(self) -> Answer:
        return Answer(question=self.question, text=self.text, citations=self.citations, abstained=self.abstained,
                      grounded=bool(self.citations), query=self.query, hits=self.hits, engine=self.engine,
                      near_miss=self.near_miss, fallback=self.fallback, removed=self.removed,
                      timings=self.timings, error=self.error, filters=self.filters.active(),
                      match_count=self.match_count, members=self.members)


class Assistant:
    """Question answering over the paper store, with verified citations.

    ``Assistant()`` opens the embedded store in the default data directory and ingests the
    bundled ICML 2025 corpus if it is empty. Keyword arguments override ``Settings`` fields
    (``persist_dir``/``data_dir``, ``chroma_url``, ``engine``, ``k``, ...).
    """

    def __init__(self, settings: Settings | None = None, *, persist_dir: str | None = None,
                 engine: str | Engine | None = None, auto_ingest: bool = True, announce: Callable[[str], object] | None = None,
                 fusion: FusionConfig | None = None, abstention: AbstentionPolicy | None = None, **overrides: Any) -> None:
        settings = settings or Settings()
        self.settings = settings.with_overrides(data_dir=persist_dir, engine=engine if isinstance(engine, str) else None, **overrides)
        self.store = PaperStore(self.settings)
        self.settings = self.store.settings  # the embedding precision resolved against the store (``auto``)
        self.embedder = Embedder.from_settings(self.settings)
        self.paraphrases = Paraphrases(self.embedder.encode)
        if auto_ingest:
            ensure_corpus(self.store, self.settings, announce or (lambda msg: None))
        self.retriever = HybridRetriever(store=self.store, keyword=KeywordIndex(self.store), embedder=self.embedder,
                                         k=max(SEARCH_DEPTH, self.settings.k), fusion=fusion or FusionConfig())
        self.abstention = abstention or AbstentionPolicy()
        self._catalog = CatalogCache(self.store)
        self._map = PaperMapCache(self.store)
        self._engine: Engine | None = engine if engine is not None and not isinstance(engine, str) else None
        self._engine_lock = threading.Lock()

    # -- engine ----------------------------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The answer engine in use (built on first use; raises ``EngineError`` if it cannot be)."""
        with self._engine_lock:
            if self._engine is None:
                self._engine = make_engine(self.settings)
            return self._engine

    @property
    def engine_name(self) -> str:
        return self.engine.name

    @property
    def engine_label(self) -> str:
        """The engine's name for display, built on first use; if it cannot be built, the setting and why."""
        try:
            return self.engine.name
        except PaperchatError as exc:
            return f"{self.settings.engine} (unavailable: {exc})"

    @property
    def k(self) -> int:
        """Papers in an answer's evidence; the browser app shows as many retrieved papers while it writes."""
        return self.settings.k

    # -- the store ---------------------------------------------------------------------------------
    def search(self, query: str, k: int = SEARCH_DEPTH, filters: Filters | Mapping[str, Any] | None = None) -> list[Hit]:
        """Paper-level hybrid search: one ``Hit`` per paper, best first.

        ``filters`` (``venue``, ``year``, ``author``) restrict the papers before ranking; an unknown
        value raises ``InputError`` naming the values the store has.
        """
        return self.retriever.search(clean_question(query), k, allowed=self.check_filters(filters))

    def related(self, paper_id: str, k: int = 5, filters: Filters | Mapping[str, Any] | None = None) -> list[Hit]:
        """The ``k`` papers most similar to ``paper_id`` (by its title + abstract embedding), itself and its other
        versions excluded; an unknown id raises ``InputError``. ``Hit.score`` is the cosine similarity."""
        return find_related(self.store, paper_id, k, self.check_filters(filters))

    def check_filters(self, filters: Filters | Mapping[str, Any] | None) -> set[str] | None:
        """The ids of the papers passing ``filters`` (None: unfiltered); ``InputError`` for unknown values."""
        parsed = Filters.parse(filters)
        return self._catalog.get().resolve(parsed) if parsed else None  # unfiltered: no catalog (no store read)

    def filter_values(self, max_authors: int | None = None) -> dict[str, list[Any]]:
        """The values the stored papers have, for filter pick lists: ``{"venue": [names], "year": [years],
        "author": [names, most papers first]}`` (at most ``max_authors`` authors)."""
        return self._catalog.get().values(max_authors)

    def paper(self, paper_id: str) -> StoredPaper | None:
        """The stored paper with its full abstract, or None."""
        return self.store.paper(paper_id)

    def paper_map(self) -> PaperMap:
        """Every paper as a 2-D point (UMAP of its stored title + abstract embedding) with a labelled topic cluster.

        Computed once per store content and cached in memory and in the data directory (a restart loads
        it); an ingest that changes the papers makes the next call compute a new map.
        """
        return self._map.get()

    def paper_count(self) -> int:
        """Number of papers in the store."""
        return self.store.paper_count()

    def add_papers(self, paths: Iterable[str | Path], *, fmt: str = "auto", skip_invalid: bool = False, prune: bool = False,
                   reset: bool = False, progress: bool | None = False,
                   on_progress: Callable[[int, int], object] | None = None, capped: bool = False) -> IngestReport:
        """Add paper files to this store, validated completely before the first write (as ``paperchat ingest``).

        An invalid file raises ``InputError`` and changes nothing; with ``skip_invalid`` the valid
        records are added and the rest reported in ``IngestReport.problems``. ``on_progress(done, total)``
        follows the papers embedded; ``capped`` refuses a file over the upload caps
        (``Settings.upload_max_bytes``, ``upload_max_papers``) with an ``InputError``, nothing written.
        """
        return ingest(list(paths), self.settings, store=self.store, fmt=fmt, prune=prune, skip_invalid=skip_invalid,
                      reset=reset, progress=progress, on_progress=on_progress, capped=capped)

    # -- answering ----------------------------------------------------------------------------------
    def ask(self, question: str, history: Sequence[Mapping[str, str]] | None = None,
            filters: Filters | Mapping[str, Any] | None = None) -> Answer:
        """Answer ``question`` (with earlier ``history`` messages, oldest first).

        ``filters`` (``venue``, ``year``, ``author``) and filters stated in the question ("ICML 2024 papers
        on ...") restrict the papers searched; given ones win, and one given as ``None`` is switched off
        (``{"year": None}``: any year, whatever the question says). ``Answer.filters`` lists the ones applied;
        a bad or unknown value is reported in ``Answer.error``.
        """
        answer: Answer | None = None
        for item in self.stream(question, history, filters):
            if isinstance(item, Answer):
                answer = item
        assert answer is not None
        return answer

    def stream(self, question: str, history: Sequence[Mapping[str, str]] | None = None,
               filters: Filters | Mapping[str, Any] | None = None) -> Iterator[str | Answer]:
        """Yield the answer text as it is produced (``str`` deltas), then the final verified ``Answer``.

        While streaming, markers ``[n]`` refer to the n-th retrieved paper; the final ``Answer``
        carries the verified text, renumbered to match ``Answer.citations``.
        """
        for kind, payload in self.stream_events(question, history, filters):
            if kind in ("delta", "answer"):
                yield payload

    def stream_events(self, question: str, history: Sequence[Mapping[str, str]] | None = None,
                      filters: Filters | Mapping[str, Any] | None = None) -> Iterator[tuple[str, Any]]:
        """Like ``stream`` with one more event: ``("hits", list[Hit])`` as soon as retrieval is done.

        Events: ``("hits", hits)``, then ``("delta", text)`` pieces, then ``("answer", Answer)``.
        """
        started = time.perf_counter()
        turn = _Turn(question=clean_question(question))
        if turn.question:
            yield from self._answer(turn, history, filters)
        else:
            turn.text, turn.error = "Please type a question about the papers.", "empty question"
        turn.timings["total"] = time.perf_counter() - started
        yield "answer", turn.answer()

    def _answer(self, turn: _Turn, history: Sequence[Mapping[str, Any]] | None,
                given: Filters | Mapping[str, Any] | None) -> Iterator[tuple[str, Any]]:
        """The stages of one answer; each fills ``turn`` and may end it early (abstention, an error)."""
        timings = turn.timings
        try:
            filters = Filters.parse(given)
            catalog = self._catalog.get()
            stated, rest = catalog.from_question(turn.question)
            if stated.active().keys() <= filters.off:  # every stated filter switched off: the question is searched as typed
                stated, rest = Filters(), turn.question
            turn.filters = filters.over(stated)  # given filters win, switched-off ones are dropped
            allowed = catalog.resolve(turn.filters)
        except PaperchatError as exc:
            turn.fail(str(exc))
            return
        if stated and topicless(rest) and allowed is not None:  # "what has Yao Wan published here?": list them
            turn.query, turn.engine = rest, LISTING_ENGINE
            turn.hits = self.retriever.search(rest or turn.question, min(len(allowed), LIST_LIMIT), allowed=allowed)
            yield "hits", turn.hits
            turn.text = listing(turn.filters, [(h.title, h.venue, h.url) for h in turn.hits])
            yield "delta", turn.text
            return
        asked = rest if stated and rest else turn.question
        shape = question_shape(asked)  # "Which ICML 2024 papers …" is a list question once the filter words are out
        depth = self.k
        typed = lists.list_topic(asked) if shape == "list" else asked  # "how many papers are about X": search X
        found = self._search_candidates(candidates(typed, _history(history)), max(depth, MIN_HITS), timings, allowed)
        turn.query, vector, hits, papers, idf = found.query, found.vector, found.hits, found.papers, found.idf
        query = turn.query
        turn.hits = hits
        yield "hits", hits
        turn.engine = self._engine.name if self._engine is not None else self.settings.engine
        if not found.answerable:
            turn.text, turn.abstained = abstain_text(hits), True
            yield "delta", turn.text
            return
        if shape == "list":  # membership over all candidates, then the first page, always extractive
            yield from self._list_answer(turn, asked, allowed)
            return

        t1 = time.perf_counter()
        evidence = select_evidence(self.store, self.embedder.encode, vector, idf, hits, papers, depth, answer=True)
        selected = select(turn.question, evidence, shape, idf)
        timings["evidence"] = time.perf_counter() - t1
        named = with_named_paper(query, idf, selected, evidence) if shape == "single" else selected
        # "A and B": a paper whose title holds what the first never mentions joins; papers the question names are judged together
        together, selected = len(named) > len(selected) or names_all(query, selected), named
        gap = unanswered(query, idf, selected, together, paraphrases=self.paraphrases) if shape == "single" else ""
        reader = probe() if shape == "single" and self.settings.near_miss_probe and asks(asked) else None
        if reader is not None:  # the local 0.5B reads the question as asked (a follow-up's "it" is the paper it reads)
            t3 = time.perf_counter()  # with each selected abstract; not the search query, which adds context in brackets
            features = gap_features(query, idf, selected, gap, together, self.paraphrases)  # what the rules measured
            gap = learned_gap(asked, selected, gap, reader, features)
            timings["near_miss_probe"] = time.perf_counter() - t3
        if gap:  # on the topic, but no paper says what was asked: say so, quote the nearest
            turn.near_miss = True
            turn.text, turn.citations, _ = verify(near_miss_text(gap, selected), [ev.source for ev in selected], turn.question)
            yield "delta", turn.text
            return
        t4 = time.perf_counter()
        focus = focus_of(query, self.embedder.encode) if shape == "single" else None
        if focus is not None:  # the verdict above read the quotes the probe was fitted on; the answer quotes what is asked
            chosen = {ev.source.paper_id for ev in selected}
            full = [ev for ev in evidence if ev.source.paper_id in chosen]
            selected = requote(turn.question, selected, refocus(self.store, full, papers, vector, idf, focus))
        timings["evidence"] += time.perf_counter() - t4
        try:
            engine = self.engine
        except PaperchatError as exc:
            turn.fail(str(exc))
            return
        turn.engine = engine.name
        if not engine.free_text:
            engine = ExtractiveEngine(shape)  # quoting engines render the shape read above, filter words taken out
        read = selected[: engine.max_papers]  # the papers the engine reads
        text = yield from self._draft(turn, engine.stream(turn.question, query, read), "generate")
        if text is None:
            return
        if not text:
            turn.text, turn.abstained = abstain_text(hits), True
            return
        self._check(engine, text, turn, selected, shape)
        if turn.fallback and isinstance(engine, ChatEngine):  # the verifier kept nothing of the draft: one more, prompted otherwise
            yield "delta", SECOND_DRAFT
            first_removed = turn.removed
            second = yield from self._draft(turn, engine.stream(turn.question, query, read, second=True), SECOND_DRAFT_TIMING)
            if second:
                turn.fallback = False
                self._check(engine, second, turn, selected, shape)
                turn.removed = first_removed + turn.removed

    @staticmethod
    def _draft(turn: _Turn, pieces: Iterator[str], timing: str) -> Generator[tuple[str, Any], None, str | None]:
        """Stream one draft (an engine's ``stream``) as ``delta`` events; return its text cut at the last whole sentence,
        or ``None`` when the engine failed (``turn`` then holds the error; a failed second draft is ``""``: the first
        draft's fallback stands). Times it as ``timing`` (the first draft's first token as ``first_token``)."""
        second = timing == SECOND_DRAFT_TIMING
        t0 = time.perf_counter()
        raw: list[str] = []
        try:
            for piece in pieces:
                if not raw and not second:
                    turn.timings["first_token"] = time.perf_counter() - t0
                raw.append(piece)
                yield "delta", piece
        except PaperchatError as exc:
            if second:  # the first draft's fallback stands
                return ""
            turn.fail(str(exc))
            return None
        turn.timings[timing] = time.perf_counter() - t0
        return complete_sentences("".join(raw).strip())

    def _list_members(self, query: str, allowed: set[str] | None) -> tuple[list[str], Any, dict[str, float], dict[str, StoredPaper]]:
        """The papers matching list question ``query`` (the cut-off over ``LIST_POOL`` candidates per retriever),
        most relevant first, with the topic's vector and term weights and the candidates' stored papers."""
        topic = lists.list_topic(query)
        vector = self.embedder.encode([topic])[0]
        idf = self.retriever.keyword.idf(query_terms(topic))
        cands = lists.list_candidates(self.retriever, topic, vector, allowed)
        return lists.members(cands), vector, idf, cands.papers

    def _list_answer(self, turn: _Turn, asked: str, allowed: set[str] | None) -> Iterator[tuple[str, Any]]:
        """A list answer: the count, then the first ``LIST_SHOWN`` members, each with its verified best sentence."""
        t0 = time.perf_counter()
        turn.engine = "extractive (list)"
        members, vector, idf, papers = self._list_members(turn.query, allowed)
        turn.timings["members"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        how_many = lists.is_how_many(asked)
        if members:
            first = lists.page(self.retriever, self.embedder.encode, turn.question, vector, idf, members[:LIST_SHOWN], 0, papers)
            head = lists.heading(len(members), len(first.hits), how_many)
        else:  # answerable, but no paper clears the cut-off: say so and show the nearest
            first = lists.page(self.retriever, self.embedder.encode, turn.question, vector, idf,
                               [h.paper_id for h in turn.hits[:3]], 0)
            head = ("**0 papers** match clearly." if how_many else "No paper here clearly matches.") + " Nearest papers:"
        turn.timings["evidence"] = time.perf_counter() - t1
        turn.match_count, turn.members, turn.hits = len(members), members, first.hits
        yield "hits", turn.hits
        turn.text, turn.citations = f"{head}\n{first.text}", first.citations
        if not turn.citations:
            turn.text += UNGROUNDED
        yield "delta", turn.text

    def list_page(self, question: str | Answer, offset: int = 0, limit: int = LIST_SHOWN,
                  filters: Filters | Mapping[str, Any] | None = None) -> ListPage:
        """One page of the papers matching a list question ("Which papers …"), each with its verified best sentence.

        ``question`` is the question (answered first, with ``filters``) or the ``Answer`` already given to it
        (its ``members`` are paged, no search). Citations are numbered by rank in the whole list: the page at
        offset 10 cites [11], [12], … Raises ``InputError`` for a question that is not a list question,
        an offset below 0 or a limit outside 1..``MAX_PAGE``.
        """
        if not isinstance(offset, int) or offset < 0:
            raise InputError(f"offset must be 0 or more, got {offset!r}", "start at offset=0 and add the page size")
        if not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
            raise InputError(f"limit must be between 1 and {MAX_PAGE}, got {limit!r}", f"ask for at most {MAX_PAGE} papers a page")
        answer = question if isinstance(question, Answer) else self.ask(question, filters=filters)
        if answer.error:
            raise InputError(answer.error, "ask a question about the papers")
        if answer.match_count is None:
            raise InputError(f"not a list question: {answer.question!r}", 'ask "Which papers …", "List all papers on …" or "How many papers …"')
        ids = answer.members[offset : offset + limit]
        found = ListPage(question=answer.question, total=answer.match_count, offset=offset, members=ids,
                         next_offset=offset + limit if offset + limit < len(answer.members) else None, text="")
        if not ids:
            return found
        topic = lists.list_topic(answer.query or answer.question)
        vector = self.embedder.encode([topic])[0]
        shown = lists.page(self.retriever, self.embedder.encode, answer.question, vector,
                           self.retriever.keyword.idf(query_terms(topic)), ids, offset)
        return found.model_copy(update={"text": shown.text, "citations": shown.citations, "members": [h.paper_id for h in shown.hits]})

    def _search_candidates(self, found: Candidates, n: int, timings: dict[str, float],
                           allowed: set[str] | None = None) -> _Search:
        """Retrieve for the typed question and its rewrite (if any); keep the one the evidence supports.

        The rewrite is kept only when the question needs the context:
        - both lead with the same paper: the typed question (the context adds nothing);
        - the question refers back ("it", "and the datasets?", "no, the other one"): the rewrite,
          unless the typed question alone is answerable and matches another paper than the
          conversation's with dense similarity >= ``CONFIDENT_DENSE`` (a new topic that happens to say "it");
        - a short question that does not refer back: the typed one when answerable; otherwise the
          rewrite only if its top paper contains ``OWN_TERMS_FOUND`` of the question's own terms
          (so "What is quantum chromodynamics?" after "What is Nester?" abstains instead of answering on Nester).
        """
        queries = [found.typed] + ([found.rewrite] if found.rewrite else [])
        t0 = time.perf_counter()
        vectors = self.embedder.encode(queries)
        timings["embed"] = time.perf_counter() - t0
        searches = []
        for query, vector in zip(queries, vectors):
            hits, papers = self.retriever.retrieve(query, n, timings, vector=vector, allowed=allowed)
            idf = self.retriever.keyword.idf(query_terms(query))
            searches.append(_Search(query, vector, hits, papers, idf, not self.abstention.decide(hits, papers, idf)))
        timings["retrieve"] = time.perf_counter() - t0
        typed = searches[0]
        if len(searches) == 1:
            return typed
        rewrite = searches[1]
        top = typed.hits[0] if typed.hits else None
        if top is None or not rewrite.hits:
            return rewrite if rewrite.hits else typed
        if typed.answerable and top.paper_id == rewrite.hits[0].paper_id:
            return typed
        if found.refers_back:
            elsewhere = top.title != found.previous_paper and (top.dense or 0.0) >= CONFIDENT_DENSE
            return typed if typed.answerable and elsewhere else rewrite
        if typed.answerable:
            return typed
        lead = rewrite.papers.get(rewrite.hits[0].paper_id)
        own = term_coverage(typed.idf, [lead]) if lead is not None else 0.0
        return rewrite if rewrite.answerable and own >= OWN_TERMS_FOUND else typed

    def _check(self, engine: Engine, text: str, turn: _Turn, selected: list[Evidence], shape: Shape) -> None:
        """Keep only verified citations; free text that keeps none gives way to the selected sentences."""
        t0 = time.perf_counter()
        sources = [ev.source for ev in selected]
        turn.text, turn.citations, turn.removed = verify(
            text, sources, turn.question, attribute=ATTRIBUTE_SUPPORT if engine.free_text else None, strict=engine.free_text,
            learned=engine.free_text and self.settings.entailment_check, probe=self.settings.entailment_probe)
        turn.timings["verify"] = time.perf_counter() - t0
        if engine.free_text and not turn.citations:
            # nothing the model wrote could be checked against the abstracts: show what they do say
            turn.text, turn.citations, _ = verify(render(selected, shape), sources, turn.question)
            turn.text, turn.fallback = UNVERIFIED + turn.text, True
        elif engine.free_text and self.settings.quotes_under_summary:
            # the model's verified sentences first, then the sentences it condensed: no fact the selection holds is lost
            number = {ev.source.paper_id: ev.source.number for ev in selected}
            summary = re.sub(r"\[(\d+)\]", lambda m: f"[{number[turn.citations[int(m.group(1)) - 1].paper_id]}]", turn.text)
            turn.text, turn.citations, _ = verify(f"{summary}\n\n{QUOTES}{render(selected, shape)}", sources, turn.question)
        if not turn.citations:
            turn.text += UNGROUNDED


def complete_sentences(text: str) -> str:
    """Drop a trailing fragment cut off by the token limit ("surpassing TypeGen by 28.3\\"), never a whole answer."""
    if not text or re.search(r"[.!?)\]]['\"”]?\s*$", text):
        return text
    ends = [m.end() for m in re.finditer(r"[.!?](?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])*(?=\s|$)|\]\s*(?=\n)", text)]
    return text[: ends[-1]].rstrip() if ends else text


def clean_question(text: str) -> str:
    """A question as searched: printable, whitespace collapsed, at most ``MAX_QUESTION_CHARS``."""
    return " ".join(printable(str(text or "")).split())[:MAX_QUESTION_CHARS]


def _history(history: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]]:
    out = []
    for message in history or []:
        if isinstance(message, Mapping) and message.get("role") in ("user", "assistant"):
            content = message.get("content")
            out.append({"role": str(message["role"]), "content": content if isinstance(content, str) else str(content or "")})
    return out
