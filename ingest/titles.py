"""Readable titles for abstracts that come without one.

Users see these in citations, so prefer the name of the method the abstract introduces
("Nester: the first neuro-symbolic approach that enhances LMs for type inference") and fall
back to the first clause of the first sentence.
"""

from __future__ import annotations

import re

MAX_WORDS = 12
_MARKUP = re.compile(r"\*\*|\*|__|`")
_VERB = r"(?i:(?:we|and|this (?:paper|work)|here,? we)\s+(?:first\s+)?(?:propose|introduce|present|develop|design|call)s?)\s+"
# "we introduce MARASON, a novel model ..." / "we present **TINED**, ..." / "called FedICU (...)"
_NAMED = re.compile(
    _VERB + r"(?i:(?:a|an|the|our)\s+)?(?i:(?:new|novel|simple|general)\s+)?(?:[\w-]+\s+){0,6}?(?i:(?:called|named|dubbed)\s+)?"
    r"(?P<name>[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*|[A-Z][a-z]{2,}[A-Za-z0-9-]*)\b"
    r"(?P<rest>[^.;]*)",
)
# "... Species-Profile Adaptive Collaborative Experts (SPACE) ..." after an introducing verb
_ACRONYM = re.compile(_VERB + r"(?i:(?:a|an|the|our)\s+)?(?i:(?:new|novel)\s+)?(?P<long>[^.;()]{3,120}?)\s*\((?P<name>[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)")
_LEADS = re.compile(
    r"^(?:in this (?:paper|work),?\s*|this (?:paper|work) (?:considers|studies|proposes)\s+|we (?:show|prove|find|argue|demonstrate) that\s+|we (?:consider|study)\s+)",
    re.IGNORECASE,
)
_COMMON = {"We", "This", "The", "A", "An", "In", "Our", "It"}


def _clip(text: str, max_words: int = MAX_WORDS) -> str:
    words = text.split()
    clipped = " ".join(words[:max_words]).rstrip(",;:—-–")
    return clipped + ("…" if len(words) > max_words else "")


def _descriptor(rest: str) -> str:
    rest = rest.strip()
    rest = re.sub(r"^\([^)]*\)\s*", "", rest)  # expansion in parentheses
    rest = rest.lstrip(",:—–- ").strip()
    rest = re.sub(r"^(?:which|that)\s+", "", rest)
    return _clip(rest, 10) if rest else ""


def derive_title(abstract: str) -> str:
    """A short readable title for an abstract: ``Name: descriptor`` or its first clause."""
    text = _MARKUP.sub("", " ".join(abstract.split()))
    match = _ACRONYM.search(text)
    if match and match.group("name") not in _COMMON:
        return f"{match.group('name')}: {_clip(match.group('long'), 10)}"
    for match in _NAMED.finditer(text):
        name = match.group("name")
        if name in _COMMON or name.lower() == name:
            continue
        if not (any(c.isupper() for c in name[1:]) or match.group(0).lower().find(name.lower()) > 0):
            continue
        descriptor = _descriptor(match.group("rest"))
        return f"{name}: {descriptor}" if descriptor else name
    first = re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0]
    first = _LEADS.sub("", first).rstrip(".")
    clause = re.split(r"[,;:]\s+|\s+[—–]\s+", first, maxsplit=1)[0]
    if len(clause.split()) < 4:
        clause = first
    title = _clip(clause)
    return (title[:1].upper() + title[1:]) if title else "Untitled abstract"
