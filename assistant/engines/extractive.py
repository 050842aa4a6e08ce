"""The ``extractive`` engine: the selected sentences, each cited. No LLM, deterministic."""

from __future__ import annotations

from typing import Iterator

from assistant.evidence import Evidence
from assistant.selection import question_shape, render


class ExtractiveEngine:
    """Answers with the sentences ``assistant.selection.select`` chose, in abstract order, one line each."""

    name = "extractive"
    max_papers: int | None = None
    free_text = False

    def stream(self, question: str, query: str, evidence: list[Evidence]) -> Iterator[str]:
        text = render(evidence, question_shape(question))
        if text:
            yield text
