"""Fit the near-miss probe of ``assistant/probe.py`` and its two thresholds, and report them on held-out files.

    python -m benchmarks.train_near_miss_probe [--cache FILE] [--verdicts FILE] [--out FILE] [--held FILE ...] [--against FILE]

1. Every single-paper question of the answerability files and the near-miss sets (helpers wrote them from the
   abstracts: answerable questions with their answer, near misses on the paper's topic that it does not answer) is
   asked on the 4,378-paper benchmark store (extractive engine), and the near-miss rules' verdict is recorded
   (``selection.unanswered``, as ``benchmarks.paraphrases`` replays it).
2. The local Qwen2.5 0.5B reads each question with its paper's title and abstract (``Probe.reading``: the last hidden
   state; about 1.4 s a question on 2 cores, so ``--cache`` keeps them between runs, saved every 100), and again with
   the lead paper's title and only the sentences the answer quotes (the quick reading, about 0.7 s).
3. A logistic regression (standardised features, L2 with ``C``, balanced classes) is fitted on the training files;
   their scores are out of fold (five folds grouped by file), the held files' come from the fit on all training files.
4. The probe's logit (out of fold on the training files) and the rules' measures of the same question
   (``selection.gap_features``: the share of its weight the paper never mentions, the asked words' share, the answer
   slot, the rules' verdict ...) are weighed by a second logistic regression, the mix (``MIX_C``; its scores out of
   fold too), and its ``cut`` (``selection.learned_gap``: a near miss below it) is the grid point that says the most
   near misses so on the training files while taking no more of their answerable questions for near misses than the
   rules alone (the issue's "no new false abstentions"). Until session 38 two thresholds on the probe's logit alone
   joined the rules' verdict; on the held files of that session the mix said 187 of 287 near misses so against 174,
   taking 46 of 338 answerable questions against 44 (benchmarks/HISTORY.md). Printed for the training and held files: the
   rules alone, the probe alone at 0 and the mix.

5. The same probe and mix are fitted on the quick readings (``quick_*``). ``learned_gap`` reads the quoted sentences
   first and the whole abstract only when they do not answer, so a near miss is one both mixes put under their cuts.
   The whole reading keeps its cut from 4; the quick cut is the lowest that keeps ``QUICK_KEPT`` (98%) of the whole
   reading's near misses on the training files (out of fold): a speed-for-recall trade, the quick reading taking
   about half the time. The 98% was picked in session 39 with a throwaway curve that printed the held replay beside
   the training figures, so the held rows of step 5 are partly tuned. Printed too: the quick reading then the whole one, with how many questions needed the whole
   reading. Before session 39 the whole abstract was always read (the "mix alone" row).

The replay reads each question's own paper (the quick reading: the lead's quoted sentences); an answer reads the
papers the selection keeps (the same one for 95% of these questions), so the end-to-end figures are those of ``paperchat eval`` (benchmarks/HISTORY.md: "Near misses read").
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from assistant.selection import GAP_FEATURES
from benchmarks.common import DISTRACTORS, SEED, build_store, require_shared
from benchmarks.paraphrases import DATA, record
from benchmarks.train_probe import cached_readings, logistic, out_of_fold

TRAIN = ([DATA / f"answerability_train{i}.jsonl" for i in (1, 2, 3, 4)] + [DATA / "near_miss_heldout.jsonl"]
         + [DATA / f"near_miss_heldout{i}.jsonl" for i in range(2, 23)] + [DATA / "near_miss_qa.jsonl", DATA / "near_miss_dev2.jsonl"])
HELD = [DATA / f"answerability_train{i}.jsonl" for i in (5, 6)] + [DATA / f"near_miss_heldout{i}.jsonl" for i in range(23, 27)]
OUT = Path(__file__).resolve().parents[1] / "assistant" / "data" / "near_miss_probe.npz"
C = 0.01
MIX_C = 0.1
FOLDS = 5
GRID = np.arange(-4.0, 4.0, 0.05)
QUICK_KEPT = 0.98  # share of the whole reading's near misses the quick-first reading must keep (training, out of fold)


def key(question: str, title: str, abstract: str) -> str:
    return hashlib.sha1(f"{question}\0{title}\0{abstract}".encode()).hexdigest()


def questions(paths: list[Path]) -> list[dict[str, Any]]:
    """The single-paper questions (answerable or near miss, no history) of ``paths``, each with its file's name."""
    rows = [dict(json.loads(line), file=path.name) for path in paths for line in path.open(encoding="utf-8") if line.strip()]
    return [r for r in rows if r.get("kind") in ("single", "near_miss") and not r.get("history") and len(r["gold"]) == 1]


