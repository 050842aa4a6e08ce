"""Property-based tests (hypothesis) for the parsers, title derivation, chunker and citation checker."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from assistant.grounding import verify
from assistant.types import Source
from ingest.chunking import sentence_spans
from ingest.records import parse_file
from ingest.titles import derive_title
from vectorstore.errors import InputError

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=600)
prose = st.lists(
    st.one_of(st.sampled_from(["We", "propose", "Nester,", "a", "model.", "e.g.", "$x.y$", "(GINNs)", "3.5", "It", "works!",
                               "introduce", "the", "MICE", "method", "?", "\n", "  ", "“quote”", "[1]", "i.e.", "Fig.", "1."]),
              st.text(max_size=12)),
    max_size=80,
).map(" ".join)


@given(st.one_of(text, prose))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_sentence_spans_lie_inside_the_text_in_order(abstract: str):
    spans = sentence_spans(abstract)
    previous_end = 0
    for span in spans:
        assert 0 <= previous_end <= span.start < span.end <= len(abstract)
        piece = abstract[span.start : span.end]
        assert piece == piece.strip() and piece
        previous_end = span.end
    # nothing but whitespace is lost between sentences
    covered = "".join(abstract[s.start : s.end] for s in spans)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", abstract)


@given(st.one_of(text, prose))
@settings(max_examples=300)
def test_derived_title_is_short_and_nonempty(abstract: str):
    title = derive_title(abstract)
    assert title and len(title.split()) <= 16 and "\n" not in title


abstracts = st.lists(prose.filter(lambda s: s.strip()), min_size=1, max_size=3)


@given(abstracts, st.text(max_size=300), st.lists(st.integers(-3, 12), max_size=6))
@settings(max_examples=300, deadline=None)  # the first call loads word lists: a cold start is no failure here
def test_every_accepted_quote_is_in_its_abstract(texts: list[str], answer: str, markers: list[int]):
    sources = [Source(i + 1, f"p{i}", f"T{i}", t) for i, t in enumerate(texts)]
    answer = answer + " " + " ".join(f"[{m}]" for m in markers)
    cleaned, citations, _ = verify(answer, sources)
    by_id = {s.paper_id: s.abstract for s in sources}
    assert [c.number for c in citations] == list(range(1, len(citations) + 1))
    for c in citations:
        assert c.quote and c.quote in by_id[c.paper_id] and by_id[c.paper_id][c.start : c.end] == c.quote
        assert f"[{c.number}]" in cleaned
    for number in re.findall(r"\[(\d+)\]", cleaned):
        assert 1 <= int(number) <= len(citations)


records = st.lists(
    st.fixed_dictionaries({"id": st.text(min_size=1, max_size=8), "title": st.text(max_size=30), "abstract": text},
                          optional={"authors": st.one_of(st.text(max_size=30), st.lists(st.text(max_size=10), max_size=3)),
                                    "url": st.text(max_size=20), "x": st.integers()}),
    max_size=5,
)


@given(records, st.sampled_from(["jsonl", "json"]))
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_parsers_accept_or_reject_cleanly(tmp_path: Path, rows: list[dict], fmt: str):
    path = tmp_path / f"papers.{fmt}"
    body = "\n".join(json.dumps(r) for r in rows) if fmt == "jsonl" else json.dumps(rows)
    path.write_text(body, encoding="utf-8")
    try:
        papers, problems = parse_file(path, skip_invalid=True)
    except InputError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return
    assert len({p.id for p in papers}) == len(papers)
    for paper in papers:
        assert paper.abstract.strip() and paper.title.strip()
        assert paper.abstract == " ".join(paper.abstract.split())
    for problem in problems:
        assert str(problem).startswith(str(path)) and "\n" not in str(problem)


@given(st.binary(max_size=400))
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_arbitrary_bytes_never_crash_the_parser(tmp_path: Path, data: bytes):
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    try:
        parse_file(path, skip_invalid=True)
    except InputError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)


question_words = st.lists(st.one_of(st.sampled_from(["How", "many", "much", "what", "Which", "GPU", "batch", "size", "the", "of",
                                                     "raters", "were", "used", "model", "base", "language", "?", "license"]),
                                    st.text(max_size=10)), max_size=16).map(" ".join)


@given(st.one_of(text, question_words), st.one_of(text, prose))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_answer_slots_read_any_question_and_abstract(question: str, abstract: str):
    """Any question yields no slot or one with a kind and words of the question; any abstract a yes, no or can't tell."""
    from assistant.answer_types import asked_slot, slot_filled

    slot = asked_slot(question)
    if slot is not None:
        assert slot.kind in ("number", "name") and all(w in question for w in slot.words.split())
        assert slot_filled(slot, question, "A title", abstract) in (True, False, None)


def _cue_words() -> list[str]:
    """Every word the claim reader looks around (comparisons, negations, quantifiers, rankings): a claim that ends on
    one, or starts with one, must be read like any other."""
    from assistant import claims

    lists = (claims.NEGATIONS, claims._COMPARING, claims._UNIVERSAL, claims._HEDGED, claims._RANKING_VERBS, claims._GAINS,
             claims._GENERALIZES, claims._GENERALIZES_TO, claims._PRONOUNS, claims._BASELINE_WORDS, claims._SUPERLATIVES,
             claims._LACKING, claims._PASSIVE_NEGATIONS, claims._PASSIVE_CUES, claims._CHANGE_VERBS, claims._MAGNITUDES)
    return sorted(set().union(*lists)) + ["special", "particular", "case", "cases", "of", "by", "far", "from", "free", "only",
                                          "rather", "other", "a", "an", "than", "over", "18.3%", "two", "Nester", "model"]


claim_words = st.lists(st.sampled_from(_cue_words()), min_size=1, max_size=9).map(" ".join)


@given(claim_words, st.sampled_from(["", ".", "?"]))
@settings(max_examples=400, deadline=None)
def test_any_claim_made_of_the_readers_cue_words_is_checked(claim: str, end: str):
    """The claim reader looks a word or two past a cue ("outperformed by it", "a special case of B"); a claim that stops
    there is checked, not an IndexError (a grounding case ending "… is a special case of GMM." crashed the answer)."""
    source = Source(1, "p0", "Nester", "We propose Nester, a model. Nester outperforms HiTyper by 18.3% and is a special "
                                       "case of GMM. It does not require labels.")
    cleaned, citations, _ = verify(f"{claim}{end} [1]", [source])
    assert all(c.paper_id == "p0" for c in citations) and len(citations) == cleaned.count("[1]")
