"""``ui.uploads.Uploads`` alone (no server): one job at a time, progress, and Gradio's copy removed on success and
failure, never a file outside Gradio's upload folder."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from ui.uploads import UploadBusy, Uploads
from vectorstore.errors import InputError


@pytest.fixture
def gradio_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "gradio"
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(folder))
    return folder


def _copy(folder: Path, name: str) -> Path:
    path = folder / f"hash-{name}" / name  # gradio keeps each upload in a folder named by its hash
    path.parent.mkdir(parents=True)
    path.write_text('{"abstract": "x"}\n')
    return path


def test_one_upload_at_a_time_with_progress_and_the_copy_removed(gradio_tmp: Path) -> None:
    release = threading.Event()
    halfway = threading.Event()

    def run(path: Path, skip: bool, progress: Any) -> str:
        progress(0, 10)
        progress(4, 10)
        halfway.set()
        release.wait(10)
        progress(10, 10)
        return "report"

    uploads = Uploads(run)
    first = _copy(gradio_tmp, "first.jsonl")
    job = uploads.start(first)
    assert halfway.wait(10)
    now = uploads.current()
    assert now is not None and now.number == job.number and now.running and now.progress() == "embedding 4 / 10 papers"
    second = _copy(gradio_tmp, "second.jsonl")
    with pytest.raises(UploadBusy, match=r"an upload is already running \(first.jsonl: embedding 4 / 10 papers\)"):
        uploads.start(second)
    assert not second.exists() and first.exists()
    release.set()
    done = uploads.wait(10)
    assert done is not None and done.state == "done" and done.report == "report" and done.done == 10
    assert not first.exists() and not first.parent.exists()


def test_a_failed_upload_is_reported_and_its_copy_removed(gradio_tmp: Path, tmp_path: Path) -> None:
    def run(path: Path, skip: bool, progress: Any) -> None:
        raise InputError("is not a paper file", "give a JSONL file", path=path)

    uploads = Uploads(run)
    copy = _copy(gradio_tmp, "bad.jsonl")
    uploads.start(copy)
    job = uploads.wait(10)
    assert job is not None and job.state == "failed" and isinstance(job.error, InputError)
    assert not copy.exists()
    mine = tmp_path / "mine.jsonl"  # a path a script passed: not Gradio's copy, so never deleted
    mine.write_text("x")
    uploads.start(mine)
    assert uploads.wait(10).state == "failed"  # type: ignore[union-attr]
    assert mine.exists()
