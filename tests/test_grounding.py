"""Citation checking with adversarial model output (fast unit tests, no model, no store)."""

from __future__ import annotations

from assistant.grounding import verify
from assistant.types import Source

NESTER = ("We present Nester, the first neuro-symbolic approach for type inference. "
          "Evaluated on ManyTypes4Py, Nester achieves 70.7% Top-1 Exact Match. It runs locally.")
TINED = "We distill GNNs into MLPs. Dirichlet energy distillation preserves the smoothing effects of GNN layers."
BANDIT = "We study the 1-identification problem for multi-armed bandits with a known threshold."
SOURCES = [Source(1, "p-nester", "Nester", NESTER), Source(2, "p-tined", "TINED", TINED), Source(3, "p-bandit", "SEE", BANDIT)]


def test_valid_markers_get_verbatim_quotes():
    text, cites = verify("Nester reaches 70.7% Top-1 Exact Match on ManyTypes4Py [1].", SOURCES)
    assert text == "Nester reaches 70.7% Top-1 Exact Match on ManyTypes4Py [1]."
    assert [c.paper_id for c in cites] == ["p-nester"]
    assert cites[0].quote == "Evaluated on ManyTypes4Py, Nester achieves 70.7% Top-1 Exact Match."
    assert NESTER[cites[0].start : cites[0].end] == cites[0].quote


def test_invented_marker_is_removed():
    text, cites = verify("Nester does type inference [7].", SOURCES)
    assert "[7]" not in text and cites == []


def test_out_of_range_with_three_sources_and_renumbering():
    text, cites = verify("Dirichlet energy preserves smoothing [2][7]. Nester does type inference [1].", SOURCES)
    assert text == "Dirichlet energy preserves smoothing [1]. Nester does type inference [2]."
    assert [(c.number, c.paper_id) for c in cites] == [(1, "p-tined"), (2, "p-nester")]


def test_unsupported_citation_is_dropped():
    # paper 3 (bandits) says nothing about Dirichlet energy
    text, cites = verify("Dirichlet energy preserves the smoothing effects [3].", SOURCES)
    assert "[" not in text and cites == []


def test_quote_not_in_abstract_is_rejected():
    text, cites = verify('The paper states "Nester solves quantum gravity in constant time" [1].', SOURCES)
    assert cites == [] and "[1]" not in text


def test_real_quote_is_accepted():
    text, cites = verify('It says "Nester achieves 70.7% Top-1 Exact Match" on ManyTypes4Py [1].', SOURCES)
    assert [c.paper_id for c in cites] == ["p-nester"]


def test_grouped_markers_and_marker_after_period():
    text, cites = verify("GNN distillation and type inference are both studied. [1, 2]", SOURCES)
    assert {c.paper_id for c in cites} == {"p-nester", "p-tined"}
    assert "[1][2]" in text


def test_no_markers_means_no_citations():
    text, cites = verify("Nobody knows.", SOURCES)
    assert text == "Nobody knows." and cites == []


def test_bare_marker_claims_nothing():
    text, cites = verify("[1]", SOURCES)
    assert cites == [] and text == ""


def test_claim_naming_another_paper_loses_its_marker():
    # seen with the 0.5B model: a follow-up about Nester answered with the Hessian paper's sentence
    text = "Nester reports that GNN layers keep their smoothing effects [2]."
    cleaned, citations = verify(text, SOURCES)
    assert citations == [] and "[" not in cleaned


def test_naming_a_paper_that_the_claim_also_cites_is_fine():
    text = "Nester reaches 70.7% Top-1 Exact Match [1], while TINED preserves the smoothing effects of GNN layers [2]."
    _, citations = verify(text, SOURCES)
    assert [c.paper_id for c in citations] == ["p-nester", "p-tined"]


def test_a_name_the_cited_abstract_also_uses_is_fine():
    other = Source(4, "p-typegen", "TypeGen", "TypeGen generates types. It is compared with Nester on ManyTypes4Py.")
    _, citations = verify("TypeGen is compared with Nester on ManyTypes4Py [4].", [*SOURCES, other])
    assert [c.paper_id for c in citations] == ["p-typegen"]


def test_proper_names_are_names_not_capitalized_words():
    from assistant.grounding import proper_names

    assert proper_names(SOURCES[0]) >= {"nester", "manytypes4py"}
    assert "evaluated" not in proper_names(SOURCES[0])  # capitalized only at a sentence start
    assert "gnns" in proper_names(SOURCES[1]) and "we" not in proper_names(SOURCES[1])


def test_unmarked_claim_restating_another_paper_is_caught():
    from assistant.grounding import misattributed

    # the model named paper 1 but copied paper 2's sentence, with no marker at all
    text = "Nester shows that Dirichlet energy distillation preserves the smoothing effects of GNN layers."
    assert misattributed(text, SOURCES) == [text]
    cleaned, citations = verify(text, SOURCES, attribute=0.6)
    assert citations == [], "the verifier must not attribute a mixed-up claim to paper 2"
    fine = "Dirichlet energy distillation preserves the smoothing effects of GNN layers."
    assert misattributed(fine, SOURCES) == []
    assert [c.paper_id for c in verify(fine, SOURCES, attribute=0.6)[1]] == ["p-tined"]
    assert misattributed("Nester reaches 70.7% Top-1 Exact Match on ManyTypes4Py [1].", SOURCES) == []
