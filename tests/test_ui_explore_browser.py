"""The Explore tab end to end in headless Chromium: the map (WebGL) with every paper, a click on a point opening the
paper and its related papers, the last answer's citations circled, and markup in titles kept as text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from test_ui_browser import NESTER_TITLE, ask, chromium, open_page
from ui_server import REPO, SEED, SHARED, Server, paperchat, start_server

pytestmark = pytest.mark.slow

SCREENSHOT = REPO / "artifacts" / "explore-test.png"
NESTER = "icml2025-44081"
IMG = '<img src=x onerror="window.__pwned=2">'
MARKUP = {
    "id": "test-zorblax-map-2025",
    "title": f"Zorblax {IMG} [click me](http://evil.example) **bold** <a href=\"http://evil.example\">link</a>",
    "authors": ["Mallory <b>Bold</b>"],
    "abstract": "We study zorblax markup injection in paper maps. A zorblax map must show markup in titles as inert text.",
    "url": "javascript:window.__pwned=3",
    "venue": "Test 2025",
}
PAPERS = 19 + 30 + 10 + 1

PLOT = "#pc-map .js-plotly-plot"
DRAWN = f"() => {{ const gd = document.querySelector('{PLOT}'); return !!(gd && gd.data && gd.data.length && gd._fullLayout); }}"
TRACES = f"() => document.querySelector('{PLOT}').data.map(t => [t.name, t.type, Array.from(t.customdata)])"
# the page coordinates of a paper's point (Plotly's axes: data -> pixels inside the plot area)
POINT = f"""(id) => {{
  const gd = document.querySelector('{PLOT}'), L = gd._fullLayout, box = gd.getBoundingClientRect();
  for (const t of gd.data) {{
    const i = Array.from(t.customdata).indexOf(id);
    if (i >= 0) return [box.left + L._size.l + L.xaxis.l2p(t.x[i]), box.top + L._size.t + L.yaxis.l2p(t.y[i])];
  }}
  return null;
}}"""
HOVER = f"() => {{ const h = document.querySelector('{PLOT} .hoverlayer'); return h ? h.textContent : ''; }}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``paperchat serve`` over 60 papers: the seed, 30 ICML 2024 and 10 other 2025 papers, and one titled with markup."""
    root = tmp_path_factory.mktemp("ui-explore")
    icml2024 = (SHARED / "data" / "icml2024_abstracts" / "papers.jsonl").read_text(encoding="utf-8").splitlines()[:30]
    ml2025 = (SHARED / "data" / "ml2025_conferences" / "papers.jsonl").read_text(encoding="utf-8").splitlines()[:10]
    papers = root / "papers.jsonl"
    papers.write_text("\n".join([*icml2024, *ml2025, json.dumps(MARKUP)]) + "\n", encoding="utf-8")
    paperchat("ingest", str(SEED), str(papers), "--persist-dir", str(root / "store"), "--no-progress")
    server = start_server(root / "store")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-explore")) as context:
        yield context


@pytest.fixture
def page(browser_context: Any, server: Server) -> Iterator[Any]:
    page = open_page(browser_context, server.url)
    yield page
    page.close()


def open_map(page: Any) -> list[tuple[str, str, list[str]]]:
    """Open the Explore tab, wait until the map is drawn, return its traces (name, type, paper ids)."""
    page.click("#pc-tab-explore-button")
    page.wait_for_function(DRAWN, timeout=300_000)
    page.wait_for_timeout(500)  # Plotly's layout settles
    return [tuple(t) for t in page.evaluate(TRACES)]


def click_point(page: Any, paper_id: str) -> None:
    x, y = page.evaluate(POINT, paper_id)
    page.mouse.click(x, y)


def test_the_map_shows_every_paper_once_and_circles_the_last_answers_citations(page: Any) -> None:
    ask(page, "What is Nester?")
    traces = open_map(page)
    topics = [t for t in traces if t[0].endswith(")")]  # "label (size)"
    ids = [i for t in topics for i in t[2]]
    assert len(ids) == len(set(ids)) == PAPERS
    assert f"{PAPERS} papers indexed" in page.inner_text("#pc-header")
    assert all(t[1] == "scattergl" for t in traces)
    assert page.locator(f"{PLOT} canvas").count() >= 1 and page.evaluate(f"() => !!document.querySelector('{PLOT}')._fullLayout._glcanvas")
    assert "WebGL is not supported" not in page.inner_text("#pc-map")
    assert ("Cited in the last answer", "scattergl", [NESTER]) in traces
    status = page.inner_text("#pc-map-status")
    assert f"{PAPERS} papers" in status and "circled: the 1 paper cited in the last answer" in status
    assert not page.dialogs and not page.external, page.external


def test_clicking_a_point_opens_the_paper_and_its_related_papers(page: Any) -> None:
    open_map(page)
    click_point(page, NESTER)  # a real click on the WebGL point, through Plotly's plotly_click
    page.wait_for_selector("#pc-map-paper .pc-related li", timeout=60_000)
    title = page.locator("#pc-map-paper .pc-paper > .pc-head a").first
    assert title.inner_text() == NESTER_TITLE and title.get_attribute("href") == "https://icml.cc/virtual/2025/poster/44081"
    assert "Nester" in page.inner_text("#pc-map-paper .pc-abstract")
    related = page.locator("#pc-map-paper .pc-related li")
    assert related.count() == 5
    first = related.first.get_attribute("data-paper-id")
    traces = page.evaluate(TRACES)
    assert ["Open paper", "scattergl", [NESTER]] in traces
    assert any(t[0] == "Related to the open paper" and first in t[2] and len(t[2]) == 5 for t in traces)
    assert page.locator("#pc-map-picker input").input_value().startswith(NESTER_TITLE)

    related.first.locator("button.pc-pick").click()  # "open" a related paper
    page.wait_for_function(f"() => document.querySelector('#pc-map-paper .pc-paper').dataset.paperId === {json.dumps(first)}",
                           timeout=60_000)
    assert ["Open paper", "scattergl", [first]] in page.evaluate(TRACES)
    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert not page.dialogs and not page.external, page.external


def test_markup_in_titles_stays_text_in_the_hover_the_picker_and_the_panel(page: Any) -> None:
    open_map(page)
    x, y = page.evaluate(POINT, MARKUP["id"])
    page.mouse.move(x, y)
    page.wait_for_function(f"() => ({HOVER})().includes('Zorblax')", timeout=10_000)
    hover = page.evaluate(HOVER)
    assert "<img src=x" in hover and "**bold**" in hover and "</a>" in hover  # shown as characters
    assert page.locator(f"{PLOT} .hoverlayer a, {PLOT} img").count() == 0

    page.click("#pc-map-picker input")
    page.keyboard.type("Zorblax")
    page.locator("[role=option]", has_text="Zorblax").first.click()
    page.wait_for_selector(f"#pc-map-paper .pc-paper[data-paper-id='{MARKUP['id']}']", timeout=60_000)
    panel = page.locator("#pc-map-paper .pc-paper")
    assert MARKUP["title"] in panel.locator(".pc-head").first.inner_text()
    assert "Mallory <b>Bold</b>" in panel.inner_text()
    assert panel.locator(".pc-head").first.locator("a").count() == 0  # a javascript: URL is no link
    page.wait_for_timeout(500)  # let an injected onerror fire, if one slipped through
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img[src=x], a[href*='evil.example'], a[href^='javascript'], #pc-map-paper b").count() == 0
    hrefs = page.locator("#pc-map-paper a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs and all(h.startswith("https://") for h in hrefs)  # the related papers' own links
    assert not page.dialogs and not page.external, page.external
