"""Follow-ups: detection and rewriting (fast unit tests), then conversation cases through the real Assistant."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant import Assistant
from assistant.conversation import candidates, standalone_query
from assistant.evaluation import evaluate, load_questions
from conftest import make_settings

HISTORY = [{"role": "user", "content": "Tell me about the GNN-to-MLP distillation paper."},
           {"role": "assistant", "content": "- **TINED: GNNs-to-MLPs by Teacher Injection**: ... [1]"}]


def test_pronoun_followup_gets_context():
    query = standalone_query("How does it measure the smoothing effects?", HISTORY)
    assert query.startswith("How does it measure the smoothing effects?") and "TINED" in query and "distillation" in query


def test_short_followup_gets_context():
    assert "GNN-to-MLP" in standalone_query("and the accuracy?", HISTORY)


def test_standalone_questions_are_left_alone():
    for question in ("What structure did the authors find in the Hessian of well-trained networks?",
                     "What is Nester?", "Which method uses Dirichlet energy?"):
        assert standalone_query(question, HISTORY) == question


def test_no_history_no_rewrite():
    assert standalone_query("What does it do?", []) == "What does it do?"


# -- the conversation cases through the real Assistant (extractive engine, real embedded store) ------------------
CASES = load_questions(Path(__file__).parents[1] / "benchmarks" / "data" / "conversations.jsonl")


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory, seed_jsonl: Path, request: pytest.FixtureRequest) -> Assistant:
    from ingest import ingest

    settings = make_settings("embedded", tmp_path_factory.mktemp("conversations"), request, "conv")
    ingest([seed_jsonl], settings, progress=False)
    return Assistant(settings, engine="extractive", auto_ingest=False)


def test_conversation_cases(assistant: Assistant):
    """The conversation cases as ``paperchat eval`` scores them: earlier turns asked and answered in order."""
    assert len(CASES) >= 30
    result = evaluate(assistant, CASES)
    metrics, rows = result["metrics"], result["rows"]
    rewritten = [r["question"] for r in rows if r["kind"] == "switch" and r["rewritten"]]
    missed = [r["question"] for r in rows if r["kind"] == "followup" and (r["rank"] is None or r["rank"] >= 3)]
    print(f"\nconversations: {metrics['switch']['n']} topic switches, {len(rewritten)} rewritten {rewritten}; "
          f"{metrics['followup']['n']} follow-ups, hit@3 {metrics['followup']['hit@3']:.3f} (missed {missed})")
    assert metrics["switch"]["n"] >= 10 and metrics["followup"]["n"] >= 20
    assert metrics["switch"]["rewritten"] == 0, rewritten
    assert metrics["followup"]["hit@3"] >= 0.95, missed
