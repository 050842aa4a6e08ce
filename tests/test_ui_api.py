"""The UI's handlers (fast, with a scripted Assistant) and the real server's API, driven with gradio_client."""

from __future__ import annotations

import re
import time

import json
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest
from ui_server import SEED, Server, launch_server, start_server, stop_all, wait_ready

import gradio as gr
from assistant import Answer, Citation, Hit, ListPage, PaperMap
from assistant.paper_map import MapCluster, MapPoint
from gradio_client import Client, handle_file
from gradio_client.exceptions import AuthenticationError
from ui.app import _Handlers, answer_html, chat_text, hits_html
from vectorstore.errors import InputError, StoreError
from ingest.cleaning import clean_text

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
    return {rec["id"]: clean_text(rec["abstract"]) for rec in records}  # as stored


# -- handlers, with a scripted Assistant (no server) ------------------------------------------------
EVIL = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
ABSTRACT = f"Intro sentence. The quoted claim {EVIL} holds. Closing sentence."
QUOTE = f"The quoted claim {EVIL} holds."


class ScriptedAssistant:
    """Exactly the public surface of ``Assistant`` the UI uses (``test_public_api.py`` checks it), replaying fixed events."""

    k = 5
    engine_label = "scripted"

    def __init__(self, events: list[tuple[str, Any]] | None = None, fail: Exception | None = None) -> None:
        self.events = events or []
        self.fail = fail
        self.histories: list[list[dict[str, str]]] = []
        self.asked: list[tuple[str, Any]] = []  # (question, filters) of every question

    def stream_events(self, question: str, history: Any = None, filters: Any = None) -> Iterator[tuple[str, Any]]:
        self.histories.append(list(history or []))
        self.asked.append((question, filters))
        for event in self.events:
            yield event
        if self.fail is not None:
            raise self.fail

    def ask(self, question: str, history: Any = None, filters: Any = None) -> Answer:
        return next(p for kind, p in self.stream_events(question, history) if kind == "answer")

    def list_page(self, question: Any, offset: int = 0, limit: int = 10, filters: Any = None) -> ListPage:
        numbers = range(offset + 1, min(offset + limit, 23) + 1)
        citations = [Citation(number=n, paper_id=f"p{n}", title=f"T{n} {EVIL}", quote=QUOTE, start=0, end=len(QUOTE)) for n in numbers]
        return ListPage(question=str(question), total=23, offset=offset, members=[c.paper_id for c in citations],
                        text="\n".join(f"- **{c.title}**: {QUOTE} [{c.number}]" for c in citations), citations=citations,
                        next_offset=offset + limit if offset + limit < 23 else None)

    def paper(self, paper_id: str) -> Any:
        if paper_id != "p1":
            return None
        return SimpleNamespace(id="p1", title=f"Title {EVIL}", abstract=ABSTRACT, url="javascript:alert(1)", authors=[EVIL], venue="V")

    def paper_map(self) -> PaperMap:
        if self.fail is not None:
            raise self.fail
        points = [MapPoint(paper_id=f"p{i}", title=f"Title {EVIL}" if i == 1 else f"Paper {i}", venue="V", x=float(i), y=float(-i),
                           cluster=int(i > 2)) for i in (1, 2, 3)]
        clusters = [MapCluster(id=0, label="alpha, beta", terms=["alpha", "beta"], size=2),
                    MapCluster(id=1, label="gamma", terms=["gamma"], size=1)]
        return PaperMap(points=points, clusters=clusters, method="umap", key="k1", seconds=1.5)

    def paper_count(self) -> int:
        return 1

    def filter_values(self, max_authors: int | None = None) -> dict[str, list[Any]]:
        return {"venue": ["ICML", EVIL], "year": [2024, 2025], "author": ["Yao Wan", "Ada Tester"][:max_authors]}

    def related(self, paper_id: str, k: int = 5, filters: Any = None) -> list[Hit]:
        if paper_id != "p1":
            raise InputError(f"no paper with id {paper_id!r}", "find ids with `paperchat search QUERY`")
        return [_hit(paper_id="p2", url="javascript:alert(1)"), _hit(paper_id="p3", title="Plain", url="https://example.org/p3")][:k]

    def add_papers(self, paths: Any, *, fmt: str = "auto", skip_invalid: bool = False, prune: bool = False,
                   reset: bool = False, progress: Any = False, on_progress: Any = None, capped: bool = False) -> Any:
        raise InputError("is not a paper file", "give a JSONL file", path=next(iter(paths)), skippable=True)


def _hit(**kw: Any) -> Hit:
    return Hit(**{"paper_id": "p1", "title": f"Title {EVIL}", "url": "https://example.org/p1", "authors": [EVIL],
                  "score": 1.0, "text": QUOTE, **kw})


