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


def build_store(name: str, files: list[Path]):  # type: ignore[no-untyped-def]
    """An Assistant over a cached benchmark store (ingest is incremental: reruns reuse it)."""
    from assistant import Assistant
    from ingest import ingest
    from vectorstore import Settings

    settings = Settings(data_dir=CACHE / name, engine="extractive")
    report = ingest(files, settings, prune=True, progress=sys.stderr.isatty())
    print(f"[{name}] {report}", file=sys.stderr)
    return Assistant(settings, auto_ingest=False)
