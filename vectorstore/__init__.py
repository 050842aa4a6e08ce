"""Settings, embeddings, the Chroma paper store and its BM25 keyword index."""

from vectorstore.settings import Settings  # first: sets the offline environment

from vectorstore.embeddings import Embedder
from vectorstore.errors import InputError, ModelMismatchError, PaperchatError, StoreError
from vectorstore.keyword import KeywordIndex
from vectorstore.store import PaperStore, StoredPaper

__all__ = ["Embedder", "InputError", "KeywordIndex", "ModelMismatchError", "PaperStore", "PaperchatError", "Settings", "StoreError", "StoredPaper"]