def _answer(**kw: Any) -> Answer:
    citation = Citation(number=1, paper_id="p1", title=f"Title {EVIL}", url="javascript:alert(1)", authors=["A. Author"],
                        venue="V", quote=QUOTE, start=ABSTRACT.index(QUOTE), end=ABSTRACT.index(QUOTE) + len(QUOTE))
    return Answer(**{"question": "q?", "text": f"Claim {EVIL} [1]", "citations": [citation], "grounded": True,
                     "query": "q?", "hits": [_hit()], "engine": "scripted", "timings": {"total": 0.5}, **kw})


def _inert(markup: str) -> bool:
    """No live tag or javascript: URL from the data (escaped text is fine)."""
    return "<script" not in markup and "<img" not in markup and "javascript:" not in markup


def test_show_more_appends_the_next_pages_escaped() -> None:
    h = _Handlers(ScriptedAssistant())
    listing, button = h.list_state([{"role": "user", "content": "Which papers study X?"},
                                    {"role": "assistant", "content": "23 papers match, showing 10:\n- **T1**: a [1]"}])
    assert listing == {"question": "Which papers study X?", "offset": 10} and button["visible"] is True
    assert h.list_state([{"role": "user", "content": "What is X?"}, {"role": "assistant", "content": "X is Y [1]"}])[0] is None
    chat, listing, button = h.show_more(listing, [{"role": "user", "content": "q"}])
    added = chat[-1]["content"]
    assert added.startswith("Papers 11–20 of 23:") and "**[11]**" in added and "**[20]**" in added and "[10]" not in added
    assert "&lt;script&gt;" in added and _inert(added)
    assert listing == {"question": "Which papers study X?", "offset": 20} and button["visible"] is True
    chat, listing, button = h.show_more(listing, chat)
    assert chat[-1]["content"].startswith("Papers 21–23 of 23:") and listing is None and button["visible"] is False


def test_sources_appear_before_the_text_and_everything_is_escaped() -> None:
    assistant = ScriptedAssistant([("hits", [_hit()]), ("delta", f"Claim {EVIL}"), ("delta", " [1]"), ("answer", _answer())])
    updates = list(_Handlers(assistant).respond("q?", [], []))
    _, after_hits, after_delta, *_, final = updates
    sources = after_hits[2]
    assert "Retrieved 1 papers" in sources and "Title &lt;script&gt;" in sources and _inert(sources)
    assert after_hits[1] == gr.skip()  # the papers are shown before any text
    assert "&lt;script&gt;" in after_delta[1][-1]["content"] and "<script" not in after_delta[1][-1]["content"]
    chat, panel, history = final[1], final[2], final[3]
    assert chat[-1]["content"].startswith("Claim &lt;script&gt;") and "**[1]**" in chat[-1]["content"]
    assert "<mark>The quoted claim &lt;script&gt;" in panel and "Intro sentence. <mark>" in panel
    assert _inert(panel) and "<a " not in panel  # javascript: URL is not linked
    assert history == [{"role": "user", "content": "q?"}, {"role": "assistant", "content": f"Claim {EVIL} [1]"}]


def test_assistant_exceptions_become_a_chat_message() -> None:
    message = "Chroma server at http://127.0.0.1:9 is unreachable (ConnectError); start it with `chroma run ...`"
    assistant = ScriptedAssistant([("hits", [])], fail=StoreError(message))
    *_, final = _Handlers(assistant).respond("q?", [], [])
    assert "Could not answer" in final[1][-1]["content"] and "start it with" in final[1][-1]["content"]
    assert "No answer" in final[2]
    assert final[3] == []  # a failed turn is not added to the conversation


def test_answer_error_is_shown_with_its_fix() -> None:
    error = "LLM server at http://127.0.0.1:9/v1 timed out after 60s; check that it is running or raise --timeout"
    assistant = ScriptedAssistant([("hits", [_hit()]), ("answer", _answer(text=f"Error: {error}", citations=[], error=error))])
    *_, final = _Handlers(assistant).respond("q?", [], [])
    assert _shown(final[1][-1]["content"]) == f"**Could not answer:** {error}"


def test_unexpected_exception_does_not_hang() -> None:
    *_, final = _Handlers(ScriptedAssistant(fail=RuntimeError("boom"))).respond("q?", [], [])
    assert "unexpected error (RuntimeError: boom)" in _shown(final[1][-1]["content"])


