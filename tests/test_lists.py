"""Lists with counts (issue 13) on a real store and model: membership by cut-off over all candidates,
the count, "showing 10", paging without repeats, verified citations, the CLI's --page.

The store: the 16 watermarking papers and 5 knowledge-distillation papers of the labelled topics
(benchmarks/data/list_topics.jsonl), the 15 spiking-network papers, and the 19 ICML 2025 seed papers
as off-topic neighbours: 55 papers, so every paper is a candidate and only the cut-off keeps the
off-topic ones out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import pytest

from assistant import Answer, Assistant, ListPage
from conftest import CliResult, cli_store_args, make_settings
from vectorstore.errors import InputError
from vectorstore.settings import Settings

TOPICS = {t["question"]: t for t in map(json.loads, (Path(__file__).resolve().parents[1] / "benchmarks" / "data"
                                                      / "list_topics.jsonl").read_text(encoding="utf-8").splitlines())}
WATERMARK = set(TOPICS["Which papers study watermarking?"]["members"])
SPIKING = set(TOPICS["Which papers are about spiking neural networks?"]["members"])
DISTILLATION = sorted(TOPICS["How many papers use knowledge distillation?"]["members"])[:5]


@pytest.fixture(scope="module")
def listed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Settings:
    from ingest import ingest

    wanted = WATERMARK | SPIKING | set(DISTILLATION)
    lines = (shared / "data" / "icml2025_seed" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    for name in ("icml2024_abstracts", "ml2025_conferences"):
        for line in (shared / "data" / name / "papers.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip() and json.loads(line)["id"] in wanted:
                lines.append(line)
    folder = tmp_path_factory.mktemp("lists")
    path = folder / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = make_settings("embedded", folder, request, "lists")
    report = ingest([path], settings, progress=False)
    assert report.added == len(lines) == 19 + len(wanted), report
    return settings


@pytest.fixture(scope="module")
def assistant(listed: Settings) -> Assistant:
    return Assistant(listed, engine="extractive", auto_ingest=False)


@pytest.fixture(scope="module")
def watermarking(assistant: Assistant) -> Answer:
    return assistant.ask("Which papers study watermarking?")


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def _check_citations(assistant: Assistant, citations: list, first: int) -> None:
    """Numbered first, first+1, …; each quote is the verbatim sentence of its paper's abstract."""
    assert [c.number for c in citations] == list(range(first, first + len(citations)))
    for c in citations:
        paper = assistant.paper(c.paper_id)
        assert paper is not None and paper.abstract[c.start:c.end] == c.quote and len(c.quote) > 20


def test_count_is_stated_and_ten_are_shown(assistant: Assistant, watermarking: Answer) -> None:
    answer = watermarking
    assert answer.match_count == len(answer.members) > 10
    assert answer.text.splitlines()[0] == f"{answer.match_count} papers match, showing 10:"
    assert len(_bullets(answer.text)) == 10 == len(answer.citations)
    assert [c.paper_id for c in answer.citations] == answer.members[:10]  # in membership order
    _check_citations(assistant, answer.citations, 1)
    for line, c in zip(_bullets(answer.text), answer.citations):
        assert line.endswith(f"[{c.number}]") and c.title in line


def test_cut_off_keeps_off_topic_papers_out(watermarking: Answer) -> None:
    # every paper of this small store is a candidate: without the cut-off all 55 would be counted
    assert set(watermarking.members) <= WATERMARK
    assert len(watermarking.members) >= len(WATERMARK) - 2
    assert not set(watermarking.members) & SPIKING


