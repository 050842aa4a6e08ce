"""HTML escaping shared by the browser app's modules: every untrusted text goes through ``escape``, every link through ``link``.

Also the markdown-safe ``md_text``, the authors/venue line and the one-line error text, used by the Chat
tab (``ui/app.py``) and the Explore tab (``ui/explore.py``).
"""

from __future__ import annotations

import html
import re
from typing import Any, Sequence
from urllib.parse import urlparse

from vectorstore.errors import PaperchatError

_MD_ESCAPE = re.compile(r"[\\\[\]()`@]|(?<=\]):|:(?=/)|(?i:www)\.")


def escape(text: Any) -> str:
    """Text (``None`` as empty) escaped for HTML content and attribute values."""
    return html.escape(str(text or ""), quote=True)


def link(url: str, label: str) -> str:
    """An escaped link, only for http(s) URLs (a ``javascript:`` URL becomes plain text)."""
    if urlparse(url or "").scheme in ("http", "https"):
        return f'<a href="{escape(url)}" target="_blank" rel="noopener noreferrer nofollow">{escape(label)}</a>'
    return escape(label)


def md_text(text: Any) -> str:
    """Untrusted text for a markdown component: it shows as typed and becomes no link, image or HTML.

    Backslash-escapes what can start a link, image, reference definition or code span
    (``\\ [ ] ( )`` and backticks), the ``:`` of ``scheme://`` and after ``]``, ``www.`` and ``@``
    (GFM's bare-URL and e-mail autolinks), then HTML-escapes ``< > &`` (tags, ``<http://…>``).
    Emphasis and bullets still render, so the answer's own ``**Title**:``, ``- `` and ``_note_`` work.
    """
    escaped = _MD_ESCAPE.sub(lambda m: m.group(0)[:3] + "\\." if len(m.group(0)) == 4 else "\\" + m.group(0), str(text or ""))
    return html.escape(escaped, quote=False)


def meta_line(authors: Sequence[str], venue: str) -> str:
    """Authors (at most six named) and venue, escaped."""
    names = ", ".join(authors[:6]) + (f" et al. ({len(authors)} authors)" if len(authors) > 6 else "")
    return " · ".join(escape(part) for part in (names, venue) if part)


def error_message(exc: BaseException) -> str:
    """A failure as one line for the page: paperchat's own message, or what happened and what to do."""
    if isinstance(exc, PaperchatError):
        return str(exc)
    return (f"unexpected error ({exc.__class__.__name__}: {str(exc)[:200]}); "
            "see the server log, then try again or restart `paperchat serve`")
