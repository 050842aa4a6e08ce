"""The Assistant on the real packaged model and real Chroma (both modes): search, answers, abstention, follow-ups."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from assistant import Answer, Assistant, Hit
from assistant.retrieval import HybridRetriever
from conftest import cli_store_args
from ingest.cleaning import clean_text


@pytest.fixture(scope="module")
def assistant(seeded) -> Assistant:
    return Assistant(seeded, engine="extractive", auto_ingest=False)


@pytest.fixture(scope="module")
def abstracts(seed_jsonl) -> dict[str, str]:
    return {json.loads(l)["id"]: clean_text(json.loads(l)["abstract"]) for l in open(seed_jsonl)}  # as stored


def test_search_is_paper_level(assistant: Assistant):
    hits = assistant.search("neuro-symbolic type inference", k=5)
    assert all(isinstance(h, Hit) for h in hits)
    assert hits[0].paper_id == "icml2025-44081"
    assert len({h.paper_id for h in hits}) == len(hits)
    assert hits[0].score >= hits[-1].score and hits[0].text


def test_paper_returns_full_abstract(assistant: Assistant, abstracts):
    paper = assistant.paper("icml2025-44094")
    assert paper is not None and paper.abstract == abstracts["icml2025-44094"]
    assert assistant.paper("no-such-paper") is None


def test_answer_cites_verbatim_sentences(assistant: Assistant, abstracts):
    answer = assistant.ask("What is Nester?")
    assert not answer.abstained and answer.grounded
    assert answer.citations[0].paper_id == "icml2025-44081"
    for citation in answer.citations:
        assert citation.quote in abstracts[citation.paper_id]
        assert abstracts[citation.paper_id][citation.start : citation.end] == citation.quote
        assert f"[{citation.number}]" in answer.text
    assert "type inference" in answer.text.lower()
    assert {"retrieve", "total"} <= set(answer.timings)


def test_abstains_and_names_only_stored_papers(assistant: Assistant):
    answer = assistant.ask("Which paper studies robot grasping with tactile sensors?")
    assert answer.abstained and not answer.citations
    assert "do not cover" in answer.text
    stored = {p.title for p in assistant.store.papers()}
    listed = [line[2:] for line in answer.text.splitlines() if line.startswith("- ")]
    assert listed and all(title in stored for title in listed)


def test_followup_is_rewritten_only_when_it_needs_the_context(assistant: Assistant):
    history = [{"role": "user", "content": "Is there a paper on neuro-symbolic type inference?"},
               {"role": "assistant", "content": "Yes [1]."}]
    answer = assistant.ask("What results does it report?", history)
    assert answer.query != answer.question and "type inference" in answer.query
    assert answer.citations[0].paper_id == "icml2025-44081"
    # "ManyTypes4Py" finds the same paper on its own: the context adds nothing, the typed question is searched
    answer = assistant.ask("What results does it report on ManyTypes4Py?", history)
    assert answer.query == answer.question and answer.citations[0].paper_id == "icml2025-44081"
    assert "70.7" in answer.text


def test_stream_yields_text_then_answer(assistant: Assistant):
    items = list(assistant.stream("What structure did the authors find in the Hessian of well-trained networks?"))
    assert isinstance(items[-1], Answer) and all(isinstance(i, str) for i in items[:-1]) and len(items) >= 2
    assert "power-law" in items[-1].text


def test_stream_events_show_hits_before_text(assistant: Assistant):
    kinds = [kind for kind, _ in assistant.stream_events("What are GINNs used for?")]
    assert kinds[0] == "hits" and kinds[-1] == "answer" and "delta" in kinds


@pytest.mark.parametrize("question", ["", "   ", "\x00\x01"])
def test_empty_questions_get_a_message(assistant: Assistant, question: str):
    answer = assistant.ask(question)
    assert answer.error and "question" in answer.text.lower()


def test_retriever_is_a_langchain_retriever(assistant: Assistant):
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableLambda

    assert isinstance(assistant.retriever, HybridRetriever) and isinstance(assistant.retriever, BaseRetriever)
    chain = assistant.retriever | RunnableLambda(lambda docs: [d.metadata["paper_id"] for d in docs])
    assert chain.invoke("Dirichlet energy distillation of GNNs into MLPs")[0] == "icml2025-44094"


def test_cli_ask_json(seeded):
    out = subprocess.run(
        [sys.executable, "-m", "ui.cli", "ask", "What is MARASON?", "--json", "--engine", "extractive", *cli_store_args(seeded)],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["citations"][0]["paper_id"] == "icml2025-44092" and data["abstained"] is False
    assert data["engine"] == "extractive"


def test_cli_ask_text_lists_sources(seeded):
    out = subprocess.run(
        [sys.executable, "-m", "ui.cli", "ask", "What is DynAMO?", "--engine", "extractive", *cli_store_args(seeded)],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Sources:" in out.stdout and "[1]" in out.stdout and "icml.cc" in out.stdout
