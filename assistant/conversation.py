"""Follow-up questions: rewrite them into a standalone search query using the history.

Deterministic and engine independent (it also serves the extractive engine): a question that
refers back ("it", "its", "this paper", "the method", ...) or is very short gets the content words
of the previous user turn, and the title the previous answer cited first, appended.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from assistant.grounding import content_words
from vectorstore.text import REQUEST_WORDS

# pronouns and demonstrative phrases that point back to an earlier turn; "the authors" or "the method"
# alone are not enough (standalone questions use them: "What did the authors find about X?")
_ANAPHORA = re.compile(
    r"\b(it|its|it's|they|them|their|(this|that|these|those|the same) (paper|papers|method|model|approach|work|framework|algorithm|study|one))\b",
    re.IGNORECASE,
)
_CITED_TITLE = re.compile(r"\*\*(.+?)\*\*")
Message = Mapping[str, str]


def is_followup(question: str, history: Sequence[Message]) -> bool:
    if not any(m.get("role") == "user" for m in history):
        return False
    if _ANAPHORA.search(question):
        return True
    named = any(w[:1].isupper() or any(c.isdigit() for c in w) for w in question.split()[1:])
    return not named and len(content_words(question)) <= 2


def standalone_query(question: str, history: Sequence[Message] | None) -> str:
    """The query to search for ``question`` given the earlier turns (oldest first)."""
    question = " ".join(question.split())
    history = list(history or [])
    if not is_followup(question, history):
        return question
    previous_user = next((m["content"] for m in reversed(history) if m.get("role") == "user"), "")
    previous_answer = next((m["content"] for m in reversed(history) if m.get("role") == "assistant"), "")
    context: list[str] = []
    titles = _CITED_TITLE.findall(previous_answer or "")
    if titles:
        context.append(titles[0])
    own = content_words(question)
    context.extend(w for w in dict.fromkeys(re.findall(r"[\w-]+", previous_user)) if w.lower() in content_words(previous_user) and w.lower() not in own and w.lower() not in REQUEST_WORDS)
    return f"{question} ({' '.join(context)})" if context else question
