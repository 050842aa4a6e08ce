"""Near misses and paraphrases: how ``selection.PARAPHRASE_COSINE`` was chosen, and what it changes.

Every question of the answerability files, the near-miss sets and the development questions is asked once on the
4,378-paper benchmark store (extractive engine); the inputs of the near-miss test (``selection.unanswered``: the
question, its term weights, the selected papers) are recorded. Each recorded question is then judged again without
the paraphrase test and with it at each threshold of a grid. The selection does not depend on the test, so this
replays exactly what an answer would do. Prints, per split, near misses said so and answerable questions taken for
near misses, with the shipped threshold's ratio of false near misses against no paraphrase test.

Splits: ``answerability_train1-3`` (the threshold is chosen there: best balanced accuracy), ``answerability_train4-6``
and the near-miss sets (reported), and the development questions (``dev_qa``, ``near_miss_qa``, ``near_miss_dev2``).

    python -m benchmarks.paraphrases [--store NAME]        (about 15 minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import glob
import json
from typing import Any

from benchmarks.common import DEV_QA, DISTRACTORS, ROOT, SEED, build_store, require_shared

from assistant import core, selection

DATA = ROOT / "benchmarks" / "data"
SPLITS = {
    "answerability 1-3 (chosen on)": sorted(glob.glob(str(DATA / "answerability_train[123].jsonl"))),
    "answerability 4-6": sorted(glob.glob(str(DATA / "answerability_train[456].jsonl"))),
    "near-miss sets": sorted(glob.glob(str(DATA / "near_miss_heldout*.jsonl"))),
    "dev": [str(DATA / "near_miss_qa.jsonl"), str(DATA / "near_miss_dev2.jsonl"), str(DEV_QA)],
}
GRID = (None, 0.8, 0.7, 0.65, 0.6, 0.55)  # None: no paraphrase test


def record(assistant: Any, rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], tuple[Any, ...]]]:
    """Ask each question; keep the near-miss test's inputs for the single-paper ones that reach it."""
    seen: list[tuple[dict[str, Any], tuple[Any, ...]]] = []
    real = core.unanswered
    current: dict[str, Any] = {}

    def spy(question: str, idf: dict[str, float], selected: list[Any], together: bool = False, **kwargs: Any) -> str:
        seen.append((current["row"], (question, idf, selected, together)))
        return real(question, idf, selected, together, **kwargs)

    core.unanswered = spy  # type: ignore[assignment]
    try:
        for row in rows:
            current["row"] = row
            assistant.ask(row["question"])
    finally:
        core.unanswered = real
    return seen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="distractors", help="benchmark store name (built from the seed and both distractor corpora)")
    args = parser.parse_args(argv)
    require_shared()
    assistant = build_store(args.store, [SEED, *DISTRACTORS])
    shipped = selection.PARAPHRASE_COSINE
    print(f"{'split':32} {'threshold':>9} {'near misses said so':>20} {'answerable taken for near misses':>33}")
    try:
        for split, files in SPLITS.items():
            rows = [json.loads(line) for f in files for line in open(f, encoding="utf-8") if line.strip()]
            rows = [r for r in rows if r.get("kind") in ("single", "near_miss") and not r.get("history")]
            seen = record(assistant, rows)
            false_at: dict[float | None, int] = {}
            for threshold in GRID:
                if threshold is not None:
                    selection.PARAPHRASE_COSINE = threshold
                paraphrases = assistant.paraphrases if threshold is not None else None
                said = {"single": 0, "near_miss": 0}
                total = {"single": 0, "near_miss": 0}
                for row, (question, idf, selected, together) in seen:
                    total[row["kind"]] += 1
                    said[row["kind"]] += bool(selection.unanswered(question, idf, selected, together, paraphrases=paraphrases))
                false_at[threshold] = said["single"]
                label = "off" if threshold is None else f"{threshold:g}" + (" *" if threshold == shipped else "")
                print(f"{split:32} {label:>9} {said['near_miss']:>11}/{total['near_miss']:<8} {said['single']:>20}/{total['single']:<12}")
            print(f"{'':32} {'ratio':>9} {'':20} {false_at[shipped] / (false_at[None] or 1):>20.3f}x  (false near misses, * against off)")
    finally:
        selection.PARAPHRASE_COSINE = shipped


if __name__ == "__main__":
    main()
