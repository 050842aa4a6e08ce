"""Export what answers cite: BibTeX or CSV of the papers (``Answer.to_bibtex()``, ``to_bibtex(references(answers))``)
and a conversation as Markdown with its references (``conversation_markdown``)."""

from __future__ import annotations

import csv
import io
import re
from typing import Protocol, Sequence
from urllib.parse import quote, urlparse

from assistant.filters import LISTING_ENGINE, fold, venue_name, year_of


class PaperRef(Protocol):
    """What export reads of a paper (``assistant.types.PaperRef`` and its subclasses)."""

    paper_id: str
    title: str
    url: str
    authors: list[str]
    venue: str


class AnswerRef(Protocol):
    """What export reads of an answer (``assistant.types.Answer``)."""

    question: str
    text: str
    query: str
    engine: str
    error: str | None

    @property
    def citations(self) -> Sequence[PaperRef]: ...

    @property
    def hits(self) -> Sequence[PaperRef]: ...

    @property
    def filters(self) -> dict[str, str | int]: ...

# LaTeX's special characters, escaped so any BibTeX parser and LaTeX read the text back as written
_LATEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_LATEX_RE = re.compile("|".join(re.escape(c) for c in _LATEX))
CSV_COLUMNS = ["key", "paper_id", "title", "authors", "venue", "year", "url"]


def latex_escape(text: str) -> str:
    return _LATEX_RE.sub(lambda m: _LATEX[m.group(0)], " ".join(text.split()))


def _key(paper: PaperRef, year: int | None, used: set[str]) -> str:
    """``surname + year + first title word`` in ASCII ("wan2025dataflow"), made unique with a, b, c..."""
    surname = fold(paper.authors[0]).split()[-1] if paper.authors and fold(paper.authors[0]) else "anon"
    words = [w for w in fold(paper.title).split() if len(w) > 3] or ["paper"]
    base = re.sub(r"[^a-z0-9]", "", f"{surname}{year or ''}{words[0]}") or "paper"
    key, n = base, 0
    while key in used:
        n += 1
        key = f"{base}{chr(ord('a') + n - 1) if n <= 26 else n}"
    used.add(key)
    return key


def _rows(papers: Sequence[PaperRef]) -> list[dict[str, str]]:
    used: set[str] = set()
    rows, seen = [], set()
    for p in papers:
        if p.paper_id in seen:
            continue
        seen.add(p.paper_id)
        year = year_of(p.venue, {})
        rows.append({"key": _key(p, year, used), "paper_id": p.paper_id, "title": p.title, "authors": "; ".join(p.authors),
                     "venue": venue_name(p.venue) or p.venue, "year": str(year or ""), "url": p.url})
    return rows


def to_bibtex(papers: Sequence[PaperRef]) -> str:
    """One ``@inproceedings`` per distinct paper, special characters escaped, keys unique."""
    entries = []
    for row, paper in zip(_rows(papers), _distinct(papers)):
        fields = [("title", "{" + latex_escape(row["title"]) + "}"),
                  ("author", " and ".join(latex_escape(a) for a in paper.authors)),
                  ("booktitle", latex_escape(row["venue"])), ("year", row["year"]), ("url", row["url"].replace("}", "%7D").replace("{", "%7B")),
                  ("note", "paperchat id: " + latex_escape(row["paper_id"]))]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
        entries.append(f"@inproceedings{{{row['key']},\n{body}\n}}\n")
    return "\n".join(entries)


def to_csv(papers: Sequence[PaperRef]) -> str:
    """A CSV with a header row: key, paper_id, title, authors ("; "-separated), venue, year, url."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(_rows(papers))
    return out.getvalue()


def _distinct(papers: Sequence[PaperRef]) -> list[PaperRef]:
    seen: set[str] = set()
    return [p for p in papers if not (p.paper_id in seen or seen.add(p.paper_id))]  # type: ignore[func-returns-value]


# -- several answers ------------------------------------------------------------------------------------------
def answer_papers(answer: AnswerRef) -> list[PaperRef]:
    """The papers an answer refers to: its citations, or for a question naming only filters the papers it lists."""
    if answer.citations:
        return list(answer.citations)
    if answer.engine == LISTING_ENGINE and not answer.error:
        return list(answer.hits)
    return []


def references(answers: Sequence[AnswerRef]) -> list[PaperRef]:
    """Every paper the answers refer to, once each, in order of first appearance (for ``to_bibtex``/``to_csv``)."""
    return _distinct([p for answer in answers for p in answer_papers(answer)])


_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>]")
_MD_TEXT_SPECIAL = re.compile(r"\[(\d+)\]|[\\`<>\[\]]")


def md_escape(text: str) -> str:
    """Paper metadata as inert one-line Markdown: what could start a link, image, HTML, code or emphasis is escaped."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), " ".join(str(text or "").split()))


def md_answer(text: str) -> str:
    """An answer's Markdown as written (bold, bullets), but with no link, image or HTML: ``[n]`` markers kept."""
    return _MD_TEXT_SPECIAL.sub(lambda m: m.group(0) if m.group(1) else "\\" + m.group(0), str(text or ""))


def _md_url(url: str) -> str:
    """An http(s) URL as a Markdown autolink; anything else is dropped."""
    if urlparse(url or "").scheme not in ("http", "https"):
        return ""
    return "<" + quote(url, safe=":/?#[]@!$&'()*+,;=%~") + ">"


def _md_reference(number: int, paper: PaperRef) -> str:
    names = ", ".join(paper.authors[:6]) + (" et al." if len(paper.authors) > 6 else "")
    meta = " · ".join(md_escape(part) for part in (names, paper.venue) if part)
    line = f"- [{number}] **{md_escape(paper.title)}**" + (f" — {meta}" if meta else "")
    url = _md_url(paper.url)
    line += f" {url}" if url else ""
    quote_text = getattr(paper, "quote", "")
    return line + (f"\n  > {md_escape(quote_text)}" if quote_text else "")


def conversation_markdown(answers: Sequence[AnswerRef], title: str = "paperchat conversation") -> str:
    """The conversation as Markdown: each question, its answer, the filters applied, and its references
    (numbered as the answer's ``[n]`` markers, with title, authors, venue, link and the quoted sentence)."""
    parts = [f"# {md_escape(title)}", ""]
    for turn, answer in enumerate(answers, 1):
        parts += [f"## {turn}. {md_escape(answer.question)}", ""]
        if answer.query and answer.query != answer.question:
            parts += [f"_Searched for: {md_escape(answer.query)}_", ""]
        if answer.filters:
            parts += [f"_Filters: {md_escape(', '.join(f'{k}={v}' for k, v in answer.filters.items()))}_", ""]
        parts += [md_answer(answer.text).strip(), ""]
        papers = answer_papers(answer)
        if papers:
            parts += ["References:", ""]
            parts += [_md_reference(getattr(p, "number", i), p) for i, p in enumerate(papers, 1)]
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"
