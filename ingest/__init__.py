"""Parse paper lists, chunk and embed them, and write them to the paper store (layer 2, above ``vectorstore``)."""

import vectorstore  # noqa: F401  (the offline environment, before any library loads)
from ingest.pipeline import DEFAULT_CORPUS, IngestReport, ensure_corpus, ingest, load_papers
from ingest.records import FORMATS, Paper, Problem, parse_file, read_jsonl
from ingest.titles import derive_title

__all__ = ["DEFAULT_CORPUS", "FORMATS", "IngestReport", "Paper", "Problem", "derive_title", "ensure_corpus", "ingest",
           "load_papers", "parse_file", "read_jsonl"]
