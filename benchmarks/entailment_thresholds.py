"""Where the entailment model's two thresholds go: ``entailment.THRESHOLD`` (a claim the rules keep loses its marker
below it) and ``entailment.RESCUE`` (a claim the rules drop for its wording alone keeps it at or above it).

Every claim of the given case files is checked alone against its paper with the learned check (``check(...,
learned=True)``), recording the logit the model gave it, if any. The thresholds are then swept on a grid of 0.5 and,
for each pair, the claims the model scored are re-decided; the others keep their rule verdict. The pick: the highest
min(supported kept, unsupported removed) over all files (ties: the higher sum), with THRESHOLD at most
``--threshold-at-most`` (-4.5: at -4.0 the faithful paraphrase of ``tests/test_grounding_benchmark.py``, "By loading
only the Top-K critical KV cache pages ..., Quest speeds up self-attention a lot without losing accuracy", scores -4.2
and loses its marker). ``--no-worse`` also requires the pair to be no worse than ``PREVIOUS`` on any file on either
side (session 17's rule; once the rules change, the previous pair is no longer a fixed point to improve on). The model
never trained on these files (``benchmarks.train_entailment`` holds every ``grounding_heldout`` file but 1 and 2 out),
so its scores are out of sample; the pick is in-sample for the files it was made on: report it on a file that is not
among them.

    python -m benchmarks.entailment_thresholds [--cases FILE ...]

(Sessions 17-19, for the earlier weights. Since session 35 the cross-encoder that decides alone,
``entailment.WEIGHTS``, has its thresholds fitted by ``python -m benchmarks.compare_cross_encoders``, which also
finds the window of vetoes that keeps the tests' real-model verdicts.)
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from assistant import claims, entailment
from benchmarks.grounding import CASES, KEEP
from benchmarks.train_entailment import DATA, Corpus, cases

DEFAULT = [CASES, *(DATA / f"grounding_heldout{n}.jsonl" for n in range(3, 18))]
RESCUES = [4.0, 3.5, 3.0, 2.5, 2.0, 1.5, 1.0, 0.5, 0.0]
PREVIOUS = (2.5, -4.5)  # RESCUE, THRESHOLD of session 17, against which "no worse" is judged
THRESHOLDS = [-6.0, -5.5, -5.0, -4.5, -4.0, -3.5, -3.0, -2.5]
Row = tuple[str, bool, bool, float | None, float | None]  # file, should keep, rules+model verdict, rescue logit, check logit


def score(paths: list[Path]) -> list[Row]:
    """Each claim's verdict at the shipped thresholds and the logits the model gave it (rescue or check)."""
    corpus = Corpus()
    logits: dict[str, float] = {}
    kind = [""]  # which of the two questions the check is asking: "rescue" or "check"
    shipped = entailment._logit, entailment.affirmed, entailment.contradicted

    def logit(claim: str, evidence: str) -> float | None:  # the model runs once a claim, as in the product
        value = shipped[0](claim, evidence)
        if value is not None:
            logits[kind[0]] = value
        return value

    def affirmed(claim: str, evidence: str, probe: bool = False, polarity: bool = False) -> bool:  # the cross-encoder's own
        kind[0] = "rescue"
        return shipped[1](claim, evidence)

    def contradicted(claim: str, evidence: str, probe: bool = False) -> bool:
        kind[0] = "check"
        return shipped[2](claim, evidence)

    rows: list[Row] = []
    entailment._logit, entailment.affirmed, entailment.contradicted = logit, affirmed, contradicted
    try:
        for path, case, paper in cases(corpus, paths):
            logits.clear()
            verdict = claims.check(case["claim"], paper, learned=True)
            rows.append((path.name, case["kind"] in KEEP, verdict.supported, logits.get("rescue"), logits.get("check")))
    finally:
        entailment._logit, entailment.affirmed, entailment.contradicted = shipped
    return rows


def rates(rows: list[Row], rescue: float, threshold: float) -> dict[str, list[int]]:
    """Per file: [supported kept, supported, unsupported removed, unsupported] with these thresholds."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for name, keep, supported, rescue_logit, check_logit in rows:
        if rescue_logit is not None:
            supported = rescue_logit >= rescue
        elif check_logit is not None:
            supported = check_logit >= threshold
        counts = out[name]
        if keep:
            counts[0] += supported
            counts[1] += 1
        else:
            counts[2] += not supported
            counts[3] += 1
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.entailment_thresholds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, nargs="*", default=DEFAULT)
    parser.add_argument("--threshold-at-most", type=float, default=-4.5)
    parser.add_argument("--no-worse", action="store_true", help="only pairs no worse than PREVIOUS on any file")
    args = parser.parse_args(argv)
    rows = score(args.cases)
    shipped = rates(rows, PREVIOUS[0], PREVIOUS[1])
    print(f"{len(rows)} claims; previous RESCUE {PREVIOUS[0]}, THRESHOLD {PREVIOUS[1]}; shipped {entailment.RESCUE}, "
          f"{entailment.THRESHOLD}")
    candidates = []
    for rescue in RESCUES:
        for threshold in THRESHOLDS:
            per = rates(rows, rescue, threshold)
            kept = sum(c[0] for c in per.values()) / max(1, sum(c[1] for c in per.values()))
            removed = sum(c[2] for c in per.values()) / max(1, sum(c[3] for c in per.values()))
            no_worse = all(per[f][0] >= shipped[f][0] and per[f][2] >= shipped[f][2] for f in shipped)
            allowed = threshold <= args.threshold_at_most and (no_worse or not args.no_worse)
            candidates.append((min(kept, removed), kept + removed, kept, removed, rescue, threshold, allowed))
            print(f"RESCUE {rescue:4.1f} THRESHOLD {threshold:5.1f}  supported kept {kept:.4f}  unsupported removed "
                  f"{removed:.4f}  {'allowed' if allowed else ''}{' (no worse on any file)' if no_worse else ''}")
    best = max(c for c in candidates if c[6])
    print(f"pick: RESCUE {best[4]}, THRESHOLD {best[5]} (supported kept {best[2]:.4f}, unsupported removed {best[3]:.4f})")
    for name, counts in sorted(rates(rows, best[4], best[5]).items()):
        print(f"  {name:32} supported kept {counts[0]}/{counts[1]}  unsupported removed {counts[2]}/{counts[3]}")


if __name__ == "__main__":
    main()
