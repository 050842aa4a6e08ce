"""Query latency, keyword index and memory against store size, embedded and `chroma run` server, up to 1,000,000 chunks.

Synthetic papers with real-sized records: ids ``paper::hash::index`` like ingest's, the metadata ingest
writes, sentence chunks of ~150-250 characters and paper chunks of ~1,200-1,900, words drawn with their
real frequencies from the shared ML abstracts (so BM25 sees a realistic vocabulary and posting lengths),
and random unit vectors (embedding is not what is measured here). Chunks are added in steps; after
each step the hybrid search is timed with a fixed query vector, and the keyword index is rebuilt and
measured (build time, RSS growth, size of the in-memory BM25 matrix).

At the end: peak RSS of this process (the app) and of the Chroma server, and the start-up time of
`paperchat serve` on the largest store (to its first HTTP answer, then to its first search).

    python -m benchmarks.growth [--max-chunks 1000000] [--server-too] [--serve-startup]
    python -m benchmarks.growth --max-chunks 250000 --steps 1000,10000,100000,250000

Writes a table, benchmarks/growth.json and benchmarks/growth.png.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

import numpy as np

from vectorstore import Settings  # first: sets the offline environment

from assistant.retrieval import HybridRetriever
from benchmarks.common import DISTRACTORS
from vectorstore import Embedder, KeywordIndex, PaperStore
from vectorstore.store import chunk_id
from vectorstore.keyword import KeywordSnapshot

SENTENCES_PER_PAPER = 9  # + 1 paper chunk = 10 chunks per paper, like real abstracts
STEPS = (1_000, 10_000, 100_000, 250_000, 500_000, 1_000_000)
BATCH_PAPERS = 500
DIM = 384
rng = np.random.default_rng(0)


def vocabulary() -> tuple[np.ndarray, np.ndarray]:
    """Words of the shared ML abstracts with their frequencies (a Zipf-like, real distribution)."""
    counts: Counter[str] = Counter()
    for path in DISTRACTORS:
        if path.is_file():
            for line in open(path, encoding="utf-8"):
                counts.update(re.findall(r"[A-Za-z][A-Za-z-]+", json.loads(line).get("abstract", "")))
    if not counts:  # no shared data: a synthetic Zipf vocabulary
        counts = Counter({f"w{i}": int(1e6 / (i + 1)) for i in range(30000)})
    words = np.array(list(counts))
    freq = np.array(list(counts.values()), dtype=np.float64)
    return words, freq / freq.sum()


WORDS, PROBS = vocabulary()


def sentence(n_words: int) -> str:
    return " ".join(rng.choice(WORDS, n_words, p=PROBS)).capitalize() + "."


def synthetic_batch(start: int, papers: int, dim: int = DIM):  # type: ignore[no-untyped-def]
    """``papers`` papers as ingest writes them: sentence chunks, then the paper chunk (the commit marker)."""
    ids, docs, metas = [], [], []
    for p in range(start, start + papers):
        pid = f"https://openreview.net/forum?id=syn{p:07d}"
        title = sentence(int(rng.integers(6, 14)))[:-1]
        sentences = [sentence(int(rng.integers(20, 34))) for _ in range(SENTENCES_PER_PAPER)]
        abstract = " ".join(sentences)
        h = hashlib.sha256(f"{title}\n{abstract}".encode()).hexdigest()[:16]
        base = {"paper_id": pid, "paper_hash": h, "title": title, "authors": "; ".join(f"Author {p}-{i}" for i in range(4)),
                "url": pid, "venue": "Synthetic 2026", "title_derived": False}
        offset = 0
        for i, text in enumerate(sentences, 1):
            ids.append(chunk_id(pid, h, i)); docs.append(f"{title}: {text}")
            metas.append({**base, "kind": "sentence", "chunk": i, "n_chunks": 10, "start": offset, "end": offset + len(text)})
            offset += len(text) + 1
        ids.append(chunk_id(pid, h, 0)); docs.append(abstract)
        metas.append({**base, "kind": "paper", "chunk": 0, "n_chunks": 10, "start": 0, "end": len(abstract), "extra": "{}"})
    v = rng.standard_normal((len(ids), dim)).astype(np.float32)
    return ids, v / np.linalg.norm(v, axis=1, keepdims=True), docs, metas


def rss_mb(pid: int | str = "self", peak: bool = False) -> float:
    """Current (VmRSS) or peak (VmHWM) resident memory of a process, with its children for the server."""
    key = "VmHWM" if peak else "VmRSS"
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def tree_peak_mb(pid: int) -> float:
    """Peak RSS of a process and its children (`chroma run` may be a launcher around the server)."""
    total = rss_mb(pid, peak=True)
    try:
        import psutil

        total += sum(rss_mb(c.pid, peak=True) for c in psutil.Process(pid).children(recursive=True))
    except Exception:
        pass
    return total


class RssSampler:
    """Peak RSS growth of this process while a block runs (polls VmRSS every 20 ms)."""

    def __enter__(self) -> "RssSampler":
        self.start = self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set(); self._thread.join()
        self.peak = max(self.peak, rss_mb())
        self.end = rss_mb()


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


def measure(settings: Settings, steps: list[int], query: np.ndarray, mode: str) -> list[dict]:  # type: ignore[type-arg]
    store = PaperStore(settings)
    keyword = KeywordIndex(store)
    embedder = Embedder(settings.embedding_model, backend="torch", precision="fp32", data_dir=settings.data_dir)  # never loaded: vectors given
    retriever = HybridRetriever(store=store, keyword=keyword, embedder=embedder)
    rows: list[dict] = []  # type: ignore[type-arg]
    papers, insert_s = 0, 0.0
    for target in steps:
        started = time.perf_counter()
        while papers * 10 < target:
            n = min(BATCH_PAPERS, target // 10 - papers)
            batch = synthetic_batch(papers, n)
            t = time.perf_counter(); store.add(*batch); insert_s += time.perf_counter() - t
            papers += n
        step_wall = time.perf_counter() - started
        store.bump_generation(commit=True)
        keyword._state = KeywordSnapshot()  # measure a cold build (read paper chunks from Chroma, tokenize, index)
        with RssSampler() as mem:
            t = time.perf_counter(); built = keyword._load_or_build(store.state_key); build_s = time.perf_counter() - t
        matrix_mb = sum(a.nbytes for a in built.retriever.scores.values() if hasattr(a, "nbytes")) / 2**20
        retriever.search("sparse gradient robust optimization", 10, vector=query)  # warm
        times = []
        for i in range(40):
            words = rng.choice(WORDS[:3000], 3)
            t = time.perf_counter()
            retriever.search(" ".join(words), 10, vector=query)
            times.append(time.perf_counter() - t)
        kw_times = []
        for i in range(20):
            t = time.perf_counter(); keyword.search(" ".join(rng.choice(WORDS[:3000], 3)), 40); kw_times.append(time.perf_counter() - t)
        row = {"mode": mode, "date": time.strftime("%Y-%m-%d"), "chunks": store.count(), "papers": papers,
               "p50_ms": 1000 * float(np.percentile(times, 50)), "p95_ms": 1000 * float(np.percentile(times, 95)),
               "bm25_p50_ms": 1000 * float(np.percentile(kw_times, 50)),
               "insert_s_total": insert_s, "step_wall_s": step_wall,
               "bm25_build_s": build_s, "bm25_build_rss_peak_mb": mem.peak - mem.start, "bm25_matrix_mb": matrix_mb,
               "app_rss_mb": rss_mb(), "app_peak_rss_mb": rss_mb(peak=True)}
        rows.append(row)
        print(f"  {row['chunks']:>9,} chunks  p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  (bm25 alone p50 {row['bm25_p50_ms']:5.1f} ms) | "
              f"insert {insert_s:6.0f} s total | bm25 build {build_s:5.1f} s, +{row['bm25_build_rss_peak_mb']:.0f} MB peak, "
              f"matrix {matrix_mb:.0f} MB | app RSS {row['app_rss_mb']:.0f} MB", flush=True)
    return rows


def serve_startup(data_dir: Path, collection: str, chroma_url: str | None) -> dict[str, float]:
    """`paperchat serve` on the store: seconds to the first HTTP answer and to the first answered search."""
    from benchmarks.latency import serve_command

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    cmd = serve_command(port, str(data_dir)) + ["--collection", collection] + (["--chroma-url", chroma_url] if chroma_url else [])
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = {"http_s": float("nan"), "first_search_s": float("nan"), "peak_rss_mb": float("nan")}
    try:
        while time.perf_counter() - started < 600 and proc.poll() is None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
                out["http_s"] = time.perf_counter() - started
                break
            except OSError:
                time.sleep(0.1)
        try:
            from gradio_client import Client

            Client(f"http://127.0.0.1:{port}/", verbose=False).predict("sparse gradient robust optimization", api_name="/chat")
            out["first_search_s"] = time.perf_counter() - started
        except Exception as exc:  # the HTTP figure still stands
            print(f"  (first search through gradio_client failed: {exc.__class__.__name__}: {str(exc)[:100]})")
        out["peak_rss_mb"] = rss_mb(proc.pid, peak=True)
        return out
    finally:
        proc.terminate(); proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-chunks", type=int, default=1_000_000)
    parser.add_argument("--steps", help="comma-separated chunk counts (default: 1k, 10k, 100k, 250k, 500k, 1M up to --max-chunks)")
    parser.add_argument("--server-too", action="store_true", help="also measure a `chroma run` server")
    parser.add_argument("--no-embedded", action="store_true", help="only the server")
    parser.add_argument("--serve-startup", action="store_true", help="time `paperchat serve` on the largest store")
    parser.add_argument("--dir", type=Path, help="keep the stores here (default: a temp dir, removed)")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")] if args.steps else [s for s in STEPS if s <= args.max_chunks]
    query = synthetic_batch(10**8, 1)[1][0]
    results: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    extra: dict[str, object] = {"date": time.strftime("%Y-%m-%d"), "vocabulary": len(WORDS)}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = args.dir or Path(tmpdir)
        if not args.no_embedded:
            print("embedded (PersistentClient):")
            settings = Settings(data_dir=tmp / "e", collection="growth")
            results["embedded"] = measure(settings, steps, query, "embedded")
            extra["app_peak_rss_mb_embedded"] = rss_mb(peak=True)
            if args.serve_startup:
                extra["serve_embedded"] = serve_startup(tmp / "e", "growth", None)
                print(f"  `paperchat serve` on it: {extra['serve_embedded']}")
        if args.server_too:
            proc, url = start_server(tmp / "server")
            try:
                print(f"server ({url}):")
                settings = Settings(data_dir=tmp / "s", chroma_url=url, collection="growth")
                results["server"] = measure(settings, steps, query, "server")
                extra["app_peak_rss_mb_server"] = rss_mb(peak=True)
                extra["chroma_server_peak_rss_mb"] = tree_peak_mb(proc.pid)
                if args.serve_startup:
                    extra["serve_server"] = serve_startup(tmp / "s", "growth", url)
                    print(f"  `paperchat serve` on it: {extra['serve_server']}")
            finally:
                proc.terminate(); proc.wait(30)
    extra["app_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(extra, indent=1))
    out_json = Path(__file__).with_name("growth.json")
    if out_json.is_file():  # a run of one mode keeps the other mode's last rows and figures (each row says its date)
        kept = json.loads(out_json.read_text())
        results = {**kept.get("rows", {}), **results}
        extra = {**{k: v for k, v in kept.items() if k != "rows"}, **extra}
    out_json.write_text(json.dumps({"rows": results, **extra}, indent=1))
    plot(results, Path(__file__).with_name("growth.png"), str(extra["date"]))
    print(f"results: {out_json}")


def plot(results: dict[str, list[dict]], out: Path, date: str) -> None:  # type: ignore[type-arg]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
    for mode, rows in results.items():
        x = [r["chunks"] for r in rows]
        ax.plot(x, [r["p50_ms"] for r in rows], marker="o", label=f"{mode} p50")
        ax.plot(x, [r["p95_ms"] for r in rows], marker="x", linestyle="--", label=f"{mode} p95")
        bx.plot(x, [r["bm25_build_s"] for r in rows], marker="o", label=f"BM25 build (s), {mode}")
        bx.plot(x, [r["app_rss_mb"] / 1000 for r in rows], marker="s", linestyle=":", label=f"app RSS (GB), {mode}")
    for a in (ax, bx):
        a.set_xscale("log"); a.set_xlabel("chunks in store (10 per paper)"); a.grid(alpha=0.3); a.legend(fontsize=7)
    ax.set_ylabel("hybrid search latency (ms)")
    ax.set_title("retrieval latency vs store size", fontsize=9)
    bx.set_title("keyword index build and app memory", fontsize=9)
    fig.suptitle(f"paperchat growth, 2 vCPU shared, `python -m benchmarks.growth`, {date}", fontsize=9)
    fig.tight_layout(); fig.savefig(out, dpi=110)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
