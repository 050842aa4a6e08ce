"""Export the papers an answer cites as BibTeX or CSV (``Answer.to_bibtex()``, ``Answer.to_csv()``)."""

from __future__ import annotations

import csv
import io
import re
from typing import Protocol, Sequence

from assistant.filters import fold, venue_name, year_of


class PaperRef(Protocol):
    """What export reads of a paper (``assistant.types.PaperRef`` and its subclasses)."""

    paper_id: str
    title: str
    url: str
    authors: list[str]
    venue: str

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
