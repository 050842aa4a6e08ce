"""Plain-text helpers every layer shares: the stopword lists and the one sanitiser for untrusted text."""

from __future__ import annotations

import re

# The word lists, each with its one job:
#: function words: carry no claim (citation support, follow-up detection)
STOPWORDS = frozenset(
    "a an and are as at be been by can did do does for from has have how in into is it its of on or our over such that the their "
    "them these this those to was we were what when where which while who why will with within without using used use".split()
)
#: function words of a claim, a broader list that keeps negations out ("without" matters when checking a claim)
FUNCTION_WORDS = frozenset(
    "a an and are as at be been being both but by can could did do does doing for from had has have having how i if in "
    "into is it its itself of on onto or our ours so such than that the their theirs them then there these they this "
    "those through to too upon us was we were what when where whether which while who whom whose why will with within "
    "would you your also via per each other another any all some most many much more very only just well here thus "
    "hence however moreover furthermore additionally specifically respectively namely e g i.e etc".split()
)
#: question words: ask rather than name a topic (left out of the query terms that abstention weighs)
QUESTION_WORDS = frozenset(
    "what which who whom whose why how when where does do did is are was were can could should would paper papers "
    "study studies propose proposes proposed method methods approach authors work use used using show shows "
    "tell me about there any find explain describe give list".split()
)
#: request words: a follow-up does not carry these over from the previous question
REQUEST_WORDS = frozenset("tell me about there any paper papers show find explain describe give list which".split())

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")


def printable(text: str) -> str:
    """``text`` safe for a terminal and a search: escape sequences and control characters become spaces.

    Newlines and tabs stay; abstracts and questions come from users and must not drive the terminal.
    """
    text = _ESCAPE.sub(" ", text)
    return "".join(ch if ch in "\n\t" or ch.isprintable() else " " for ch in text)
