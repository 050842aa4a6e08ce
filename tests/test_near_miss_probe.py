"""The near-miss probe (assistant/probe.py: the local 0.5B reads a question with a selected abstract) and how its reading
joins the near-miss rules (``selection.learned_gap``). The questions are written for these tests from the seed abstracts,
not taken from any question set."""

from __future__ import annotations

import numpy as np
import pytest

from assistant import probe
from assistant.evidence import Evidence
from assistant.selection import GAP_FEATURES, LEARNED_GAP, learned_gap
from assistant.types import Source
from vectorstore.settings import Settings


class Reader:
    """A stand-in for ``Probe`` with fixed readings per paper, recording which papers it read. Its mix is the reading
    minus half the first measure (standardised by nothing), cut at 0."""

    near_miss_weights = {"mix_mean": np.zeros(len(GAP_FEATURES), np.float32), "mix_scale": np.ones(len(GAP_FEATURES), np.float32),
                         "mix_coef": np.array([1.0, -0.5] + [0.0] * (len(GAP_FEATURES) - 2), np.float32),
                         "mix_bias": np.float32(0.0), "cut": np.float32(0.0)}

    def __init__(self, **scores: float) -> None:
        self.scores, self.read = scores, []

    def answers(self, question: str, title: str, abstract: str, prefix: str = "") -> float:
        self.read.append(prefix + title)
        return self.scores[prefix + title]


def _measures(first: float = 0.0) -> list[float]:
    """The rules' measures (``selection.gap_features``) with the first one set, the others 0."""
    return [first] + [0.0] * (len(GAP_FEATURES) - 2)


def _papers(*titles: str) -> list[Evidence]:
    return [Evidence(Source(i, f"p{i}", title, f"The abstract of {title}."), [(0, 10, 0.5)]) for i, title in enumerate(titles, 1)]


@pytest.mark.parametrize("score, measure, gap, verdict", [
    (-1.0, 0.0, "", LEARNED_GAP),                            # the rules find nothing missing, the mix is low: a near miss
    (-1.0, 0.0, "never mentions “GPU”", "never mentions “GPU”"),  # both agree: the rules' reason is the one shown
    (1.0, 0.0, "never mentions “GPU”", ""),                  # a high reading overrules the rules' near miss
    (1.0, 4.0, "", LEARNED_GAP),                             # the same reading, with much of the question missing: a near miss
    (0.0, 0.0, "", ""),                                      # at the cut: answered
])
def test_the_reading_and_the_rules_measures_decide_together(score, measure, gap, verdict):
    assert learned_gap("How many GPUs?", _papers("A"), gap, Reader(A=score), _measures(measure)) == verdict


def test_the_best_reading_of_the_selected_papers_counts():
    reader = Reader(A=-3.0, B=0.5)
    assert learned_gap("Which dataset?", _papers("A", "B"), "", reader, _measures()) == ""  # B answers it
    assert reader.read == ["A", "B"]
    reader = Reader(A=-3.0, B=-0.5)
    assert learned_gap("Which dataset?", _papers("A", "B"), "", reader, _measures()) == LEARNED_GAP


def test_reading_stops_once_the_question_is_answered():
    """The mix rises with the reading, so once the best reading puts it at or above the cut no later paper can change
    the verdict: the first paper ends the reading."""
    reader = Reader(A=0.5, B=-3.0)
    assert learned_gap("Which dataset?", _papers("A", "B"), "", reader, _measures()) == "" and reader.read == ["A"]
    reader = Reader(A=0.5, B=3.0)
    assert learned_gap("Which dataset?", _papers("A", "B"), "never mentions “X”", reader, _measures(2.0)) == ""
    assert reader.read == ["A", "B"]  # 0.5 - 1.0 is under the cut: B is read, and answers it


def test_the_quoted_sentences_are_read_first_and_the_abstract_only_when_they_do_not_answer():
    """With the quick probe's weights, each paper is first read as the sentences the answer quotes; the whole abstract
    is read only when those do not answer, and a near miss is a question neither reading answers."""
    quick = {"quick_mix_mean": np.zeros(len(GAP_FEATURES), np.float32), "quick_mix_scale": np.ones(len(GAP_FEATURES), np.float32),
             "quick_mix_coef": np.array([1.0] + [0.0] * (len(GAP_FEATURES) - 1), np.float32),
             "quick_mix_bias": np.float32(0.0), "quick_cut": np.float32(0.0)}
    quoted: list[str] = []

    class Quick(Reader):
        near_miss_weights = {**Reader.near_miss_weights, **quick}

        def answers(self, question: str, title: str, abstract: str, prefix: str = "") -> float:
            if prefix:
                quoted.append(abstract)
            return super().answers(question, title, abstract, prefix)

    reader = Quick(**{"quick_A": 0.5, "A": -3.0})
    assert learned_gap("Which dataset?", _papers("A"), "", reader, _measures()) == "" and reader.read == ["quick_A"]
    assert quoted == ["The abstra"]  # the selected span (0, 10), not the whole abstract
    reader = Quick(**{"quick_A": -0.5, "A": 0.5})
    assert learned_gap("Which dataset?", _papers("A"), "", reader, _measures()) == "" and reader.read == ["quick_A", "A"]
    reader = Quick(**{"quick_A": -0.5, "A": -0.5, "quick_B": -1.0, "B": -2.0})
    assert learned_gap("Which dataset?", _papers("A", "B"), "", reader, _measures()) == LEARNED_GAP
    assert reader.read == ["quick_A", "A", "quick_B", "B"]


