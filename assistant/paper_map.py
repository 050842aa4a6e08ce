"""The paper map: every paper as a point in 2-D, coloured by topic cluster, each cluster with a short label.

- **Projection**: UMAP (``umap-learn``) of the paper-chunk embeddings already in the store (title +
  abstract, nothing is re-embedded). The fuzzy k-nearest-neighbour graph UMAP optimises is built
  here with numpy (exact cosine neighbours, then UMAP's own smoothing and fuzzy union, the same
  formulas as ``umap.umap_.fuzzy_simplicial_set``); the layout is umap-learn's
  ``simplicial_set_embedding`` (spectral initialisation, then its SGD). Why not ``UMAP().fit``:
  its graph step is numba code compiled on first use in every process, ~55 s of CPU on this
  machine's cores, which alone would break the 30 s budget; the layout step compiles in ~1 s.
  Fewer than ``MIN_UMAP`` papers are placed by PCA (``PaperMap.method`` says which).
- **Clusters**: k-means on the 2-D points (so a colour is a region of the map), k growing with the
  square root of the number of papers, at most ``MAX_CLUSTERS``.
- **Labels**: the cluster's most distinctive words by class-based TF-IDF (c-TF-IDF) over titles and
  abstracts (share of the cluster's papers using a word x its idf over all papers), with the BM25 analyzer's tokens, stems and stopwords (``vectorstore.keyword``) plus the
  project's question and function words (``vectorstore.text``).
- **Cache**: one map per store content (paper ids and versions), in memory per store generation and
  in ``DATA_DIR/cache/paper_map/`` (so a restart loads it, at the same generation without reading the
  papers' metadata); an ingest changes the content and the map.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from vectorstore.keyword import stem, words
from vectorstore.store import PaperStore
from vectorstore.text import QUESTION_WORDS, STOPWORDS

MAP_VERSION = "paper-map/1"  # part of the cache key: change it when the algorithm or its settings change
N_NEIGHBORS = 15
MIN_DIST = 0.1
N_EPOCHS = 200
SEED = 42
MIN_UMAP = 8  # fewer papers are placed by PCA
MAX_CLUSTERS = 16
LABEL_TERMS = 3
KNN_BLOCK = 1024  # rows of the similarity matrix computed at once
#: frequent in any abstract, never a topic (on top of the stopwords)
GENERIC_WORDS = frozenset(
    "paper propose proposed novel new approach method methods results show demonstrate performance based "
    "existing problem problems task tasks framework state art however also well first work study "
    "introduce present significantly significant outperforms outperform achieve achieves improve improves "
    "various different extensive experiments experimental empirical empirically theoretical several identify addition "
    "additionally including enables enable allows allow provide provides key challenge challenges often across even yet "
    "recent recently widely furthermore moreover".split()
)


class MapPoint(BaseModel):
    """One paper on the map."""

    paper_id: str
    title: str
    venue: str = ""
    x: float
    y: float
    cluster: int = Field(description="index into PaperMap.clusters")


class MapCluster(BaseModel):
    """A topic cluster: its most distinctive words, and how many papers it holds."""

    id: int
    label: str = Field(description='e.g. "diffusion, image, generation"')
    terms: list[str] = Field(default_factory=list)
    size: int


class PaperMap(BaseModel):
    """Every paper of the store once, as a 2-D point with a cluster; clusters ordered by size, largest first."""

    points: list[MapPoint] = Field(default_factory=list)
    clusters: list[MapCluster] = Field(default_factory=list)
    method: Literal["umap", "pca", "none"] = Field("umap", description="how the points were placed")
    key: str = Field("", description="the store content the map was computed for (paper ids and versions)")
    seconds: float = Field(0.0, description="time it took to compute (not to load from the cache)")

    def point(self, paper_id: str) -> MapPoint | None:
        """The paper's point, or None."""
        return next((p for p in self.points if p.paper_id == paper_id), None)


