"""End to end in headless Chromium: a streamed, cited answer with its sources, and markup from papers kept inert."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
from ui_server import REPO, SEED, Server, paperchat, start_server

pytestmark = pytest.mark.slow

CHROMIUM = os.environ.get("PAPERCHAT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = REPO / "artifacts" / "ui.png"
NESTER_TITLE = "Dataflow-Guided Neuro-Symbolic Language Models for Type Inference"
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'
EVIL = {
    "id": "test-zorblax-2025",
    "title": f"Zorblax Markup Hardening {SCRIPT} for Paper Viewers {IMG}",
    "authors": ["Mallory <b>Bold</b>", "Eve Example"],
    "abstract": (f"We study zorblax markup injection in paper viewers. A zorblax abstract may contain {SCRIPT} "
                 f"or {IMG} and a safe zorblax viewer must show such markup as inert text. "
                 "Our zorblax audit finds that escaping every field closes all injection paths."),
    "url": "javascript:window.__pwned=3",
    "venue": "Test 2025",
}
# records every state of the sources panel, to see the retrieved papers arrive before the answer is done
WATCH_SOURCES = """() => {
  window.__sourceStates = [];
  const panel = document.querySelector('#pc-sources');
  new MutationObserver(() => window.__sourceStates.push(panel.innerText))
    .observe(panel, {subtree: true, childList: true, characterData: true});
}"""

# this question's answer is done: the panel went through "Searching" and then shows an answer footer
ANSWERED = """() => {
  const states = window.__sourceStates, start = states.findIndex(s => s.includes('Searching the papers'));
  return start >= 0 && states.slice(start).some(s => s.includes('engine:')) && !!document.querySelector('#pc-sources .pc-foot');
}"""

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server over the seed corpus plus one paper full of markup, ingested with ``paperchat ingest``."""
    root = tmp_path_factory.mktemp("ui-browser")
    evil = root / "evil.jsonl"
    evil.write_text(json.dumps(EVIL) + "\n", encoding="utf-8")
    paperchat("ingest", str(SEED), str(evil), "--persist-dir", str(root / "store"), "--no-progress")
    server = start_server(root / "store")
    yield server
    server.stop()


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A headless Debian Chromium driven by Playwright, with a fresh profile (no network but loopback)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"needs Chromium at {CHROMIUM} (apt-get install chromium, or set PAPERCHAT_CHROMIUM)", pytrace=False)
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            user_data_dir=str(profile), executable_path=CHROMIUM,
            args=CHROMIUM_ARGS, headless=True, viewport={"width": 1400, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture
def page(browser_context, server: Server):  # type: ignore[no-untyped-def]
    """A fresh page (a new session) on the app; records dialogs and any request that leaves the machine."""
    page = open_page(browser_context, server.url)
    yield page
    page.close()


def open_page(browser_context: Any, url: str) -> Any:
    """A new page (a new session) on the app at ``url``, recording dialogs (``page.dialogs``) and every request
    that leaves the machine (``page.external``), once the app has rendered."""
    page = browser_context.new_page()
    page.dialogs, page.external = [], []
    page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda req: None if req.url.startswith((url, "data:", "blob:")) else page.external.append(req.url))
    page.goto(url)
    page.wait_for_selector("#pc-sources .pc-empty")
    return page


def ask(page, question: str) -> None:  # type: ignore[no-untyped-def]
    """Type a question, send it, and wait for the finished answer (the sources panel's footer)."""
    page.evaluate(WATCH_SOURCES)
    page.fill("#pc-question textarea", question)
    page.keyboard.press("Enter")
    page.wait_for_function(ANSWERED, timeout=120_000)


def last_answer(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator("#pc-chat [data-testid=bot]").last.inner_text()


def test_streamed_answer_with_cited_sources(page) -> None:  # type: ignore[no-untyped-def]
    ask(page, "What is Nester?")
    states = page.evaluate("window.__sourceStates")
    retrieved = [i for i, s in enumerate(states) if "Retrieved" in s and NESTER_TITLE in s]
    assert retrieved and retrieved[0] < len(states) - 1, "the retrieved papers are shown before the answer is done"

    answer = last_answer(page)
    assert "[1]" in answer and "▌" not in answer
    assert page.locator("#pc-chat [data-testid=bot] strong", has_text="[1]").count() >= 1
    card = page.locator("#pc-sources .pc-card").first
    assert card.locator(".pc-num").inner_text() == "[1]"
    assert card.locator(".pc-head a").inner_text() == NESTER_TITLE
    assert card.locator(".pc-head a").get_attribute("href") == "https://icml.cc/virtual/2025/poster/44081"
    quote = card.locator("mark").inner_text()
    assert "ManyTypes4Py" in quote or "Nester" in quote
    assert quote.replace("\\", "")[:60] in answer.replace("\\", ""), "the highlighted quote supports the answer"
    assert "engine: extractive" in page.inner_text("#pc-sources")
    assert "engine: extractive" in page.inner_text("#pc-header")
    assert not page.dialogs and not page.external, page.external

    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))


def test_markup_in_papers_is_shown_as_text_and_never_runs(page) -> None:  # type: ignore[no-untyped-def]
    ask(page, "What is zorblax markup injection?")
    page.wait_for_timeout(500)  # let any injected handler (img onerror) fire, if one slipped through

    sources = page.inner_text("#pc-sources")
    assert EVIL["title"] in sources and "Mallory <b>Bold</b>" in sources
    assert SCRIPT in sources and page.locator("#pc-sources mark").count() >= 1  # the abstract, markup as text
    answer = last_answer(page)
    assert SCRIPT in answer and IMG in answer
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert not page.dialogs
    assert page.locator("img[src=x], #pc-chat script, #pc-sources script, a[href^='javascript']").count() == 0
    assert not page.external, page.external
    page.screenshot(path=str(SCREENSHOT.with_name("ui-inert.png")))


def test_follow_up_shows_the_searched_query_and_new_conversation_clears(page) -> None:  # type: ignore[no-untyped-def]
    ask(page, "Is there a paper on neuro-symbolic type inference?")
    ask(page, "What results does it report?")
    assert "Follow-up searched as" in page.inner_text("#pc-sources")
    assert "type inference" in page.locator("#pc-sources .pc-note b").first.inner_text()
    page.click("#pc-clear")
    page.wait_for_selector("#pc-sources .pc-empty")
    assert page.locator("#pc-chat [data-testid=bot]").count() == 0
