"""Calibrate and check abstention: answerable dev questions vs questions the corpus does not answer.

Negatives: the dev set's `abstain` questions plus the 300 SciFact test claims (biomedical claims
that no ML paper answers). Prints recall of abstention and false abstentions for a threshold
grid and for the shipped policy, on the seed corpus alone and among the distractors.

    python benchmarks/abstention.py
"""

from __future__ import annotations

import json

import numpy as np

from benchmarks.common import DEV_QA, DISTRACTORS, SCIFACT, SEED, build_store, require_shared

from assistant.conversation import standalone_query
from assistant.abstention import AbstentionPolicy, term_coverage
from vectorstore.keyword import query_terms


def signals(assistant, question: str, history: list[str]) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    query = standalone_query(question, [{"role": "user", "content": h} for h in history])
    hits, papers = assistant.retriever.retrieve(query, 5)
    if not hits:
        return 0.0, 0.0
    idf = assistant.retriever.keyword.idf(query_terms(query))
    return hits[0].dense, term_coverage(idf, [papers[h.paper_id] for h in hits[:3] if h.paper_id in papers])


def main() -> None:
    require_shared()
    dev = [json.loads(line) for line in open(DEV_QA, encoding="utf-8") if line.strip()]
    claims = {}
    for line in open(SCIFACT / "queries.jsonl", encoding="utf-8"):
        q = json.loads(line)
        claims[q["_id"]] = q["text"]
    test_ids = {line.split()[0] for line in list(open(SCIFACT / "qrels" / "test.tsv"))[1:]}
    negatives = [(q["question"], q.get("history") or []) for q in dev if q["kind"] == "abstain"]
    negatives += [(claims[i], []) for i in sorted(test_ids)]
    positives = [(q["question"], q.get("history") or []) for q in dev if q["kind"] != "abstain"]
    shipped = AbstentionPolicy()
    for name, files in (("seed", [SEED]), ("seed+distractors", [SEED, *DISTRACTORS])):
        assistant = build_store(name.replace("+", "_"), files)
        pos = [signals(assistant, q, h) for q, h in positives]
        neg = [signals(assistant, q, h) for q, h in negatives]
        print(f"\n{name}: {len(pos)} answerable, {len(neg)} unanswerable ({len(negatives) - 300} dev + 300 SciFact claims)")
        print(f"{'min_dense':>9} {'min_cov':>8} {'abstain recall':>15} {'false abstain':>14}")
        for min_dense in (0.35, 0.4, 0.45, 0.5, 0.55):
            for min_cov in (0.5, 0.6, 0.7, 0.8):
                policy = AbstentionPolicy(min_dense=min_dense, min_coverage=min_cov, dense_floor=shipped.dense_floor)
                recall = np.mean([policy.should_abstain(d, c) for d, c in neg])
                false = np.mean([policy.should_abstain(d, c) for d, c in pos])
                mark = "  <- shipped" if (min_dense, min_cov) == (shipped.min_dense, shipped.min_coverage) else ""
                print(f"{min_dense:9.2f} {min_cov:8.2f} {recall:15.3f} {false:14.3f}{mark}")
        wrong = [(q, round(d, 3), round(c, 2)) for (q, _), (d, c) in zip(positives, pos) if shipped.should_abstain(d, c)]
        print("answerable questions the shipped policy abstains on:", wrong or "none")


if __name__ == "__main__":
    main()
