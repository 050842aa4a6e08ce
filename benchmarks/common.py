"""Shared helpers for the benchmark scripts: data paths and cached benchmark stores."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PAPERCHAT_SHARED", ROOT.parent / "shared"))
CACHE = Path(os.environ.get("PAPERCHAT_BENCH_DIR", Path(tempfile.gettempdir()) / "paperchat-bench"))
SEED = SHARED / "data" / "icml2025_seed" / "papers.jsonl"
DISTRACTORS = [SHARED / "data" / "icml2024_abstracts" / "papers.jsonl", SHARED / "data" / "ml2025_conferences" / "papers.jsonl"]
DEV_QA = SHARED / "eval" / "dev_qa.jsonl"
SCIFACT = SHARED / "data" / "beir_scifact"


def require_shared() -> None:
    if not SHARED.is_dir():
        sys.exit(f"shared data not found at {SHARED}; set PAPERCHAT_SHARED to the shared/ folder")


def scifact_papers_file() -> Path:
    """SciFact's corpus as a paperchat JSONL file (id, title, abstract)."""
    out = CACHE / "scifact_papers.jsonl"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        with open(SCIFACT / "corpus.jsonl", encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as dst:
            for line in src:
                doc = json.loads(line)
                dst.write(json.dumps({"id": doc["_id"], "title": doc.get("title", ""), "abstract": doc["text"]}) + "\n")
        tmp.replace(out)
    return out


BACKENDS = ("torch", "onnx-fp32", "onnx-int8")
FP32_WRITER = os.environ.get("PAPERCHAT_BENCH_FP32_WRITER", "onnx-fp32")  # who embeds shared fp32 benchmark stores


PAPER_VECTORS = ("encode", "mean")


def backend_settings(label: str) -> dict[str, str]:
    """Settings overrides for a backend label: ``torch``, ``onnx-fp32`` or ``onnx-int8`` (all in full precision
    throughout), or ``bf16`` (an fp32 store whose ingest runs torch in bf16 autocast, queries on ONNX fp32),
    optionally with ``/encode`` or ``/mean`` for how paper chunks get their vectors (default: the store's own,
    encode for a new store)."""
    backend, _, paper_vector = label.partition("/")
    extra = {"paper_vector": paper_vector} if paper_vector else {}
    if paper_vector and paper_vector not in PAPER_VECTORS:
        raise SystemExit(f"unknown paper vectors {paper_vector!r} in {label!r}; use /{' or /'.join(PAPER_VECTORS)}")
    if backend == "torch":
        return {"embedding_backend": "torch", "embedding_precision": "fp32", "embedding_bf16": "off", **extra}
    if backend in ("onnx-fp32", "onnx-int8"):
        return {"embedding_backend": "onnx", "embedding_precision": backend.split("-")[1], "embedding_bf16": "off", **extra}
    if backend == "bf16":
        return {"embedding_backend": "auto", "embedding_precision": "fp32", "embedding_bf16": "on", **extra}
    raise SystemExit(f"unknown backend {label!r}; use {', '.join(BACKENDS)} or bf16 (optionally /encode or /mean)")


def default_label() -> str:
    """The label of what a new store gets on this machine with every setting at ``auto``."""
    from vectorstore.embeddings import bf16_batches, new_store_precision
    from vectorstore.settings import DEFAULT_EMBEDDING_MODEL

    precision = new_store_precision(DEFAULT_EMBEDDING_MODEL)
    return "bf16" if precision == "fp32" and bf16_batches("auto", precision) else f"onnx-{precision}"


def parse_backends(text: str) -> list[str]:
    labels = [b.strip() for b in text.split(",") if b.strip()]
    for label in labels:
        backend_settings(label)
    return labels


def store_name(name: str, backend: str) -> str:
    """fp32 stores (torch or ONNX: the same vectors) are shared; int8 and bf16-written stores get their own, and so do
    explicit paper vectors."""
    precision, _, paper_vector = backend.partition("/")
    own = "_int8" if precision.endswith("int8") else "_bf16" if precision == "bf16" else ""
    return f"{name}{own}{'_' + paper_vector if paper_vector else ''}"


def build_store(name: str, files: list[Path], backend: str | None = None, writer: str | None = None):  # type: ignore[no-untyped-def]
    """An Assistant over a cached benchmark store (ingest is incremental: reruns reuse it).

    ``backend`` is the reader's embedding backend label (default: the settings' default); ``writer``
    the backend that embeds the papers if the store has to be built (default: the reader)."""
    from assistant import Assistant
    from ingest import ingest
    from vectorstore import Settings

    data_dir = CACHE / store_name(name, backend or "")
    settings = Settings(data_dir=data_dir, engine="extractive", **(backend_settings(writer or backend) if (writer or backend) else {}))
    report = ingest(files, settings, prune=True, progress=sys.stderr.isatty())
    print(f"[{data_dir.name}] {report}", file=sys.stderr)
    reader = settings.with_overrides(**backend_settings(backend)) if backend else settings
    return Assistant(reader, auto_ingest=False)
