"""paperchat's assistant: hybrid retrieval and verified, cited answers (layer 3, above ``ingest``).

    >>> from assistant import Assistant
    >>> answer = Assistant().ask("What is Nester?")
    >>> print(answer.text, answer.citations[0].quote)
"""

import vectorstore  # noqa: F401  (the offline environment, before any library loads)
from assistant.abstention import AbstentionPolicy
from assistant.core import Assistant
from assistant.paper_map import PaperMap
from assistant.retrieval import FusionConfig, HybridRetriever
from assistant.types import Answer, Citation, Hit, ListPage, PaperRef
from vectorstore.errors import EngineError, PaperchatError
from vectorstore.settings import Settings

__all__ = ["AbstentionPolicy", "Answer", "Assistant", "Citation", "EngineError", "FusionConfig", "Hit", "HybridRetriever",
           "ListPage", "PaperMap", "PaperRef", "PaperchatError", "Settings"]
