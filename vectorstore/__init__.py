"""Settings, embeddings, the Chroma paper store and its BM25 keyword index: the bottom layer.

Layers, bottom to top: ``vectorstore`` -> ``ingest`` -> ``assistant`` -> ``ui``. Every other package
imports this one in its ``__init__``, so the offline environment below is set before any library
(sentence-transformers, Chroma, Gradio) loads, whatever module a program imports first.
"""

import os as _os

# Nothing in paperchat may reach the network at run time: no hub look-ups, no telemetry, no analytics.
OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
}
for _key, _value in OFFLINE_ENVIRONMENT.items():
    _os.environ.setdefault(_key, _value)

from vectorstore.embeddings import Embedder  # noqa: E402
from vectorstore.errors import (  # noqa: E402
    EngineError, InputError, ModelError, ModelMismatchError, PaperchatError, StoreError,
)
from vectorstore.keyword import KeywordIndex  # noqa: E402
from vectorstore.settings import Settings  # noqa: E402
from vectorstore.store import PaperStore, StoredPaper  # noqa: E402

__all__ = ["Embedder", "EngineError", "InputError", "KeywordIndex", "ModelError", "ModelMismatchError", "OFFLINE_ENVIRONMENT",
           "PaperStore", "PaperchatError", "Settings", "StoreError", "StoredPaper"]
