"""Search filters (venue, year, author) resolved against the store's own paper metadata.

Values come from the store, never from a hard-coded list: ``Catalog`` reads every paper chunk's
metadata once per store generation. A filter resolves to the set of matching paper ids, which the
retriever applies to the dense query (Chroma ``where`` on ``paper_id``) and to the keyword
candidates before ranking, so a filtered search ranks the whole subset.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from vectorstore.errors import InputError
from vectorstore.store import PaperStore

YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
MIN_YEAR, MAX_YEAR = 1950, 2100


FILTER_NAMES = ("venue", "year", "author")
FilterName = Literal["venue", "year", "author"]
LISTING_ENGINE = "filters (list)"  # Answer.engine of a question naming only filters: its papers are the hits, uncited


class Filters(BaseModel):
    """Applied filters; ``None`` means not filtered on. ``venue`` is matched without its year ("ICML" or "ICML 2024").

    ``off`` names filters switched off: not applied even when the question states them ("ICML 2024 papers
    on diffusion" asked with ``off={"year"}`` searches all ICML papers).
    """

    model_config = ConfigDict(extra="forbid")

    venue: str | None = None
    year: int | None = None
    author: str | None = None
    off: frozenset[FilterName] = frozenset()

    @model_validator(mode="after")
    def _set_or_off(self) -> "Filters":
        both = sorted(name for name in self.off if getattr(self, name) is not None)
        if both:
            raise ValueError(f"{', '.join(both)} is both given and switched off")
        return self

    @classmethod
    def parse(cls, filters: "Filters | Mapping[str, Any] | None") -> "Filters":
        """``Filters`` from a mapping: a value filters, ``None`` switches the filter off, ``""`` (or no key) leaves it unset.

        ``{"venue": "ICML", "year": None}``: ICML papers of any year, even if the question says "2024".
        Bad names or values raise ``InputError`` naming the fields.
        """
        if filters is None:
            return cls()
        if isinstance(filters, Filters):
            return filters
        unknown = sorted(str(k) for k in filters if k not in FILTER_NAMES)
        if unknown:
            raise InputError(f"unknown filter {', '.join(unknown)}", "filters are venue, year and author")
        values = {k: v for k, v in filters.items() if v is not None and v != ""}
        try:
            return cls(**values, off=frozenset(k for k, v in filters.items() if v is None))
        except ValidationError as exc:
            raise InputError(f"bad filter: {exc.errors()[0]['msg']}", "filters are venue, year (a number) and author") from None

    def active(self) -> dict[str, str | int]:
        """The filters applied, by name (``off`` ones are not)."""
        return {k: v for k, v in self.model_dump(exclude={"off"}).items() if v is not None}

    def over(self, stated: "Filters") -> "Filters":
        """These filters applied over ``stated`` (read from the question): given values win, ``off`` ones are dropped."""
        kept = {k: v for k, v in stated.active().items() if k not in self.off}
        return Filters(**{**kept, **self.active()})

    def __bool__(self) -> bool:
        return bool(self.active())

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.active().items())


def fold(text: str) -> str:
    """Lower case, accents removed, punctuation to spaces: "Sánchez-López" -> "sanchez lopez"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", plain.lower()).split())


def author_matches(query: str, author: str) -> bool:
    """``query`` names ``author``: same surname, and each given name equal or an initial ("Y. Wan" ~ "Yao Wan")."""
    q, a = fold(query).split(), fold(author).split()
    if not q or not a:
        return False
    if q == a:
        return True
    if len(q) == 1:
        return q[0] == a[-1]
    if q[-1] != a[-1] or len(q) > len(a):
        return False
    for given, full in zip(q[:-1], a[:-1]):
        if not (given == full or (len(given) == 1 and full.startswith(given))):
            return False
    return True


def venue_name(venue: str) -> str:
    """The venue without its year: "ICML 2024" -> "ICML"."""
    return " ".join(YEAR.sub(" ", venue).split())


def year_of(venue: str, extra: dict[str, object]) -> int | None:
    value = extra.get("year")
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    found = YEAR.search(venue)
    return int(found.group(1)) if found else None


@dataclass
class _Entry:
    paper_id: str
    venue: str
    year: int | None
    authors: list[str]


@dataclass
class Catalog:
    """The store's papers' venue, year and authors (one read of the paper chunks' metadata)."""

    entries: list[_Entry] = field(default_factory=list)
    _resolved: dict[tuple[tuple[str, Any], ...], set[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, store: PaperStore) -> "Catalog":
        import json

        entries = []
        for _, _, meta in store.iter_chunks(["metadatas"], {"kind": "paper"}):
            venue = str(meta.get("venue", ""))
            extra = json.loads(str(meta.get("extra") or "{}"))
            authors = [a for a in str(meta.get("authors", "")).split("; ") if a]
            entries.append(_Entry(str(meta["paper_id"]), venue, year_of(venue, extra), authors))
        return cls(entries)

    def venues(self) -> list[str]:
        """Venue names without years, sorted."""
        return sorted({venue_name(e.venue) for e in self.entries if e.venue})

    def years(self) -> list[int]:
        return sorted({e.year for e in self.entries if e.year is not None})

    def authors(self) -> set[str]:
        return {a for e in self.entries for a in e.authors}

    def values(self, max_authors: int | None = None) -> dict[str, list[Any]]:
        """Filter values for pick lists: venue names, years, and authors (most papers first, then by name)."""
        counts = Counter(a for e in self.entries for a in dict.fromkeys(e.authors))
        authors = sorted(counts, key=lambda a: (-counts[a], fold(a), a))
        return {"venue": self.venues(), "year": self.years(), "author": authors[:max_authors]}

    def resolve(self, filters: Filters) -> set[str] | None:
        """Paper ids passing ``filters`` (None: no filter). Unknown values raise ``InputError`` naming what exists."""
        if not filters:
            return None
        key = tuple(sorted(filters.active().items()))
        if key not in self._resolved:  # a catalog is one generation's: its answers never change
            self._resolved[key] = self._resolve(filters)
        return self._resolved[key]

    def _resolve(self, filters: Filters) -> set[str]:
        entries = self.entries
        if filters.venue is not None:
            wanted = fold(filters.venue)
            wanted_name = fold(venue_name(filters.venue))
            known = {fold(venue_name(e.venue)) for e in entries if e.venue}
            if wanted_name not in known:
                raise InputError(f"no papers from {filters.venue}",
                                 f"venues here: {', '.join(self.venues()) or 'none recorded'}")
            entries = [e for e in entries if fold(e.venue) == wanted or fold(venue_name(e.venue)) == wanted]
            if not entries:
                raise InputError(f"no papers from {filters.venue}",
                                 f"{venue_name(filters.venue)} years here: "
                                 f"{', '.join(sorted({e.venue for e in self.entries if fold(venue_name(e.venue)) == wanted_name}))}")
        if filters.year is not None:
            if not MIN_YEAR <= filters.year <= MAX_YEAR:
                raise InputError(f"impossible year {filters.year}", f"use a year between {MIN_YEAR} and {MAX_YEAR}")
            entries_before = entries
            entries = [e for e in entries if e.year == filters.year]
            if not entries:
                years = sorted({e.year for e in entries_before if e.year is not None})
                raise InputError(f"no papers from {filters.year}" + (f" in {filters.venue}" if filters.venue else ""),
                                 f"years here: {', '.join(map(str, years)) or 'none recorded'}")
        if filters.author is not None:
            if not fold(filters.author):
                raise InputError("empty author filter", "give a name, e.g. --author 'Yao Wan'")
            entries_before = entries
            entries = [e for e in entries if any(author_matches(filters.author, a) for a in e.authors)]
            if not entries:
                where = f" ({filters.describe().replace(f'author={filters.author}', '').strip(', ')})" if len(filters.active()) > 1 else ""
                anywhere = any(author_matches(filters.author, a) for e in self.entries for a in e.authors)
                raise InputError(f"no papers by {filters.author}{where}",
                                 "check the spelling; initials are fine (\"Y. Wan\")" if not anywhere
                                 else "the author has papers here, but not with the other filters")
        return {e.paper_id for e in entries}

    def from_question(self, question: str) -> tuple[Filters, str]:
        """Filters stated in ``question`` and the question without them.

        "ICML 2024 papers on diffusion" -> venue ICML, year 2024, "papers on diffusion";
        "what has Yao Wan published here?" -> author Yao Wan. Only values present in the store are recognised.
        """
        found = Filters()
        rest = question
        for name in sorted(self.venues(), key=len, reverse=True):
            # case as stored or all capitals: "ICML", "CoRL", "COLT"; never "alt text" for ALT
            spelled = "|".join(dict.fromkeys([re.escape(name), re.escape(name.upper())]))
            m = re.search(rf"\b(?:{spelled})(?:\s*[''`]?\s*(19[5-9]\d|20\d\d))?\b", rest)
            if m:
                found.venue = name
                if m.group(1):
                    found.year = int(m.group(1))
                rest = rest[: m.start()] + rest[m.end():]
                break
        if found.year is None:
            m = re.search(r"\b(?:in|from|of)\s+(19[5-9]\d|20\d\d)\b", rest)
            if m and int(m.group(1)) in self.years():
                found.year = int(m.group(1))
                rest = rest[: m.start()] + rest[m.end():]
        folded_authors = self._folded_authors()
        words = list(re.finditer(r"[^\W\d_][\w.'-]*", rest))
        for size in (4, 3, 2):
            for i in range(len(words) - size + 1):
                span = words[i : i + size]
                if not span[0].group(0)[:1].isupper():
                    continue
                name = fold(rest[span[0].start() : span[-1].end()])
                if name in folded_authors:
                    found.author = folded_authors[name]
                    rest = rest[: span[0].start()] + rest[span[-1].end():]
                    break
            if found.author:
                break
        return found, " ".join(rest.split())

    def _folded_authors(self) -> dict[str, str]:
        return {fold(a): a for a in self.authors()}


_GENERIC = set("""what which who whose has have had did does do is are was were the a an of in on at by from for to
here there this these those all any every list show give me tell papers paper work works published publish publications
written wrote write authored about some please other their his her its""".split())


def topicless(rest: str) -> bool:
    """The question minus its filters asks for no topic ("what has Yao Wan published here?")."""
    return not [w for w in fold(rest).split() if w not in _GENERIC]


def listing(filters: Filters, titles: list[tuple[str, str, str]]) -> str:
    """Markdown list of (title, venue, url) for a question that only names filters."""
    head = f"{len(titles)} paper{'s' if len(titles) != 1 else ''} here ({filters.describe()}):"
    return "\n".join([head, *(f"- **{t}** ({v}) {u}".rstrip() for t, v, u in titles)])


class CatalogCache:
    """One ``Catalog`` per store generation (an ingest changes the generation)."""

    def __init__(self, store: PaperStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._current: tuple[str, Catalog] | None = None  # (generation, its catalog), replaced as one reference

    def get(self) -> Catalog:
        """The catalog of the current generation; while another thread builds it, the previous one (no waiting)."""
        generation = self.store.generation
        current = self._current
        if current is not None and current[0] == generation:
            return current[1]
        if current is not None and not self._lock.acquire(blocking=False):
            return current[1]
        if current is None:
            self._lock.acquire()
        try:
            if self._current is None or self._current[0] != generation:
                self._current = (generation, Catalog.of(self.store))
            return self._current[1]
        finally:
            self._lock.release()
