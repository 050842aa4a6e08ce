"""Can a small cross-encoder tell a near miss from an answerable question? An experiment, not shipped.

The near-miss rules (``assistant.selection.unanswered``) catch a question whose words or asked kind of
value the paper lacks; questions asking *why* or *how* something the abstract mentions works pass them
(fresh sets: about 0.4 of near misses said so). This script trains the entailment check's model
(``benchmarks.train_entailment``: the packaged all-MiniLM-L6-v2, rank-16 adapters, a one-unit head) on
(question, "title. sentence") pairs: each sentence stating an answerable question's answer (1), the two
other sentences sharing most words with the question (0), and a near miss's three best-overlapping
sentences (0). A question's score is its best sentence's. It prints the AUC of "answerable scores higher"
on held files, and each question's score.

Measured (benchmarks/HISTORY.md, "A learned near-miss check"): AUC 0.61-0.69 on files it was not trained on,
against 0.65 for the plain embedding cosine (``python -m benchmarks.near_miss_signals``), so no check
was built on it. Training data: ``benchmarks/data/near_miss_*.jsonl`` up to set 10 and
``benchmarks/data/answerability_train*.jsonl`` (1,440 questions on 240 other papers, written by helpers
from the abstracts); sets 11 and 12 are never trained on.

    python -m benchmarks.train_answerability --out W.npz [--hold FILE ...] [--eval FILE ...] [--epochs N] [--lr X]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from vectorstore import Settings  # noqa: F401  (first: sets the offline environment)

from assistant.cross_encoder import CrossEncoder, packaged_model_dir
from benchmarks.common import DISTRACTORS, SEED, require_shared
from benchmarks.near_miss_signals import auc
from benchmarks.train_entailment import Pair, train
from ingest import load_papers
from ingest.chunking import sentence_spans

DATA = Path(__file__).resolve().parent / "data"
FRESH = ("near_miss_heldout11.jsonl", "near_miss_heldout12.jsonl")  # first run reported in the README: never trained on
NEGATIVES = 2
DEFAULT_CASES = [p for p in sorted(DATA.glob("near_miss_*.jsonl")) if p.name not in FRESH] + sorted(DATA.glob("answerability_train*.jsonl"))


def papers() -> dict[str, tuple[str, str]]:
    """Paper id -> (title, abstract), cleaned as ingest stores them."""
    require_shared()
    found, _ = load_papers([SEED, *DISTRACTORS])
    return {p.id: (p.title, p.abstract) for p in found}


def questions(path: Path) -> list[dict]:
    return [q for q in (json.loads(line) for line in path.open(encoding="utf-8") if line.strip())
            if q["kind"] in ("single", "near_miss") and q["gold"]]


MAX_TOKENS = 128  # question, title and one sentence
_WORD = re.compile(r"[a-z0-9]{4,}")


def passage(title: str, sentence: str) -> str:
    """What the model reads of one sentence: the paper's title, which names what "it" and "our method" are, then the sentence."""
    return f"{title}. {sentence}" if title else sentence


def _overlap(question: str, sentence: str) -> int:
    return len(set(_WORD.findall(question.lower())) & set(_WORD.findall(sentence.lower())))


def answer_sentences(sentences: list[str], q: dict) -> list[int]:
    """The sentences stating the answer: the helper's support, else those holding an expected string."""
    support = (q.get("support") or "").lower()
    wanted = [w.lower() for w in q.get("answer_contains") or []]
    if support:
        return [i for i, s in enumerate(sentences) if s.lower() in support or support in s.lower()]
    return [i for i, s in enumerate(sentences) if any(w in s.lower() for w in wanted)]


def pairs_of(path: Path, corpus: dict[str, tuple[str, str]], negatives: int = NEGATIVES) -> list[Pair]:
    """Per question: each answering sentence (1) and the ``negatives`` other sentences sharing most words with the
    question (0); for a near miss, its ``negatives + 1`` best-overlapping sentences (0)."""
    out: list[Pair] = []
    for q in questions(path):
        if q["gold"][0] not in corpus:
            continue
        title, abstract = corpus[q["gold"][0]]
        sentences = [abstract[s.start:s.end] for s in sentence_spans(abstract)]
        answering = answer_sentences(sentences, q) if q["kind"] == "single" else []
        if q["kind"] == "single" and not answering:
            continue
        rest = sorted((i for i in range(len(sentences)) if i not in answering), key=lambda i: -_overlap(q["question"], sentences[i]))
        take = rest[:negatives + (0 if answering else 1)]
        out += [(q["question"], passage(title, sentences[i]), 1) for i in answering]
        out += [(q["question"], passage(title, sentences[i]), 0) for i in take]
    return out


def question_scores(model: CrossEncoder, path: Path, corpus: dict[str, tuple[str, str]]) -> tuple[list[float], list[float]]:
    """The best sentence score of each answerable and each near-miss question of ``path`` against its gold abstract."""
    answerable: list[float] = []
    near: list[float] = []
    for q in questions(path):
        if q["gold"][0] not in corpus:
            continue
        title, abstract = corpus[q["gold"][0]]
        best = max(model.scores([(q["question"], passage(title, abstract[s.start:s.end])) for s in sentence_spans(abstract)]))
        (answerable if q["kind"] == "single" else near).append(best)
    return answerable, near


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the weights go (.npz)")
    parser.add_argument("--cases", type=Path, nargs="*", default=DEFAULT_CASES)
    parser.add_argument("--hold", type=Path, nargs="*", default=[], help="case files left out of training")
    parser.add_argument("--eval", type=Path, nargs="*", default=[], help="print the AUC on these after training")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=6e-4)
    args = parser.parse_args(argv)
    corpus = papers()
    held = {p.name for p in args.hold} | set(FRESH)
    pairs: list[Pair] = []
    for path in args.cases:
        if path.name not in held:
            pairs += pairs_of(path, corpus)
    random.Random(0).shuffle(pairs)
    print(f"{len(pairs)} pairs ({sum(p[2] for p in pairs)} answerable)", flush=True)
    train(pairs, args.out, epochs=args.epochs, lr=args.lr, max_tokens=MAX_TOKENS)
    if args.eval:
        model = CrossEncoder(packaged_model_dir(), args.out, MAX_TOKENS)
        for path in args.eval:
            answerable, near = question_scores(model, path, corpus)
            print(f"{path.name}: AUC {auc(answerable, near):.3f} ({len(answerable)} answerable, {len(near)} near misses); "
                  f"answerable {' '.join(f'{x:.1f}' for x in sorted(answerable))}; near misses {' '.join(f'{x:.1f}' for x in sorted(near))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
