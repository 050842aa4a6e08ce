"""The lexical rules alone, claim by claim: how many supported claims they keep and unsupported ones they remove,
on every case file of ``benchmarks/`` (training sets and grounding sets; each claim checked alone against its paper,
no answer path, no model). Compares verifiers across commits: run it in each checkout.

    python -m benchmarks.claim_rules [--cases FILE ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.claims import check
from benchmarks.grounding import CASES, KEEP
from benchmarks.train_entailment import DATA, Corpus

DEFAULT = [CASES, *sorted(DATA.glob("entailment_train*.jsonl")), *sorted(DATA.glob("grounding_heldout*.jsonl"))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claim_rules", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, nargs="*", default=DEFAULT)
    args = parser.parse_args(argv)
    corpus = Corpus()
    total = [0, 0, 0, 0]  # supported kept, supported, unsupported removed, unsupported
    for path in args.cases:
        counts = [0, 0, 0, 0]
        for line in path.open():
            row = json.loads(line) if line.strip() else {}
            if row.get("paper") not in corpus.papers:
                continue
            supported = check(row["claim"], corpus.abstract(row["paper"])).supported
            if row["kind"] in KEEP:
                counts[0] += supported
                counts[1] += 1
            else:
                counts[2] += not supported
                counts[3] += 1
        total = [t + c for t, c in zip(total, counts)]
        print(f"{path.name:32} supported kept {counts[0]}/{counts[1]}  unsupported removed {counts[2]}/{counts[3]}")
    print(f"{'all':32} supported kept {total[0]}/{total[1]}  unsupported removed {total[2]}/{total[3]}")


if __name__ == "__main__":
    main()
