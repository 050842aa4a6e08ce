"""The structured results every surface returns (``Answer``, ``Citation``, ``Hit``) and the ``Source`` engines read.

Each of them refers to a paper the same way: the fields of ``PaperRef``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class PaperRef(BaseModel):
    """How a result names its paper: id, title, link, authors, venue."""

    paper_id: str
    title: str
    url: str = ""
    authors: list[str] = Field(default_factory=list)
    venue: str = ""


class Hit(PaperRef):
    """One retrieved paper (retrieval is paper level: one hit per paper)."""

    content_hash: str = Field("", description="version of the paper that was retrieved")
    score: float = Field(description="fused retrieval score (higher is better)")
    dense: float = Field(0.0, description="best cosine similarity of the paper or one of its sentences")
    keyword: float = Field(0.0, description="BM25 score of the paper")
    text: str = Field("", description="the best-matching sentence of the abstract")
    start: int = 0
    end: int = 0


class Citation(PaperRef):
    """A verified citation: ``quote`` is copied verbatim from the paper's abstract."""

    number: int
    quote: str
    start: int = Field(description="character offset of the quote in the abstract")
    end: int


class Source(PaperRef):
    """A paper given to the engine as ``[number]``, with its abstract."""

    number: int
    abstract: str

    def __init__(self, number: int, paper_id: str, title: str, abstract: str, url: str = "",
                 authors: list[str] | None = None, venue: str = "") -> None:
        super().__init__(number=number, paper_id=paper_id, title=title, abstract=abstract, url=url,
                         authors=list(authors or []), venue=venue)


class Removed(BaseModel):
    """A citation marker (or an uncited claim) the verifier took out of an engine's answer, and why."""

    marker: int | None = Field(None, description="the number the engine wrote; None for a claim with no marker")
    paper_id: str | None = None
    claim: str = Field(description="the claim the marker was attached to")
    reason: str = Field(description='e.g. "number not in the abstract (28.3)"')


class ListPage(BaseModel):
    """One page of the papers matching a list question (``Assistant.list_page``)."""

    question: str
    total: int = Field(description="papers matching the question")
    offset: int = Field(description="position of this page's first paper in the whole list (0-based)")
    text: str = Field(description='markdown, one "- **Title**: best sentence [n]" line per paper; n is its rank in the whole list')
    citations: list[Citation] = Field(default_factory=list, description="each paper's verified best sentence, numbered as in ``text``")
    members: list[str] = Field(default_factory=list, description="the ids of this page's papers, in order")
    next_offset: int | None = Field(None, description="offset of the next page; None on the last page")


class Answer(BaseModel):
    """A cited answer. ``text`` is markdown with inline markers ``[1]``, ``[2]`` matching ``citations``."""

    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    abstained: bool = False
    grounded: bool = Field(False, description="at least one verified citation supports the text")
    query: str = Field("", description="the standalone query that was searched")
    hits: list[Hit] = Field(default_factory=list)
    removed: list[Removed] = Field(default_factory=list, description="markers and claims the verifier removed, with reasons")
    near_miss: bool = Field(False, description="the papers are on the topic but none says what was asked; nearest listed")
    fallback: bool = Field(False, description="the engine's text could not be verified and was replaced by the abstracts' sentences")
    engine: str = ""
    timings: dict[str, float] = Field(default_factory=dict, description="seconds per stage")
    error: str | None = None
    filters: dict[str, str | int] = Field(default_factory=dict, description="applied filters: venue, year, author (given or stated in the question)")
    match_count: int | None = Field(None, description='list questions ("which papers …"): how many papers match; None for other questions')
    members: list[str] = Field(default_factory=list, description="list questions: the ids of all matching papers, most relevant first "
                                                                 "(the text shows the first page; ``Assistant.list_page`` gives any page)")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    def removed_note(self) -> str:
        """One line on what the verifier took out, e.g. "1 claim removed: number not in the abstract (28.3)"; "" if nothing."""
        if not self.removed:
            return ""
        reasons = list(dict.fromkeys(r.reason for r in self.removed))
        n = len(self.removed)
        return f"{n} claim{'s' if n != 1 else ''} removed: " + "; ".join(reasons[:3]) + ("; …" if len(reasons) > 3 else "")

    def to_bibtex(self) -> str:
        """The cited papers (a filter listing's papers) as BibTeX ``@inproceedings`` entries (unique keys, venue and year,
        special characters escaped)."""
        from assistant.export import answer_papers, to_bibtex

        return to_bibtex(answer_papers(self))

    def to_csv(self) -> str:
        """The cited papers (a filter listing's papers) as CSV: key, paper_id, title, authors, venue, year, url."""
        from assistant.export import answer_papers, to_csv

        return to_csv(answer_papers(self))
