"""Export over a conversation: references once each with unique keys (BibTeX read back with bibtexparser),
a filter listing's papers, and the conversation as Markdown with inert untrusted text."""

from __future__ import annotations

import csv
import io

import bibtexparser

from assistant import Answer, Citation, Hit
from assistant.export import answer_papers, conversation_markdown, md_answer, md_escape, references, to_bibtex, to_csv
from assistant.filters import LISTING_ENGINE

NESTER = dict(paper_id="icml2025-44081", title="Dataflow-Guided Neuro-Symbolic Language Models for Type Inference",
              url="https://icml.cc/virtual/2025/poster/44081", authors=["Gen Li", "Yao Wan"], venue="ICML 2025")
JUDGE = dict(paper_id="icml2024-poster-33545", title="MLLM-as-a-Judge: Assessing Multimodal LLM-as-a-Judge",
             url="https://icml.cc/virtual/2024/poster/33545", authors=["Dongping Chen", "Yao Wan"], venue="ICML 2024")
# same first author, year and first long title word as NESTER: the key needs a suffix
TWIN = dict(paper_id="other-1", title="Dataflow Analysis at Scale", url="javascript:alert(1)", authors=["Gen Li"], venue="ICML 2025")
EVIL = dict(paper_id="evil-1", title="Title ![x](http://t.example/p.png) <img src=x onerror=alert(1)> [link](http://e.example)",
            url="http://e.example/a b<c>", authors=["Mallory *Bold*"], venue="Test 2025")


def _cite(number: int, paper: dict[str, object], quote: str) -> Citation:
    return Citation(number=number, quote=quote, start=0, end=len(quote), **paper)  # type: ignore[arg-type]


def _conversation() -> list[Answer]:
    first = Answer(question="What is Nester?", text="Nester breaks type inference into sub-tasks. [1]", engine="extractive",
                   citations=[_cite(1, NESTER, "Nester breaks type inference into sub-tasks.")], grounded=True)
    second = Answer(question="Which 2024 papers did Yao Wan write?", query="papers Yao Wan",
                    text="Two papers match: **A** [1] and **B** [2]", filters={"author": "Yao Wan", "year": 2024},
                    citations=[_cite(1, JUDGE, "We assess MLLMs as judges."), _cite(2, NESTER, "Nester is neuro-symbolic.")])
    listing = Answer(question="What has Gen Li published here?", text="2 papers here (author=Gen Li): ...", engine=LISTING_ENGINE,
                     filters={"author": "Gen Li"}, hits=[Hit(score=1.0, **NESTER), Hit(score=0.9, **TWIN)])  # type: ignore[arg-type]
    abstained = Answer(question="Robot grasping?", text="The indexed papers do not cover this question.", abstained=True,
                       hits=[Hit(score=0.2, **JUDGE)])  # type: ignore[arg-type]
    return [first, second, listing, abstained]


def test_references_are_each_paper_once_in_order_of_first_citation() -> None:
    answers = _conversation()
    assert [p.paper_id for p in references(answers)] == ["icml2025-44081", "icml2024-poster-33545", "other-1"]
    assert [p.paper_id for p in answer_papers(answers[2])] == ["icml2025-44081", "other-1"]  # a listing: its papers
    assert answer_papers(answers[3]) == []  # the nearest papers of an abstention are not references


def test_conversation_bibtex_parses_with_unique_keys() -> None:
    answers = _conversation()
    library = bibtexparser.parse_string(to_bibtex(references(answers)))
    assert not library.failed_blocks
    keys = [e.key for e in library.entries]
    assert keys == ["li2025dataflow", "chen2024mllm", "li2025dataflowa"]
    assert [e["title"] for e in library.entries][1] == "{MLLM-as-a-Judge: Assessing Multimodal LLM-as-a-Judge}"
    assert library.entries[0]["year"] == "2025" and library.entries[0]["booktitle"] == "ICML"
    assert answers[2].to_bibtex().count("@inproceedings") == 2  # Answer.to_bibtex of a listing exports its papers
    rows = list(csv.DictReader(io.StringIO(to_csv(references(answers)))))
    assert [r["key"] for r in rows] == keys and rows[1]["authors"] == "Dongping Chen; Yao Wan"


def test_conversation_markdown_has_questions_answers_and_numbered_references() -> None:
    text = conversation_markdown(_conversation())
    assert text.startswith("# paperchat conversation\n")
    assert "## 1. What is Nester?" in text and "## 2. Which 2024 papers did Yao Wan write?" in text
    assert "_Searched for: papers Yao Wan_" in text and "_Filters: author=Yao Wan, year=2024_" in text
    second = text.split("## 2.")[1].split("## 3.")[0]
    assert "Two papers match: **A** [1] and **B** [2]" in second  # the answer's markdown and markers kept
    assert ("- [1] **MLLM-as-a-Judge: Assessing Multimodal LLM-as-a-Judge** — Dongping Chen, Yao Wan · ICML 2024 "
            "<https://icml.cc/virtual/2024/poster/33545>\n  > We assess MLLMs as judges.") in second
    assert "- [2] **Dataflow-Guided Neuro-Symbolic Language Models for Type Inference**" in second
    listing = text.split("## 3.")[1].split("## 4.")[0]
    assert "- [2] **Dataflow Analysis at Scale** — Gen Li · ICML 2025\n" in listing  # a javascript: URL is dropped
    abstained = text.split("## 4.")[1]
    assert "do not cover" in abstained and "References" not in abstained


def test_markdown_export_keeps_untrusted_text_inert() -> None:
    answer = Answer(question="<b>q</b> [x](http://e.example)?", text="See ![x](http://t.example/p.png) <script>x</script> [1]",
                    citations=[_cite(1, EVIL, "A [quote](http://e.example).")])
    text = conversation_markdown([answer])
    assert "## 1. \\<b\\>q\\</b\\> \\[x\\](http://e.example)?" in text
    assert "See !\\[x\\](http://t.example/p.png) \\<script\\>x\\</script\\> [1]" in text
    assert "**Title !\\[x\\](http://t.example/p.png) \\<img src=x onerror=alert(1)\\> \\[link\\](http://e.example)**" in text
    assert "Mallory \\*Bold\\*" in text and "<http://e.example/a%20b%3Cc%3E>" in text
    assert "> A \\[quote\\](http://e.example)." in text
    assert md_escape("a_b `c`") == "a\\_b \\`c\\`" and md_answer("**x** [12] [y]") == "**x** [12] \\[y\\]"
