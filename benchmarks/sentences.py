"""Answer-sentence selection: does the sentence that answers a question reach the answer?

Every engine answers from the sentences ``assistant.selection.select`` keeps of the lead paper (three,
best first): the extractive engine quotes them and the LLM condenses them. A sentence ranked fourth is
lost to both. This scores the ranking alone, on the gold paper (retrieval is measured by
``benchmarks.retrieval``), over questions written with the sentence that answers them:

- ``benchmarks/data/answerability_train*.jsonl``: answerable questions with their ``support`` sentence
  and ``answer_contains`` (files 1-3 "tune", 4-6 "report": what was chosen on one is reported on the other);
- ``benchmarks/data/near_miss_heldout*.jsonl``: answerable questions with ``answer_contains`` only.

Prints, per split, for the order answers use (``evidence._answer_order`` read through the question's ``Focus``),
the same order without the focus ("no focus", before 2026-12-06) and the order before both (cross-paper relevance,
bare sentences re-embedded, before 2026-12-04): the support sentence ranked first, kept among the selected sentences,
and the kept sentences containing every expected string (``paperchat eval``'s "answers contain expected",
``evaluation.holds``), with the ratio of the last between the answer order and the first. ``--penalties`` adds the answer order under other values of
``evidence.OPENING_PENALTY`` (how 0.02 was chosen on the "tune" split).

    python -m benchmarks.sentences [--store NAME] [--penalties 0 0.02 0.05 0.1] [--near-miss-sets 34]

``--near-miss-sets N`` scores near-miss sets 1..N only (set 1 is ``near_miss_heldout.jsonl``), so that sets kept
fresh for a later first run are not run here.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
from dataclasses import dataclass
from typing import Any

from benchmarks.common import DISTRACTORS, ROOT, SEED, build_store, require_shared

from assistant import evidence
from assistant.evidence import Evidence, focus_of, rank_sentences
from assistant.evaluation import holds
from assistant.selection import select
from assistant.types import Source
from vectorstore.keyword import query_terms, tokenize

DATA = ROOT / "benchmarks" / "data"
SPLITS = {
    "tune": sorted(glob.glob(str(DATA / "answerability_train[123].jsonl"))),
    "report": sorted(glob.glob(str(DATA / "answerability_train[456].jsonl"))),
    "near-miss sets' answerable": sorted(glob.glob(str(DATA / "near_miss_heldout*.jsonl"))),  # see ``--near-miss-sets``
}
MATCH = 0.6  # a stored sentence is the support sentence when their word sets overlap this much (Jaccard)


@dataclass
class Scored:
    """One question's outcome."""

    first: bool | None  # the support sentence ranked first (None: no support sentence given or found)
    kept: bool | None  # ... among the selected sentences
    contains: bool  # the selected sentences hold every expected string


def _support_index(spans: list[str], support: str) -> int | None:
    if not support:
        return None
    want = set(tokenize([support])[0])
    best, at = 0.0, None
    for i, words in enumerate(tokenize(spans)):
        have = set(words)
        overlap = len(want & have) / (len(want | have) or 1)
        if overlap > best:
            best, at = overlap, i
    return at if best >= MATCH else None


def score(assistant: Any, row: dict[str, Any], penalties: tuple[float, ...] = ()) -> list[Scored] | None:
    """Rank the gold paper's sentences for the question and select as an answer would, in the order answers used
    before 2026-12-04 (cross-paper relevance, bare sentences re-embedded), in the answer order without and with the
    question's ``Focus``, and in the answer order under each of ``penalties`` (``evidence.OPENING_PENALTY``); None if the paper is missing. The question and
    sentences are embedded once for all."""
    paper = assistant.paper(row["gold"][0])
    if paper is None:
        return None
    question = row["question"]
    idf = assistant.retriever.keyword.idf(query_terms(question))
    vector = assistant.embedder.encode([question])[0]
    sentences = [s for s in assistant.store.sentences_of([paper.id]) if s[1].get("paper_hash") == paper.content_hash]
    bare: Any = assistant.embedder.encode([doc for doc, _, _ in sentences]) if sentences else None
    source = Source(1, paper.id, paper.title, paper.abstract, paper.url, paper.authors, paper.venue)
    outcomes = []
    shipped = evidence.OPENING_PENALTY
    focus = focus_of(question, assistant.embedder.encode)
    for title, penalty, lens in [(None, shipped, None), (paper.title, shipped, None), (paper.title, shipped, focus),
                                 *((paper.title, p, focus) for p in penalties)]:
        evidence.OPENING_PENALTY = penalty
        try:
            ranked = rank_sentences(vector, idf, sentences, embed=lambda _: bare, title=title, focus=lens)
        finally:
            evidence.OPENING_PENALTY = shipped
        chosen = select(question, [Evidence(source, ranked)], "single", idf)
        kept = [paper.abstract[s:e] for s, e, _ in (chosen[0].sentences if chosen else [])]
        order = [paper.abstract[s:e] for s, e, _ in ranked]
        at = _support_index(order, row.get("support") or "")
        outcomes.append(Scored(first=None if at is None else at == 0, kept=None if at is None else order[at] in kept,
                               contains=holds(" ".join(kept), row.get("answer_contains") or [])))
    return outcomes


def _set_number(path: str) -> int:
    """``near_miss_heldout7.jsonl`` is set 7; ``near_miss_heldout.jsonl`` set 1."""
    digits = re.search(r"(\d+)\.jsonl$", path)
    return int(digits.group(1)) if digits else 1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="distractors", help="benchmark store name (built from the seed and both distractor corpora)")
    parser.add_argument("--penalties", nargs="*", type=float, default=[], help="also the answer order under these opening penalties")
    parser.add_argument("--near-miss-sets", type=int, default=None, help="near-miss sets 1..N only (default: all)")
    args = parser.parse_args(argv)
    penalties = tuple(args.penalties)
    require_shared()
    assistant = build_store(args.store, [SEED, *DISTRACTORS])
    print(f"{'split':28} {'order':>8} {'n':>4} {'support first':>14} {'support kept':>13} {'kept contain expected':>22}")
    for split, files in SPLITS.items():
        if args.near_miss_sets is not None and split.startswith("near-miss"):
            files = [f for f in files if _set_number(f) <= args.near_miss_sets]
        rows = [json.loads(line) for f in files for line in open(f, encoding="utf-8") if line.strip()]
        rows = [r for r in rows if r["kind"] == "single" and r.get("answer_contains")]
        outcomes = [outcome for outcome in (score(assistant, r, penalties) for r in rows) if outcome is not None]
        contained = []
        labels = [("before", 0), ("no focus", 1), ("answer", 2), *((f"pen {p:g}", 3 + i) for i, p in enumerate(penalties))]
        for label, index in labels:
            scored = [outcome[index] for outcome in outcomes]
            found = [s for s in scored if s.first is not None]
            first = f"{sum(bool(s.first) for s in found) / len(found):.3f}" if found else "-"
            kept = f"{sum(bool(s.kept) for s in found) / len(found):.3f}" if found else "-"
            contained.append(sum(s.contains for s in scored) / (len(scored) or 1))
            print(f"{split:28} {label:>8} {len(scored):4d} {first:>14} {kept:>13} {contained[-1]:22.3f}"
                  + (f"  ({len(scored) - len(found)} without a matched support sentence)" if len(found) < len(scored) else ""))
        print(f"{'':28} {'ratio':>8} {'':4} {'':14} {'':13} {contained[2] / (contained[0] or 1):21.3f}x  (answer / before)")


if __name__ == "__main__":
    main()
