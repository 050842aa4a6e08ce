"""Compare entailment cross-encoders (``assistant/entailment.py`` weights) on the calls the learned check makes.

Every claim of the ``--fit`` and ``--report`` grounding sets is checked alone against its paper; each call the check
makes to the cross-encoder (a veto of a claim the rules keep, a rescue of one they drop for its wording) is recorded
(``benchmarks.train_probe.collect``) and scored by each weights file. Printed per weights file:

* the ranking of those calls (AUC, label = a case that must keep its marker), veto and rescue calls apart;
* the thresholds (steps of 0.5) with the best worse-of-two rate (supported kept, unsupported removed) on the ``--fit``
  sets, and the rates they give on the ``--report`` sets; the best pick is also given under the rule the shipped
  thresholds follow: every faithful claim of ``tests/test_entailment.py`` and ``tests/test_grounding_benchmark.py``
  keeps its marker and every reversal there loses it (the window of veto thresholds that allows is printed).

The learned check alone, with the probe off: the probe's mix and thresholds belong to the shipped weights. Claim by
claim, not the answer path: ``python -m benchmarks.grounding`` gives the honest figures of a pick.

    python -m benchmarks.compare_cross_encoders WEIGHTS.npz ... [--fit 61-79] [--report 80-82] [--at VETO RESCUE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from assistant import entailment
from assistant.claims import Abstract, check
from assistant.cross_encoder import packaged_model_dir
from benchmarks.train_entailment import DATA, Corpus
from benchmarks.train_probe import VETOES, arrays, best_thresholds, collect, rates

ROOT = Path(__file__).resolve().parents[1]
QUEST = "icml2024-poster-34319"


def set_range(text: str) -> list[int]:
    """``"61-79"`` -> [61, ..., 79]; ``"80"`` -> [80]."""
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def claims_of_the_tests() -> list[tuple[str, str, bool]]:
    """(claim, the evidence the check shows the model, must keep) for the tests' real-model claims that reach it."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_entailment as t  # noqa: PLC0415 - the tests own these claims

    from benchmarks.grounding import load_corpus

    quest = load_corpus()[QUEST]
    papers = {"space": t._seed("SPACE"), "ginn": t._seed("Geometry-Informed"), "nester": t._seed("Dataflow-Guided")}
    abstracts = {k: Abstract.of(s.title, s.abstract) for k, s in papers.items()}
    abstracts["quest"] = Abstract.of(quest["title"], quest["abstract"])
    items = [(p, c, True) for p, c in t.FAITHFUL + t.TERSE_FAITHFUL] + [(p, c, False) for p, c in t.REVERSED]
    items += [("ginn", "GINNs require large training datasets of shapes", False),
              ("quest", "By loading only the Top-K critical KV cache pages for attention, Quest speeds up self-attention "
                        "a lot without losing accuracy.", True)]
    seen: list[tuple[str, str]] = []
    real = entailment.contradicted, entailment.affirmed

    def record(claim: str, evidence: str, probe: bool = False, polarity: bool = False) -> bool:
        seen.append((claim, evidence))
        return False

    entailment.contradicted, entailment.affirmed = record, record
    try:
        out = []
        for paper, claim, keep in items:
            seen.clear()
            check(claim, abstracts[paper], learned=True)
            if seen:
                out.append((entailment.as_sentence(seen[0][0]), seen[0][1], keep))
        return out
    finally:
        entailment.contradicted, entailment.affirmed = real


def main(argv: list[str] | None = None) -> None:
    from sklearn.metrics import roc_auc_score

    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare_cross_encoders", description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", type=Path, nargs="+",
                        help="cross-encoder weights (.npz, as python -m benchmarks.train_entailment writes)")
    parser.add_argument("--fit", default="61-79", help="grounding sets the thresholds are fitted on (default 61-79)")
    parser.add_argument("--report", default="80-82", help="grounding sets the fitted thresholds are reported on (default 80-82)")
    parser.add_argument("--at", type=float, nargs=2, action="append", metavar=("VETO", "RESCUE"),
                        help="also report these thresholds (default: the shipped THRESHOLD and RESCUE); repeatable")
    args = parser.parse_args(argv)
    fit_sets, report_sets = set_range(args.fit), set_range(args.report)
    paths = [DATA / f"grounding_heldout{n}.jsonl" for n in fit_sets + report_sets]
    Corpus()  # fail early on a missing corpus
    rows = collect(paths)
    fit = np.array([r["file"] in {f"grounding_heldout{n}.jsonl" for n in fit_sets} for r in rows])
    table = arrays(rows)
    call, label = table[0], table[3]
    claims = claims_of_the_tests()
    print(f"{len(rows)} claims, {int((call != '').sum())} reach the cross-encoder; "
          f"fit on sets {args.fit}, report on {args.report}")
    for path in args.weights:
        model = entailment.EntailmentModel(packaged_model_dir(), path)
        pairs = [(entailment.as_sentence(r["claim"]), r["evidence"]) for r in rows if r["call"]]
        scored = iter([s for i in range(0, len(pairs), 32) for s in model.scores(pairs[i:i + 32])])
        score = np.array([next(scored) if r["call"] else np.nan for r in rows])
        print(f"\n{path}")
        for kind in ("veto", "rescue"):
            for name, part in (("fit", fit), ("report", ~fit)):
                m = part & (call == kind)
                print(f"  {kind:6} calls, {name:6} sets: n {int(m.sum()):4}, AUC {roc_auc_score(label[m], score[m]):.3f}")
        tests = model.scores([(c, e) for c, e, _ in claims])
        low = min(s for s, (_, _, keep) in zip(tests, claims) if keep)  # the veto must be at most this ...
        high = max(s for s, (_, _, keep) in zip(tests, claims) if not keep)  # ... and above this
        allowed = VETOES[(VETOES <= low) & (VETOES > high)]
        fit_table, report_table = tuple(a[fit] for a in table), tuple(a[~fit] for a in table)
        fit_rows = [r for r, f in zip(rows, fit) if f]
        for at in args.at or [(entailment.THRESHOLD, entailment.RESCUE)]:
            print("  at {:g} / {:g}: fit {:.3f} / {:.3f}, report {:.3f} / {:.3f}".format(
                *at, *rates(fit_table, score[fit], *at), *rates(report_table, score[~fit], *at)))
        for rule, vetoes in (("best on the fit sets", VETOES), ("keeping the tests' verdicts", allowed)):
            if not len(vetoes):
                print(f"  {rule}: no veto threshold does")
                continue
            veto, rescue, _ = best_thresholds(fit_rows, score[fit], polarity=False, grouped=False, vetoes=vetoes)
            k_fit, r_fit = rates(fit_table, score[fit], veto, rescue)
            k_rep, r_rep = rates(report_table, score[~fit], veto, rescue)
            print(f"  {rule}: veto {veto:g}, rescue {rescue:g}: fit {k_fit:.3f} / {r_fit:.3f}, report {k_rep:.3f} / {r_rep:.3f} "
                  "(supported kept / unsupported removed)")
        print(f"  the tests' claims allow a veto in ({high:.2f}, {low:.2f}]")


if __name__ == "__main__":
    main()
