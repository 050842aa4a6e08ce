"""Text hygiene at ingest: LaTeX escapes and PDF line-break hyphens out of titles and abstracts.

Cleaning happens once, before chunking, so every later stage (embeddings, the keyword index,
quotes, the chat) sees the same readable text and a citation quote is still a verbatim
substring of the stored abstract.
"""

from __future__ import annotations

import re
from functools import lru_cache

_HYPHEN_BREAK = re.compile(r"\b([A-Za-z]+)-[ \t]*\r?\n\s*([a-z]+)\b")
_ESCAPES = {"\\%": "%", "\\&": "&", "\\_": "_", "\\#": "#", "\\$": "\uFF04"}  # a literal $ must not open math
_INLINE_MATH = re.compile(r"(?<!\\)\$([^$\n]{1,200}?)(?<!\\)\$")
_TEXT_COMMAND = re.compile(r"\\(?:textbf|textit|emph|texttt|textrm|textsc|mathrm|mathbf|mathit|text)\{([^{}]*)\}")


@lru_cache(maxsize=1)
def _latex_to_text():  # type: ignore[no-untyped-def]
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def _is_word(word: str, context: str) -> bool:
    """A known English word (wordfreq's lists), or a word the same text uses elsewhere."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") > 1.5 or re.search(rf"\b{re.escape(word)}\b", context, re.IGNORECASE) is not None


def join_hyphen_breaks(text: str) -> str:
    """"bidi-\\nrected" -> "bidirected" when the joined word exists; else keep the hyphen ("state-of-\\nthe-art")."""
    def join(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        joined = left + right
        rest = text[: match.start()] + text[match.end() :]
        return joined if _is_word(joined, rest) else f"{left}-{right}"

    return _HYPHEN_BREAK.sub(join, text)


def _math(match: re.Match[str]) -> str:
    body = _TEXT_COMMAND.sub(r"\1", match.group(1))
    if "\\" in body:
        try:
            body = _latex_to_text().latex_to_text(body)
        except Exception:  # noqa: BLE001 - malformed LaTeX stays as written
            pass
    body = re.sub(r"([\^_])\{([^{}]*)\}", r"\1(\2)", body)  # n^{-1/(t+5)} -> n^(-1/(t+5))
    return body.replace("{", "").replace("}", "")


def unescape_latex(text: str) -> str:
    """Readable text for LaTeX that abstracts carry: ``70.7\\%`` -> ``70.7%``, ``$t$`` -> ``t``,
    ``$\\mu_0$`` -> ``μ_0``, ``\\emph{x}`` -> ``x``. Anything it cannot read is left as written."""
    if "\\" not in text and "$" not in text:
        return text
    for escape, plain in _ESCAPES.items():
        text = text.replace(escape, plain)
    text = _TEXT_COMMAND.sub(r"\1", text)
    text = _INLINE_MATH.sub(_math, text)
    return text.replace("\uFF04", "$")


def clean_text(text: str) -> str:
    """Join hyphenated line breaks, unescape LaTeX, collapse whitespace."""
    return " ".join(unescape_latex(join_hyphen_breaks(text)).split())
