"""HTML escaping shared by the browser app's modules: every untrusted text goes through ``escape``, every link through ``link``."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlparse


def escape(text: Any) -> str:
    """Text (``None`` as empty) escaped for HTML content and attribute values."""
    return html.escape(str(text or ""), quote=True)


def link(url: str, label: str) -> str:
    """An escaped link, only for http(s) URLs (a ``javascript:`` URL becomes plain text)."""
    if urlparse(url or "").scheme in ("http", "https"):
        return f'<a href="{escape(url)}" target="_blank" rel="noopener noreferrer nofollow">{escape(label)}</a>'
    return escape(label)
