"""The learned entailment check (assistant/entailment.py): the shipped weights on the packaged MiniLM, as
``claims.check`` and ``grounding.verify`` use them. The claims are written for these tests from the seed
abstracts, not taken from any grounding case set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from assistant import entailment
from assistant.claims import Abstract, check
from assistant.grounding import verify
from assistant.types import Source
from vectorstore.settings import Settings

SEED = Path(__file__).resolve().parents[1] / "ingest" / "data"


def _seed(title_start: str) -> Source:
    for path in sorted(SEED.glob("*.jsonl")):
        for line in path.open():
            row = json.loads(line)
            if row.get("title", "").startswith(title_start):
                return Source(1, row["id"], row["title"], row["abstract"])
    raise LookupError(title_start)


@pytest.fixture(scope="module")
def papers() -> dict[str, Source]:
    return {"space": _seed("SPACE"), "ginn": _seed("Geometry-Informed"), "nester": _seed("Dataflow-Guided")}


def _verdict(claim: str, source: Source, learned: bool = True):
    return check(claim, Abstract.of(source.title, source.abstract), learned=learned)


REVERSED = [  # (paper, a claim that reverses one of its sentences in words the lexical rules do not list)
    # ("achieves optimal results" for "yield suboptimal results" was one until the rules read dropped qualifiers)
    ("space", "The authors show that supervised training for genomic profile prediction lags behind pure sequence pre-training."),
    ("nester", "Real-world deployments of LMs rarely need the model to run on local machines."),
]
FAITHFUL = [  # (paper, a faithful rewording, partial claims and numbers included)
    ("space", "SPACE uses a Mixture of Experts to capture relationships between DNA sequences across species and genomic profiles."),
    ("ginn", "GINNs train shape-generative neural fields without any data, using design requirements given as objectives and constraints."),
    ("nester", "On ManyTypes4Py, Nester reaches 70.7% Top-1 Exact Match."),
    ("nester", "Nester is 18.3% higher than HiTyper in Top-1 Exact Match."),
    ("space", "According to the authors, pure DNA sequences lack sufficient information because genomic profiles such as "
              "chromatin accessibility regulate their functions."),
    ("ginn", "Adding diversity as an explicit constraint lets GINNs avoid mode-collapse and generate several diverse solutions."),
]


@pytest.mark.parametrize("paper,claim", REVERSED)
def test_a_reversal_in_other_words_passes_the_rules_but_not_the_model(papers, paper, claim):
    on = _verdict(claim, papers[paper])
    assert not on.supported and "entailment model" in on.reason, on
    assert _verdict(claim, papers[paper], learned=False).supported, "the lexical rules alone should let this through"


@pytest.mark.parametrize("paper,claim", FAITHFUL)
def test_faithful_rewordings_keep_their_marker(papers, paper, claim):
    verdict = _verdict(claim, papers[paper])
    assert verdict.supported, verdict


def test_the_removed_marker_says_why_in_the_answer(papers):
    source = papers["space"]
    text, citations, removed = verify(REVERSED[0][1] + " [1]", [source], learned=True)
    assert citations == [] and "[1]" not in text
    assert [r.reason for r in removed] == ["the abstract says otherwise (entailment model)"]
    _, citations, removed = verify(REVERSED[0][1] + " [1]", [source])  # off unless asked for
    assert [c.paper_id for c in citations] == [source.paper_id] and removed == []


def test_quotes_terse_claims_and_wrong_numbers_never_run_the_model(papers, monkeypatch):
    def refuse(self, pairs):
        raise AssertionError("the model ran")

    monkeypatch.setattr(entailment.EntailmentModel, "scores", refuse)
    nester = papers["nester"]
    quote = next(s for s in nester.abstract.split(". ") if "ManyTypes4Py" in s) + "."
    assert _verdict(quote, nester).supported
    wrong = _verdict("Nester outperforms HiTyper by 28.3% on ManyTypes4Py.", nester)
    assert not wrong.supported and "number" in wrong.reason
    assert _verdict("Nester reaches 70.7% Top-1 Exact Match.", nester).supported  # under MIN_WORDS words


def test_the_setting_is_on_by_default_read_from_the_environment_and_bad_values_are_refused(monkeypatch):
    monkeypatch.delenv("PAPERCHAT_ENTAILMENT_CHECK", raising=False)
    assert Settings().entailment_check is True
    monkeypatch.setenv("PAPERCHAT_ENTAILMENT_CHECK", "false")
    assert Settings().entailment_check is False
    monkeypatch.setenv("PAPERCHAT_ENTAILMENT_CHECK", "sometimes")
    with pytest.raises(ValidationError, match="entailment_check"):
        Settings()


def test_the_shipped_weights_are_small_and_fit_the_packaged_model():
    assert entailment.WEIGHTS.is_file() and entailment.WEIGHTS.stat().st_size < 2_000_000
    model = entailment.model()
    scores = model.scores([("Nester achieves 70.7% Top-1 Exact Match.", "Nester achieves 70.7\\% Top-1 Exact Match.")] * 2)
    assert len(scores) == 2 and scores[0] == pytest.approx(scores[1]) and scores[0] > entailment.THRESHOLD


TERSE_FAITHFUL = [  # 6-9 words, as the verifier cuts them: before the marker, without a final period
    ("ginn", "GINNs need no training data at all"),
    ("nester", "Nester beats HiTyper by 18.3% on Top-1 Exact Match"),
    ("space", "SPACE uses a Mixture of Experts model"),
]


@pytest.mark.parametrize("paper,claim", TERSE_FAITHFUL)
def test_terse_faithful_claims_cut_before_their_marker_keep_it(papers, paper, claim):
    _, citations, removed = verify(claim + " [1]", [papers[paper]], learned=True)
    assert [c.paper_id for c in citations] == [papers[paper].paper_id] and removed == [], removed


def test_a_terse_reversal_is_removed_and_the_model_reads_the_claim_as_a_sentence(papers, monkeypatch):
    claim = "GINNs require large training datasets of shapes"
    assert _verdict(claim, papers["ginn"], learned=False).supported, "the lexical rules alone should let this through"
    _, citations, removed = verify(claim + " [1]", [papers["ginn"]], learned=True)
    assert citations == [] and [r.reason for r in removed] == ["the abstract says otherwise (entailment model)"]
    seen: list[str] = []
    scores = entailment.EntailmentModel.scores

    def spy(self, pairs):
        seen.extend(c for c, _ in pairs)
        return scores(self, pairs)

    monkeypatch.setattr(entailment.EntailmentModel, "scores", spy)
    verify(claim + " [1]", [papers["ginn"]], learned=True)
    assert seen == [claim + "."]  # cut before the marker, scored with the period the model was trained on


def test_the_model_may_keep_a_claim_the_rules_drop_for_its_wording_but_never_for_a_fact(papers, monkeypatch):
    """A soft fault (a word the abstract lacks, a negation said another way) is overruled when the model scores the
    claim at ``RESCUE`` or above; a wrong number or an unknown name never reaches the model."""
    nester = papers["nester"]
    reworded = "Nester decomposes type inference into subtasks guided by the input code's data and control flow."
    assert not _verdict(reworded, nester, learned=False).supported  # 'decompose' is not in the abstract
    seen: list[tuple[str, str]] = []

    def vouch(self, pairs):
        seen.extend(pairs)
        return [entailment.RESCUE] * len(pairs)

    monkeypatch.setattr(entailment.EntailmentModel, "scores", vouch)
    rescued = _verdict(reworded, nester)
    assert rescued.supported and rescued.evidence, rescued
    assert len(seen) == 1 and "data and control flow" in seen[0][1]
    _, citations, removed = verify(reworded + " [1]", [nester], learned=True)
    assert [c.paper_id for c in citations] == [nester.paper_id] and removed == []

    seen.clear()
    for wrong in ("Nester decomposes type inference into subtasks and beats HiTyper by 28.3% on ManyTypes4Py.",
                  "Nester decomposes type inference into subtasks, following the Pyright static checker."):
        verdict = _verdict(wrong, nester)
        assert not verdict.supported and seen == [], (wrong, verdict, seen)

    monkeypatch.setattr(entailment.EntailmentModel, "scores", lambda self, pairs: [entailment.RESCUE - 0.5] * len(pairs))
    assert not _verdict(reworded, nester).supported


def test_a_name_that_opens_the_claim_is_a_fact_the_model_cannot_overrule(monkeypatch):
    """"Nester reports ..." cited to another paper: the sentence-initial name is not in that abstract, and no score of
    the model brings the marker back."""
    monkeypatch.setattr(entailment.EntailmentModel, "scores", lambda self, pairs: [entailment.RESCUE + 5] * len(pairs))
    tined = Abstract.of("TINED", "We distill GNNs into MLPs. Dirichlet energy distillation preserves the smoothing effects of GNN layers.")
    verdict = check("Nester reports that GNN layers keep their smoothing effects.", tined, learned=True)
    assert not verdict.supported and "nester" in verdict.reason
