"""Text hygiene at ingest: LaTeX escapes and PDF line-break hyphens out of titles and abstracts.

Cleaning happens once, before chunking, so every later stage (embeddings, the keyword index,
quotes, the chat) sees the same readable text and a citation quote is still a verbatim
substring of the stored abstract.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_HYPHEN_BREAK = re.compile(r"\b([A-Za-z]+)-[ \t]*\r?\n\s*([a-z]+)\b")
_ESCAPES = {"\\%": "%", "\\&": "&", "\\_": "_", "\\#": "#", "\\$": "\uFF04"}  # a literal $ must not open math
_INLINE_MATH = re.compile(r"(?<!\\)\$([^$\n]{1,200}?)(?<!\\)\$")
# font sizes say nothing: "\\text{aL\\small{LM}4T\\small{S}}" is "aLLM4TS"
_FONT_SIZE = re.compile(r"\\(?:tiny|scriptsize|footnotesize|small|normalsize|large|Large|LARGE|huge|Huge)(?![A-Za-z])(?:\{([^{}]*)\}|\s*)")
# old-style font switches: "{\\sl distributional-lifting theorem}", "{\\it RieM}"
_FONT_SWITCH = re.compile(r"\{\\(?:sl|it|bf|em|rm|tt|sc|sf)\s+([^{}]*)\}")
_TEXT_COMMAND = re.compile(r"\\(?:textbf|textit|emph|texttt|textrm|textsc|mathrm|mathbf|mathit|text)\{([^{}]*)\}")


@lru_cache(maxsize=1)
def _latex_to_text() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def join_hyphen_breaks(text: str, vocabulary: frozenset[str] | set[str] = frozenset()) -> str:
    """"bidi-\\nrected" -> "bidirected" where the joined word is used elsewhere in the corpus
    (``vocabulary``) or is a more common English word than the hyphenated pair (wordfreq);
    anything else is left as written ("pre-\\nand post-training" may be "pre- and post-training")."""
    from wordfreq import zipf_frequency

    def join(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        joined = left + right
        if joined.lower() in vocabulary or zipf_frequency(joined, "en") > zipf_frequency(f"{left}-{right}", "en"):
            return joined
        return match.group(0)

    return _HYPHEN_BREAK.sub(join, text)


def vocabulary_of(text: str) -> frozenset[str]:
    """The words a corpus file uses (for joining hyphenated line breaks)."""
    return frozenset(re.findall(r"[a-z]+", text.lower()))


# papers' own macros for a bound's O ("\\Ocal(\\kappa)"), which a LaTeX reader would drop
_BIG_O = re.compile(r"\\(?:Ocal|calO|cO|gO|bigO|BigO|tO|Otilde|tilO)(?![A-Za-z])")


def _math(match: re.Match[str]) -> str:
    body = _TEXT_COMMAND.sub(r"\1", _FONT_SWITCH.sub(r"\1", _BIG_O.sub("O", match.group(1))))
    body = re.sub(r"(?<=[\w}])\\(?=[A-Za-z])", r" \\", body)  # "^{-3}\ln\epsilon": "^-3 ln ϵ", not "^-3lnϵ"
    body = re.sub(r"\\[dt]frac(?![A-Za-z])", r"\\frac", body)  # display and text fractions are fractions
    body = re.sub(r"\\(sqrt|log|exp|min|max|sup|inf|lim)\b\s*(?:\{((?:[^{}]|\{[^{}]*\})*)\})?",
                  lambda m: f"{m.group(1)}({m.group(2)})" if m.group(2) is not None else m.group(1), body)  # \sqrt{T} -> sqrt(T)
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
    text = _FONT_SIZE.sub(lambda m: m.group(1) or "", text)
    text = _FONT_SWITCH.sub(r"\1", text)
    text = _TEXT_COMMAND.sub(r"\1", text)
    text = _INLINE_MATH.sub(_math, text)
    return text.replace("\uFF04", "$")


def clean_text(text: str, vocabulary: frozenset[str] | set[str] = frozenset()) -> str:
    """Join hyphenated line breaks, unescape LaTeX, collapse whitespace."""
    return " ".join(unescape_latex(" ".join(join_hyphen_breaks(text, vocabulary).split())).split())
