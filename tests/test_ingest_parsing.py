"""Parsing and validation of every input format, and the CLI's contract for bad input.

Format tests run the parser in process; each bad input also runs the real ``paperchat ingest``
against a store pre-filled with the seed corpus (embedded and server) and checks the one-line error.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from ingest.cleaning import clean_text
from ingest import derive_title, load_papers, parse_file
from ingest.records import Paper
from vectorstore import InputError, PaperStore, Settings

FIELDS = ("id", "title", "abstract", "authors", "url", "venue", "title_derived", "extra", "content_hash")


def _fields(paper: Paper) -> dict[str, object]:
    return {name: getattr(paper, name) for name in FIELDS}


def _seed_records(seed_jsonl: Path) -> list[dict]:
    return [json.loads(line) for line in seed_jsonl.read_text().splitlines() if line.strip()]


def _csv_text(records: list[dict], wrap: int | None = None) -> str:
    """CSV with a header; authors joined by '; '; with ``wrap``, titles and abstracts span several lines."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["id", "title", "authors", "abstract", "url", "venue"])
    writer.writeheader()
    for r in records:
        row = {**r, "authors": "; ".join(r["authors"])}
        if wrap:
            # wrap at spaces only: newlines stand for the blanks they replace
            row["title"] = textwrap.fill(r["title"], 30, break_on_hyphens=False, break_long_words=False)
            row["abstract"] = textwrap.fill(r["abstract"], wrap, break_on_hyphens=False, break_long_words=False)
        writer.writerow(row)
    return out.getvalue()


# --------------------------------------------------------------------------- formats


def test_jsonl_seed(seed_jsonl: Path) -> None:
    papers, problems = parse_file(seed_jsonl)
    records = _seed_records(seed_jsonl)
    assert problems == [] and len(papers) == 19
    for paper, record, number in zip(papers, records, range(1, 20)):
        assert (paper.id, paper.title, paper.authors, paper.url, paper.venue) == (
            record["id"], record["title"], record["authors"], record["url"], record["venue"])
        assert paper.abstract == clean_text(record["abstract"])  # LaTeX and hyphen breaks cleaned at ingest
        assert not paper.title_derived and paper.extra == {}
        assert paper.source == f"{seed_jsonl}:{number}"


@pytest.mark.parametrize("variant", ["json_array", "json_papers_key", "csv", "csv_quoted_newlines", "tsv", "jsonl_bom_blank_lines"])
def test_every_format_parses_like_jsonl(variant: str, seed_jsonl: Path, tmp_path: Path) -> None:
    """The same papers in any format give identical records (so identical ids, hashes and chunks)."""
    records = _seed_records(seed_jsonl)
    if variant == "json_array":
        path = tmp_path / "papers.json"
        path.write_text(json.dumps(records, indent=2))
    elif variant == "json_papers_key":
        path = tmp_path / "export.json"
        path.write_text(json.dumps({"venue": "ICML 2025", "papers": records}, indent=1))
    elif variant == "csv":
        path = tmp_path / "papers.csv"
        path.write_text(_csv_text(records))
    elif variant == "csv_quoted_newlines":
        path = tmp_path / "papers.csv"
        text = _csv_text(records, wrap=70)
        assert text.count("\n") > 3 * len(records)  # really multi-line records
        path.write_text(text)
    elif variant == "tsv":
        path = tmp_path / "papers.tsv"
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=["id", "title", "authors", "abstract", "url", "venue"], dialect="excel-tab")
        writer.writeheader()
        writer.writerows({**r, "authors": "; ".join(r["authors"])} for r in records)
        path.write_text(out.getvalue())
    else:
        path = tmp_path / "papers.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + "\n\n".join(json.dumps(r) for r in records).encode() + b"\n\n")
    expected = [_fields(p) for p in parse_file(seed_jsonl)[0]]
    papers, problems = parse_file(path)
    assert problems == []
    assert [_fields(p) for p in papers] == expected