def rules_verdicts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[bool, bool, list[float], tuple[str, str]]]:
    """(file, id) -> whether the rules call the question a near miss, whether a selected paper gives the value it asks
    for (``selection.slot_answered``), the rules' measures (``selection.gap_features``), and the lead paper's title with
    the sentences the answer quotes (what the quick probe reads), for the questions that reach the test."""
    from assistant import selection

    assistant = build_store("distractors", [SEED, *DISTRACTORS])
    assistant.settings = assistant.settings.with_overrides(near_miss_probe=False)  # the rules' own verdict, and no 0.5B call
    seen = record(assistant, rows)
    verdicts = {}
    for row, (q, idf, sel, together) in seen:
        gap = selection.unanswered(q, idf, sel, together, paraphrases=assistant.paraphrases)
        verdicts[(row["file"], row["id"])] = (bool(gap), selection.slot_answered(q, sel[:selection.MAX_SINGLE_PAPERS]),
                                              selection.gap_features(q, idf, sel, gap, together, assistant.paraphrases),
                                              (sel[0].source.title, selection.quoted(sel[0])))
    return verdicts


def cached_verdicts(rows: list[dict[str, Any]], path: Path | None) -> dict[tuple[str, str], Any]:
    """``rules_verdicts(rows)``, read from ``path`` when it holds every one of ``rows`` (asked with the same question),
    else computed and written there: asking ~2,700 questions on the 4,378-paper store takes a quarter of an hour."""
    names = {(r["file"], r["id"]): f"{r['file']}\0{r['id']}\0{r['question']}" for r in rows}
    if path and path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if all(name in saved for name in names.values()):
            return {k: (v[0], v[1], v[2], tuple(v[3])) for k, name in names.items() if (v := saved[name]) is not None}
    verdicts = rules_verdicts(rows)
    if path:  # None: the question did not reach the near-miss test
        path.write_text(json.dumps({name: verdicts.get(k) for k, name in names.items()}), encoding="utf-8")
    return verdicts


def readings(rows: list[dict[str, Any]], texts: dict[tuple[str, str], tuple[str, str]], cache: Path | None) -> dict[str, np.ndarray]:
    """The 0.5B's reading of each question with its (title, text) in ``texts`` (by (file, id)), by ``key`` (read from and
    added to ``cache``)."""
    todo = {key(r["question"], *texts[(r["file"], r["id"])]): r for r in rows}
    return cached_readings(todo, lambda reader, r: reader.reading(r["question"], *texts[(r["file"], r["id"])]), cache)


def rates(near: np.ndarray, answerable: np.ndarray) -> tuple[float, float]:
    """Near misses said so, and answerable questions taken for near misses."""
    return float(near[~answerable].mean()), float(near[answerable].mean())


def decide(mixed: np.ndarray, cut: float, rules: np.ndarray, filled: np.ndarray, quick: np.ndarray | None = None,
           quick_cut: float = np.inf) -> np.ndarray:
    """``selection.learned_gap`` on arrays: a near miss when the mix is below ``cut`` (and the quick mix below
    ``quick_cut``), unless the rules find the question answered and a paper gives the asked value (``filled``)."""
    near = (mixed < cut) & ~(~rules & filled)
    return near if quick is None else near & (quick < quick_cut)


def best_cut(mixed: np.ndarray, rules: np.ndarray, answerable: np.ndarray, filled: np.ndarray) -> float:
    """The highest ``cut`` of ``GRID`` that takes no more answerable questions for near misses than the rules alone
    ("no new false near misses"): the most near misses said so under that ceiling."""
    ceiling = rates(rules, answerable)[1]
    return max((float(cut) for cut in GRID if rates(decide(mixed, float(cut), rules, filled), answerable)[1] <= ceiling + 1e-9),
               default=float(GRID[0]))


