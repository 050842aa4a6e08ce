"""Related papers: the nearest paper chunks to a paper's own paper-chunk embedding."""

from __future__ import annotations

from assistant.filters import fold
from assistant.types import Hit
from vectorstore.errors import InputError
from vectorstore.store import PaperStore, StoredPaper, chunk_id, split_chunk_id


def related(store: PaperStore, paper_id: str, k: int, allowed: set[str] | None = None) -> list[Hit]:
    """The ``k`` papers nearest to ``paper_id`` (title + abstract embedding), best first.

    Excludes the paper itself and other versions of it (another id with the same title, e.g. the
    same paper ingested from two lists). An unknown id raises ``InputError``.
    """
    if k < 1:
        raise InputError(f"k must be at least 1 (got {k})", "ask for 1 or more related papers")
    paper = store.paper(paper_id)
    if paper is None:
        raise InputError(f"no paper with id {paper_id!r}", "find ids with `paperchat search QUERY`")
    own = chunk_id(paper.id, paper.content_hash, 0)
    vector = store.chunk_embeddings([own]).get(own)
    if vector is None:  # replaced by a concurrent ingest
        raise InputError(f"paper {paper_id!r} changed while reading it", "try again")
    where: dict[str, object] = {"kind": "paper"}
    if allowed is not None:
        where = {"$and": [where, {"paper_id": {"$in": sorted(allowed)}}]}
    title = fold(paper.title)
    n = k + 5
    while True:
        nearest = store.nearest_ids(vector.tolist(), n=n, where=where)
        chunks = store.chunks([cid for cid, _ in nearest])
        hits: list[Hit] = []
        seen = {paper.id}
        for cid, sim in nearest:
            pid = split_chunk_id(cid)[0]
            if pid in seen or cid not in chunks:
                continue
            other = StoredPaper.from_chunk(*chunks[cid])
            if not paper.title_derived and fold(other.title) == title:  # another version of the same paper
                continue
            seen.add(pid)
            hits.append(Hit(paper_id=pid, title=other.title, url=other.url, authors=other.authors, venue=other.venue,
                            content_hash=other.content_hash, score=sim, dense=sim))
        if len(hits) >= k or len(nearest) < n:
            return hits[:k]
        n *= 2
