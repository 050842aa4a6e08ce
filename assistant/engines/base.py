"""What an answer engine is: it writes text with ``[n]`` markers from the question, the query and the evidence."""

from __future__ import annotations

from typing import Iterator, Protocol

from assistant.evidence import Evidence


class Engine(Protocol):
    """An answer engine. The Assistant gives it ``evidence[:max_papers]`` and verifies what it writes.

    ``free_text``: the engine writes its own sentences (an LLM), so unmarked sentences are attributed
    to the source that supports them, and an answer that cannot be verified is replaced by the
    extractive one. An engine that only copies sentences (``free_text = False``) is checked as is.
    """

    name: str
    max_papers: int | None  # papers of the evidence it reads (None: all k)
    free_text: bool

    def stream(self, question: str, query: str, evidence: list[Evidence]) -> Iterator[str]:
        """Yield answer text with ``[n]`` markers as it is produced.

        ``question`` is what the user typed; ``query`` the standalone form of a follow-up.
        """
        ...