def test_csv_quoted_newlines_keep_records_apart(tmp_path: Path) -> None:
    path = tmp_path / "papers.csv"
    path.write_text(
        'id,title,abstract,year\n'
        'p1,"Commas, ""quotes"" and\nnewlines","First line.\n\nSecond paragraph, still paper one.",2025\n'
        'p2,Plain,"One more\nabstract.",2024\n'
    )
    papers, _ = parse_file(path)
    assert [p.id for p in papers] == ["p1", "p2"]
    assert papers[0].title == 'Commas, "quotes" and newlines'
    assert papers[0].abstract == "First line. Second paragraph, still paper one."
    assert papers[1].abstract == "One more abstract."
    assert papers[0].extra == {"year": "2025"}  # unknown columns are kept
    # a record's source names a line of that record (p2 spans lines 6-7)
    line = int(papers[1].source.rsplit(":", 1)[1])
    assert 6 <= line <= 7


# --------------------------------------------------------------------------- the bare format


# Abstracts of the seed that introduce a named method: the derived title must lead with the name.
NAMED_METHODS = ("Nester", "SPACE", "GINNs", "StructTokenBench", "DynAMO", "MARASON", "TINED", "MICE", "FedICU", "SEE")


def test_bare_abstracts_file(seed_bare: Path, seed_jsonl: Path) -> None:
    papers, problems = parse_file(seed_bare)
    assert problems == [] and len(papers) == 19  # the "ICML 2025 Papers" header line is not a paper
    jsonl = parse_file(seed_jsonl)[0]
    assert [p.abstract for p in papers] == [p.abstract for p in jsonl]  # same text, same order
    for number, paper in enumerate(papers):
        assert paper.source == f"{seed_bare}:{3 + 2 * number}"
        assert re.fullmatch(r"abs-[0-9a-f]{12}", paper.id)
        assert paper.title_derived and paper.title == derive_title(paper.abstract)
        assert (paper.authors, paper.url, paper.venue) == ([], "", "")
    assert len({p.id for p in papers}) == 19


def test_bare_derived_titles_are_meaningful(seed_bare: Path) -> None:
    papers = parse_file(seed_bare)[0]
    for name in NAMED_METHODS:
        (paper,) = [p for p in papers if re.search(rf"\b{re.escape(name)}\b", p.abstract) and
                    re.search(rf"(propose|introduce|present|design|call)\w*\b[^.]*\b{re.escape(name)}\b", p.abstract)]
        assert paper.title.startswith(f"{name}:") or paper.title == name, (name, paper.title)
    nester = next(p for p in papers if "Nester" in p.abstract)
    assert nester.title.startswith("Nester")
    for paper in papers:
        title = paper.title
        words = title.split()
        assert 2 <= len(words) <= 13, title
        assert title[0].isupper(), title
        assert not re.search(r"\*\*|`|\bIn this (paper|work)\b", title), title
        assert not re.match(r"(We|This paper|In this)\b", title), title
        assert title.rstrip("…") != paper.abstract


def test_bare_ids_are_stable(seed_bare: Path, tmp_path: Path) -> None:
    """Ids are content hashes: the same across runs, rewrapping, CRLF and blank lines with spaces."""
    ids = [p.id for p in parse_file(seed_bare)[0]]
    assert ids == [p.id for p in parse_file(seed_bare)[0]]
    paragraphs = seed_bare.read_text().split("\n\n")
    rewrapped = tmp_path / "rewrapped.txt"
    rewrapped.write_text("\n\n".join(textwrap.fill(p, 72, break_on_hyphens=False, break_long_words=False) for p in paragraphs) + "\n")
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(seed_bare.read_text().replace("\n", "\r\n").encode())
    spaced = tmp_path / "spaced.txt"
    spaced.write_text("\n\n\n".join(paragraphs).replace("\n\n\n", "\n   \n\t\n"))
    for variant in (rewrapped, crlf, spaced):
        assert [p.id for p in parse_file(variant)[0]] == ids, variant.name
    assert [p.id for p in parse_file(seed_bare, fmt="bare")[0]] == ids


