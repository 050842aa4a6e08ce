"""Follow-up detection and rewriting (fast unit tests)."""

from assistant.conversation import standalone_query

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
