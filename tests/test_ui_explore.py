"""The Explore tab's handlers with the scripted Assistant (fast): the figure, the paper panel, citations circled, errors."""

from __future__ import annotations

import json

import gradio as gr
from test_ui_api import ScriptedAssistant, _answer, _inert

from ui.app import answer_html, create_app
from ui.explore import _Explore, cited_ids, figure
from vectorstore.errors import StoreError


def test_the_chat_tabs_citations_are_read_from_its_sources_panel() -> None:
    answer = _answer()
    answer.citations.append(answer.citations[0].model_copy(update={"number": 2, "paper_id": 'p"3&<x>'}))
    assert cited_ids(answer_html(answer, {})) == ["p1", 'p"3&<x>']
    assert cited_ids(answer_html(_answer(abstained=True, citations=[]), {})) == []  # nearest papers of an abstention: not cited
    assert cited_ids(None) == []


def test_figure_has_every_paper_once_and_no_markup_from_papers() -> None:
    paper_map = ScriptedAssistant().paper_map()
    fig = figure(paper_map, cited=["p1", "unknown"], selected="p2", related=["p3"])
    clusters = [t for t in fig.data if t.name.endswith(")")]
    assert sorted(i for t in clusters for i in t.customdata) == ["p1", "p2", "p3"]
    assert [t.name for t in clusters] == ["alpha, beta (2)", "gamma (1)"] and all(t.type == "scattergl" for t in fig.data)
    overlays = {t.name: list(t.customdata) for t in fig.data if t not in clusters}
    assert overlays == {"Cited in the last answer": ["p1"], "Related to the open paper": ["p3"], "Open paper": ["p2"]}
    text = json.dumps(fig.to_plotly_json())
    assert "Title &lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x" in text  # shown as text by Plotly
    assert "<script" not in text and "<img" not in text and "<a " not in text
    assert [a.text for a in fig.layout.annotations] == ["alpha, beta", "gamma"]


def test_opening_the_tab_sends_the_map_and_the_picker_once() -> None:
    handlers = _Explore(ScriptedAssistant())
    sources = answer_html(_answer(), {})
    first, (status, fig, picker, shown) = list(handlers.open(sources, ""))
    assert "Preparing" in first[0] and first[1] == gr.skip()
    assert "**3 papers** in 2 topics" in status and "circled: the 1 paper cited" in status
    assert [t.name for t in fig.data][-1] == "Cited in the last answer" and shown == "k1"
    choices = picker["choices"]
    assert ("Paper 2 (V)", "p2") in choices and len(choices) == 3
    *_, (_, _, picker_again, _) = handlers.open(sources, "k1")  # this page already has these choices
    assert picker_again == gr.skip()


def test_a_chosen_paper_shows_escaped_text_and_its_related_papers() -> None:
    handlers = _Explore(ScriptedAssistant())
    panel, fig, picker = handlers.select("p1\n7", answer_html(_answer(), {}))  # a click: "id\ncounter"
    assert _inert(panel) and "Title &lt;script&gt;" in panel and "&lt;img src=x" in panel
    assert "<a " in panel and 'href="https://example.org/p3"' in panel and "javascript:" not in panel  # only http(s) links
    assert 'data-pick="p2"' in panel and 'data-pick="p3"' in panel and "similarity 1.00" in panel and "topic: alpha, beta" in panel
    assert picker["value"] == "p1"
    assert [t.name for t in fig.data][-3:] == ["Cited in the last answer", "Related to the open paper", "Open paper"]
    missing, _, _ = handlers.select("nope")
    assert "No paper with id nope" in missing
    assert handlers.select("")[0].startswith('<div class="pc-empty">')


def test_a_store_failure_is_one_line_in_the_tab() -> None:
    handlers = _Explore(ScriptedAssistant(fail=StoreError("store in /x is unreadable; move it away")))
    *_, (status, fig, picker, shown) = handlers.open("", "")
    assert status == "**No map:** store in /x is unreadable; move it away" and fig == gr.skip() and shown == gr.skip()


def test_the_app_has_an_explore_tab_after_the_chat_tab() -> None:
    demo = create_app(ScriptedAssistant())  # type: ignore[arg-type]
    tabs = [block for block in demo.blocks.values() if isinstance(block, gr.Tab)]
    assert [t.label for t in tabs] == ["Chat", "Explore"]
    assert any(isinstance(b, gr.Plot) and b.elem_id == "pc-map" for b in demo.blocks.values())
