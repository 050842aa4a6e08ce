"""The Gradio server's scripted API, driven with gradio_client against a real ``paperchat serve``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
from ui_server import SEED, Server, launch_server, start_server, stop_all, wait_ready

from gradio_client import Client, handle_file

pytestmark = pytest.mark.slow

NESTER = "icml2025-44081"
AUTH = ("alice", "s3cret-pass")
NEW_PAPER = {
    "id": "test-quokka-2025",
    "title": "Bioluminescent Swarm Simulation for Deep-Sea Jellyfish Colonies",
    "authors": ["Ada Tester", "Ben Example"],
    "abstract": ("We simulate bioluminescent signalling in deep-sea jellyfish colonies with a particle swarm model. "
                 "Our simulator, Quokkasim, reproduces the flash synchrony observed in Atolla jellyfish at 1000 m depth. "
                 "Quokkasim predicts colony-wide light waves within 4% of field recordings."),
    "url": "https://example.org/quokkasim",
    "venue": "Test 2025",
}


def _abstracts() -> dict[str, str]:
    """Paper id -> abstract of the shared seed corpus (the bundled corpus the server ingests)."""
    records = [json.loads(line) for line in SEED.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {rec["id"]: rec["abstract"] for rec in records}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """The server under test (empty store: it ingests the bundled corpus) and, booting alongside, one with --auth."""
    root = tmp_path_factory.mktemp("ui-api")
    auth = launch_server(root / "auth-store", "--auth", f"{AUTH[0]}:{AUTH[1]}")
    try:
        main = start_server(root / "store")
    except BaseException:
        auth.stop()
        raise
    yield {"main": main, "auth": auth}
    stop_all([main, auth])


@pytest.fixture(scope="module")
def url(servers: dict[str, Server]) -> str:
    return servers["main"].url


def _client(url: str, **kwargs: Any) -> Client:
    return Client(url, verbose=False, analytics_enabled=False, download_files=False, **kwargs)


def _papers(client: Client) -> int:
    """The server's paper count (``/upload`` without a file reports it)."""
    _, report, _ = client.predict(None, api_name="/upload")
    return int(report["papers"])


def test_cited_answer_has_the_python_api_shape(url: str) -> None:
    answer = _client(url).predict("What is Nester?", api_name="/chat")
    assert set(answer) >= {"question", "text", "citations", "abstained", "query", "hits", "engine", "timings", "error"}
    assert answer["error"] is None and not answer["abstained"]
    assert answer["engine"] == "extractive"
    first = answer["citations"][0]
    assert first["paper_id"] == NESTER
    assert first["quote"] and first["quote"] in _abstracts()[NESTER]
    assert f"[{first['number']}]" in answer["text"]
    assert answer["hits"] and answer["timings"]["total"] > 0


def test_follow_up_uses_the_session_history(url: str) -> None:
    client = _client(url)  # a new session: its own conversation
    client.predict("Is there a paper on neuro-symbolic type inference?", api_name="/chat")
    answer = client.predict("What results does it report on ManyTypes4Py?", api_name="/chat")
    assert answer["query"] != answer["question"]
    assert NESTER in [c["paper_id"] for c in answer["citations"]]


def test_follow_up_with_explicit_history(url: str) -> None:
    history = [{"role": "user", "content": "Is there a paper on neuro-symbolic type inference?"},
               {"role": "assistant", "content": "Yes: Dataflow-Guided Neuro-Symbolic Language Models for Type Inference [1]"}]
    answer = _client(url).predict("What results does it report on ManyTypes4Py?", history, api_name="/chat")
    assert answer["query"] != answer["question"]
    assert NESTER in [c["paper_id"] for c in answer["citations"]]


def test_abstains_when_no_paper_covers_the_question(url: str) -> None:
    answer = _client(url).predict("Which paper studies robot grasping with tactile sensors?", api_name="/chat")
    assert answer["abstained"] is True
    assert answer["citations"] == []
    assert answer["hits"], "an abstention still lists the nearest papers"


def test_upload_adds_a_paper_that_can_be_cited(url: str, tmp_path: Path) -> None:
    client = _client(url)
    before = _papers(client)
    path = tmp_path / "new_papers.jsonl"
    path.write_text(json.dumps(NEW_PAPER) + "\n", encoding="utf-8")
    status, report, _ = client.predict(handle_file(str(path)), api_name="/upload")
    assert report["ok"] and report["added"] == 1, status
    assert report["papers"] == before + 1
    answer = client.predict("How does Quokkasim simulate bioluminescent jellyfish colonies?", api_name="/chat")
    assert [c["paper_id"] for c in answer["citations"]][:1] == [NEW_PAPER["id"]]


def test_bad_upload_shows_the_error_and_changes_nothing(url: str, tmp_path: Path) -> None:
    client = _client(url)
    before = _papers(client)
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({**NEW_PAPER, "id": "test-ok"}) + '\n{"id": "test-bad", "abstract": "unterminated\n',
                    encoding="utf-8")
    status, report, _ = client.predict(handle_file(str(path)), api_name="/upload")
    assert report["ok"] is False
    assert "malformed JSON" in status and "broken.jsonl:2" in status
    assert report["papers"] == before == _papers(client)


def test_auth_protects_the_ui_and_the_api(servers: dict[str, Server]) -> None:
    server = wait_ready(servers["auth"])
    with pytest.raises(Exception):
        _client(server.url)
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(server.url + "gradio_api/info", timeout=10)
    assert info.value.code == 401
    client = _client(server.url, auth=AUTH)
    assert "/chat" in client.view_api(print_info=False, return_format="dict")["named_endpoints"]
