"""LLM answers: the model's verified sentences, then the abstract sentences it condensed (``quotes_under_summary``).

Through the real ``openai`` engine against the scripted OpenAI-compatible server on loopback, real embedded
Chroma and the packaged embedding model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from pydantic import ValidationError

from assistant import Assistant
from assistant.core import QUOTES, SECOND_DRAFT, SECOND_DRAFT_TIMING, UNVERIFIED
from benchmarks.scripted_openai import ScriptedOpenAI, _text
from conftest import make_settings
from vectorstore.settings import Settings

NESTER = "Dataflow-Guided Neuro-Symbolic Language Models for Type Inference"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, seed_jsonl: Path, request: pytest.FixtureRequest) -> Settings:
    from ingest import ingest

    settings = make_settings("embedded", tmp_path_factory.mktemp("summary"), request, "summary")
    ingest([seed_jsonl], settings, progress=False)
    return settings


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedOpenAI]:
    with ScriptedOpenAI() as server:
        yield server


def _assistant(seeded: Settings, llm: ScriptedOpenAI, **overrides: object) -> Assistant:
    return Assistant(seeded.with_overrides(engine="openai", openai_base_url=llm.base_url, openai_model="scripted", **overrides),
                     auto_ingest=False)


def _abstract(seed_jsonl: Path, paper_id: str) -> str:
    import json

    return next(json.loads(line)["abstract"] for line in seed_jsonl.read_text().splitlines() if paper_id in line)


def test_a_verified_summary_comes_first_then_the_quotes_it_condensed(seeded: Settings, llm: ScriptedOpenAI, seed_jsonl: Path) -> None:
    llm.script("Nester is a neuro-symbolic approach that enhances language models for type inference [{A}].", A=NESTER)
    answer = _assistant(seeded, llm).ask("What is Nester?")
    summary, _, quotes = answer.text.partition(QUOTES)
    assert summary.startswith("Nester is a neuro-symbolic approach") and summary.rstrip().endswith("[1].")
    assert quotes.startswith("- **" + NESTER) and "[1]" in quotes
    assert not answer.fallback and [c.number for c in answer.citations] == [1]
    citation = answer.citations[0]
    assert citation.paper_id == "icml2025-44081" and citation.quote in _abstract(seed_jsonl, citation.paper_id)


def test_an_unverifiable_summary_falls_back_to_the_quotes(seeded: Settings, llm: ScriptedOpenAI) -> None:
    llm.script("Nester needs 64 GPUs and a 70B teacher model [{A}].", A=NESTER)
    llm.reset()
    answer = _assistant(seeded, llm).ask("What is Nester?")
    assert answer.fallback and answer.text.startswith(UNVERIFIED) and QUOTES not in answer.text
    assert "64 GPUs" not in answer.text and answer.citations
    assert len(llm.requests) == 2 and SECOND_DRAFT_TIMING in answer.timings  # the second draft was no better


def test_when_the_check_keeps_nothing_a_second_draft_is_written_with_the_question_first(seeded: Settings, llm: ScriptedOpenAI) -> None:
    # the 0.5B's usual fault is a question restated as a claim; the check removes it
    llm.script("Nester needs 64 GPUs and a 70B teacher model [{A}].",
               "Nester is a neuro-symbolic approach that enhances language models for type inference [{A}].", A=NESTER)
    llm.reset()
    events = list(_assistant(seeded, llm).stream_events("What is Nester?"))
    answer = events[-1][1]
    streamed = "".join(payload for kind, payload in events if kind == "delta")
    assert SECOND_DRAFT.strip() in streamed and "64 GPUs" in streamed  # both drafts stream; the verified answer replaces them
    assert not answer.fallback and answer.text.startswith("Nester is a neuro-symbolic approach") and QUOTES in answer.text
    assert "64 GPUs" not in answer.text and SECOND_DRAFT_TIMING in answer.timings
    assert [r.reason for r in answer.removed] and answer.removed[0].claim.startswith("Nester needs 64 GPUs")
    first, second = (_text(request["messages"][-1]["content"]) for request in llm.requests)
    assert first.startswith("<papers>") and second.startswith("Question: What is Nester?")
    assert SECOND_DRAFT_TIMING not in _assistant(seeded, llm).ask("What is Nester?").timings  # a kept draft is the only one


def test_paperchat_eval_counts_second_drafts_and_fallbacks(seeded: Settings, llm: ScriptedOpenAI) -> None:
    from assistant.evaluation import evaluate, format_table

    question = [{"id": "q", "kind": "single", "question": "What is Nester?", "gold": ["icml2025-44081"]}]
    bad, good = "Nester needs 64 GPUs and a 70B teacher model [{A}].", "Nester is a neuro-symbolic approach for type inference [{A}]."
    for drafts, second, fallback in (((good,), 0.0, 0.0), ((bad, good), 1.0, 0.0), ((bad,), 1.0, 1.0)):
        llm.script(*drafts, A=NESTER)
        metrics = evaluate(_assistant(seeded, llm), question)["metrics"]["answers"]
        assert (metrics["second_draft"], metrics["fallback"]) == (second, fallback), drafts
    assert "second draft written" in format_table(evaluate(_assistant(seeded, llm), question)["metrics"])


def test_quotes_can_be_switched_off(seeded: Settings, llm: ScriptedOpenAI) -> None:
    llm.script("Nester is a neuro-symbolic approach that enhances language models for type inference [{A}].", A=NESTER)
    answer = _assistant(seeded, llm, quotes_under_summary=False).ask("What is Nester?")
    assert QUOTES not in answer.text and answer.text.startswith("Nester is a neuro-symbolic approach") and not answer.fallback


def test_removed_claims_are_listed_in_the_answer_the_page_and_the_terminal(seeded: Settings, llm: ScriptedOpenAI) -> None:
    from ui.app import answer_html
    from ui.cli import render

    llm.script("Nester is a neuro-symbolic approach that enhances language models for type inference [{A}]. "
               "Nester outperforms HiTyper by 28.3% on ManyTypes4Py [{A}].", A=NESTER)
    answer = _assistant(seeded, llm).ask("What is Nester?")
    assert [(r.marker, r.paper_id) for r in answer.removed] == [(1, "icml2025-44081")] and "28.3%" not in answer.text.partition(QUOTES)[0]
    note = answer.removed_note()
    assert note.startswith("1 claim removed: number not in the abstract (28.3)")
    assert note in answer_html(answer, {}) and f"[{note}]" in render(answer)


def test_the_servers_own_sampling_options_reach_it_and_a_bad_one_is_refused(seeded: Settings, llm: ScriptedOpenAI) -> None:
    llm.script("Nester is a neuro-symbolic approach that enhances language models for type inference [{A}].", A=NESTER)
    llm.reset()
    _assistant(seeded, llm, openai_extra_body='{"repeat_penalty": 1.0}').ask("What is Nester?")
    assert llm.requests and llm.requests[-1]["repeat_penalty"] == 1.0 and llm.requests[-1]["temperature"] == 0.0
    llm.reset()
    _assistant(seeded, llm).ask("What is Nester?")
    assert llm.requests and "repeat_penalty" not in llm.requests[-1]  # nothing non-standard unless asked for
    with pytest.raises(ValidationError, match="openai_extra_body"):
        seeded.with_overrides(openai_extra_body="[1.0]")
