"""Fit the near-miss probe of ``assistant/probe.py`` and its two thresholds, and report them on held-out files.

    python -m benchmarks.train_near_miss_probe [--cache FILE] [--out FILE] [--held FILE ...]

1. Every single-paper question of the answerability files and the near-miss sets (helpers wrote them from the
   abstracts: answerable questions with their answer, near misses on the paper's topic that it does not answer) is
   asked on the 4,378-paper benchmark store (extractive engine), and the near-miss rules' verdict is recorded
   (``selection.unanswered``, as ``benchmarks.paraphrases`` replays it).
2. The local Qwen2.5 0.5B reads each question with its paper's title and abstract (``Probe.reading``: the last hidden
   state; about 2 s a question on 2 cores, so ``--cache`` keeps them between runs, saved every 100).
3. A logistic regression (standardised features, L2 with ``C``, balanced classes) is fitted on the training files;
   their scores are out of fold (five folds grouped by file), the held files' come from the fit on all training files.
4. The thresholds (``selection.learned_gap``: a near miss below ``low`` whatever the rules say; the rules' near miss
   overruled at or above ``high``) are the grid point that says the most near misses so on the training files'
   out-of-fold scores while taking no more of their answerable questions for near misses than the rules alone (the
   issue's "no new false abstentions"; the best balanced accuracy, -0.5 / 1.5, took 108 against the rules' 81 of 581).
   Printed for the training and held files: the rules alone, the probe alone at 0 and the two together.

The replay reads each question's own paper; an answer reads the papers the selection keeps (the same one for 95% of
these questions), so the end-to-end figures are those of ``paperchat eval`` (README, Quality: "Near misses read").
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import DISTRACTORS, SEED, build_store, require_shared
from benchmarks.paraphrases import DATA, record
from benchmarks.train_probe import cached_readings, logistic, out_of_fold

TRAIN = ([DATA / f"answerability_train{i}.jsonl" for i in (1, 2, 3)] + [DATA / "near_miss_heldout.jsonl"]
         + [DATA / f"near_miss_heldout{i}.jsonl" for i in range(2, 10)] + [DATA / "near_miss_qa.jsonl", DATA / "near_miss_dev2.jsonl"])
HELD = [DATA / "answerability_train4.jsonl"] + [DATA / f"near_miss_heldout{i}.jsonl" for i in (10, 11, 12)]
OUT = Path(__file__).resolve().parents[1] / "assistant" / "data" / "near_miss_probe.npz"
C = 0.01
FOLDS = 5
GRID = np.arange(-4.0, 6.01, 0.25)


def key(question: str, title: str, abstract: str) -> str:
    return hashlib.sha1(f"{question}\0{title}\0{abstract}".encode()).hexdigest()


def questions(paths: list[Path]) -> list[dict[str, Any]]:
    """The single-paper questions (answerable or near miss, no history) of ``paths``, each with its file's name."""
    rows = [dict(json.loads(line), file=path.name) for path in paths for line in path.open(encoding="utf-8") if line.strip()]
    return [r for r in rows if r.get("kind") in ("single", "near_miss") and not r.get("history") and len(r["gold"]) == 1]


def rules_verdicts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[bool, bool]]:
    """(file, id) -> whether the rules call the question a near miss, and whether a selected paper gives the value it
    asks for (``selection.slot_answered``), for the questions that reach the test."""
    from assistant import selection

    assistant = build_store("distractors", [SEED, *DISTRACTORS])
    assistant.settings = assistant.settings.with_overrides(near_miss_probe=False)  # the rules' own verdict, and no 0.5B call
    seen = record(assistant, rows)
    return {(row["file"], row["id"]): (bool(selection.unanswered(q, idf, sel, together, paraphrases=assistant.paraphrases)),
                                       selection.slot_answered(q, sel[:selection.MAX_SINGLE_PAPERS]))
            for row, (q, idf, sel, together) in seen}


def readings(rows: list[dict[str, Any]], papers: dict[str, tuple[str, str]], cache: Path | None) -> dict[str, np.ndarray]:
    """The 0.5B's reading of each question with its paper, by ``key`` (read from and added to ``cache``)."""
    todo = {key(r["question"], *papers[r["gold"][0]]): r for r in rows}
    return cached_readings(todo, lambda reader, r: reader.reading(r["question"], *papers[r["gold"][0]]), cache)


def rates(near: np.ndarray, answerable: np.ndarray) -> tuple[float, float]:
    """Near misses said so, and answerable questions taken for near misses."""
    return float(near[~answerable].mean()), float(near[answerable].mean())