def test_a_paper_that_gives_the_asked_value_is_not_read():
    """"Seven datasets" answers "how many datasets": the reading cannot make it a near miss, so it is not run."""
    papers = [Evidence(Source(1, "p1", "TINED", "Experiments show that TINED outperforms GNNs across seven datasets."), [(0, 60, 0.5)])]
    reader = Reader(TINED=-3.0)
    assert learned_gap("How many datasets was TINED evaluated on?", papers, "", reader, _measures()) == ""
    assert reader.read == []
    assert learned_gap("Which optimizer was TINED trained with?", papers, "", reader, _measures()) == LEARNED_GAP  # no such value given


def test_without_weights_the_rules_decide_alone():
    reader = Reader(A=-3.0)
    reader.near_miss_weights = {}
    assert learned_gap("Which dataset?", _papers("A"), "", reader, _measures()) == ""
    assert reader.read == []


def test_the_setting_defaults_on_and_the_environment_turns_it_off(monkeypatch):
    monkeypatch.delenv("PAPERCHAT_NEAR_MISS_PROBE", raising=False)
    assert Settings().near_miss_probe is True
    monkeypatch.setenv("PAPERCHAT_NEAR_MISS_PROBE", "false")
    assert Settings().near_miss_probe is False


def test_the_weights_are_small_and_fit_the_installed_model():
    assert probe.NEAR_MISS_WEIGHTS.is_file() and probe.NEAR_MISS_WEIGHTS.stat().st_size < 50_000
    reader = probe.probe()
    assert reader is not None, "./install.sh installs the local 0.5B model the probe reads"
    w = reader.near_miss_weights
    for prefix in ("", "quick_"):  # the whole abstract's probe and mix, and the quick ones for the quoted sentences
        assert {f"{prefix}{k}" for k in ("mean", "scale", "coef", "bias", "mix_mean", "mix_scale", "mix_coef", "mix_bias", "cut")} <= set(w)
        assert w[prefix + "mix_coef"].shape == (len(GAP_FEATURES),) and w[prefix + "mix_coef"][0] > 0  # rises with the reading
    vector = reader.reading("How many species?", "A zoo", "The dataset covers over 70 species.")
    assert vector.shape == w["coef"].shape == w["mean"].shape and np.isfinite(vector).all()


def test_a_reading_does_not_depend_on_what_was_read_before():
    """The fixed head of the prompt is kept in the model's cache between readings; a reading must not change with the
    readings or entailment checks before it, and a question longer than the context is read by its end."""
    reader = probe.probe()
    assert reader is not None
    first = reader.reading("How many species?", "A zoo", "The dataset covers over 70 species of animals.")
    reader.reading("Which optimizer?", "Another paper", "We train a model with a new optimizer on images.")
    assert np.array_equal(first, reader.reading("How many species?", "A zoo", "The dataset covers over 70 species of animals."))
    reader.score("The dataset covers 70 species.", "The dataset covers over 70 species of animals.")  # clears the cache
    assert np.array_equal(first, reader.reading("How many species?", "A zoo", "The dataset covers over 70 species of animals."))
    long = reader.reading("Which one? " * 600 + "How many species?", "A zoo", "The dataset covers over 70 species.")
    assert np.isfinite(long).all() and not np.array_equal(long, first)
    # a chat marker typed in a question is read as text, not as the model's end of turn
    assert np.array_equal(reader.reading("Is <|im_end|> a species?", "A zoo", "The dataset covers over 70 species."),
                          reader.reading("Is < |im_end|> a species?", "A zoo", "The dataset covers over 70 species."))


@pytest.fixture(scope="module")
def assistants(seeded):
    from assistant import Assistant

    return (Assistant(seeded, engine="extractive", auto_ingest=False, near_miss_probe=True),  # the shipped default
            Assistant(seeded, engine="extractive", auto_ingest=False, near_miss_probe=False))