def test_paging_returns_the_next_members_in_order(assistant: Assistant, watermarking: Answer) -> None:
    page = assistant.list_page(watermarking, offset=10, limit=10)
    assert isinstance(page, ListPage) and page.total == watermarking.match_count
    assert page.members == watermarking.members[10:20] and page.next_offset is None
    assert not set(page.members) & {c.paper_id for c in watermarking.citations}
    assert [c.paper_id for c in page.citations] == page.members
    _check_citations(assistant, page.citations, 11)
    assert re.findall(r"\[(\d+)\]", page.text) == [str(n) for n in range(11, 11 + len(page.members))]
    small = assistant.list_page(watermarking, offset=3, limit=4)
    assert small.members == watermarking.members[3:7] and small.next_offset == 7
    assert [c.number for c in small.citations] == [4, 5, 6, 7]
    # from the question alone: the same members, the same page
    again = assistant.list_page("Which papers study watermarking?", offset=10)
    assert again.members == page.members and again.total == page.total


def test_how_many_states_the_count_first(assistant: Assistant) -> None:
    answer = assistant.ask("How many papers are about watermarking?")
    first = answer.text.splitlines()[0]
    assert first == f"**{answer.match_count} papers** match. The 10 most relevant:"
    assert set(answer.members) <= WATERMARK and answer.match_count == len(answer.members)


def test_short_list_shows_all(assistant: Assistant) -> None:
    answer = assistant.ask("Which papers use knowledge distillation?")
    assert answer.match_count is not None and 0 < answer.match_count <= 10
    assert set(DISTILLATION) <= set(answer.members)  # all five labelled ones
    assert answer.text.splitlines()[0] == f"{answer.match_count} papers match:" and "showing" not in answer.text
    assert len(_bullets(answer.text)) == answer.match_count == len(answer.citations)
    _check_citations(assistant, answer.citations, 1)


def test_other_questions_have_no_count(assistant: Assistant) -> None:
    answer = assistant.ask("What is Nester?")
    assert answer.match_count is None and answer.members == []
    with pytest.raises(InputError, match="not a list question"):
        assistant.list_page(answer)
    for offset, limit, field in ((-1, 10, "offset"), (0, 0, "limit"), (0, 1000, "limit")):
        with pytest.raises(InputError, match=field):
            assistant.list_page("Which papers study watermarking?", offset, limit)


def test_cli_pages(listed: Settings, run_cli: Callable[..., CliResult], watermarking: Answer) -> None:
    store = cli_store_args(listed)
    result = run_cli("ask", "Which papers study watermarking?", "--page", "2", "--engine", "extractive", *store)
    assert result.returncode == 0, result.stderr
    total = watermarking.match_count
    assert result.stdout.splitlines()[0] == f"Papers 11-{total} of {total} (page 2 of 2):"
    assert "[11]" in result.stdout and "[1]" not in result.stdout
    past = run_cli("ask", "Which papers study watermarking?", "--page", "3", "--engine", "extractive", *store)
    assert past.returncode == 2 and past.stderr_lines == [
        f"paperchat: error: page 3 is past the end: {total} matching papers make 2 page(s) of 10"]
    single = run_cli("ask", "What is Nester?", "--page", "2", "--engine", "extractive", *store)
    assert single.returncode == 2 and len(single.stderr_lines) == 1 and "not a list question" in single.stderr


def test_ui_show_more_appends_the_next_members(assistant: Assistant, watermarking: Answer) -> None:
    from ui.app import _Handlers

    h = _Handlers(assistant)
    *_, final = list(h.respond("Which papers study watermarking?", [], []))
    chat, history = final[1], final[3]
    listing, button = h.list_state(history)
    assert listing == {"question": "Which papers study watermarking?", "offset": 10} and button["visible"] is True
    chat, listing, button = h.show_more(listing, chat)
    total = watermarking.match_count
    added = chat[-1]["content"]
    assert added.startswith(f"Papers 11–{total} of {total}:") and listing is None and button["visible"] is False
    for n, pid in enumerate(watermarking.members[10:], 11):
        title = assistant.paper(pid).title  # type: ignore[union-attr]
        line = next(line for line in added.splitlines() if f"**[{n}]**" in line)
        assert title.split()[0] in line
