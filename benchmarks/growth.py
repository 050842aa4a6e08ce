"""Query latency against store size, embedded and Chroma server mode, up to 100,000+ chunks.

Synthetic papers (random words, random unit vectors: embedding is not what is measured here) are
added in steps; after each step the hybrid search is timed with a fixed query vector.
Writes a table and benchmarks/growth.png.

    python benchmarks/growth.py [--max-chunks 120000] [--server-too]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

from assistant.retrieval import HybridRetriever
from vectorstore import Embedder, KeywordIndex, PaperStore, Settings
from vectorstore.store import chunk_id

SENTENCES_PER_PAPER = 9  # + 1 paper chunk = 10 chunks per paper, like real abstracts
rng = np.random.default_rng(0)
VOCAB = [f"w{i}" for i in range(20000)]


def synthetic_batch(start: int, papers: int, dim: int):  # type: ignore[no-untyped-def]
    ids, vecs, docs, metas = [], [], [], []
    for p in range(start, start + papers):
        pid = f"syn-{p}"
        sentences = [" ".join(rng.choice(VOCAB, 20)) + "." for _ in range(SENTENCES_PER_PAPER)]
        abstract = " ".join(sentences)
        base = {"paper_id": pid, "paper_hash": "h", "title": f"Synthetic paper {p}", "authors": "", "url": "", "venue": "", "title_derived": False}
        offset = 0
        for i, sentence in enumerate(sentences, 1):
            ids.append(chunk_id(pid, "h", i)); docs.append(sentence)
            metas.append({**base, "kind": "sentence", "chunk": i, "n_chunks": 10, "start": offset, "end": offset + len(sentence)})
            offset += len(sentence) + 1
        ids.append(chunk_id(pid, "h", 0)); docs.append(abstract)
        metas.append({**base, "kind": "paper", "chunk": 0, "n_chunks": 10, "start": 0, "end": len(abstract), "extra": "{}"})
    v = rng.standard_normal((len(ids), dim)).astype(np.float32)
    vecs = v / np.linalg.norm(v, axis=1, keepdims=True)
    return ids, vecs, docs, metas


def start_server(path: Path) -> tuple[subprocess.Popen, str]:  # type: ignore[type-arg]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    proc = subprocess.Popen([str(Path(sys.executable).parent / "chroma"), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1); break
        except OSError:
            time.sleep(0.2)
    return proc, url


def measure(settings: Settings, steps: list[int], embedder: Embedder) -> list[tuple[int, float, float]]:
    store = PaperStore(settings)
    retriever = HybridRetriever(store=store, keyword=KeywordIndex(store), embedder=embedder)
    query = embedder.encode(["robust optimization of neural networks with sparse gradients"])[0]
    rows, papers = [], 0
    for target in steps:
        while papers * 10 < target:
            n = min(500, target // 10 - papers)
            store.add(*synthetic_batch(papers, n, len(query)))
            papers += n
        store.bump_generation()
        retriever.search("w1 w2 w3 sparse", 10, vector=query)  # rebuild the keyword index outside the timing
        times = []
        for i in range(30):
            t = time.perf_counter()
            retriever.search(f"w{i} w{i + 7} w{i + 99}", 10, vector=query)
            times.append(time.perf_counter() - t)
        rows.append((store.count(), 1000 * float(np.percentile(times, 50)), 1000 * float(np.percentile(times, 95))))
        print(f"  {rows[-1][0]:>8} chunks  p50 {rows[-1][1]:7.1f} ms  p95 {rows[-1][2]:7.1f} ms", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-chunks", type=int, default=120_000)
    parser.add_argument("--server-too", action="store_true", help="also measure a `chroma run` server")
    args = parser.parse_args()
    steps = [s for s in (1_000, 10_000, 30_000, 60_000, 100_000, 120_000) if s <= args.max_chunks]
    embedder = Embedder("all-MiniLM-L6-v2")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        print("embedded (PersistentClient):")
        results["embedded"] = measure(Settings(data_dir=Path(tmp) / "e", collection="growth"), steps, embedder)
        if args.server_too:
            proc, url = start_server(Path(tmp) / "server")
            try:
                print(f"server ({url}):")
                results["server"] = measure(Settings(data_dir=Path(tmp) / "s", chroma_url=url, collection="growth"), steps, embedder)
            finally:
                proc.terminate(); proc.wait(10)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for mode, rows in results.items():
        ax.plot([r[0] for r in rows], [r[1] for r in rows], marker="o", label=f"{mode} p50")
        ax.plot([r[0] for r in rows], [r[2] for r in rows], marker="x", linestyle="--", label=f"{mode} p95")
    ax.set_xlabel("chunks in store"); ax.set_ylabel("hybrid search latency (ms)"); ax.grid(alpha=0.3); ax.legend()
    ax.set_title("paperchat retrieval latency vs store size (2 CPU cores)")
    out = Path(__file__).with_name("growth.png")
    fig.tight_layout(); fig.savefig(out, dpi=110)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
