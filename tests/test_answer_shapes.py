"""Answer shapes (issue 11) on the real store and model: lists, comparisons, near misses, no padding."""

from __future__ import annotations

import pytest

from assistant import Assistant
from assistant.selection import question_shape


@pytest.fixture(scope="module")
def assistant(seeded) -> Assistant:
    return Assistant(seeded, engine="extractive", auto_ingest=False)


def test_question_shapes():
    assert question_shape("Which papers study reinforcement learning?") == "list"
    assert question_shape("List all papers on graph neural networks") == "list"
    assert question_shape("How many papers use diffusion?") == "list"
    assert question_shape("Which paper introduces Nester?") == "single"
    assert question_shape("Compare Nester and TINED") == "compare"
    assert question_shape("What is Nester?") == "single"


def test_list_answer_cites_every_relevant_paper(assistant: Assistant):
    answer = assistant.ask("Which papers involve protein, DNA or molecule data?")
    cited = {c.paper_id for c in answer.citations}
    assert {"icml2025-44082", "icml2025-44084", "icml2025-44092"} <= cited
    assert answer.text.splitlines()[0].endswith("match:")
    assert sum(line.startswith("- ") for line in answer.text.splitlines()) == len(cited)


def test_compare_quotes_both_papers(assistant: Assistant):
    answer = assistant.ask("Compare Nester and TINED")
    assert {c.paper_id for c in answer.citations} == {"icml2025-44081", "icml2025-44094"}


def test_single_question_does_not_pad_with_another_paper(assistant: Assistant):
    answer = assistant.ask("What is Nester?")
    assert {c.paper_id for c in answer.citations} == {"icml2025-44081"}


def test_near_miss_says_so_and_lists_the_nearest(assistant: Assistant):
    answer = assistant.ask("What learning rate and optimizer were used to train Nester?")
    assert answer.near_miss and not answer.abstained
    assert "optimizer" in answer.text.lower() and "nearest papers" in answer.text.lower()
    assert answer.citations and answer.citations[0].paper_id == "icml2025-44081"
    plain = assistant.ask("What results does Nester report on ManyTypes4Py?")
    assert not plain.near_miss and not plain.abstained
