"""Retrieval quality: BEIR SciFact (nDCG@10, recall@100) and the dev questions among distractors.

    python -m benchmarks.retrieval            # both
    python -m benchmarks.retrieval --scifact  # SciFact only
    python -m benchmarks.retrieval --distractors
    python -m benchmarks.retrieval --backends torch,onnx-fp32,onnx-int8   # each embedding backend

With several backends, the shipped default's row is printed per backend at the end. fp32 stores are
written once, by ONNX fp32 (faster), and read by torch and ONNX fp32 alike: their vectors match (cosine
>= 0.9999, tested), which is the claim that lets them share a store; int8 writes its own store.

Prints BM25 alone, dense alone and the fusion variants side by side, from one set of
candidates per query, so the shipped default is compared with its parts in the same run.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from benchmarks.common import BACKENDS, FP32_WRITER, DEV_QA, DISTRACTORS, SCIFACT, SEED, build_store, parse_backends, require_shared, scifact_papers_file

from assistant.retrieval import FusionConfig, fuse

SHIPPED = FusionConfig()
VARIANTS: dict[str, FusionConfig] = {
    "bm25": replace(SHIPPED, method="bm25"),
    "dense (paper chunk only)": replace(SHIPPED, method="dense", sentence_weight=0.0),
    "dense (paper + sentences)": replace(SHIPPED, method="dense"),
    "rrf k=60": replace(SHIPPED, method="rrf", dense_weight=0.5),
    "convex 0.3": replace(SHIPPED, method="convex", dense_weight=0.3),
    "convex 0.4": replace(SHIPPED, method="convex", dense_weight=0.4),
    "convex 0.5": replace(SHIPPED, method="convex", dense_weight=0.5),
    "convex 0.6": replace(SHIPPED, method="convex", dense_weight=0.6),
    "shipped default": SHIPPED,
}


def _dense(cands, sentence_weight: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = []
    for pid in cands.ids:
        paper = cands.paper_sim.get(pid, 0.0)
        if pid in cands.best_sentence:
            out.append(max(paper, sentence_weight * cands.best_sentence[pid][0] + (1 - sentence_weight) * paper))
        else:
            out.append(paper)
    return np.array(out)


def rankings(assistant, queries: dict[str, str], pool: int) -> dict[str, dict[str, list[str]]]:  # type: ignore[no-untyped-def]
    """variant -> query id -> ranked paper ids."""
    out: dict[str, dict[str, list[str]]] = {name: {} for name in VARIANTS}
    for qid, text in queries.items():
        cands = assistant.retriever.candidates(text, pool)
        for name, config in VARIANTS.items():
            scores = fuse(_dense(cands, config.sentence_weight), cands.bm25, config)
            out[name][qid] = [cands.ids[i] for i in np.argsort(-scores)]
    return out


def ndcg_at_10(ranked: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(pid, 0) / np.log2(i + 2) for i, pid in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    idcg = sum(g / np.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


SUMMARY: list[str] = []


def _writer(backend: str, backends: list[str]) -> str:
    precision, _, paper_vector = backend.partition("/")
    return backend if precision.endswith("int8") or precision == "bf16" else FP32_WRITER + (f"/{paper_vector}" if paper_vector else "")


def scifact(backend: str, backends: list[str]) -> None:
    assistant = build_store("scifact", [scifact_papers_file()], backend=backend, writer=_writer(backend, backends))
    queries = {}
    for line in open(SCIFACT / "queries.jsonl", encoding="utf-8"):
        q = json.loads(line)
        queries[q["_id"]] = q["text"]
    qrels: dict[str, dict[str, int]] = {}
    for line in list(open(SCIFACT / "qrels" / "test.tsv", encoding="utf-8"))[1:]:
        qid, did, score = line.split()
        qrels.setdefault(qid, {})[did] = int(score)
    test = {qid: queries[qid] for qid in qrels}
    started = time.perf_counter()
    ranked = rankings(assistant, test, pool=100)
    print(f"\n[{backend}] BEIR SciFact test ({len(test)} queries, {assistant.store.count()} chunks, "
          f"written by {_writer(backend, backends)}) in {time.perf_counter() - started:.0f}s")
    print(f"{'variant':28} {'nDCG@10':>8} {'R@100':>8}")
    for name, by_query in ranked.items():
        ndcg = np.mean([ndcg_at_10(by_query[q], qrels[q]) for q in test])
        recall = np.mean([len(set(by_query[q][:100]) & set(qrels[q])) / len(qrels[q]) for q in test])
        print(f"{name:28} {ndcg:8.3f} {recall:8.3f}")
        if name == "shipped default":
            SUMMARY.append(f"[{backend}] SciFact shipped default nDCG@10 {ndcg:.3f}  R@100 {recall:.3f}")
    print("published: BM25 0.665, all-MiniLM-L6-v2 ~0.65, bge-small-en-v1.5 0.713, BM25+MiniLM cross-encoder 0.688")


def distractors(backend: str, backends: list[str]) -> None:
    questions = [json.loads(line) for line in open(DEV_QA, encoding="utf-8") if line.strip()]
    for name, files in (("seed", [SEED]), ("seed+distractors", [SEED, *DISTRACTORS])):
        assistant = build_store(name.replace("+", "_"), files, backend=backend, writer=_writer(backend, backends))
        from assistant.conversation import standalone_query

        single = {q["id"]: q for q in questions if q["kind"] in ("single", "followup")}
        texts = {qid: standalone_query(q["question"], [{"role": "user", "content": h} for h in q.get("history") or []])
                 for qid, q in single.items()}
        ranked = rankings(assistant, texts, pool=40)
        print(f"\n[{backend}] {name}: {len(single)} single/followup questions, {assistant.store.count()} chunks")
        print(f"{'variant':28} {'hit@1':>6} {'hit@3':>6} {'MRR':>6}")
        for variant, by_query in ranked.items():
            ranks = [next((i for i, pid in enumerate(by_query[qid]) if pid in single[qid]["gold"]), None) for qid in single]
            hit1 = np.mean([r == 0 for r in ranks])
            hit3 = np.mean([r is not None and r < 3 for r in ranks])
            mrr = np.mean([1 / (r + 1) if r is not None else 0 for r in ranks])
            print(f"{variant:28} {hit1:6.3f} {hit3:6.3f} {mrr:6.3f}")
            if variant == "shipped default":
                SUMMARY.append(f"[{backend}] {name} shipped default hit@1 {hit1:.3f}  hit@3 {hit3:.3f}  MRR {mrr:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scifact", action="store_true")
    parser.add_argument("--distractors", action="store_true")
    parser.add_argument("--backends", default="torch", help=f"comma-separated, from {', '.join(BACKENDS)}, each optionally "
                                                              "/encode or /mean (how paper chunks get their vectors)")
    args = parser.parse_args()
    require_shared()
    backends = parse_backends(args.backends)
    both = not (args.scifact or args.distractors)
    for backend in backends:
        if args.distractors or both:
            distractors(backend, backends)
        if args.scifact or both:
            scifact(backend, backends)
    print("\nsummary (shipped default):")
    print("\n".join(SUMMARY))


if __name__ == "__main__":
    main()
