"""The Chat tab's research tools (``ui/tools.py``): filter controls and removable chips, "Related" on source cards,
downloads. Handlers first with the scripted Assistant, then end to end in headless Chromium on a mixed store."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any, Iterator

import bibtexparser
import pytest
from playwright.sync_api import expect
from test_ui_api import EVIL, ScriptedAssistant, _answer, _hit
from test_ui_browser import ask, chromium, last_answer, open_page
from ui_server import SHARED, SEED, Server, paperchat, start_server

import gradio as gr
from assistant import Answer
from ui.app import _Handlers
from ui.tools import DOWNLOADS, ChatTools, ExportFiles, chips_html, control_filters


def _tools(events: list[tuple[str, Any]], tmp_path: Path) -> tuple[ChatTools, ScriptedAssistant]:
    assistant = ScriptedAssistant(events)
    return ChatTools(_Handlers(assistant), ExportFiles(tmp_path / "exports")), assistant  # type: ignore[arg-type]


def _event(**data: Any) -> gr.EventData:
    return gr.EventData(None, data)


def _files(update: Any) -> str | None:
    return update.value["path"] if isinstance(update.value, dict) else update.value


# -- handlers ----------------------------------------------------------------------------------------------
def test_control_values_become_filters() -> None:
    assert control_filters("ICML", "2024", "  Yao Wan ") == {"venue": "ICML", "year": 2024, "author": "Yao Wan"}
    assert control_filters("", None, " ") == {}


def test_the_controls_filter_every_question_and_the_chips_show_what_was_applied(tmp_path: Path) -> None:
    answer = _answer(filters={"venue": "ICML", "year": 2024, "author": EVIL})
    tools, assistant = _tools([("hits", [_hit()]), ("answer", answer)], tmp_path)
    *_, final = tools.respond("q?", [], [], [], "ICML", "", EVIL)
    assert assistant.asked == [("q?", {"venue": "ICML", "author": EVIL})]
    _, chat, _, history, answers, asked, chips, *rest = final
    assert answers == [answer] and asked == {"venue": "ICML", "author": EVIL} and len(chat) == 2 and len(history) == 2
    assert 'data-filter="year"' in chips and "year: 2024" in chips and 'title="stated in the question"' in chips
    assert "venue: ICML" in chips and 'title="chosen above"' in chips
    assert "author: &lt;script&gt;" in chips and "<script" not in chips and "<img" not in chips


def test_removing_a_chip_asks_the_last_question_again_with_that_filter_off(tmp_path: Path) -> None:
    answer = _answer(question="ICML 2024 papers on q", filters={"venue": "ICML", "year": 2024})
    tools, assistant = _tools([("answer", answer)], tmp_path)
    *_, first = tools.respond("ICML 2024 papers on q", [], [], [], "ICML", "", "")
    chat, history, answers, asked = first[1], first[3], first[4], first[5]
    searching, *_, final = tools.remove_filter(_event(remove="venue"), chat, history, answers, asked)
    assert searching[-3:] == (gr.update(value=""), gr.skip(), gr.skip())  # the venue control is cleared too
    assert assistant.asked[-1] == ("ICML 2024 papers on q", {"venue": None})  # switched off, the stated year still applies
    assert assistant.histories[-1] == []  # asked again in place of the last turn, not as its follow-up
    assert len(final[1]) == 2 and len(final[3]) == 2 and len(final[4]) == 1 and final[5] == {"venue": None}
    assert list(tools.remove_filter(_event(remove="colour"), chat, history, answers, asked))[0][1] == gr.skip()


def test_related_papers_are_shown_in_the_clicked_card_escaped(tmp_path: Path) -> None:
    tools, _ = _tools([], tmp_path)
    answer = _answer()
    panel = tools.related(_event(paper_id="p1", open=False), [answer])
    card = panel.split('data-paper-id="p1"', 1)[1]
    assert 'aria-expanded="true"' in card and "Hide related" in card and "Related papers" in card
    assert card.count("<li ") == 2 and '<a href="https://example.org/p3"' in card
    assert "javascript:" not in panel and "<script" not in panel and "Title &lt;script&gt;" in card
    closed = tools.related(_event(paper_id="p1", open=True), [answer])
    assert "pc-related\"" not in closed and 'aria-expanded="false"' in closed and ">Related</button>" in closed
    missing = tools.related(_event(paper_id="nope", open=False), [_answer(citations=[], abstained=True, hits=[_hit(paper_id="nope")])])
    assert "Related papers: no paper with id &#x27;nope&#x27;" in missing
    assert tools.related(_event(paper_id="p1"), []) == gr.skip()


def test_downloads_hold_the_answer_and_the_conversation(tmp_path: Path) -> None:
    tools, _ = _tools([], tmp_path)
    second = _answer(question="second?", citations=[_answer().citations[0].model_copy(update={"paper_id": "p2", "title": "Other"})])
    updates = dict(zip([what for *_, what in DOWNLOADS], tools.exports.updates([_answer(), second])))
    assert all(u.interactive for u in updates.values())
    answer_bib = bibtexparser.parse_string(Path(_files(updates["answer-bib"]) or "").read_text(encoding="utf-8"))
    assert [e["title"] for e in answer_bib.entries] == ["{Other}"]
    conversation = bibtexparser.parse_string(Path(_files(updates["conversation-bib"]) or "").read_text(encoding="utf-8"))
    assert not conversation.failed_blocks and len({e.key for e in conversation.entries}) == 2
    rows = list(csv.DictReader(io.StringIO(Path(_files(updates["conversation-csv"]) or "").read_text(encoding="utf-8"))))
    assert [r["paper_id"] for r in rows] == ["p1", "p2"]
    markdown = Path(_files(updates["conversation-md"]) or "").read_text(encoding="utf-8")
    assert "## 1. q?" in markdown and "## 2. second?" in markdown
    assert "\\<script" in markdown and not re.search(r"(?<!\\)<(script|img)", markdown)  # markup escaped
    assert all(not u.interactive for u in tools.exports.updates([]))
    no_refs = tools.exports.updates([_answer(citations=[], abstained=True)])
    assert [u.interactive for u in no_refs] == [False, False, False, False, True]  # the Markdown still has the question


def test_chips_are_empty_without_filters() -> None:
    assert "class=\"pc-chip\"" not in chips_html(_answer()) and chips_html(None) == chips_html(_answer())


# -- in the browser -------------------------------------------------------------------------------------------
ICML2024 = (0, 1, 19, 25)  # 19, 25: diffusion
ML2025 = (0, 1, 2, 3, 213)  # AISTATS 2025, 213: causal graph distances


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``paperchat serve`` over the ICML 2025 seed plus some ICML 2024 and AISTATS 2025 papers."""
    root = tmp_path_factory.mktemp("ui-tools")
    data = SHARED / "data"
    icml2024 = (data / "icml2024_abstracts" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    ml2025 = (data / "ml2025_conferences" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    lines = SEED.read_text(encoding="utf-8").splitlines() + [icml2024[i] for i in ICML2024] + [ml2025[i] for i in ML2025]
    path = root / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    paperchat("ingest", str(path), "--persist-dir", str(root / "store"), "--no-progress")
    server = start_server(root / "store")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as context:
        yield context


@pytest.fixture
def page(browser_context: Any, server: Server) -> Iterator[Any]:
    page = open_page(browser_context, server.url)
    yield page
    page.close()


def _chips(page: Any) -> list[str]:
    return [c.inner_text().replace("×", "").strip() for c in page.locator("#pc-chips .pc-chip").all()]


def _card_venues(page: Any) -> set[str]:
    return {m.inner_text().rsplit("·", 1)[-1].strip() for m in page.locator("#pc-sources .pc-card > .pc-meta").all()}


def _pick(page: Any, control: str, option: str) -> None:
    page.click(f"#pc-filter-{control} input")
    page.click(f'#pc-filter-{control} li[aria-label="{option}"]')


@pytest.mark.slow
def test_stated_filters_are_chips_and_removing_one_asks_again_without_it(page: Any) -> None:
    ask(page, "ICML 2024 papers on language models")  # members in both ICML years of the mixed store
    assert _chips(page) == ["venue: ICML", "year: 2024"]
    assert _card_venues(page) == {"ICML 2024"}
    page.evaluate("window.__sourceStates = []")
    page.click('#pc-chips button[data-filter="year"]')
    page.wait_for_function("() => document.querySelectorAll('#pc-chips .pc-chip').length === 1", timeout=120_000)
    page.wait_for_selector("#pc-sources .pc-foot")
    assert _chips(page) == ["venue: ICML"]
    assert "ICML 2025" in _card_venues(page)  # no longer restricted to 2024
    assert page.locator("#pc-chat [data-testid=user]").count() == 1  # the turn was replaced, not repeated
    assert "ICML 2025" in page.inner_text("#pc-sources") and not page.external


@pytest.mark.slow
def test_filter_controls_apply_to_the_question_and_unknown_authors_are_explained(page: Any) -> None:
    _pick(page, "venue", "AISTATS")
    ask(page, "Which papers study causal graphs?")
    assert _chips(page) == ["venue: AISTATS"] and _card_venues(page) == {"AISTATS 2025"}
    page.click('#pc-chips button[data-filter="venue"]')  # removing a chosen filter clears its control
    page.wait_for_function("() => document.querySelectorAll('#pc-chips .pc-chip').length === 0", timeout=120_000)
    assert page.input_value("#pc-filter-venue input") == "Any venue"
    page.fill("#pc-filter-author input", "Nobody Here")
    page.keyboard.press("Enter")
    ask(page, "What is Nester?")
    shown = last_answer(page)
    assert "Could not answer:" in shown and "no papers by Nobody Here" in shown and "Traceback" not in shown
    assert "No answer: no papers by Nobody Here" in page.inner_text("#pc-sources")


@pytest.mark.slow
def test_related_action_on_a_source_card(page: Any) -> None:
    ask(page, "Is there a paper on measuring distances between causal graphs?")
    card = page.locator("#pc-sources .pc-card").first
    title = card.locator(".pc-head a").inner_text()
    card.locator("button.pc-related-btn").click()
    page.wait_for_selector("#pc-sources .pc-card .pc-related li", timeout=60_000)
    card = page.locator("#pc-sources .pc-card").first
    related = card.locator(".pc-related li a")
    titles = [a.inner_text() for a in related.all()]
    assert len(titles) == 5 and title not in titles
    assert all(a.get_attribute("href").startswith(("https://", "http://")) for a in related.all())
    assert any("causal" in t.lower() for t in titles[:2])  # the nearest papers are on the same topic
    assert card.locator("button.pc-related-btn").inner_text() == "Hide related"
    card.locator("button.pc-related-btn").click()
    page.wait_for_function("() => !document.querySelector('#pc-sources .pc-related')", timeout=60_000)
    assert page.locator("#pc-sources .pc-card").first.locator("button.pc-related-btn").inner_text() == "Related"


def _download(page: Any, what: str) -> str:
    with page.expect_download() as info:
        page.click(f"#pc-dl-{what}")
    return Path(info.value.path()).read_text(encoding="utf-8")


@pytest.mark.slow
def test_downloads_of_the_answer_and_the_conversation(page: Any) -> None:
    ask(page, "What is Nester?")
    ask(page, "ICML 2024 papers on diffusion")
    cited = page.locator("#pc-sources .pc-card").count()
    page.click("#pc-export")
    answer = bibtexparser.parse_string(_download(page, "answer-bib"))
    assert not answer.failed_blocks and len(answer.entries) == cited >= 2
    assert {e["year"] for e in answer.entries} == {"2024"} and {e["booktitle"] for e in answer.entries} == {"ICML"}
    conversation = bibtexparser.parse_string(_download(page, "conversation-bib"))
    keys = [e.key for e in conversation.entries]
    assert "li2025dataflow" in keys and len(keys) == len(set(keys)) == cited + 1
    rows = list(csv.DictReader(io.StringIO(_download(page, "answer-csv"))))
    assert len(rows) == cited and rows[0]["url"].startswith("https://")
    markdown = _download(page, "conversation-md")
    assert "## 1. What is Nester?" in markdown and "## 2. ICML 2024 papers on diffusion" in markdown
    assert "_Filters: venue=ICML, year=2024_" in markdown
    assert "- [1] **Dataflow-Guided Neuro-Symbolic Language Models for Type Inference**" in markdown
    assert "<https://icml.cc/virtual/2025/poster/44081>" in markdown
    page.click("#pc-clear")
    page.wait_for_selector("#pc-sources .pc-empty")
    expect(page.locator("#pc-dl-conversation-md")).to_be_disabled()  # the buttons' update may land after the panel's
    assert json.dumps(page.external) == "[]"