# -- projection --------------------------------------------------------------------------------------
def knn(vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact cosine nearest neighbours: (indices, distances), each row sorted, the point itself first (UMAP's convention)."""
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    n = len(unit)
    indices = np.empty((n, k), dtype=np.int32)
    distances = np.empty((n, k), dtype=np.float32)
    for start in range(0, n, KNN_BLOCK):
        sims = unit[start : start + KNN_BLOCK] @ unit.T
        rows = np.arange(len(sims))
        sims[rows, rows + start] = np.inf  # self first, even beside an exact duplicate
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        order = np.argsort(-sims[rows[:, None], top], axis=1, kind="stable")
        top = top[rows[:, None], order]
        indices[start : start + len(sims)] = top
        dist = 1.0 - sims[rows[:, None], top]
        dist[:, 0] = 0.0
        distances[start : start + len(sims)] = np.clip(dist, 0.0, None)
    return indices, distances


def fuzzy_graph(indices: np.ndarray, distances: np.ndarray) -> Any:
    """UMAP's fuzzy simplicial set of a kNN graph (local_connectivity 1, bandwidth 1, fuzzy union), vectorised.

    Per point: rho = distance to the nearest other point, sigma by bisection so that the memberships
    exp(-(d - rho) / sigma) of its neighbours sum to log2(k); then A + A^T - A * A^T.
    """
    import scipy.sparse as sp

    n, k = indices.shape
    d = distances.astype(np.float64)
    nonzero = np.where(d > 0, d, np.inf)
    rho = np.min(nonzero, axis=1)
    rho[~np.isfinite(rho)] = 0.0
    excess = np.maximum(d[:, 1:] - rho[:, None], 0.0)
    target = math.log2(k)
    lo, hi, mid = np.zeros(n), np.full(n, np.inf), np.ones(n)
    for _ in range(64):
        psum = np.exp(-excess / mid[:, None]).sum(axis=1)
        above = psum > target
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
        mid = np.where(np.isinf(hi), mid * 2, (lo + hi) / 2)
    floor = 1e-3 * np.where(rho > 0, d.mean(axis=1), d.mean())  # UMAP's MIN_K_DIST_SCALE
    sigma = np.maximum(mid, floor)
    weights = np.where(d - rho[:, None] <= 0, 1.0, np.exp(-(d - rho[:, None]) / sigma[:, None]))
    weights[indices == np.arange(n)[:, None]] = 0.0
    graph = sp.coo_matrix((weights.ravel().astype(np.float32), (np.repeat(np.arange(n), k), indices.ravel())), shape=(n, n)).tocsr()
    graph.eliminate_zeros()
    transpose = graph.T.tocsr()
    union = (graph + transpose - graph.multiply(transpose)).tocoo()
    union.eliminate_zeros()
    return union


def project(vectors: np.ndarray) -> tuple[np.ndarray, Literal["umap", "pca", "none"]]:
    """2-D coordinates of the rows of ``vectors`` and the method used."""
    n = len(vectors)
    if n == 0:
        return np.zeros((0, 2)), "none"
    if n < MIN_UMAP:
        centred = vectors - vectors.mean(axis=0)
        if n == 1 or not np.any(centred):
            return np.zeros((n, 2)), "pca"
        u, s, _ = np.linalg.svd(centred, full_matrices=False)
        xy = np.zeros((n, 2))
        dims = min(2, len(s))
        xy[:, :dims] = u[:, :dims] * s[:dims]
        return xy, "pca"
    import warnings

    from umap.umap_ import find_ab_params, simplicial_set_embedding

    indices, distances = knn(vectors, min(N_NEIGHBORS, n - 1))
    graph = fuzzy_graph(indices, distances)
    a, b = find_ab_params(1.0, MIN_DIST)
    with warnings.catch_warnings():  # "spectral initialisation failed ... random" on tiny or disconnected graphs
        warnings.simplefilter("ignore")
        xy, _ = simplicial_set_embedding(
            data=vectors, graph=graph, n_components=2, initial_alpha=1.0, a=a, b=b, gamma=1.0, negative_sample_rate=5,
            n_epochs=N_EPOCHS, init="spectral", random_state=np.random.RandomState(SEED), metric="cosine", metric_kwds={},
            densmap=False, densmap_kwds={}, output_dens=False, parallel=False, verbose=False,
        )
    return np.asarray(xy, dtype=np.float64), "umap"


# -- clusters and labels ----------------------------------------------------------------------------
def cluster_count(n: int) -> int:
    """How many clusters for ``n`` papers: about sqrt(n) / 3, between 2 and ``MAX_CLUSTERS`` (1 below 4 papers)."""
    if n < 4:
        return 1 if n else 0
    return int(min(MAX_CLUSTERS, max(2, round(math.sqrt(n) / 3))))


def clusters_of(xy: np.ndarray) -> np.ndarray:
    """Cluster index per point, by k-means on the 2-D points; cluster 0 is the largest."""
    n = len(xy)
    k = cluster_count(n)
    if k <= 1:
        return np.zeros(n, dtype=int)
    from sklearn.cluster import KMeans

    raw = KMeans(n_clusters=k, n_init=4, random_state=SEED).fit_predict(xy)
    by_size = [c for c, _ in Counter(raw.tolist()).most_common()]
    rank = {c: i for i, c in enumerate(by_size)}
    return np.array([rank[c] for c in raw.tolist()], dtype=int)


def _stop_stems() -> set[str]:
    common = sorted(STOPWORDS | QUESTION_WORDS | GENERIC_WORDS)
    return set(stem(common)) | set(common)


def label_clusters(texts: list[str], assignment: np.ndarray, n_terms: int = LABEL_TERMS) -> list[MapCluster]:
    """Each cluster's most distinctive words by class-based TF-IDF (c-TF-IDF) over ``texts`` (title + abstract per paper).

    A word's weight in a cluster is the share of the cluster's papers that use it times its inverse
    document frequency over all papers, log(N / df). Words are grouped by stem and shown in their
    most frequent form; "llm" and "llms" count as one label word.
    """
    k = int(assignment.max()) + 1 if len(assignment) else 0
    tokenized = [[t for t in tokens if len(t) > 2 and not t.isdigit()] for tokens in words(texts)]
    vocabulary = sorted({t for tokens in tokenized for t in tokens})
    stems = dict(zip(vocabulary, stem(vocabulary)))
    stop = _stop_stems()
    surface: dict[str, Counter[str]] = {}
    per_cluster: list[Counter[str]] = [Counter() for _ in range(k)]
    df: Counter[str] = Counter()
    for tokens, c in zip(tokenized, assignment.tolist()):
        used = set()
        for token in tokens:
            s = stems[token]
            if s not in stop and token not in stop:
                surface.setdefault(s, Counter())[token] += 1
                used.add(s)
        per_cluster[c].update(used)
        df.update(used)
    n = len(texts)
    sizes = Counter(assignment.tolist())
    out = []
    for c, counts in enumerate(per_cluster):
        min_papers = 2 if sizes[c] >= 4 else 1
        scored = sorted(((used / sizes[c] * math.log(n / df[s]), s) for s, used in counts.items() if used >= min_papers),
                        key=lambda pair: (-pair[0], pair[1]))
        terms: list[str] = []
        for _, s in scored:
            word = surface[s].most_common(1)[0][0]
            if word.rstrip("s") not in {t.rstrip("s") for t in terms}:
                terms.append(word)
            if len(terms) == n_terms:
                break
        out.append(MapCluster(id=c, label=", ".join(terms) or "misc", terms=terms, size=sizes[c]))
    return out


# -- building and caching ----------------------------------------------------------------------------
@dataclass
class _Entry:
    chunk: str
    paper_id: str
    title: str
    venue: str
    content_hash: str


def _entries(store: PaperStore) -> list[_Entry]:
    """Every committed paper once (metadata only), sorted by id."""
    found: dict[str, _Entry] = {}
    for cid, _, meta in store.iter_chunks(["metadatas"], {"kind": "paper"}):
        pid = str(meta["paper_id"])
        found.setdefault(pid, _Entry(cid, pid, str(meta.get("title", "")), str(meta.get("venue", "")), str(meta.get("paper_hash", ""))))
    return [found[pid] for pid in sorted(found)]


def content_key(store: PaperStore, entries: list[_Entry]) -> str:
    """What the map depends on: the papers and their versions, the embedding model, the algorithm."""
    settings = store.settings
    digest = hashlib.sha256(f"{MAP_VERSION}|{settings.embedding_model}|{settings.embedding_precision}|{settings.paper_vector}".encode())
    for e in entries:
        digest.update(f"\n{e.paper_id}\t{e.content_hash}".encode())
    return digest.hexdigest()[:24]


def build(store: PaperStore, entries: list[_Entry], key: str) -> PaperMap:
    """Compute the map of ``entries`` from their stored embeddings (papers replaced meanwhile are left out)."""
    started = time.perf_counter()
    chunks = {cid: (doc, vector) for cid, doc, _, vector in store.paper_chunks()}
    vectors = {cid: vector for cid, (_, vector) in chunks.items()}
    documents = {cid: doc for cid, (doc, _) in chunks.items()}
    entries = [e for e in entries if e.chunk in vectors]
    if not entries:
        return PaperMap(method="none", key=key)
    matrix = np.vstack([vectors[e.chunk] for e in entries])
    xy, method = project(matrix)
    assignment = clusters_of(xy)
    clusters = label_clusters([f"{e.title}\n{documents.get(e.chunk, '')}" for e in entries], assignment)
    points = [MapPoint(paper_id=e.paper_id, title=e.title, venue=e.venue, x=round(float(x), 4), y=round(float(y), 4), cluster=int(c))
              for e, (x, y), c in zip(entries, xy.tolist(), assignment.tolist())]
    return PaperMap(points=points, clusters=clusters, method=method, key=key, seconds=round(time.perf_counter() - started, 3))


class PaperMapCache:
    """One ``PaperMap`` per store content: in memory per store generation, and on disk across restarts."""

    def __init__(self, store: PaperStore) -> None:
        self.store = store
        where = hashlib.sha256(f"{store.location}|{store.settings.collection}".encode()).hexdigest()[:16]
        self.root = store.settings.cache_dir / "paper_map" / where
        self._lock = threading.Lock()
        self._generation: str | None = None
        self._map: PaperMap | None = None

    def get(self) -> PaperMap:
        """The map of the store's papers (loaded or computed when the store changed)."""
        generation = self.store.generation
        with self._lock:
            if self._map is None or generation != self._generation:
                known = self._known_key(generation)  # a restart at the same generation: no need to read the papers' metadata
                if known is not None and (self._map is None or self._map.key != known):
                    self._map = self._load(known)
                if self._map is None or self._map.key != known:
                    entries = _entries(self.store)
                    key = content_key(self.store, entries)
                    if self._map is None or self._map.key != key:
                        self._map = self._load(key) or self._compute(entries, key)
                    self._write(self.root / "generation.json", json.dumps({"generation": generation, "key": self._map.key}))
                self._generation = generation
            return self._map

    def _path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _known_key(self, generation: str) -> str | None:
        """The content key recorded for this store generation (every write changes the generation)."""
        try:
            recorded = json.loads((self.root / "generation.json").read_text(encoding="utf-8"))
            return str(recorded["key"]) if generation and recorded.get("generation") == generation else None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def _load(self, key: str) -> PaperMap | None:
        try:
            loaded = PaperMap.model_validate_json(self._path(key).read_bytes())
        except (OSError, ValueError, ValidationError):
            return None
        return loaded if loaded.key == key else None

    def _compute(self, entries: list[_Entry], key: str) -> PaperMap:
        paper_map = build(self.store, entries, key)
        if len(paper_map.points) == len(entries):  # complete: keep it (a paper replaced meanwhile means another key)
            self._save(paper_map)
        return paper_map

    def _save(self, paper_map: PaperMap) -> None:
        if self._write(self._path(paper_map.key), paper_map.model_dump_json()):
            for old in self.root.glob("*.json"):  # keep only the current content's map
                if old.name not in (self._path(paper_map.key).name, "generation.json"):
                    old.unlink(missing_ok=True)

    def _write(self, path: Path, text: str) -> bool:
        """Write ``text`` to ``path`` atomically (a temp file renamed); False if the cache is not writable."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".part")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
            return True
        except OSError:
            return False  # a read-only cache only costs a recomputation after a restart

