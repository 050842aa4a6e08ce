"""Follow-ups: detection and rewriting (fast unit tests), then conversation cases through the real Assistant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant import Answer, Assistant
from assistant.conversation import candidates, standalone_query
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
CASES = [json.loads(line) for line in (Path(__file__).parent / "data" / "conversations.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory, seed_jsonl: Path, request: pytest.FixtureRequest) -> Assistant:
    from ingest import ingest

    settings = make_settings("embedded", tmp_path_factory.mktemp("conversations"), request, "conv")
    ingest([seed_jsonl], settings, progress=False)
    return Assistant(settings, engine="extractive", auto_ingest=False)


def _converse(assistant: Assistant, case: dict) -> Answer:
    history: list[dict[str, str]] = []
    for question in case["history"]:
        answer = assistant.ask(question, history)
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]
    return assistant.ask(case["question"], history)


def test_conversation_cases(assistant: Assistant):
    assert len(CASES) >= 30
    switches = [c for c in CASES if c.get("switch")]
    followups = [c for c in CASES if not c.get("switch")]
    rewritten = [c["question"] for c in switches if _converse(assistant, c).query != c["question"]]
    missed = [c["question"] for c in followups if c["gold"] not in [h.paper_id for h in _converse(assistant, c).hits[:3]]]
    hit3 = 1 - len(missed) / len(followups)
    print(f"\nconversations: {len(switches)} topic switches, {len(rewritten)} rewritten {rewritten}; "
          f"{len(followups)} follow-ups, hit@3 {hit3:.3f} (missed {missed})")
    assert not rewritten
    assert hit3 >= 0.95
