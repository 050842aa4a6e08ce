"""Citation checking, in code, for every engine.

Each ``[n]`` must name a source that was given to the engine; each kept citation carries a
sentence copied verbatim from that paper's abstract that supports the claim it is attached to.
Unknown or unsupported markers are removed and the rest renumbered in order of appearance.
"""

from __future__ import annotations

import re

from assistant.claims import Abstract, Verdict, check, unescape_latex_numbers
from assistant.types import Citation, Removed, Source
from ingest.chunking import ends_with_abbreviation
from vectorstore.text import STOPWORDS

_MARKER = re.compile(r"\[(0|[1-9]\d*(?:\s*[,;]\s*[1-9]\d*)*)\]")  # "[0]" is a bad marker, "[0,1]" an interval
_CLAIM_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_TITLE_LABEL = re.compile(r"^\s*(?:[-*]\s+)?\*\*[^*\n]+\*\*:\s*")
_QUOTED = re.compile(r"[\"“]([^\"”]{12,})[\"”]")


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` that can carry a claim (no stopwords, no single letters)."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1}


def _numbers(claim: str) -> list[int]:
    return [int(n) for group in _MARKER.findall(claim) for n in re.split(r"\s*[,;]\s*", group)]


def _normalize(text: str) -> str:
    return " ".join(unescape_latex_numbers(text).lower().split())


class _Papers:
    """The given sources prepared once for checking claims against each of them."""

    def __init__(self, sources: list[Source], learned: bool, probe: bool = False) -> None:
        self.learned = learned  # single-paper claims also pass the entailment model (not trained on group claims)
        self.probe = probe
        self.by_number = {s.number: s for s in sources}
        self.prepared = {s.number: Abstract.of(s.title, s.abstract) for s in sources}
        self._verdicts: dict[tuple[str, int], Verdict] = {}

    def check(self, claim_text: str, number: int) -> Verdict:
        """``check`` of the claim against paper ``number``, once per claim and paper: attributing an unmarked sentence
        and then judging the marker it got ask the same question (and the probe's is a model call)."""
        key = (claim_text, number)
        if key not in self._verdicts:
            self._verdicts[key] = check(claim_text, self.prepared[number], learned=self.learned, probe=self.probe)
        return self._verdicts[key]

    def judge(self, claim_text: str, number: int) -> Verdict:
        """The verdict for ``[number]`` on this claim, including "another given paper says it better"."""
        verdict = self.check(claim_text, number)
        if not verdict.supported:
            return verdict
        for other in self.prepared:
            if other != number:
                rival = self.check(claim_text, other)
                if rival.supported and rival.score >= verdict.score + _RIVAL_MARGIN:
                    return Verdict(False, verdict.score, verdict.span, f"another given paper says this better ([{other}])")
        return verdict

    def judge_group(self, claim_text: str, numbers: list[int]) -> dict[int, Verdict]:
        """Verdicts for a claim cited to several papers at once ("both study X [1, 2]"): together
        they must entail it, and each must support part of it."""
        joint = Abstract.of(" ".join(self.by_number[n].title for n in numbers),
                            " ".join(self.by_number[n].abstract for n in numbers))
        together = check(claim_text, joint)
        out = {}
        for n in numbers:
            own = check(claim_text, self.prepared[n], min_coverage=_GROUP_SHARE)
            if not together.supported:
                out[n] = Verdict(False, own.score, own.span, together.reason)
            elif own.score < _GROUP_SHARE:
                out[n] = Verdict(False, own.score, own.span, "no sentence of the abstract says this")
            else:
                out[n] = Verdict(True, own.score, own.span)
        return out

    def attribution(self, claim_text: str, threshold: float, hinted: tuple[int, ...] = ()) -> int | None:
        """The source that supports an unmarked claim: the paper a neighbouring sentence of the passage cites ("S1. S2
        [1]": one marker for both), when it supports the claim and no other given paper says it better; else the one
        source that clearly supports it, if any."""
        for number in hinted:
            if number in self.prepared and self.judge(claim_text, number).supported:
                return number
        verdicts = [(self.check(claim_text, n), n) for n in self.prepared]
        good = sorted(((v.score, n) for v, n in verdicts if v.supported and v.score >= threshold), reverse=True)
        if good and (len(good) == 1 or good[0][0] >= good[1][0] + _RIVAL_MARGIN):
            return good[0][1]
        return None

    def unattributed(self, claim_text: str, threshold: float) -> str:
        """Why an unmarked claim got no marker although a source covers it this well: that source's verdict (the
        entailment model read it otherwise, say), else ``""``."""
        covered = [v for v in (self.check(claim_text, n) for n in self.prepared) if v.score >= threshold and v.reason]
        return max(covered, key=lambda v: v.score).reason if covered else ""


_RIVAL_MARGIN = 0.25  # another paper covers the claim this much better: the marker names the wrong paper
_GROUP_SHARE = 0.25  # each paper of a grouped citation [1, 2] must cover this share of the claim


def verify(text: str, sources: list[Source], question: str = "", attribute: float | None = None,
           strict: bool = False, learned: bool = False, probe: bool = False) -> tuple[str, list[Citation], list[Removed]]:
    """Check every marker in ``text`` against the claim it is attached to and the cited abstract.

    Each claim (the clause before a marker, or its sentence) keeps ``[n]`` only when paper n
    entails it (``assistant.claims.check``: content, numbers, polarity, rare terms) and no other
    given paper supports it clearly better. With ``attribute`` (a support threshold), an unmarked
    claim that exactly one source supports gets that source's marker. With ``strict`` (LLM
    output), a claim left without a verified marker is removed from the text. With ``learned``
    (``Settings.entailment_check``), a claim the rules keep must also pass the entailment model; with ``probe``
    (``Settings.entailment_probe``) the local LLM's reading joins the model's.

    Returns the cleaned text (markers renumbered 1..m in order of first use), one verified
    citation per cited paper, and every marker or claim that was removed, with the reason.
    """
    papers = _Papers(sources, learned, probe)
    renumber: dict[int, int] = {}
    quotes: dict[int, tuple[int, int, float]] = {}
    asked = content_words(question)
    removed: list[Removed] = []
    pieces: list[str] = []
    claims = _split_keep(text)
    for index, claim in enumerate(claims):
        claim_text = _TITLE_LABEL.sub("", _MARKER.sub("", claim))  # "- **Title**: sentence": the title is a label
        if not content_words(claim_text):
            pieces.append(_MARKER.sub("", claim))  # a bare "[1]" claims nothing: drop it
            continue
        if attribute and not _MARKER.search(claim) and not _QUOTED.search(claim_text):
            number = papers.attribution(claim_text, attribute, tuple(_neighbour_markers(claims, index)))
            if number is not None:
                stripped = claim.rstrip()
                claim = f"{stripped} [{number}]{claim[len(stripped):]}"
        fabricated = {_normalize(q) for q in _QUOTED.findall(claim_text)}
        kept_any = False
        had_marker = bool(_MARKER.search(claim))
        segments = _segments(claim)

        def replace(match: re.Match[str]) -> str:
            nonlocal kept_any
            segment = segments.get(match.start(), claim_text)
            kept = []
            numbers = list(dict.fromkeys(_numbers(match.group(0))))
            known = [n for n in numbers if n in papers.by_number]
            group = papers.judge_group(segment, known) if len(known) > 1 else {}
            for number in numbers:
                source = papers.by_number.get(number)
                reason = ""
                verdict = None
                if source is None:
                    reason = f"no source [{number}] was given"
                elif any(q not in _normalize(source.abstract) for q in fabricated):
                    reason = "quotes text that is not in the abstract"
                else:
                    verdict = group.get(number) or papers.judge(segment, number)
                    if not verdict.supported:
                        reason = verdict.reason
                if reason:
                    removed.append(Removed(marker=number, paper_id=source.paper_id if source else None,
                                           claim=_tidy(segment), reason=reason))
                    continue
                assert source is not None and verdict is not None
                (start, end), support = verdict.span, verdict.score
                # the citation's quote: the best-supporting sentence; among equals, the one closest to the question
                support += 0.001 * len(asked & content_words(source.abstract[start:end]))
                if number not in renumber:
                    renumber[number] = len(renumber) + 1
                    quotes[number] = (start, end, support)
                elif support > quotes[number][2]:
                    quotes[number] = (start, end, support)
                kept.append(renumber[number])
                kept_any = True
            return "".join(f"[{n}]" for n in dict.fromkeys(kept))

        checked = _MARKER.sub(replace, claim)
        if strict and not kept_any:
            if not had_marker:
                why = papers.unattributed(claim_text, attribute) if attribute else ""
                removed.append(Removed(marker=None, paper_id=None, claim=_tidy(claim_text),
                                       reason=f"no citation ({why})" if why else "no citation"))
            trailing = claim[len(claim.rstrip()):]
            pieces.append("\n" if "\n" in trailing else "")
            continue
        pieces.append(checked)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", "".join(pieces))
    cleaned = re.sub(r"[ \t]{2,}", " ", cleaned)
    cleaned = re.sub(r"\n{3,}", "\n\n", cleaned).strip()
    citations = []
    for original, number in sorted(renumber.items(), key=lambda item: item[1]):
        source = papers.by_number[original]
        start, end, _ = quotes[original]
        citations.append(Citation(
            number=number, paper_id=source.paper_id, title=source.title, url=source.url,
            authors=source.authors, venue=source.venue,
            quote=source.abstract[start:end], start=start, end=end,
        ))
    return cleaned, citations, removed


def _neighbour_markers(claims: list[str], index: int) -> list[int]:
    """The markers of the sentences right after and right before claim ``index`` in its passage (not across a line
    break): a marker at the end of a passage often stands for its earlier sentences too."""
    found: list[int] = []
    for other in (index + 1, index - 1):
        if 0 <= other < len(claims):
            earlier = claims[min(index, other)]  # its trailing separator parts the two
            if "\n" not in earlier[len(earlier.rstrip()):]:
                found += [n for n in _numbers(claims[other]) if n not in found]
    return found


def _tidy(text: str) -> str:
    return " ".join(text.split()).strip(" -*")


def _segments(claim: str) -> dict[int, str]:
    """For each marker group (by position), the text it vouches for: the clause since the previous
    marker when that clause says something on its own, else the whole claim."""
    whole = _TITLE_LABEL.sub("", _MARKER.sub("", claim))
    out: dict[int, str] = {}
    last = 0
    for match in _MARKER.finditer(claim):
        clause = _TITLE_LABEL.sub("", claim[last : match.start()])
        out[match.start()] = clause if len(content_words(clause)) >= 3 else whole
        last = match.end()
    return out


def _split_keep(text: str) -> list[str]:
    """Split into claims (sentences/lines) keeping separators, so joining restores the text."""
    parts: list[str] = []
    last = 0
    for match in _CLAIM_SPLIT.finditer(text):
        if "\n" not in match.group(0) and (ends_with_abbreviation(text[last : match.start()]) or text[match.end():match.end() + 1].islower()):
            continue  # "by Ghazi et al. (2023)", "a stream of N i.i.d. random bits": one claim
        # a marker right after the sentence end belongs to that sentence: "... works. [1]"
        parts.append(text[last : match.end()])
        last = match.end()
    parts.append(text[last:])
    merged: list[str] = []
    for part in parts:
        lead = re.match(r"^[ \t]*(\[\d+(?:\s*[,;]\s*\d+)*\][ \t]*)+", part)
        if merged and lead and not merged[-1].endswith("\n"):  # "... works. [1] Next claim.": [1] is the first sentence's
            merged[-1] += lead.group(0)
            part = part[lead.end():]
        if part:
            merged.append(part)
    return [p for p in merged if p]
