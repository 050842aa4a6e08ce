"""Issue 12: ``serve --auth`` protects every API route: raw requests without credentials get 401, a
``gradio_client`` with them is answered."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from ui_server import SEED, Server, paperchat, start_server

pytestmark = pytest.mark.slow
USER, PASSWORD = "alice", "s3cret-pass"

# (method, path): the routes that answer, run or upload something, or hand out files or the app's description
PROTECTED = [
    ("POST", "gradio_api/call/chat"), ("POST", "gradio_api/call/upload"), ("POST", "gradio_api/call/upload_status"), ("POST", "gradio_api/call/v2/chat"),
    ("POST", "gradio_api/run/chat"), ("POST", "gradio_api/api/chat"), ("POST", "gradio_api/queue/join"),
    ("POST", "gradio_api/upload"), ("GET", "gradio_api/upload_progress?upload_id=x"),
    ("GET", "gradio_api/queue/data?session_hash=abc"), ("GET", "gradio_api/call/chat/abc"),
    ("GET", "gradio_api/file=/etc/passwd"), ("GET", "gradio_api/file/etc/passwd"),
    ("GET", "gradio_api/file=README.md"), ("GET", "gradio_api/proxy=http://127.0.0.1/x"),
    ("GET", "gradio_api/info"), ("GET", "gradio_api/openapi.json"), ("GET", "config"),
    ("GET", "gradio_api/deep_link"), ("GET", "monitoring"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("ui-auth")
    paperchat("ingest", str(SEED), "--persist-dir", str(root / "store"), "--no-progress")
    server = start_server(root / "store", "--auth", f"{USER}:{PASSWORD}")
    yield server
    server.stop()


def _status(method: str, url: str) -> int:
    body = json.dumps({"data": ["What is Nester?"], "fn_index": 0, "session_hash": "abc"}).encode() if method == "POST" else None
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.parametrize(("method", "path"), PROTECTED)
def test_api_routes_refuse_requests_without_credentials(server: Server, method: str, path: str) -> None:
    assert _status(method, server.url + path) == 401


def test_a_client_with_credentials_is_answered(server: Server, tmp_path: Path) -> None:
    from gradio_client import Client, handle_file

    client = Client(server.url, auth=(USER, PASSWORD), verbose=False)
    answer = client.predict("What is Nester?", api_name="/chat")
    assert answer["citations"] and answer["citations"][0]["paper_id"] == "icml2025-44081"
    paper = tmp_path / "one.jsonl"
    paper.write_text(json.dumps({"id": "auth-test-1", "title": "Auth Test Paper",
                                 "abstract": "We test that an authenticated upload is accepted by the server."}) + "\n")
    status, report, _ = client.predict(handle_file(str(paper)), False, api_name="/upload")
    while report["state"] in ("checking", "embedding"):  # the ingest runs in the background
        time.sleep(0.3)
        report = client.predict(api_name="/upload_status")
    assert report["ok"] and report["added"] == 1, status

    with pytest.raises(Exception):  # noqa: B017 - gradio_client raises its own error types for a failed login
        Client(server.url, auth=(USER, "wrong"), verbose=False)
