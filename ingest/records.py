"""Paper records and the parsers for every accepted input format.

Parsing validates everything before anything is written: a problem becomes an
``InputError`` whose one-line message names the file, the line and the fix.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from ingest.cleaning import clean_text, vocabulary_of
from ingest.titles import derive_title
from vectorstore.errors import InputError

FORMATS: tuple[str, ...] = ("auto", "bare", "jsonl", "json", "csv")
MAX_ABSTRACT_CHARS = 20_000
MAX_FILE_BYTES = 32 * 1024 * 1024  # ~20,000 abstracts; larger lists go in several files
_KNOWN = ("id", "title", "authors", "abstract", "url", "venue")


@dataclass
class Paper:
    """One paper: the unit that is ingested, updated and pruned."""

    id: str
    title: str
    abstract: str
    authors: list[str] = field(default_factory=list)
    url: str = ""
    venue: str = ""
    title_derived: bool = False
    extra: dict[str, str | int | float | bool] = field(default_factory=dict)
    source: str = ""  # "file:line", for messages

    @property
    def content_hash(self) -> str:
        """Hash of everything that is stored; a change re-indexes the paper."""
        payload = json.dumps(
            [self.title, self.abstract, self.authors, self.url, self.venue, self.title_derived, sorted(self.extra.items())],
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass
class Problem:
    """An invalid record that was skipped: the ``InputError`` that says where it is and what to do."""

    error: InputError

    @property
    def source(self) -> str:
        return self.error.source

    @property
    def message(self) -> str:
        return self.error.reason()

    def __str__(self) -> str:
        return str(self.error)


def content_id(abstract: str) -> str:
    """A stable id for an abstract that has none: a hash of its whitespace-normalized text."""
    return "abs-" + hashlib.sha256(" ".join(abstract.split()).encode()).hexdigest()[:12]


def _read_text(path: Path) -> str:
    if path.is_dir():
        raise InputError("is a directory", "pass the paper files inside it", path=path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"file is {size / 1e6:.0f} MB, over the {MAX_FILE_BYTES // 2**20} MB limit", "split it into smaller files", path=path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", "check the path", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", "check the path and its permissions", path=path) from None
    if not data.strip():
        raise InputError("file is empty", "give a file with papers (JSONL, JSON, CSV or blank-line separated abstracts)", path=path)
    if b"\x00" in data[:8192]:
        raise InputError("looks like a binary file, not text", "give a JSONL, JSON, CSV or plain-text paper list", path=path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte {exc.start})", "re-save the file as UTF-8", path=path, where=f":{line}") from None


def detect_format(path: Path, text: str) -> str:
    """Guess the format from the content, then the extension."""
    head = text.lstrip()
    suffix = path.suffix.lower()
    if head.startswith("["):
        return "json"
    if head.startswith("{"):
        first_line = head.split("\n", 1)[0].strip()
        try:
            json.loads(first_line)
            return "jsonl"
        except json.JSONDecodeError:
            return "json" if suffix == ".json" else "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".json":
        return "json"
    return "bare"


def _str(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _authors(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [_str(a) for a in value if _str(a)]
    text = _str(value)
    sep = ";" if ";" in text else ("," if "," in text and " and " not in text else " and ")
    return [a.strip() for a in text.split(sep) if a.strip()]


def _scalar(value: Any) -> str | int | float | bool:
    if isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False)


def paper_from_mapping(record: Any, path: Path | str, where: str = "", vocabulary: frozenset[str] = frozenset()) -> Paper:
    """Validate one JSON/CSV record (at ``path`` + ``where``) and build a ``Paper``; raises ``InputError``.

    Titles and abstracts are cleaned (``ingest.cleaning``); ``vocabulary`` is the words of the whole
    file, for joining hyphenated line breaks."""
    if not isinstance(record, dict):
        raise InputError(f"expected an object with an 'abstract' field, got {type(record).__name__}",
                         "give one paper object per record", path=path, where=where, skippable=True)
    fields = {str(k).strip().lower(): v for k, v in record.items() if k is not None}
    raw_abstract = " ".join(_str(fields.get("abstract")).split())
    abstract = clean_text(_str(fields.get("abstract")), vocabulary)
    if not abstract:
        raise InputError("record has no abstract", "add an 'abstract' field", path=path, where=where, skippable=True)
    if len(abstract) > MAX_ABSTRACT_CHARS:
        raise InputError(f"abstract is {len(abstract):,} characters (limit {MAX_ABSTRACT_CHARS:,})",
                         "this is not an abstract: fix the record", path=path, where=where, skippable=True)
    title = clean_text(_str(fields.get("title")))
    paper_id = _str(fields.get("id")) or content_id(raw_abstract)  # ids stay stable across cleaning changes
    extra = {k: _scalar(v) for k, v in fields.items() if k not in _KNOWN and v not in (None, "")}
    return Paper(
        id=paper_id,
        title=title or derive_title(abstract),
        title_derived=not title,
        abstract=abstract,
        authors=_authors(fields.get("authors")),
        url=_str(fields.get("url")),
        venue=_str(fields.get("venue")),
        extra=extra,
        source=f"{path}{where}",
    )


def read_jsonl(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of every non-blank JSONL line; a malformed line gives its ``JSONDecodeError``."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                yield number, exc


def _records(path: Path, text: str, fmt: str) -> Iterable[tuple[str, Any]]:
    """(where in the file, raw record) pairs; raises ``InputError`` for file-level problems."""
    if fmt == "jsonl":
        for number, value in read_jsonl(text):
            if isinstance(value, json.JSONDecodeError):
                value = InputError(f"malformed JSON ({value.msg} at column {value.colno})", "fix the line",
                                   path=path, where=f":{number}", skippable=True)
            yield f":{number}", value
    elif fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg} at column {exc.colno})", "fix the file", path=path, where=f":{exc.lineno}") from None
        if isinstance(data, dict) and isinstance(data.get("papers"), list):
            data = data["papers"]
        if not isinstance(data, list):
            raise InputError("expected a JSON array of paper objects", "wrap the records in [ ... ]", path=path)
        for index, item in enumerate(data):
            yield f": element {index}", item
    elif fmt == "csv":
        csv.field_size_limit(MAX_FILE_BYTES)
        dialect = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
        reader = csv.DictReader(io.StringIO(text, newline=""), dialect=dialect)
        header = [h.strip().lower() for h in reader.fieldnames or []]
        if "abstract" not in header:
            raise InputError(f"CSV header has no 'abstract' column (found: {', '.join(header) or 'nothing'})",
                             "add a header row with at least 'abstract'", path=path, where=":1")
        try:
            for row in reader:
                yield f":{reader.line_num}", row
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", "fix the quoting", path=path, where=f":{reader.line_num}") from None
    else:  # bare: optional header line, then blank-line separated abstracts
        offset_line = 1
        for block in re.split(r"\n[^\S\n]*\n", text):  # blank lines may hold spaces or \r (CRLF files)
            lines = block.split("\n")
            start = offset_line + next((i for i, l in enumerate(lines) if l.strip()), 0)
            offset_line += len(lines) + 1
            paragraph = " ".join(block.split())
            if not paragraph:
                continue
            yield f":{start}", {"abstract": paragraph}


def _is_header(paragraph: str) -> bool:
    return len(paragraph.split()) <= 12 and not paragraph.rstrip().endswith(".")


def add_unique(papers: dict[str, Paper], paper: Paper) -> bool:
    """Add ``paper`` under its id; False for a repeat with the same text, ``InputError`` for different text."""
    previous = papers.get(paper.id)
    if previous is None:
        papers[paper.id] = paper
        return True
    if previous.content_hash == paper.content_hash:
        return False
    raise InputError(f"id {paper.id!r} also used at {previous.source} with different text", "give each paper its own id",
                     path=paper.source)


def parse_file(path: str | Path, fmt: str = "auto", skip_invalid: bool = False) -> tuple[list[Paper], list[Problem]]:
    """Parse and validate one paper file.

    Returns the papers and, with ``skip_invalid``, the problems found; without it the
    first problem raises ``InputError``.
    """
    path = Path(path)
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}", f"use one of {', '.join(FORMATS)}")
    text = _read_text(path)
    vocabulary = vocabulary_of(text)
    fmt = detect_format(path, text) if fmt == "auto" else fmt
    problems: list[Problem] = []
    seen: dict[str, Paper] = {}
    for index, (where, raw) in enumerate(_records(path, text, fmt)):
        try:
            if isinstance(raw, InputError):
                raise raw
            if fmt == "bare" and index == 0 and _is_header(raw["abstract"]):
                continue  # the header line ("ICML 2025 Papers")
            add_unique(seen, paper_from_mapping(raw, path, where, vocabulary))
        except InputError as exc:
            if not skip_invalid:
                raise
            problems.append(Problem(exc))
    if not seen and not problems:
        raise InputError("no papers found", "check the format (JSONL, JSON, CSV with an 'abstract' column, or blank-line separated abstracts)",
                         path=path)
    return list(seen.values()), problems
