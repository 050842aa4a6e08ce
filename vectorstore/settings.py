"""All paperchat settings in one place.

Every field reads from an environment variable with the ``PAPERCHAT_`` prefix
(``PAPERCHAT_DATA_DIR``, ``PAPERCHAT_CHROMA_URL``, ...); CLI flags and keyword
arguments override the environment. The offline environment is set in ``vectorstore/__init__.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
EngineName = Literal["auto", "extractive", "local", "openai"]
EmbeddingBackend = Literal["auto", "onnx", "torch"]
EmbeddingPrecision = Literal["auto", "fp32", "int8"]
PaperVector = Literal["auto", "mean", "encode"]
Bf16 = Literal["auto", "on", "off"]


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/paperchat``, i.e. ``~/.local/share/paperchat`` by default."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paperchat"


class Settings(BaseSettings):
    """paperchat configuration (env vars ``PAPERCHAT_*``; explicit values win)."""

    model_config = SettingsConfigDict(env_prefix="PAPERCHAT_", extra="forbid", validate_assignment=True)

    data_dir: Path = Field(default_factory=default_data_dir, description="Embedded Chroma store, keyword index and model cache.")
    chroma_url: str | None = Field(default=None, description="Use a Chroma server (http://HOST:PORT) instead of the embedded store.")
    collection: str = Field(default="papers", pattern=r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$",
                            description="Chroma collection name: 3-512 characters of a-z A-Z 0-9 . _ -")
    embedding_model: str = Field(default=DEFAULT_EMBEDDING_MODEL, description="sentence-transformers model name or path.")
    embed_batch_size: int = Field(default=64, ge=1)
    embedding_backend: EmbeddingBackend = Field(
        default="auto", description="Encoder runtime: onnx (ONNX Runtime, exported once from the local weights), torch, "
                                    "or auto (onnx when onnxruntime and onnx are installed, else torch).")
    embedding_precision: EmbeddingPrecision = Field(
        default="auto", description="auto (the store's own precision; a new store gets int8 when ONNX Runtime can run the "
                                    "model, else fp32), fp32 (vectors match torch: stores stay interchangeable) or int8 "
                                    "(ONNX dynamic quantisation: faster, other vectors, so a store must be re-indexed to switch).")
    paper_vector: PaperVector = Field(
        default="auto", description="How a paper chunk gets its vector: encode (embed title and abstract), mean (the "
                                    "normalised mean of its sentence chunks' vectors: ingest embeds ~1.7x fewer tokens and "
                                    "runs ~1.5x faster, at a small cost in retrieval and abstention quality, see the README), "
                                    "or auto (the store's own; encode for a new store). Another kind than the store's is "
                                    "refused until re-indexed.")
    embedding_bf16: Bf16 = Field(
        default="auto", description="Large encodes for fp32 stores (ingest: calls of >= 512 texts) run torch in bfloat16 "
                                    "autocast, whose vectors match fp32 (cosine >= 0.9999, tested), ~2x faster where the CPU "
                                    "multiplies bf16 in hardware (AMX or AVX512-BF16). auto: on for such CPUs; on: always "
                                    "(slow without that hardware); off: never. Queries stay on the fp32 encoder.")
    embedding_threads: int = Field(default=0, ge=0, description="ONNX Runtime intra-op threads (0: one per core).")
    onnx_cache_dir: Path | None = Field(default=None, description="Where ONNX exports are cached (default DATA_DIR/cache/onnx); "
                                                                  "one folder per model checksum and precision, shareable between data dirs.")

    engine: EngineName = Field(default="extractive", description="Answer engine: extractive (default: the most correct on the eval), local, openai, or auto (local if installed, else extractive).")
    k: int = Field(default=5, ge=1, le=50, description="Papers in an answer's evidence (the retrieved papers the engine may quote and cite).")
    llm_model: str = Field(default="qwen2.5-0.5b", description="Local GGUF: registry name or path to a .gguf file.")
    llm_threads: int = Field(default=2, ge=1)
    llm_ctx: int = Field(default=2048, ge=512)
    llm_max_tokens: int = Field(default=160, ge=16)
    openai_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    openai_model: str = Field(default="gpt-4o-mini")
    openai_api_key: str | None = Field(default=None, description="Falls back to OPENAI_API_KEY.")
    openai_extra_body: str | None = Field(
        default=None, description="A JSON object merged into every request body, for a server's own sampling options: "
                                  "'{\"repeat_penalty\": 1.0}' for llama.cpp's server, whose default of 1.1 makes the model "
                                  "paraphrase the numbers it should copy (benchmarks/HISTORY.md).")
    request_timeout: float = Field(default=60.0, gt=0, description="Seconds before an LLM request is abandoned.")
    entailment_check: bool = Field(default=True, description="LLM engines: a claim of 6+ words that the lexical checks let through "
                                                             "must also pass the small learned entailment model (assistant/entailment.py), "
                                                             "which catches reversals said in other words (benchmarks/HISTORY.md); false: the "
                                                             "lexical checks only.")
    entailment_probe: bool = Field(default=True, description="With entailment_check: the local Qwen2.5 0.5B's reading of each "
                                                             "such claim (a linear probe, assistant/probe.py) joins the "
                                                             "learned model's, when that model is installed (about 0.5 s a "
                                                             "claim on 2 cores); false, or without that model: a "
                                                             "cross-encoder trained to decide alone, at its own thresholds.")
    near_miss_probe: bool = Field(default=True, description="Single-paper questions: the local Qwen2.5 0.5B reads the question "
                                                            "with each selected abstract (a linear probe, assistant/probe.py) and "
                                                            "decides, with the near-miss rules, whether the papers answer it, when "
                                                            "that model is installed (about 1-2 s a paper on 2 cores); false, or "
                                                            "without that model: the rules alone.")
    quotes_under_summary: bool = Field(default=True, description="LLM engines: after the model's verified sentences, show the "
                                                                  "abstract sentences it condensed (no selected fact is lost).")

    # caps on one browser upload (``paperchat serve``); ``paperchat ingest`` has none
    upload_max_bytes: int = Field(default=50_000_000, ge=1, description="Largest upload file, in bytes (50 MB; "
                                                                         "gradio refuses larger files before they arrive).")
    upload_max_papers: int = Field(default=10_000, ge=1, description="Most papers one upload may add or update (an ingest "
                                                                      "of 10,000 papers takes ~20 min on 2 cores).")

    @field_validator("openai_extra_body")
    @classmethod
    def _json_object(cls, value: str | None) -> str | None:
        if value is not None and value.strip():
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not JSON ({exc.msg} at character {exc.pos}); give an object such as '{{\"repeat_penalty\": 1.0}}'") from None
            if not isinstance(parsed, dict):
                raise ValueError("not a JSON object; give an object such as '{\"repeat_penalty\": 1.0}'")
        return value

    @property
    def openai_body(self) -> dict[str, object]:
        """``openai_extra_body`` parsed (empty when unset)."""
        return dict(json.loads(self.openai_extra_body)) if self.openai_extra_body and self.openai_extra_body.strip() else {}

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def onnx_cache(self) -> Path:
        return self.onnx_cache_dir or self.cache_dir / "onnx"

    def with_overrides(self, **overrides: object) -> "Settings":
        """A copy with the non-None overrides applied (CLI flags, keyword arguments)."""
        values = {k: v for k, v in overrides.items() if v is not None}
        return type(self)(**{**self.model_dump(), **values}) if values else self
