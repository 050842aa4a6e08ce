"""More hostile files (issue: survive bad input): a 50 MB file, a symlink loop, a JSON array with one bad element."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ingest.records import parse_file

CLI = [sys.executable, "-m", "ui.cli", "ingest"]


def _run(tmp_path: Path, *paths: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *map(str, paths), "--persist-dir", str(tmp_path / "data"), *extra],
                          capture_output=True, text=True, timeout=300)


def test_fifty_megabyte_file_is_refused_quickly(tmp_path: Path):
    big = tmp_path / "big.jsonl"
    line = json.dumps({"id": "x", "abstract": "word " * 1000}) + "\n"
    with open(big, "w") as handle:
        for i in range(50 * 1024 * 1024 // len(line) + 1):
            handle.write(line.replace('"x"', f'"x{i}"'))
    out = _run(tmp_path, big)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert str(big) in out.stderr and "MB" in out.stderr and "split it" in out.stderr
    assert not (tmp_path / "data" / "chroma").exists() or "added" not in out.stdout


def test_symlink_loop(tmp_path: Path):
    loop = tmp_path / "loop.jsonl"
    os.symlink(loop, loop)
    out = _run(tmp_path, loop)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert str(loop) in out.stderr and "cannot read" in out.stderr


def test_json_array_with_one_bad_element(tmp_path: Path, seed_jsonl: Path):
    records = [json.loads(l) for l in seed_jsonl.read_text().splitlines()[:3]]
    records.insert(1, {"id": "bad", "title": "no abstract"})
    path = tmp_path / "papers.json"
    path.write_text(json.dumps(records, indent=1))
    out = _run(tmp_path, path)
    assert out.returncode == 2 and "element 1" in out.stderr and "no abstract" in out.stderr
    papers, problems = parse_file(path, skip_invalid=True)
    assert [p.id for p in papers] == [r["id"] for r in records if "abstract" in r]
    assert len(problems) == 1 and "element 1" in str(problems[0])
    ok = _run(tmp_path, path, extra=("--skip-invalid",))
    assert ok.returncode == 0 and "added 3" in ok.stdout and "skipped" in ok.stderr
