"""Citation checking, in code, for every engine.

Each ``[n]`` must name a source that was given to the engine; each kept citation carries a
sentence copied verbatim from that paper's abstract that supports the claim it is attached to.
Unknown or unsupported markers are removed and the rest renumbered in order of appearance.
"""

from __future__ import annotations

import re

from assistant.types import Citation, Source
from ingest.chunking import sentence_spans
from vectorstore.text import STOPWORDS

_MARKER = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_CLAIM_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_QUOTED = re.compile(r"[\"“]([^\"”]{12,})[\"”]")


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` that can carry a claim (no stopwords, no single letters)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1}


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")


def proper_names(source: Source) -> set[str]:
    """Lower-cased names a paper uses for its method, data or models ("Nester", "HiTyper", "ManyTypes4Py").

    A name is a word with an inner capital or a digit, or a capitalized word away from a sentence
    start, that the paper never also writes in lower case.
    """
    found: set[str] = set()
    for w in _TOKEN.findall(source.title):
        if any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w):
            found.add(w.lower())
    lower: set[str] = set()
    for span in sentence_spans(source.abstract):
        for i, w in enumerate(_TOKEN.findall(source.abstract[span.start : span.end])):
            if w.islower():
                lower.add(w)
            elif any(c.isupper() for c in w[1:]) or any(c.isdigit() for c in w) or (i > 0 and w[0].isupper()):
                found.add(w.lower())
    return {w for w in found - lower if len(w) > 2 and w not in STOPWORDS}


def _numbers(claim: str) -> set[int]:
    return {int(n) for group in _MARKER.findall(claim) for n in re.split(r"\s*[,;]\s*", group)}


class _NameIndex:
    """Each source's names, and every word it mentions, to catch claims about one paper cited to another."""

    def __init__(self, sources: list[Source]) -> None:
        self.names = {s.number: proper_names(s) for s in sources}
        self.mentions = {s.number: {w.lower() for w in _TOKEN.findall(f"{s.title} {s.abstract}")} for s in sources}

    def names_another_paper(self, claim_text: str, number: int, cited_here: set[int]) -> bool:
        """The claim names another given paper's method or data, which source ``number`` never mentions."""
        if number not in self.mentions:
            return False
        words = {w.lower() for w in _TOKEN.findall(claim_text)}
        foreign = words - self.mentions[number]
        return any(foreign & names for m, names in self.names.items() if m != number and m not in cited_here)


def misattributed(text: str, sources: list[Source], support: float = 0.5) -> list[str]:
    """Claims of ``text`` that name one given paper but cite, or restate, another that never mentions that name.

    An unmarked claim counts as citing the source whose sentence supports it at least ``support``.
    """
    index = _NameIndex(sources)
    out = []
    for claim in _split_keep(text):
        claim_text = _MARKER.sub("", claim)
        cited = _numbers(claim)
        if not cited and content_words(claim_text):
            score, number = _best_source(claim_text, sources)
            cited = {number} if score >= support else set()
        if any(index.names_another_paper(claim_text, n, cited) for n in cited):
            out.append(claim.strip())
    return out


def _overlap(claim: set[str], sentence: str) -> float:
    words = content_words(sentence)
    if not claim or not words:
        return 0.0
    return len(claim & words) / min(len(claim), len(words)) ** 0.5 / len(claim) ** 0.5


def best_quote(claim: str, abstract: str) -> tuple[int, int, float]:
    """The abstract sentence that best supports ``claim``: (start, end, support in [0, 1])."""
    words = content_words(claim)
    best = (0, 0, 0.0)
    for span in sentence_spans(abstract):
        score = _overlap(words, abstract[span.start : span.end])
        if score > best[2]:
            best = (span.start, span.end, score)
    return best


def _best_source(claim_text: str, sources: list[Source]) -> tuple[float, int]:
    """(support, number) of the source whose best sentence supports the claim most."""
    return max(((best_quote(claim_text, s.abstract)[2], s.number) for s in sources), default=(0.0, 0))


def _normalize(text: str) -> str:
    return " ".join(text.lower().split())


def _attribute(claim: str, claim_text: str, sources: list[Source], threshold: float, names: _NameIndex) -> str:
    """Add ``[n]`` to an unmarked claim when one source's sentence supports it strongly."""
    best = _best_source(claim_text, sources)
    if best[0] < threshold or names.names_another_paper(claim_text, best[1], set()):
        return claim
    stripped = claim.rstrip()
    return f"{stripped} [{best[1]}]{claim[len(stripped):]}"


def verify(text: str, sources: list[Source], question: str = "", min_support: float = 0.2,
           attribute: float | None = None) -> tuple[str, list[Citation]]:
    """Check the markers in ``text`` against ``sources``.

    With ``attribute`` (a support threshold in [0, 1]), a sentence the model left without a marker
    gets one when a source sentence supports it at least that strongly.

    Returns the cleaned text (invalid markers removed, valid ones renumbered 1..m in order of
    first use) and one verified citation per cited paper.
    """
    by_number = {s.number: s for s in sources}
    names = _NameIndex(sources)
    renumber: dict[int, int] = {}
    quotes: dict[int, tuple[int, int, float]] = {}
    pieces: list[str] = []
    for claim in _split_keep(text):
        claim_text = _MARKER.sub("", claim)
        if not content_words(claim_text):
            pieces.append(_MARKER.sub("", claim))  # a bare "[1]" claims nothing: drop it
            continue
        fabricated = {_normalize(q) for q in _QUOTED.findall(claim_text)}
        cited_here = _numbers(claim)

        def replace(match: re.Match[str]) -> str:
            kept = []
            for raw in re.split(r"\s*[,;]\s*", match.group(1)):
                number = int(raw)
                source = by_number.get(number)
                if source is None:
                    continue  # unknown marker, e.g. [7] with 3 sources
                if any(q not in _normalize(source.abstract) for q in fabricated):
                    continue  # the claim quotes text that is not in this abstract
                if names.names_another_paper(claim_text, number, cited_here):
                    continue  # "Nester reports a Hessian structure [2]": the claim is about paper 1
                start, end, support = best_quote(claim_text, source.abstract)
                if support < min_support and number not in quotes:
                    continue  # nothing in this abstract supports the claim
                if number not in renumber:
                    renumber[number] = len(renumber) + 1
                    quotes[number] = (start, end, support)
                elif support > quotes[number][2]:
                    quotes[number] = (start, end, support)
                kept.append(renumber[number])
            return "".join(f"[{n}]" for n in dict.fromkeys(kept))

        if attribute and not _MARKER.search(claim) and not fabricated:
            claim = _attribute(claim, claim_text, sources, attribute, names)
        pieces.append(_MARKER.sub(replace, claim))
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", "".join(pieces))
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned).strip()
    citations = []
    for original, number in sorted(renumber.items(), key=lambda item: item[1]):
        source = by_number[original]
        start, end, _ = quotes[original]
        citations.append(Citation(
            number=number, paper_id=source.paper_id, title=source.title, url=source.url,
            authors=source.authors, venue=source.venue,
            quote=source.abstract[start:end], start=start, end=end,
        ))
    return cleaned, citations


def _split_keep(text: str) -> list[str]:
    """Split into claims (sentences/lines) keeping separators, so joining restores the text."""
    parts: list[str] = []
    last = 0
    for match in _CLAIM_SPLIT.finditer(text):
        # a marker right after the sentence end belongs to that sentence: "... works. [1]"
        parts.append(text[last : match.end()])
        last = match.end()
    parts.append(text[last:])
    merged: list[str] = []
    for part in parts:
        if merged and re.match(r"^\s*(\[\d+(?:\s*[,;]\s*\d+)*\]\s*)+", part) and not _MARKER.sub("", part).strip():
            merged[-1] += part
        else:
            merged.append(part)
    return [p for p in merged if p]
