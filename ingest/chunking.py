"""Sentence splitting and chunking with exact character spans into the abstract."""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sentence ends at . ! or ? followed by whitespace and an uppercase letter, digit, quote or
# markup, unless the period belongs to a common abbreviation, an initial or a decimal number.
_ABBREVIATIONS = ("e.g", "i.e", "et al", "etc", "vs", "cf", "fig", "figs", "eq", "eqs", "sec", "no", "approx", "resp", "dr", "prof", "al")
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]$]*\s+(?=[\"'(\[*$\\]?[A-Z0-9])")  # "... $n-o(\\sqrt{n}).$ Next"
_MATH = re.compile(r"\$[^$]*\$")


@dataclass(frozen=True)
class Span:
    """A half-open character range ``[start, end)`` of the abstract."""

    start: int
    end: int


def _protected(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _MATH.finditer(text)]


def ends_with_abbreviation(text: str) -> bool:
    """The period ending ``text`` belongs to an abbreviation ("et al.", "e.g.") or an initial, not a sentence end."""
    before = text.rstrip().rstrip("\"')]").lower()
    word = before.rsplit(None, 1)[-1] if before.split() else ""
    word = word.rstrip(".!?").lstrip("\"'([")  # "(vs. 32.11%)"
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def sentence_spans(text: str) -> list[Span]:
    """Split ``text`` into sentences; spans cover the text without leading/trailing blanks."""
    protected = _protected(text)
    spans: list[Span] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        cut = match.start()
        closers = len(match.group(0)) - len(match.group(0).lstrip("\"')]$"))
        if any(a <= cut + closers < b for a, b in protected):  # inside math, unless the math closes with the sentence
            continue
        if ends_with_abbreviation(text[start:cut]):
            continue
        spans.append(Span(start, cut + closers))
        start = match.end()
    spans.append(Span(start, len(text)))
    return [s for s in (_trim(text, sp) for sp in spans) if s.end > s.start]


def _trim(text: str, span: Span) -> Span:
    start, end = span.start, span.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)

