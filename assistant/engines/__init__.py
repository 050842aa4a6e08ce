"""Answer engines, and ``make_engine`` which builds the one the settings name.

``extractive`` copies the most relevant sentences (no LLM); ``local`` (llama.cpp) and ``openai``
(any compatible endpoint) are LCEL chains over a chat model.
"""

from __future__ import annotations

from assistant.engines.base import Engine
from assistant.engines.chat import ChatEngine, openai_chat_model
from assistant.engines.extractive import ExtractiveEngine
from assistant.engines.local import local_available, local_chat_model
from vectorstore.errors import EngineError
from vectorstore.settings import Settings

__all__ = ["ChatEngine", "Engine", "ExtractiveEngine", "make_engine"]


def make_engine(settings: Settings) -> Engine:
    """Build the engine named by ``settings.engine`` (``auto``: local if installed, else extractive)."""
    name = settings.engine
    if name == "auto":
        name = "local" if local_available(settings) else "extractive"
    if name == "extractive":
        return ExtractiveEngine()
    if name == "local":
        return ChatEngine("local", local_chat_model(settings))
    if name == "openai":
        return ChatEngine("openai", openai_chat_model(settings))
    raise EngineError(f"unknown engine {name!r}; use auto, extractive, local or openai", engine=name, kind="missing")
