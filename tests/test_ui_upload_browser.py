"""The page's upload in headless Chromium: the status line follows the background ingest ("embedding n / N papers",
polled by a timer) while a question in the same page is answered, then reports the result and the new count."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_ui_browser import ANSWERED, WATCH_SOURCES, chromium
from ui_server import SEED, SHARED, Server, paperchat, start_server

pytestmark = pytest.mark.slow
ICML2024 = SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"
N = 300  # three write batches (about 127 papers each): the status shows counts between 0 and N for seconds


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    root = tmp_path_factory.mktemp("ui-upload-browser")
    paperchat("ingest", str(SEED), "--persist-dir", str(root / "store"), "--no-progress")
    server = start_server(root / "store", env={"GRADIO_TEMP_DIR": str(root / "gradio-tmp")})
    yield server, root
    server.stop()


WATCH_STATUS = """() => {
  window.__pcStatus = [];
  const line = document.querySelector('#pc-upload-status');
  const note = () => window.__pcStatus.push(line.innerText);
  note();
  new MutationObserver(note).observe(line, {subtree: true, childList: true, characterData: true});
}"""


def test_page_shows_upload_progress_and_keeps_answering(server: tuple[Server, Path], tmp_path: Path) -> None:
    app, root = server
    papers = tmp_path / "page-upload.jsonl"
    papers.write_text("\n".join(ICML2024.read_text(encoding="utf-8").splitlines()[2000 : 2000 + N]) + "\n", encoding="utf-8")
    with chromium(tmp_path / "profile") as context:
        page = context.new_page()
        page.goto(app.url)
        page.wait_for_selector("#pc-sources .pc-empty")
        assert "19 papers indexed" in page.inner_text("#pc-header")
        page.click("#pc-add button:has-text('Add papers')")  # open the accordion
        page.set_input_files("#pc-upload input[type=file]", str(papers))
        page.wait_for_selector("#pc-upload :text('page-upload.jsonl')")
        status = page.locator("#pc-upload-status")
        for _ in range(20):  # the file name shows while the browser is still sending it: a click then finds no file yet
            page.click("#pc-add-btn")
            try:
                page.wait_for_function(f"() => /embedding \\d+ \\/ {N} papers|Choose a paper file first/.test("
                                       "document.querySelector('#pc-upload-status').innerText)", timeout=300_000)
            except PlaywrightTimeout:
                raise AssertionError(f"no progress line after 300 s; the status says {status.inner_text()!r}") from None
            if "Choose a paper file first" not in status.inner_text():
                break
            page.wait_for_timeout(500)
        seen = {status.inner_text()}
        page.evaluate(WATCH_STATUS)  # every text the status line shows from now on, while the question is answered too
        page.evaluate(WATCH_SOURCES)  # ask in the same page while the upload runs
        page.fill("#pc-question textarea", "What is Nester?")
        page.keyboard.press("Enter")
        page.wait_for_function(ANSWERED, timeout=120_000)
        assert "Dataflow-Guided Neuro-Symbolic" in page.inner_text("#pc-sources")
        seen.add(status.inner_text())
        assert any("Adding" in s and "embedding" in s for s in seen), seen
        while "Added" not in (text := status.inner_text()):
            seen.add(text)
            page.wait_for_timeout(250)
        seen |= set(page.evaluate("() => window.__pcStatus"))
        counts = {int(m.group(1)) for s in seen if (m := re.search(rf"embedding (\d+) / {N}", s))}
        assert any(0 < c < N for c in counts) or len(counts) > 1, seen  # the line moved while embedding
        assert f"added {N}" in text and f"{19 + N} papers indexed" in text
        page.wait_for_function(f"() => document.querySelector('#pc-header').innerText.includes('{19 + N} papers indexed')")
    assert not list((root / "gradio-tmp").rglob(papers.name)), "the uploaded copy is removed"
