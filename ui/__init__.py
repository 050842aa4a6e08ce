"""Every way a person talks to the assistant (layer 4, the top): the browser chat and the terminal commands.

``ui.app``: ``create_app(assistant)`` builds the Gradio app, ``serve(settings)`` runs it.
``ui.cli``: the ``paperchat`` command. Both use only the ``Assistant``'s public methods.
"""

from __future__ import annotations

from typing import Any

import vectorstore  # noqa: F401  (the offline environment, before any library loads)

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> Any:  # gradio is imported only when the browser app is used
    if name in __all__:
        from ui import app

        return getattr(app, name)
    raise AttributeError(f"module 'ui' has no attribute {name!r}")
