"""Can the embedding model tell a near miss from an answerable question? For each near-miss and single-paper
question of the given sets, the cosine between the question and its gold paper's best sentence (and the mean of
the best two), on the default ONNX fp32 encoder; prints each feature's mean per kind and the AUC of "answerable
scores higher". An AUC near 0.5 means the feature cannot separate them.

    python -m benchmarks.near_miss_signals [SET.jsonl ...]   (default: every near-miss set in benchmarks/data)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vectorstore import Settings  # first: sets the offline environment

from benchmarks.common import DISTRACTORS, SEED, require_shared
from ingest import load_papers
from ingest.chunking import sentence_spans
from vectorstore.embeddings import embedding_model_path
from vectorstore.onnx_backend import OnnxEncoder, exported_model

def auc(positive: list[float], negative: list[float]) -> float:
    """P(a random positive scores above a random negative), ties counted half."""
    pos, neg = np.asarray(positive)[:, None], np.asarray(negative)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sets", nargs="*", type=Path)
    args = parser.parse_args()
    require_shared()
    sets = args.sets or sorted(Path(__file__).parent.joinpath("data").glob("near_miss_*.jsonl"))
    found, _ = load_papers([SEED, *DISTRACTORS])  # as the store holds them (LaTeX and line breaks cleaned)
    papers = {paper.id: paper.abstract for paper in found}
    encoder = OnnxEncoder(exported_model(embedding_model_path(Settings().embedding_model), "fp32", Settings().onnx_cache))
    scores: dict[str, dict[str, list[float]]] = {"best sentence": {"single": [], "near_miss": []},
                                                 "best two sentences": {"single": [], "near_miss": []}}
    for path in sets:
        for line in open(path, encoding="utf-8"):
            q = json.loads(line)
            if q["kind"] not in ("single", "near_miss") or not q["gold"] or q["gold"][0] not in papers:
                continue
            abstract = papers[q["gold"][0]]
            vectors = encoder.encode([q["question"]] + [abstract[s.start:s.end] for s in sentence_spans(abstract)])
            cosines = np.sort(vectors[1:] @ vectors[0])[::-1]
            scores["best sentence"][q["kind"]].append(float(cosines[0]))
            scores["best two sentences"][q["kind"]].append(float(cosines[:2].mean()))
    print(f"{len(scores['best sentence']['single'])} answerable, {len(scores['best sentence']['near_miss'])} near-miss questions from {len(sets)} sets")
    for feature, by_kind in scores.items():
        print(f"{feature:20s} answerable mean {np.mean(by_kind['single']):.3f}   near miss mean {np.mean(by_kind['near_miss']):.3f}"
              f"   AUC {auc(by_kind['single'], by_kind['near_miss']):.3f}")


if __name__ == "__main__":
    main()
