"""Uploads in the real ``paperchat serve``, driven with gradio_client: the upload returns at once and runs in the
background with progress, other clients are answered meanwhile, one upload runs at a time, Gradio's uploaded
copy is removed afterwards, and an upload over the cap is refused with one line, nothing added."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from ui_server import SEED, SHARED, Server, paperchat, start_server

from gradio_client import Client, handle_file

pytestmark = pytest.mark.slow
ICML2024 = SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"
NESTER = "icml2025-44081"
CAP = 200  # PAPERCHAT_UPLOAD_MAX_PAPERS for this server
UPLOADED = 150  # papers in the background upload (two write batches, so progress shows a value in between)


@pytest.fixture(scope="module")
def uploads_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ui-uploads")


@pytest.fixture(scope="module")
def server(uploads_root: Path) -> Iterator[Server]:
    """A server over the seed papers with a paper cap of 200 and its own Gradio upload folder."""
    paperchat("ingest", str(SEED), "--persist-dir", str(uploads_root / "store"), "--no-progress")
    # the near-miss probe off: an answer must come back while a 150-paper upload is still embedding, and its 0.5B
    # reading (2 s, more beside the upload) is not what this checks
    env = {"PAPERCHAT_UPLOAD_MAX_PAPERS": str(CAP), "GRADIO_TEMP_DIR": str(uploads_root / "gradio-tmp"),
           "PAPERCHAT_NEAR_MISS_PROBE": "false"}
    server = start_server(uploads_root / "store", env=env)
    yield server
    server.stop()


def _client(url: str) -> Client:
    return Client(url, verbose=False, analytics_enabled=False, download_files=False)


def _papers(client: Client) -> int:
    return int(client.predict(api_name="/upload_status")["papers"])


def _copies(root: Path, name: str) -> list[Path]:
    """Gradio's uploaded copies of a file named ``name`` still on disk."""
    return list((root / "gradio-tmp").rglob(name))


def _icml(tmp_path: Path, name: str, start: int, n: int) -> Path:
    lines = ICML2024.read_text(encoding="utf-8").splitlines()[start : start + n]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _wait(client: Client, until: Any, timeout: float = 900) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        report = client.predict(api_name="/upload_status")
        if until(report):
            return report
        assert time.monotonic() < deadline, f"upload status never reached the expected state: {report}"
        time.sleep(0.2)


def test_upload_runs_in_the_background_while_others_are_answered(server: Server, uploads_root: Path, tmp_path: Path) -> None:
    uploader, other = _client(server.url), _client(server.url)
    before = _papers(uploader)
    big = _icml(tmp_path, "background-upload.jsonl", 0, UPLOADED)

    started = time.monotonic()
    status, report, _ = uploader.predict(handle_file(str(big)), False, api_name="/upload")
    returned = time.monotonic() - started
    assert returned < 10, f"the upload event took {returned:.1f}s: it should return at once"
    assert report["ok"] and report["state"] in ("checking", "embedding"), report
    assert "**Adding** background-upload.jsonl" in status

    seen = [_wait(uploader, lambda r: r["state"] == "embedding" or r["state"] == "done")]
    assert seen[0]["state"] == "embedding" and seen[0]["total"] == UPLOADED, seen

    # another client is answered while the upload runs
    asked = time.monotonic()
    answer = other.predict("What is Nester?", api_name="/chat")
    answered_in = time.monotonic() - asked
    during = other.predict(api_name="/upload_status")
    assert answer["error"] is None and answer["citations"][0]["paper_id"] == NESTER
    assert during["state"] == "embedding", f"the upload ended before the answer came back ({answered_in:.1f}s): {during}"

    # one upload at a time: a second one is refused with the running one's progress, and its copy removed too
    second = _icml(tmp_path, "second-upload.jsonl", 1000, 5)
    status2, report2, _ = other.predict(handle_file(str(second)), False, api_name="/upload")
    assert report2["state"] == "busy" and not report2["ok"], report2
    assert report2["error"].startswith("an upload is already running (background-upload.jsonl: embedding ")
    assert "**Not started:** an upload is already running" in status2
    assert not _copies(uploads_root, second.name)

    # progress goes up to the total; papers become searchable as their batch commits
    while seen[-1]["state"] == "embedding":
        seen.append(_wait(uploader, lambda r: r != seen[-1]))
    final = seen[-1]
    done = [r["done"] for r in seen if r["state"] == "embedding"]
    assert done == sorted(done) and any(0 < d < UPLOADED for d in done), done
    assert final["state"] == "done" and final["ok"] and final["added"] == UPLOADED, final
    assert final["papers"] == before + UPLOADED == _papers(other)
    assert not _copies(uploads_root, big.name), "Gradio's uploaded copy is removed after the ingest"
    print(f"\nupload returned in {returned:.2f}s; answer during the upload in {answered_in:.2f}s; progress seen {done}")


def test_over_cap_upload_is_refused_in_one_line_and_adds_nothing(server: Server, uploads_root: Path, tmp_path: Path) -> None:
    client = _client(server.url)
    before = _papers(client)
    too_many = _icml(tmp_path, "too-many.jsonl", 500, CAP + 1)
    status, report, _ = client.predict(handle_file(str(too_many)), False, api_name="/upload")
    if report["state"] in ("checking", "embedding"):
        report = _wait(client, lambda r: r["state"] not in ("checking", "embedding"))
    expected = (f"too-many.jsonl: {CAP + 1} papers is over the upload cap of {CAP} papers; split the file, "
                "add it with `paperchat ingest` (no cap), or raise PAPERCHAT_UPLOAD_MAX_PAPERS")
    assert report["state"] == "failed" and not report["ok"] and report["error"] == expected, report
    assert "\n" not in report["error"]
    assert report["papers"] == before == _papers(client)
    assert not _copies(uploads_root, too_many.name)


def test_upload_over_the_byte_cap_is_refused_before_reading(tmp_path: Path) -> None:
    """The byte cap, through the public API (the browser refuses such a file before sending it)."""
    from assistant import Assistant, Settings
    from vectorstore.errors import InputError

    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"id": "x1", "title": "T", "abstract": "A long enough abstract. " * 40}) + "\n")
    assistant = Assistant(Settings(data_dir=tmp_path / "data", upload_max_bytes=500), auto_ingest=False)
    with pytest.raises(InputError) as info:
        assistant.add_papers([path], capped=True)
    size = path.stat().st_size
    assert str(info.value) == (f"{path}: {size:,} bytes is over the upload cap of 500 bytes; split the file, "
                               "add it with `paperchat ingest` (no cap), or raise PAPERCHAT_UPLOAD_MAX_BYTES")
    assert assistant.paper_count() == 0
    assert assistant.add_papers([path]).added == 1  # uncapped (`paperchat ingest`): added