def test_bare_without_header_and_forced_format(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"  # unknown suffix: bare
    path.write_text("We propose FooNet, a tiny network for bar prediction. It works.\n\nA second abstract about graphs. It is short.\n")
    papers, _ = parse_file(path)
    assert [p.title for p in papers] == ["FooNet: a tiny network for bar prediction", "A second abstract about graphs"]
    assert [p.source for p in papers] == [f"{path}:1", f"{path}:3"]


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        ("In this paper we introduce **TINED**, a method that distills GNNs into MLPs. It is fast.", "TINED: a method that distills GNNs into MLPs"),
        ("We present Deep Widget Networks (DWN) for widgets. Results follow.", "DWN: Deep Widget Networks"),
        ("Graph transformers are popular. We study their depth.", "Graph transformers are popular"),
        ("", "Untitled abstract"),
    ],
)
def test_derive_title(abstract: str, title: str) -> None:
    assert derive_title(abstract) == title


# --------------------------------------------------------------------------- bad input


@dataclass(frozen=True)
class Bad:
    """A bad input: how to build it, the line to name (if any) and the fix the message must give."""

    name: str
    build: Callable[[Path, list[str]], list[Path]]  # (tmp dir, seed JSONL lines) -> paths to ingest
    line: int | None
    hint: str
    problem: str  # what the message must say is wrong


def _write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def _jsonl(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _changed(line: str, abstract: str) -> str:
    record = json.loads(line)
    return json.dumps({**record, "abstract": abstract})


BAD_INPUTS = [
    Bad("malformed_json_line", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:3] + ['{"id": "x", "abstract": "unterminated'] + s[3:6]))],
        4, "fix the line or use --skip-invalid", "malformed JSON"),
    Bad("record_without_abstract", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:2] + [json.dumps({"id": "x", "title": "No abstract here"})] + s[2:4]))],
        3, "add an 'abstract' field", "no abstract"),
    Bad("blank_abstract", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:1] + [json.dumps({"id": "x", "abstract": " \n\t "})]))],
        2, "add an 'abstract' field", "no abstract"),
    Bad("jsonl_line_not_an_object", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:2] + ['["a", "list"]']))],
        3, "use --skip-invalid", "expected an object"),
    Bad("empty_file", lambda d, s: [_write(d / "papers.jsonl", "")], None, "give a file with papers", "empty"),
    Bad("whitespace_only_file", lambda d, s: [_write(d / "papers.txt", "\n  \n\t\n")], None, "give a file with papers", "empty"),
    Bad("non_utf8_bytes", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:1]).encode() + '{"id": "x", "abstract": "Caf\u00e9 r\u00e9sum\u00e9."}\n'.encode("latin-1"))],
        2, "re-save the file as UTF-8", "not valid UTF-8"),
    Bad("binary_file", lambda d, s: [_write(d / "papers.jsonl.gz", gzip.compress(_jsonl(s).encode()))], None, "give a JSONL, JSON, CSV", "binary"),
    Bad("same_id_different_text", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:3] + [_changed(s[0], "A different abstract with the same id.")]))],
        4, "give each paper its own id", "also used at"),
    Bad("same_id_across_files", lambda d, s: [_write(d / "a.jsonl", _jsonl(s[:2])), _write(d / "b.jsonl", _jsonl([_changed(s[1], "Another text for this id.")]))],
        1, "give each paper its own id", "also used at"),
    Bad("megabyte_abstract", lambda d, s: [_write(d / "papers.jsonl", _jsonl(s[:1] + [json.dumps({"id": "huge", "abstract": "tokens " * 150_000})]))],
        2, "use --skip-invalid", "characters (limit 20,000)"),
    Bad("megabyte_bare_paragraph", lambda d, s: [_write(d / "abstracts.txt", "My Papers\n\n" + ("Words go on. " * 80_000) + "\n")],
        3, "use --skip-invalid", "characters (limit 20,000)"),
    Bad("csv_without_abstract_column", lambda d, s: [_write(d / "papers.csv", "id,title,summary\n1,A title,Some summary text.\n")],
        1, "add a header row with at least 'abstract'", "no 'abstract' column"),
    Bad("malformed_json_array", lambda d, s: [_write(d / "papers.json", '[\n  {"abstract": "One."},\n  {"abstract": "Two."},\n]\n')],
        4, "fix the file", "malformed JSON"),
    Bad("json_object_not_array", lambda d, s: [_write(d / "papers.json", json.dumps({"items": [json.loads(s[0])]}, indent=2))],
        None, "wrap the records in [ ... ]", "expected a JSON array"),
    Bad("directory", lambda d, s: [(d / "papers_dir").mkdir() or _write(d / "papers_dir" / "papers.jsonl", _jsonl(s[:2])).parent],
        None, "pass the paper files inside it", "is a directory"),
    Bad("missing_file", lambda d, s: [d / "no-such-papers.jsonl"], None, "check the path", "no such file"),
]


