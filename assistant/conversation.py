"""Follow-up questions: the typed question and, when the history can help, a standalone rewrite.

Deterministic and engine independent (it also serves the extractive engine). ``candidates`` only
*proposes*: a question that refers back (a pronoun in English, German, French or Spanish, an
elliptical start such as "and the datasets?", a correction such as "no, I meant the other paper")
or that is very short gets a rewrite with the title the previous answer cited first (for a
correction, the paper before that) and the content words of the previous question. Which of the
two is searched is decided by the ``Assistant`` on evidence: it retrieves for both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from assistant.grounding import content_words
from vectorstore.text import REQUEST_WORDS

# pronouns and demonstrative phrases that point back to an earlier turn; "the authors" or "the method"
# alone are not enough (standalone questions use them: "What did the authors find about X?")
_ANAPHORA = re.compile(
    r"\b(it|its|it's|they|them|their|(this|that|these|those|the same) (paper|papers|method|model|approach|work|framework|algorithm|study|one)"
    # German, French, Spanish: personal and possessive pronouns, "this paper"
    r"|(?<!qué )(?<!que )(?<!cuál )es|sie|ihr|ihre|ihren|ihrer|sein|seine|seinen|seiner|dessen|deren|diese[rsmn]?"
    r"|il|elle|ils|elles|ses|son|sa|leur|leurs|ce papier|cet article|cette méthode"
    r"|ello|ella|ellos|ellas|su|sus|este artículo|este método|esta)\b",
    re.IGNORECASE,
)
# a question that continues the previous one without naming anything ("and the datasets?", "what about ...")
_ELLIPSIS = re.compile(r"^\W*(and|also|what about|how about|und|et|y|e)\b", re.IGNORECASE)
# "no, I meant the other paper": the paper before the last one
_CORRECTION = re.compile(r"\b(the other (paper|one|method|work)|l'autre|den anderen|das andere|el otro|la otra)\b", re.IGNORECASE)
_CITED_TITLE = re.compile(r"\*\*(.+?)\*\*")
SHORT_QUESTION = 2  # a question with at most this many content words and no name may lean on the history
Message = Mapping[str, str]


@dataclass(frozen=True)
class Candidates:
    """The typed question, and the rewrite when the history may complete it.

    ``refers_back``: the question points back explicitly (pronoun, ellipsis, correction), so the
    rewrite wins unless the typed question alone finds confident evidence elsewhere.
    ``previous_paper``: the title the rewrite added (the paper the conversation was about).
    """

    typed: str
    rewrite: str | None = None
    refers_back: bool = False
    previous_paper: str = ""


def refers_back(question: str) -> bool:
    """True when the question points back to an earlier turn (pronoun, ellipsis or correction)."""
    return bool(_ANAPHORA.search(question) or _ELLIPSIS.search(question) or _CORRECTION.search(question))


def is_followup(question: str, history: Sequence[Message]) -> bool:
    """True when the history may complete ``question`` (explicit reference, or a short unnamed question)."""
    if not any(m.get("role") == "user" for m in history):
        return False
    if refers_back(question):
        return True
    named = any(w[:1].isupper() or any(c.isdigit() for c in w) for w in question.split()[1:])
    return not named and len(content_words(question)) <= SHORT_QUESTION


def _cited_titles(history: Sequence[Message]) -> list[str]:
    """The first title each assistant answer cited, newest first, without repeats."""
    titles = [t[0] for m in reversed(history) if m.get("role") == "assistant" and (t := _CITED_TITLE.findall(m.get("content", "")))]
    return list(dict.fromkeys(titles))


def candidates(question: str, history: Sequence[Message] | None) -> Candidates:
    """The typed ``question`` and, when the earlier turns (oldest first) may complete it, a rewrite."""
    question = " ".join(question.split())
    history = list(history or [])
    if not is_followup(question, history):
        return Candidates(question)
    users = [m["content"] for m in history if m.get("role") == "user"]
    titles = _cited_titles(history)
    correction = bool(_CORRECTION.search(question))
    if correction:  # the paper (and question) before the last one
        titles = titles[1:2]
        users = users[:-1] or users
    previous_user = users[-1] if users else ""
    context: list[str] = titles[:1]
    own = content_words(question)
    context.extend(w for w in dict.fromkeys(re.findall(r"[\w-]+", previous_user))
                   if w.lower() in content_words(previous_user) and w.lower() not in own and w.lower() not in REQUEST_WORDS)
    if not context:
        return Candidates(question)
    return Candidates(question, f"{question} ({' '.join(context)})", refers_back(question), titles[0] if titles else "")


def standalone_query(question: str, history: Sequence[Message] | None) -> str:
    """The rewrite of ``question`` given the earlier turns, or the question itself (no evidence used)."""
    found = candidates(question, history)
    return found.rewrite or found.typed
