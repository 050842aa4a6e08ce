"""The ``extractive`` engine: the selected sentences, each cited. No LLM, deterministic."""

from __future__ import annotations

from typing import Iterator

from assistant.evidence import Evidence
from assistant.selection import Shape, question_shape, render


class ExtractiveEngine:
    """Answers with the sentences ``assistant.selection.select`` chose, in abstract order, one line each."""

    name = "extractive"
    max_papers: int | None = None
    free_text = False

    def __init__(self, shape: Shape | None = None) -> None:
        self.shape = shape  # the question's shape when the Assistant has read it (filter words taken out); else read here

    def stream(self, question: str, query: str, evidence: list[Evidence]) -> Iterator[str]:
        text = render(evidence, self.shape or question_shape(question))
        if text:
            yield text