# The abstract says how TINED distils a trained GNN, never what happens when the graph changes afterwards; every word
# of the question is in it, so the rules let it through.
UNSAID = "Does TINED's distilled MLP keep working when the graph changes after training?"
ANSWERED = ["How do GINNs avoid mode collapse?", "Can GINNs train shape-generative models without data?",
            "How many datasets was TINED evaluated on?", "Across how many supervised tasks does AminoAseed improve on ESM3?",
            "How does TINED transfer the feature transformation of a GNN layer to the MLP?",
            "Which dataset was annotated with text for motion synthesis of many object categories?"]


def test_a_near_miss_the_rules_let_through_is_said_so(assistants):
    shipped, rules_only = assistants
    assert not rules_only.ask(UNSAID).near_miss, "the rules alone should let this through"
    answer = shipped.ask(UNSAID)
    assert answer.near_miss and not answer.abstained and LEARNED_GAP in answer.text, answer.text
    assert {c.paper_id for c in answer.citations} == {"icml2025-44094"}  # it still quotes the paper asked about
    assert answer.timings["near_miss_probe"] > 0 and "near_miss_probe" not in rules_only.ask(UNSAID).timings


@pytest.mark.parametrize("question", ANSWERED)
def test_answerable_questions_stay_answered(assistants, question):
    answer = assistants[0].ask(question)
    assert not answer.near_miss and not answer.abstained and answer.citations, answer.text


def test_a_follow_up_is_read_as_asked_not_as_the_search_query(assistants, monkeypatch):
    """The search query of a follow-up adds the earlier turn's paper in brackets; the probe was fitted on questions as
    people ask them and reads the paper itself, so it gets the question as asked."""
    import assistant.core as core

    shipped = assistants[0]
    reader = Reader(**{p.title: 1.0 for p in shipped.store.papers()})
    monkeypatch.setattr(core, "probe", lambda: reader)
    asked: list[str] = []
    answers = reader.answers
    monkeypatch.setattr(reader, "answers", lambda q, t, a: asked.append(q) or answers(q, t, a))
    history = [{"role": "user", "content": "Is there a paper on neuro-symbolic type inference?"},
               {"role": "assistant", "content": "Yes [1]."}]
    answer = shipped.ask("What results does it report?", history)
    assert answer.query != answer.question and asked == [answer.question]


def test_the_rules_measures_follow_what_the_paper_leaves_unsaid():
    """``gap_features``: the share of the question's weight the lead paper never mentions, the rules' verdict, the
    answer slot; the same function gives the training script its numbers."""
    from assistant.selection import gap_features

    question = "Which optimizer was TINED trained with?"
    idf = {"optim": 3.0, "tine": 5.0, "train": 1.0}  # the keyword index's stems of the question's words
    said = [Evidence(Source(1, "p1", "TINED", "TINED is trained with the Adam optimizer on seven datasets."), [(0, 60, 0.5)])]
    unsaid = [Evidence(Source(1, "p1", "TINED", "TINED distils a trained GNN into an MLP."), [(0, 40, 0.5)])]
    named = dict(zip(GAP_FEATURES[1:], gap_features(question, idf, said, "")))
    missing = dict(zip(GAP_FEATURES[1:], gap_features(question, idf, unsaid, "never mentions “optimizer”")))
    assert named["missing_share"] == 0 and missing["missing_share"] > 0.2 and missing["rules"] == 1.0 and named["rules"] == 0.0
    assert named["value"] == missing["value"] == 1.0  # "which optimizer" asks for a value


@pytest.mark.parametrize("text, asking", [
    ("EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty and QUEST: Query-Aware Sparsity", False),
    ("neuro-symbolic type inference", False),
    ("How many datasets was TINED evaluated on?", True),
    ("Does TINED's distilled MLP keep working when the graph changes", True),
    ("tell me which optimizer TINED uses", True),
])
def test_only_questions_are_read(text, asking):
    from assistant.selection import asks

    assert asks(text) is asking


def test_a_title_typed_as_a_search_is_answered_unread(assistants, monkeypatch):
    """The probe asks whether an abstract states the answer to a question; a title or topic has none to leave out, so
    it is not read (the grounding benchmark's two-title questions were taken for near misses by the mix)."""
    import assistant.core as core

    reader = Reader(**{p.title: -5.0 for p in assistants[0].store.papers()})  # would read every paper as a near miss
    monkeypatch.setattr(core, "probe", lambda: reader)
    answer = assistants[0].ask(assistants[0].store.papers()[0].title)
    assert reader.read == [] and not answer.near_miss and answer.citations, answer.text
    assert assistants[0].ask(UNSAID).near_miss and reader.read  # a question is still read
