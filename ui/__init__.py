"""The browser chat (Gradio): ``create_app(assistant)`` builds the app, ``serve(settings)`` runs it."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> Any:  # gradio is imported only when the UI is used
    if name in __all__:
        from ui import app

        return getattr(app, name)
    raise AttributeError(f"module 'ui' has no attribute {name!r}")