def decide(score: np.ndarray, rules: np.ndarray, low: float, high: float, filled: np.ndarray | None = None) -> np.ndarray:
    """``selection.learned_gap`` on arrays: a near miss below ``low`` unless the asked value is given (``filled``), or
    when the rules say so and the score is under ``high``."""
    return ((score < low) & ~(np.zeros(len(score), dtype=bool) if filled is None else filled)) | (rules & (score < high))


def best_thresholds(score: np.ndarray, rules: np.ndarray, answerable: np.ndarray, filled: np.ndarray) -> tuple[float, float]:
    """The (low, high) grid point that says the most near misses so while taking no more answerable questions for near
    misses than the rules alone ("no new false near misses"), then the fewest of those, then the highest ``low``."""
    ceiling = rates(rules, answerable)[1]
    best: tuple[float, float, float, float] = (-1.0, 0.0, 0.0, 0.0)
    for low in GRID:
        for high in GRID[GRID >= low]:
            said, false = rates(decide(score, rules, float(low), float(high), filled), answerable)
            if false <= ceiling + 1e-9:
                best = max(best, (said, -false, float(low), float(high)))
    return best[2], best[3]


def main(argv: list[str] | None = None) -> None:
    from sklearn.metrics import roc_auc_score

    from benchmarks.train_answerability import papers as load

    parser = argparse.ArgumentParser(prog="python -m benchmarks.train_near_miss_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="an .npz of readings by (question, title, abstract), read and extended")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--held", type=Path, nargs="*", default=HELD, help="files to report on, never fitted on")
    args = parser.parse_args(argv)
    require_shared()
    papers = load()
    train = [r for r in questions(TRAIN) if r["gold"][0] in papers]
    held = [r for r in questions(args.held) if r["gold"][0] in papers]
    verdicts = rules_verdicts(train + held)
    train = [r for r in train if (r["file"], r["id"]) in verdicts]  # questions that reach the near-miss test
    held = [r for r in held if (r["file"], r["id"]) in verdicts]
    known = readings(train + held, papers, args.cache)

    def arrays(rows: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
        """Readings, labels (answerable), the rules' verdicts, asked values given, and file names."""
        X = np.stack([known[key(r["question"], *papers[r["gold"][0]])] for r in rows])
        rules, filled = (np.array(column, dtype=bool) for column in zip(*(verdicts[(r["file"], r["id"])] for r in rows)))
        return X, np.array([r["kind"] == "single" for r in rows]), rules, filled, np.array([r["file"] for r in rows])

    X, y, rules, filled, files = arrays(train)
    Xh, yh, rules_h, filled_h, files_h = arrays(held)
    oof = out_of_fold(X, y, files, FOLDS, C)
    model = logistic(X, y, C)
    held_score = model.decision_function(Xh)
    low, high = best_thresholds(oof, rules, y, filled)
    print(f"{len(train)} training questions ({int((~y).sum())} near misses), {len(held)} held ({int((~yh).sum())}); "
          f"AUC of 'answerable reads higher': training (out of fold) {roc_auc_score(y, oof):.3f}, held {roc_auc_score(yh, held_score):.3f}")
    print(f"{'files':40} {'decision':32} {'near misses said so':>20} {'answerable taken for near misses':>34}")
    groups = [("training (out of fold)", oof, rules, filled, y)]
    for name in dict.fromkeys(files_h):
        m = files_h == name
        groups.append((name, held_score[m], rules_h[m], filled_h[m], yh[m]))
    groups.append(("held, together", held_score, rules_h, filled_h, yh))
    for name, score, rule, given, label in groups:
        for decision, near in (("rules alone", rule), ("probe alone, below 0", score < 0),
                               (f"both (low {low:g}, high {high:g})", decide(score, rule, low, high, given))):
            said, false = rates(near, label)
            n_near, n_ans = int((~label).sum()), int(label.sum())
            print(f"{name:40} {decision:32} {round(said * n_near):>11}/{n_near:<8} {round(false * n_ans):>20}/{n_ans:<13}")
    scaler, regression = model.named_steps["standardscaler"], model.named_steps["logisticregression"]
    np.savez(args.out, mean=scaler.mean_.astype(np.float32), scale=scaler.scale_.astype(np.float32),
             coef=regression.coef_[0].astype(np.float32), bias=np.float32(regression.intercept_[0]),
             low=np.float32(low), high=np.float32(high))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
