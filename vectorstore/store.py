"""The paper store: Chroma (embedded or server) holding one paper chunk and its sentence chunks per paper.

Write protocol (crash safe, see ``ingest.pipeline``): chunk ids carry the paper's content hash;
a paper's sentence chunks are written before its paper chunk, so the paper chunk commits that
version. Readers only see papers whose paper chunk exists; a re-run removes the rest.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, Collection, Iterator

import numpy as np

from vectorstore.errors import ModelMismatchError, StoreError
from vectorstore.settings import Settings

SCHEMA = "paperchat/1"
CHUNKING = "paper+sentences/v1"
PAGE = 5000
# what stores written before a choice was recorded in the collection metadata hold
LEGACY = {"embedding_precision": "fp32", "paper_vector": "encode"}
COUNT_TTL = 1.0  # seconds a chunk count is reused while the generation is unchanged (see state_key)


def _unit_rows(ids: list[str], embeddings: Any) -> tuple[list[str], np.ndarray]:
    if not ids:
        return [], np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(embeddings, dtype=np.float32)
    return ids, vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def nearest_rows(ids: list[str], vectors: np.ndarray, query: np.ndarray, n: int) -> list[tuple[str, float]]:
    """The ``n`` rows most cosine-similar to ``query`` (rows already unit length), as (id, similarity), best first."""
    if not ids:
        return []
    sims = vectors @ (query / max(float(np.linalg.norm(query)), 1e-12))
    top = np.argpartition(-sims, min(n, len(ids)) - 1)[:n] if n < len(ids) else np.arange(len(ids))
    top = top[np.argsort(-sims[top], kind="stable")]
    return [(ids[i], float(sims[i])) for i in top]


@dataclass(frozen=True)
class StoredPaper:
    """A complete paper as stored (its paper chunk)."""

    id: str
    title: str
    abstract: str
    authors: list[str]
    url: str
    venue: str
    title_derived: bool
    content_hash: str
    extra: dict[str, Any]

    @classmethod
    def from_chunk(cls, document: str, meta: dict[str, Any]) -> "StoredPaper":
        extra = json.loads(str(meta.get("extra") or "{}"))
        return cls(
            id=str(meta["paper_id"]), title=str(meta.get("title", "")), abstract=document,
            authors=[a for a in str(meta.get("authors", "")).split("; ") if a],
            url=str(meta.get("url", "")), venue=str(meta.get("venue", "")),
            title_derived=bool(meta.get("title_derived", False)), content_hash=str(meta.get("paper_hash", "")),
            extra=extra,
        )


def chunk_id(paper_id: str, content_hash: str, index: int) -> str:
    """Id of chunk ``index`` of one version of a paper (index 0 is the paper chunk, which commits the version)."""
    return f"{paper_id}::{content_hash}::{index}"


def split_chunk_id(cid: str) -> tuple[str, str, int]:
    """Inverse of ``chunk_id``: (paper id, content hash, index)."""
    paper_id, content_hash, index = cid.rsplit("::", 2)
    return paper_id, content_hash, int(index)


def _client(settings: Settings) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_url:
        from urllib.parse import urlparse

        url = urlparse(settings.chroma_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise StoreError(f"--chroma-url {settings.chroma_url!r} is not a URL; use http://HOST:PORT")
        try:
            client = chromadb.HttpClient(
                host=url.hostname, port=url.port or (443 if url.scheme == "https" else 8000),
                ssl=url.scheme == "https", settings=chroma_settings,
            )
            client.heartbeat()
        except Exception as exc:  # connection refused, DNS, TLS ...
            raise StoreError(
                f"Chroma server at {settings.chroma_url} is unreachable ({exc.__class__.__name__}); "
                "start it with `chroma run --path DIR --host 127.0.0.1 --port PORT` or drop --chroma-url"
            ) from None
        return client
    path = settings.chroma_dir
    if path.exists() and not path.is_dir():
        raise StoreError(f"data directory {path} is not a directory; remove it or set --persist-dir elsewhere")
    try:
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except Exception as exc:
        raise StoreError(
            f"cannot open the store in {path} ({exc.__class__.__name__}: {str(exc)[:120]}); "
            f"if it is corrupted, move it away and rebuild with `paperchat ingest FILE --persist-dir {settings.data_dir}`"
        ) from None


class PaperStore:
    """One Chroma collection of papers, opened from ``Settings`` (embedded or server)."""

    def __init__(self, settings: Settings) -> None:
        self.client = _client(settings)
        self.location = settings.chroma_url or str(settings.chroma_dir)
        if "auto" in (settings.embedding_precision, settings.paper_vector):
            settings = settings.with_overrides(**self._stored_choices(settings))
        self.settings = settings  # precision and paper vectors resolved: encode queries and new chunks with ``store.settings``
        self._expected = {"embedding_model": settings.embedding_model, "chunking": CHUNKING,
                          "embedding_precision": settings.embedding_precision, "paper_vector": settings.paper_vector}
        self._collection = self._open()
        self._last_generation: str | None = None  # the generation this object set last (see bump_generation)
        self._counted: tuple[str | None, int, float] = (None, 0, 0.0)  # (generation, chunk count, when read): see state_key

    # -- collection lifecycle -------------------------------------------------------------
    def _open(self) -> Any:
        try:
            collection = self.client.get_or_create_collection(
                self.settings.collection,
                embedding_function=None,
                metadata={"schema": SCHEMA, **self._expected, "embedding_backend": self._backend_label(),
                          "generation": (token := uuid.uuid4().hex), "committed": token},
                configuration={"hnsw": {"space": "cosine"}},
            )
        except Exception as exc:
            raise StoreError(self._unusable(exc)) from None
        meta = collection.metadata or {}
        for key, want in self._expected.items():
            # stores written before a choice was recorded hold its old value (LEGACY)
            have = meta.get(key, LEGACY.get(key) if "embedding_model" in meta else None)
            if have is not None and have != want:
                also = f", or set PAPERCHAT_{key.upper()}={have} to use it" if key in LEGACY else ""
                raise ModelMismatchError(
                    f"collection {self.settings.collection!r} in {self.location} was indexed with {key} {have!r}, not {want!r}; "
                    f"re-index with `paperchat ingest --reset FILE...` or choose another --collection{also}"
                )
        return collection

    def _stored_choices(self, settings: Settings) -> dict[str, str]:
        """The ``auto`` choices resolved: the existing collection's precision and paper vectors, else a new store's
        (``new_store_precision``; embedded paper chunks)."""
        from vectorstore.embeddings import new_store_precision

        try:
            meta = self.client.get_collection(settings.collection).metadata or {}
        except Exception:  # no such collection (an unreachable server fails just below, with its own message)
            meta = {}
        out = {}
        for key in LEGACY:
            if getattr(settings, key) != "auto":
                continue
            if key in meta:
                out[key] = str(meta[key])
            elif key == "embedding_precision" and "embedding_model" not in meta:  # a new store
                out[key] = new_store_precision(settings.embedding_model, settings.embedding_backend)
            else:  # written before the choice was recorded; or a new store's paper vectors (``mean`` is opt-in: README)
                out[key] = LEGACY[key]
        return out

    def _backend_label(self) -> str:
        """What writes this store's vectors (recorded for information; the precision is what is checked:
        torch and ONNX fp32 vectors match, cosine >= 0.9999, so either reads a store the other wrote)."""
        from vectorstore.embeddings import bf16_batches, resolve_backend

        settings = self.settings
        try:
            backend = resolve_backend(self._expected["embedding_model"], settings.embedding_backend, settings.embedding_precision)
            bf16 = bf16_batches(settings.embedding_bf16, settings.embedding_precision)
        except StoreError:
            backend, bf16 = settings.embedding_backend, False
        return ("torch" if backend == "torch" else f"onnx-{settings.embedding_precision}") + (" +torch-bf16 batches" if bf16 else "")

    def _unusable(self, exc: Exception) -> str:
        if "Error finding id" in str(exc):
            return (f"the store in {self.location} was changed by another process; restart this one "
                    "(or share one `chroma run` server via --chroma-url when several processes write)")
        if self.settings.chroma_url:
            return (f"Chroma server at {self.settings.chroma_url} failed ({exc.__class__.__name__}: {str(exc)[:120]}); "
                    "check that it is running (`chroma run --host 127.0.0.1 --port PORT`)")
        return (f"store in {self.settings.chroma_dir} is unreadable ({exc.__class__.__name__}: {str(exc)[:120]}); "
                f"move it away and rebuild with `paperchat ingest FILE --persist-dir {self.settings.data_dir}`")

    def _call(self, fn: str, *args: Any, **kwargs: Any) -> Any:
        """Run a collection method, turning backend failures into one-line ``StoreError``s."""
        try:
            return getattr(self._collection, fn)(*args, **kwargs)
        except Exception as exc:
            if "does not exist" in str(exc) or "NotFound" in exc.__class__.__name__:
                try:  # the collection was re-created (e.g. --reset by another process): reopen once
                    self._collection = self._open()
                    return getattr(self._collection, fn)(*args, **kwargs)
                except Exception:
                    pass
            raise StoreError(self._unusable(exc)) from None

    def reset(self) -> None:
        """Delete the collection and create it empty."""
        try:
            self.client.delete_collection(self.settings.collection)
        except Exception:
            pass
        self._collection = self._open()

    # -- generation: changes whenever the set of chunks may have changed ---------------------
    @property
    def generation(self) -> str:
        """Token that changes on every write; the keyword index is rebuilt when it differs."""
        try:
            collection = self.client.get_collection(self.settings.collection, embedding_function=None)
        except Exception as exc:
            raise StoreError(self._unusable(exc)) from None
        self._collection = collection
        return str((collection.metadata or {}).get("generation", ""))

    @property
    def state_key(self) -> str:
        """The generation and the chunk count: what derived indexes (BM25) are keyed by.

        Every write changes the generation after it, but a writer killed between its write and that
        change (or two writers' metadata updates crossing on one server) leaves the generation as it
        was; the count changes with any such write (chunk ids carry the content hash, so a write adds or
        removes ids), so an index built before it is never taken for the current one. The count is re-read
        when the generation changes and otherwise at most every ``COUNT_TTL`` seconds (it costs several ms).
        """
        generation = self.generation
        seen_generation, count, at = self._counted
        if generation != seen_generation or time.monotonic() - at > COUNT_TTL:
            # Chroma's count costs several ms per search; a crashed writer's change is noticed within COUNT_TTL
            count = self.count()
            self._counted = (generation, count, time.monotonic())
        return f"{generation}-{count}"

    def bump_generation(self, commit: bool = False) -> None:
        """Change the generation token; ``commit=True`` also marks the store as consistent again.

        Compare-and-set against other writers (several processes on one ``chroma run`` server): the
        store is marked consistent only if the generation is still the one this writer set last, so
        when another writer wrote in between, the store stays dirty and the next ingest bumps again.
        """
        current = self.generation  # re-reads the metadata another writer may have changed
        meta = dict(self._collection.metadata or {})
        meta["generation"] = uuid.uuid4().hex
        if commit and (self._last_generation is None or current == self._last_generation):
            meta["committed"] = meta["generation"]
        meta.pop("hnsw:space", None)
        self._call("modify", metadata=meta)
        self._last_generation = meta["generation"]

    def marker(self, key: str) -> str | None:
        """A value recorded in the collection's metadata with ``set_marker`` (read fresh), or None."""
        _ = self.generation  # re-reads the collection and its metadata
        value = (self._collection.metadata or {}).get(key)
        return None if value is None else str(value)

    def set_marker(self, key: str, value: str) -> None:
        """Record ``key: value`` in the collection's metadata (e.g. that the bundled corpus is being ingested)."""
        _ = self.generation
        meta = dict(self._collection.metadata or {})
        meta[key] = value
        meta.pop("hnsw:space", None)
        self._call("modify", metadata=meta)
        _ = self.generation

    @property
    def dirty(self) -> bool:
        """True when an ingest stopped between its first and last write (a re-run must bump again)."""
        meta = self._collection.metadata or {}
        return "committed" in meta and meta.get("committed") != meta.get("generation") or (
            "committed" not in meta and self.count() > 0)

    # -- reads ------------------------------------------------------------------------------
    def count(self) -> int:
        """Number of chunks (paper and sentence chunks)."""
        return int(self._call("count"))

    def paper_count(self) -> int:
        """Number of complete papers."""
        return sum(1 for _ in self.iter_chunks([], {"kind": "paper"}))

    def _pages(self, include: list[str], where: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
        """Chroma ``get`` results for every matching chunk, ``PAGE`` chunks at a time."""
        offset = 0
        while True:
            page = self._call("get", where=where, include=include, limit=PAGE, offset=offset)
            yield page
            if len(page["ids"]) < PAGE:
                return
            offset += PAGE

    def iter_chunks(self, include: list[str], where: dict[str, Any] | None = None) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
        """(id, document, metadata) for every chunk, paged."""
        for page in self._pages(include, where):
            ids = page["ids"]
            yield from zip(ids, page.get("documents") or [None] * len(ids), page.get("metadatas") or [{}] * len(ids))

    def paper_chunks(self) -> Iterator[tuple[str, str, dict[str, Any], np.ndarray]]:
        """(id, document, metadata, stored float32 vector) of every paper chunk, paged, in one read: what the
        keyword index and the paper map are built from (nothing is re-embedded)."""
        for page in self._pages(["documents", "metadatas", "embeddings"], {"kind": "paper"}):
            for cid, doc, meta, vector in zip(page["ids"], page["documents"], page["metadatas"], page["embeddings"]):
                yield cid, doc or "", meta, np.asarray(vector, dtype=np.float32)

    def papers(self) -> list[StoredPaper]:
        """Every complete paper (paper chunks only)."""
        return [StoredPaper.from_chunk(doc or "", meta) for _, doc, meta in self.iter_chunks(["documents", "metadatas"], {"kind": "paper"})]

    def paper(self, paper_id: str) -> StoredPaper | None:
        page = self._call("get", where={"$and": [{"paper_id": paper_id}, {"kind": "paper"}]}, include=["documents", "metadatas"])
        if not page["ids"]:
            return None
        return StoredPaper.from_chunk(page["documents"][0], page["metadatas"][0])

    def nearest_ids(self, embedding: list[float], n: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """Nearest chunk ids with cosine similarity, without documents or metadata (the fast path); ``where`` filters chunks."""
        result = self._call("query", query_embeddings=[embedding], n_results=n, include=["distances"], where=where)
        return [(i, 1.0 - float(dist)) for i, dist in zip(result["ids"][0], result["distances"][0])]

    def vectors_among(self, paper_ids: Collection[str]) -> tuple[list[str], np.ndarray]:
        """The chunk ids of the given papers (all chunks, all stored versions) and their unit-length vectors, one row each."""
        page = self._call("get", where={"paper_id": {"$in": sorted(paper_ids)}}, include=["embeddings"])
        return _unit_rows(list(page["ids"]), page["embeddings"])

    def all_vectors(self) -> tuple[list[str], np.ndarray]:
        """Every chunk id and its unit-length vector, one row each (paged)."""
        ids: list[str] = []
        rows: list[Any] = []
        for page in self._pages(["embeddings"], None):
            ids.extend(page["ids"])
            rows.extend(page["embeddings"])
        return _unit_rows(ids, rows)

    def chunks(self, ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
        """(document, metadata) of the given chunk ids that exist."""
        if not ids:
            return {}
        page = self._call("get", ids=list(dict.fromkeys(ids)), include=["documents", "metadatas"])
        return {i: (d, m) for i, d, m in zip(page["ids"], page["documents"], page["metadatas"])}

    def chunk_embeddings(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored embedding (float32 vector) of each given chunk id that exists."""
        if not ids:
            return {}
        page = self._call("get", ids=ids, include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(page["ids"], page["embeddings"])}

    def sentences_of(self, paper_ids: list[str]) -> list[tuple[str, dict[str, Any], np.ndarray]]:
        """(document, metadata, stored embedding) of every sentence chunk of the given papers, all versions."""
        if not paper_ids:
            return []
        page = self._call("get", where={"$and": [{"paper_id": {"$in": list(paper_ids)}}, {"kind": "sentence"}]}, include=["documents", "metadatas", "embeddings"])
        return [(d, m, np.asarray(e, dtype=np.float32)) for d, m, e in zip(page["documents"], page["metadatas"], page["embeddings"])]

    # -- writes -----------------------------------------------------------------------------
    def add(self, ids: list[str], embeddings: Any, documents: list[str], metadatas: list[dict[str, Any]]) -> None:
        """Write chunks, then change the generation: the last change always follows the last write, whoever wrote."""
        if ids:
            self._call("upsert", ids=ids, embeddings=embeddings, documents=documents, metadatas=metadatas)
            self.bump_generation()

    def delete(self, ids: list[str]) -> None:
        for start in range(0, len(ids), PAGE):
            self._call("delete", ids=ids[start : start + PAGE])
        if ids:
            self.bump_generation()