def quick_cut_for(mixed: np.ndarray, cut: float, quick: np.ndarray, rules: np.ndarray, answerable: np.ndarray,
                  filled: np.ndarray) -> float:
    """The lowest quick cut of ``GRID`` (the most questions settled by the quick reading alone) that keeps
    ``QUICK_KEPT`` of the near misses the whole reading says at ``cut`` (training files, out of fold)."""
    said = rates(decide(mixed, cut, rules, filled), answerable)[0]
    return min((float(q) for q in GRID if rates(decide(mixed, cut, rules, filled, quick, float(q)), answerable)[0] >= QUICK_KEPT * said - 1e-9),
               default=float(GRID[-1]))


def main(argv: list[str] | None = None) -> None:
    from sklearn.metrics import roc_auc_score

    from assistant.probe import linear
    from benchmarks.train_answerability import papers as load

    parser = argparse.ArgumentParser(prog="python -m benchmarks.train_near_miss_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, help="an .npz of readings by (question, title, abstract), read and extended")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--held", type=Path, nargs="*", default=HELD, help="files to report on, never fitted on")
    parser.add_argument("--verdicts", type=Path, help="a .json of the rules' verdicts, read if it holds every question, else "
                        "computed and written (stale once the rules change: delete it then)")
    parser.add_argument("--against", type=Path, default=OUT if OUT.exists() else None,
                        help="weights to compare with on the held files (default: the shipped ones, before --out rewrites them)")
    args = parser.parse_args(argv)
    require_shared()
    papers = load()
    train = [r for r in questions(TRAIN) if r["gold"][0] in papers]
    held = [r for r in questions(args.held) if r["gold"][0] in papers]
    verdicts = cached_verdicts(train + held, args.verdicts)
    train = [r for r in train if (r["file"], r["id"]) in verdicts]  # questions that reach the near-miss test
    held = [r for r in held if (r["file"], r["id"]) in verdicts]
    whole = {(r["file"], r["id"]): papers[r["gold"][0]] for r in train + held}  # the question's own paper, whole
    quoted = {k: v[3] for k, v in verdicts.items()}  # the lead's title and the sentences the answer quotes
    known = readings(train + held, whole, args.cache)
    known_quick = readings(train + held, quoted, args.cache)

    def arrays(rows: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
        """Readings (whole, quick), labels (answerable), the rules' verdicts, asked values given, the rules' measures,
        file names."""
        X = np.stack([known[key(r["question"], *whole[(r["file"], r["id"])])] for r in rows])
        Q = np.stack([known_quick[key(r["question"], *quoted[(r["file"], r["id"])])] for r in rows])
        rules, filled, measures, _ = zip(*(verdicts[(r["file"], r["id"])] for r in rows))
        return (X, Q, np.array([r["kind"] == "single" for r in rows]), np.array(rules, dtype=bool), np.array(filled, dtype=bool),
                np.array(measures, dtype=float), np.array([r["file"] for r in rows]))

    X, Q, y, rules, filled, measures, files = arrays(train)
    Xh, Qh, yh, rules_h, filled_h, measures_h, files_h = arrays(held)
    against = dict(np.load(args.against)) if args.against else None  # read now: --out may be the same file

    def fit(X: np.ndarray, Xh: np.ndarray) -> tuple[Any, Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """A probe on the readings and its mix with the rules' measures (fitted on the probe's out-of-fold logits):
        the two models, then the probe's and the mix's scores, out of fold on the training files and on the held ones."""
        oof = out_of_fold(X, y, files, FOLDS, C)
        model = logistic(X, y, C)
        held_score = model.decision_function(Xh)
        F, Fh = np.column_stack([oof, measures]), np.column_stack([held_score, measures_h])
        mix = logistic(F, y, MIX_C)
        assert mix.named_steps["logisticregression"].coef_[0][0] > 0, \
            "the mix must rise with the reading (learned_gap stops reading once the question is answered)"
        return model, mix, oof, held_score, out_of_fold(F, y, files, FOLDS, MIX_C), mix.decision_function(Fh)

    model, mix, oof, held_score, mix_oof, mix_held = fit(X, Xh)
    quick, quick_mix, quick_oof, quick_held, quick_mix_oof, quick_mix_held = fit(Q, Qh)
    cut = best_cut(mix_oof, rules, y, filled)  # the whole reading's cut, as before the quick reading
    quick_cut = quick_cut_for(mix_oof, cut, quick_mix_oof, rules, y, filled)
    print(f"{len(train)} training questions ({int((~y).sum())} near misses), {len(held)} held ({int((~yh).sum())}); "
          f"AUC of 'answerable reads higher', training (out of fold) / held: probe {roc_auc_score(y, oof):.3f} / "
          f"{roc_auc_score(yh, held_score):.3f}, mix {roc_auc_score(y, mix_oof):.3f} / {roc_auc_score(yh, mix_held):.3f}; "
          f"quick probe {roc_auc_score(y, quick_oof):.3f} / {roc_auc_score(yh, quick_held):.3f}, quick mix "
          f"{roc_auc_score(y, quick_mix_oof):.3f} / {roc_auc_score(yh, quick_mix_held):.3f}")
    for name, m in (("mix", mix), ("quick mix", quick_mix)):
        print(f"{name} weights (standardised): " + ", ".join(
            f"{n} {v:+.2f}" for n, v in zip(GAP_FEATURES, m.named_steps["logisticregression"].coef_[0])))
    print(f"{'files':40} {'decision':36} {'near misses said so':>20} {'answerable taken for near misses':>34} {'whole read':>11}")
    groups = [("training (out of fold)", oof, mix_oof, quick_mix_oof, rules, filled, y)]
    for name in dict.fromkeys(files_h):
        m = files_h == name
        groups.append((name, held_score[m], mix_held[m], quick_mix_held[m], rules_h[m], filled_h[m], yh[m]))
    groups.append(("held, together", held_score, mix_held, quick_mix_held, rules_h, filled_h, yh))
    if against is not None:  # the compared weights' decisions on the held files, as ``selection.learned_gap`` makes them
        old_mixed = np.array([linear(against, np.array([linear(against, x), *m]), "mix_") for x, m in zip(Xh, measures_h)])
        old_quick = np.array([linear(against, np.array([linear(against, q, "quick_"), *m]), "quick_mix_") for q, m in zip(Qh, measures_h)])
        old_near = decide(old_mixed, float(against["cut"]), rules_h, filled_h, old_quick, float(against["quick_cut"]))
        old_whole = decide(old_quick, float(against["quick_cut"]), rules_h, filled_h)  # the questions it reads whole
    for name, score, mixed, quick_mixed, rule, given, label in groups:
        read_whole = decide(quick_mixed, quick_cut, rule, given)  # the quick reading did not answer: the abstract is read
        mine = files_h == name if name in files_h else np.ones(len(files_h), dtype=bool)
        compared = [] if against is None or name.startswith("training") else [
            (f"{args.against.name}, quick then whole", old_near[mine], int(old_whole[mine].sum()))]
        for decision, near, whole_read in (("rules alone", rule, 0), ("probe alone, below 0", score < 0, len(label)),
                                           (f"mix alone (cut {cut:.2f})", decide(mixed, cut, rule, given), len(label)),
                                           (f"quick, then whole ({quick_cut:.2f}, {cut:.2f})",
                                            decide(mixed, cut, rule, given, quick_mixed, quick_cut), int(read_whole.sum())),
                                           *compared):
            said, false = rates(near, label)
            n_near, n_ans = int((~label).sum()), int(label.sum())
            print(f"{name:40} {decision:36} {round(said * n_near):>11}/{n_near:<8} {round(false * n_ans):>20}/{n_ans:<13} {whole_read:>6}/{len(label)}")

    def saved(prefix: str, model: Any, mix: Any) -> dict[str, np.ndarray]:
        scaler, regression = model.named_steps["standardscaler"], model.named_steps["logisticregression"]
        mix_scaler, mix_regression = mix.named_steps["standardscaler"], mix.named_steps["logisticregression"]
        return {prefix + "mean": scaler.mean_.astype(np.float32), prefix + "scale": scaler.scale_.astype(np.float32),
                prefix + "coef": regression.coef_[0].astype(np.float32), prefix + "bias": np.float32(regression.intercept_[0]),
                prefix + "mix_mean": mix_scaler.mean_.astype(np.float32), prefix + "mix_scale": mix_scaler.scale_.astype(np.float32),
                prefix + "mix_coef": mix_regression.coef_[0].astype(np.float32),
                prefix + "mix_bias": np.float32(mix_regression.intercept_[0])}

    np.savez(args.out, **saved("", model, mix), **saved("quick_", quick, quick_mix), cut=np.float32(cut),
             quick_cut=np.float32(quick_cut))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