def _build(case: Bad, tmp_path: Path, seed_jsonl: Path) -> list[Path]:
    folder = tmp_path / "input"
    folder.mkdir()
    return case.build(folder, seed_jsonl.read_text().splitlines())


def _check_message(message: str, case: Bad, paths: list[Path]) -> None:
    """Names the file (and line), says what is wrong and how to fix it, on one line."""
    assert "\n" not in message
    named = paths[-1]
    if case.line is not None:
        assert f"{named}:{case.line}:" in message, message
    else:
        assert str(named) in message, message
    for path in paths[:-1]:  # a clash across files names both
        assert str(path) in message, message
    assert case.problem in message, message
    assert case.hint in message, message


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda c: c.name)
def test_bad_input_raises_input_error(case: Bad, tmp_path: Path, seed_jsonl: Path) -> None:
    paths = _build(case, tmp_path, seed_jsonl)
    with pytest.raises(InputError) as error:
        load_papers(paths)
    _check_message(str(error.value), case, paths)


def _state(settings: Settings) -> tuple[int, str, int]:
    store = PaperStore(settings)
    return store.count(), store.generation, len(store.papers())


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda c: c.name)
def test_bad_input_cli(case: Bad, tmp_path: Path, seed_jsonl: Path, seeded: Settings, run_cli, store_checks) -> None:
    """The real CLI: exit 2, one line on stderr naming file, line and fix, no traceback, store untouched."""
    paths = _build(case, tmp_path, seed_jsonl)
    before = _state(seeded)
    assert before[2] == 19
    result = run_cli("ingest", *paths, *store_checks.cli_store_args(seeded))
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr + result.stdout
    assert len(result.stderr_lines) == 1, result.stderr
    message = result.stderr_lines[0]
    assert message.startswith("paperchat: error: ")
    _check_message(message, case, paths)
    assert result.stdout == ""
    assert _state(seeded) == before


# --------------------------------------------------------------------------- --skip-invalid (parser)


def test_skip_invalid_collects_record_problems(tmp_path: Path, seed_jsonl: Path) -> None:
    lines = seed_jsonl.read_text().splitlines()
    path = _write(tmp_path / "mixed.jsonl", _jsonl([
        lines[0], "{not json", json.dumps({"id": "no-abstract"}), lines[1],
        _changed(lines[0], "Conflicting text."), json.dumps({"abstract": "x " * 20_000}), lines[0], lines[2],
    ]))
    papers, problems = parse_file(path, skip_invalid=True)
    assert [p.id for p in papers] == [json.loads(lines[i])["id"] for i in (0, 1, 2)]  # exact repeat (line 7) is fine
    assert [p.source.rsplit(":", 1)[1] for p in problems] == ["2", "3", "5", "6"]
    assert all(str(p).startswith(f"{path}:") for p in problems)
    with pytest.raises(InputError, match="malformed JSON"):
        parse_file(path)


def test_skip_invalid_does_not_hide_file_errors(tmp_path: Path) -> None:
    for name, content in [("a.csv", "id,title\n1,x\n"), ("b.jsonl", ""), ("c.jsonl", b"\xff\xfe\x00\x01")]:
        with pytest.raises(InputError):
            parse_file(_write(tmp_path / name, content), skip_invalid=True)
