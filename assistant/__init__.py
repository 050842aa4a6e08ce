"""paperchat's assistant: hybrid retrieval and verified, cited answers.

    >>> from assistant import Assistant
    >>> answer = Assistant().ask("What is Nester?")
    >>> print(answer.text, answer.citations[0].quote)
"""

from assistant.core import AbstentionPolicy, Assistant
from assistant.engines import EngineError
from assistant.retrieval import FusionConfig, HybridRetriever
from assistant.types import Answer, Citation, Hit
from vectorstore.settings import Settings

__all__ = ["AbstentionPolicy", "Answer", "Assistant", "Citation", "EngineError", "FusionConfig", "Hit", "HybridRetriever", "Settings"]
