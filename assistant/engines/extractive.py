"""The ``extractive`` engine: the most relevant sentences of the top papers, each cited. No LLM, deterministic."""

from __future__ import annotations

from typing import Iterator

from assistant.evidence import Evidence


class ExtractiveEngine:
    """Answers with the top paper's best sentences, plus other top papers' best sentence when nearly as relevant."""

    name = "extractive"
    max_papers: int | None = None  # reads the top papers itself; all k stay sources the verifier knows
    free_text = False

    def __init__(self, max_sentences: int = 4, relative_cutoff: float = 0.85, lead_sentences: int = 3, papers: int = 3) -> None:
        self.max_sentences = max_sentences
        self.relative_cutoff = relative_cutoff
        self.lead_sentences = lead_sentences
        self.papers = papers

    def stream(self, question: str, query: str, evidence: list[Evidence]) -> Iterator[str]:
        if not evidence or not evidence[0].sentences:
            return
        # the top paper's best sentences, in abstract order; other papers only if nearly as relevant
        lead = evidence[0]
        picked = [(lead, s, e) for s, e, _ in sorted(lead.sentences[: self.lead_sentences])]
        best = lead.sentences[0][2]
        for ev in evidence[1 : self.papers]:
            if ev.sentences and ev.sentences[0][2] >= self.relative_cutoff * best and len(picked) < self.max_sentences:
                picked.append((ev, ev.sentences[0][0], ev.sentences[0][1]))
        lines: list[str] = []
        for ev, start, end in picked:
            sentence = ev.source.abstract[start:end].strip()
            lines.append(f"- **{ev.source.title}**: {sentence} [{ev.source.number}]" if ev is not lead or not lines
                         else f"- {sentence} [{ev.source.number}]")
        yield "\n".join(lines)