def test_upload_error_names_the_file_and_the_page_option(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "papers.txt"
    status, result, header = _Handlers(ScriptedAssistant()).upload(str(path))  # fails within UPLOAD_WAIT
    assert "papers.txt: is not a paper file; give a JSONL file or tick 'Skip invalid records'" in status
    assert str(tmp_path) not in status and result["ok"] is False and result["papers"] == 1
    assert "1 papers indexed" in header and "engine: **scripted**" in header


def test_abstention_lists_the_nearest_papers() -> None:
    answer = _answer(text="The indexed papers do not cover this question.", citations=[], abstained=True)
    panel = answer_html(answer, {})
    assert "do not cover this question" in panel and "Title &lt;script&gt;" in panel and _inert(panel)


def test_follow_up_query_is_shown() -> None:
    answer = _answer(question="And its results?", query="Nester type inference results")
    assert "Follow-up searched as: <b>Nester type inference results</b>" in answer_html(answer, {"p1": ABSTRACT})


def test_chat_api_keeps_the_session_conversation() -> None:
    assistant = ScriptedAssistant([("answer", _answer())])
    handlers = _Handlers(assistant)
    first, state = handlers.chat_api("q?", None, [])
    assert first["citations"][0]["paper_id"] == "p1" and first["text"] == f"Claim {EVIL} [1]"
    handlers.chat_api("follow-up?", None, state)
    assert assistant.histories[-1] == [{"role": "user", "content": "q?"}, {"role": "assistant", "content": first["text"]}]
    handlers.chat_api("fresh", [], state)  # an explicit (empty) history wins over the session's
    assert assistant.histories[-1] == []


def test_chat_text_escapes_markup_and_bolds_cited_markers() -> None:
    assert chat_text("<b>x</b> [1] [2]", [1]) == "&lt;b&gt;x&lt;/b&gt; **[1]** [2]"
    assert _inert(hits_html([_hit(url="javascript:alert(1)")], 5))


# -- the real server ---------------------------------------------------------------------------------
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


def upload_and_wait(client: Client, path: Path, timeout: float = 300) -> dict[str, Any]:
    """``/upload`` a file, then poll ``/upload_status`` until that upload has ended; its final report."""
    _, report, _ = client.predict(handle_file(str(path)), api_name="/upload")
    deadline = time.monotonic() + timeout
    while report.get("state") in ("checking", "embedding"):
        assert time.monotonic() < deadline, f"the upload did not finish in {timeout}s: {report}"
        time.sleep(0.3)
        report = client.predict(api_name="/upload_status")
    return report


@pytest.mark.slow
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


@pytest.mark.slow
def test_follow_up_uses_the_session_history(url: str) -> None:
    client = _client(url)  # a new session: its own conversation
    client.predict("Is there a paper on neuro-symbolic type inference?", api_name="/chat")
    answer = client.predict("What results does it report?", api_name="/chat")
    assert answer["query"] != answer["question"]
    assert NESTER in [c["paper_id"] for c in answer["citations"]]


@pytest.mark.slow
def test_follow_up_with_explicit_history(url: str) -> None:
    history = [{"role": "user", "content": "Is there a paper on neuro-symbolic type inference?"},
               {"role": "assistant", "content": "Yes: Dataflow-Guided Neuro-Symbolic Language Models for Type Inference [1]"}]
    answer = _client(url).predict("What results does it report?", history, api_name="/chat")
    assert answer["query"] != answer["question"]
    assert NESTER in [c["paper_id"] for c in answer["citations"]]


@pytest.mark.slow
def test_abstains_when_no_paper_covers_the_question(url: str) -> None:
    answer = _client(url).predict("Which paper studies robot grasping with tactile sensors?", api_name="/chat")
    assert answer["abstained"] is True
    assert answer["citations"] == []
    assert answer["hits"], "an abstention still lists the nearest papers"


@pytest.mark.slow
def test_upload_adds_a_paper_that_can_be_cited(url: str, tmp_path: Path) -> None:
    client = _client(url)
    before = _papers(client)
    path = tmp_path / "new_papers.jsonl"
    path.write_text(json.dumps(NEW_PAPER) + "\n", encoding="utf-8")
    report = upload_and_wait(client, path)
    assert report["ok"] and report["added"] == 1, report
    assert report["papers"] == before + 1
    answer = client.predict("How does Quokkasim simulate bioluminescent jellyfish colonies?", api_name="/chat")
    assert [c["paper_id"] for c in answer["citations"]][:1] == [NEW_PAPER["id"]]


@pytest.mark.slow
def test_bad_upload_shows_the_error_and_changes_nothing(url: str, tmp_path: Path) -> None:
    client = _client(url)
    before = _papers(client)
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({**NEW_PAPER, "id": "test-ok"}) + '\n{"id": "test-bad", "abstract": "unterminated\n',
                    encoding="utf-8")
    report = upload_and_wait(client, path)
    assert report["ok"] is False and report["state"] == "failed"
    assert "malformed JSON" in report["error"] and "broken.jsonl:2" in report["error"]
    assert report["papers"] == before == _papers(client)


@pytest.mark.slow
def test_auth_protects_the_ui_and_the_api(servers: dict[str, Server]) -> None:
    server = wait_ready(servers["auth"])
    with pytest.raises(AuthenticationError, match="credentials were not provided"):
        _client(server.url)
    with pytest.raises(ValueError, match="Could not login"):
        _client(server.url, auth=(AUTH[0], "wrong"))
    for path in ("gradio_api/info", "config"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(server.url + path, timeout=10)
        assert info.value.code == 401
    client = _client(server.url, auth=AUTH)
    assert "/chat" in client.view_api(print_info=False, return_format="dict")["named_endpoints"]


def _shown(markdown: str) -> str:
    """Chat markdown as the reader sees it: untrusted text arrives backslash-escaped (``ui.app.md_text``)."""
    return re.sub(r"\\(.)", r"\1", markdown)
