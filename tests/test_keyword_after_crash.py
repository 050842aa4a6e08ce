"""An ingest killed between deleting old versions and its final generation bump: the re-run must bump
again, so every reader's BM25 index (in memory or cached on disk) catches up with Chroma."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest import ingest
from vectorstore import KeywordIndex, PaperStore, Settings


class Killed(BaseException):
    """Stands in for SIGKILL at one exact point."""


def test_rerun_after_crash_before_final_bump_refreshes_bm25(tmp_path: Path, seed_jsonl: Path, monkeypatch: pytest.MonkeyPatch):
    rows = [json.loads(line) for line in seed_jsonl.read_text().splitlines()]
    settings = Settings(data_dir=tmp_path / "data", collection="stale-bm25")
    ingest([seed_jsonl], settings, progress=False)
    rows[2]["abstract"] = "We study quokka populations with camera traps. Results follow."
    v2 = tmp_path / "v2.jsonl"
    v2.write_text("".join(json.dumps(r) + "\n" for r in rows))

    reader = KeywordIndex(PaperStore(settings))  # a long-lived reader, like `paperchat serve`
    real_delete = PaperStore.delete

    def delete_then_die(self, ids):  # type: ignore[no-untyped-def]
        reader.refresh()  # a search arrives mid-ingest
        real_delete(self, ids)
        raise Killed

    monkeypatch.setattr(PaperStore, "delete", delete_then_die)
    with pytest.raises(Killed):
        ingest([v2], settings, progress=False)
    monkeypatch.setattr(PaperStore, "delete", real_delete)

    report = ingest([v2], settings, progress=False)
    assert report.added == report.updated == report.removed == 0
    stored = {p.id for p in PaperStore(settings).papers()}
    for index in (reader, KeywordIndex(PaperStore(settings))):
        assert set(index.snapshot().ids) == stored
        assert rows[2]["id"] in [pid for pid, _ in index.search("quokka camera traps", 3)]
        assert rows[2]["id"] not in [pid for pid, _ in index.search("Nester ManyTypes4Py HiTyper", 5)]
