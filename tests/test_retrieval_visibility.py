"""Retrieval reads chunk ids only, so it must still show exactly the committed papers: an ingest
killed mid-write (sentence chunks of a new version, no paper chunk yet) or before it deleted the
old version (two committed versions) must not leak a half-written or duplicate paper into search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant import Assistant
from ingest import ingest
from vectorstore import PaperStore, Settings

NEW_TEXT = ("We count quokka populations on Rottnest Island with camera traps and acoustic sensors. "
            "The quokka census reaches 95 percent agreement with manual counts.")
QUESTION = "How are quokka populations counted with camera traps?"


class Killed(BaseException):
    """Stands in for SIGKILL at one exact point."""


def _v2(seed_jsonl: Path, tmp_path: Path) -> tuple[dict, Path]:
    rows = [json.loads(line) for line in seed_jsonl.read_text().splitlines() if line.strip()]
    rows[4]["abstract"] = NEW_TEXT
    path = tmp_path / "v2.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows[4], path


def test_sentences_without_their_paper_chunk_are_invisible(settings: Settings, seed_jsonl: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    ingest([seed_jsonl], settings, progress=False)
    old = Assistant(settings, auto_ingest=False).paper(json.loads(seed_jsonl.read_text().splitlines()[4])["id"])
    row, v2 = _v2(seed_jsonl, tmp_path)
    real_add = PaperStore.add

    def add_sentences_then_die(self, ids, embeddings, documents, metadatas):  # type: ignore[no-untyped-def]
        keep = [i for i, m in enumerate(metadatas) if m["kind"] != "paper"]
        real_add(self, [ids[i] for i in keep], embeddings[keep], [documents[i] for i in keep], [metadatas[i] for i in keep])
        raise Killed

    monkeypatch.setattr(PaperStore, "add", add_sentences_then_die)
    with pytest.raises(Killed):
        ingest([v2], settings, progress=False)
    monkeypatch.setattr(PaperStore, "add", real_add)

    assistant = Assistant(settings, auto_ingest=False)
    hits = assistant.search(QUESTION, 10)
    assert len({h.paper_id for h in hits}) == len(hits)
    for hit in hits:
        assert "quokka" not in hit.text.lower(), "a sentence of an uncommitted version was shown"
        if hit.paper_id == row["id"]:
            assert hit.content_hash == old.content_hash
    assert assistant.paper(row["id"]).abstract == old.abstract


def test_two_committed_versions_give_one_hit_and_the_rerun_cleans_up(settings: Settings, seed_jsonl: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ingest([seed_jsonl], settings, progress=False)
    row, v2 = _v2(seed_jsonl, tmp_path)

    def die(self, ids):  # type: ignore[no-untyped-def]
        raise Killed

    real_delete = PaperStore.delete
    monkeypatch.setattr(PaperStore, "delete", die)
    with pytest.raises(Killed):
        ingest([v2], settings, progress=False)
    monkeypatch.setattr(PaperStore, "delete", real_delete)

    hits = Assistant(settings, auto_ingest=False).search(QUESTION, 10)
    assert [h.paper_id for h in hits].count(row["id"]) == 1
    top = hits[0]
    assert top.paper_id == row["id"] and "quokka" in top.text.lower(), "the new version should win on its own words"

    ingest([v2], settings, progress=False)
    hits = Assistant(settings, auto_ingest=False).search(QUESTION, 10)
    assert hits[0].paper_id == row["id"] and "quokka" in hits[0].text.lower()
    assert [h.paper_id for h in hits].count(row["id"]) == 1
