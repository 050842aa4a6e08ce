"""The paper map on real stores (seed + ICML 2024 papers, the packaged model, embedded Chroma): every paper once,
labelled clusters, neighbours kept, cached in memory and on disk, recomputed after an ingest."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import assistant.paper_map as paper_map_module
from assistant import Assistant, PaperMap
from assistant.paper_map import cluster_count, knn, label_clusters, project
from conftest import make_settings
from vectorstore.settings import Settings

ICML2024 = range(40)


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def mapped(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Settings:
    """The 19 seed papers and 40 ICML 2024 papers (built once, left unchanged)."""
    from ingest import ingest

    folder = tmp_path_factory.mktemp("map")
    icml2024 = _lines(shared / "data" / "icml2024_abstracts" / "papers.jsonl")
    lines = _lines(shared / "data" / "icml2025_seed" / "papers.jsonl") + [icml2024[i] for i in ICML2024]
    path = folder / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = make_settings("embedded", folder, request, "map")
    assert ingest([path], settings, progress=False).added == len(lines)
    return settings


@pytest.fixture(scope="module")
def assistant(mapped: Settings) -> Assistant:
    return Assistant(mapped, engine="extractive", auto_ingest=False)


def test_every_paper_once_in_labelled_clusters(assistant: Assistant) -> None:
    result = assistant.paper_map()
    ids = [p.paper_id for p in result.points]
    stored = {p.id: p for p in assistant.store.papers()}
    assert len(ids) == len(set(ids)) == len(stored) == 59
    assert set(ids) == set(stored)
    assert result.method == "umap" and result.key and result.seconds > 0
    for point in result.points:
        assert np.isfinite([point.x, point.y]).all()
        assert point.title == stored[point.paper_id].title and point.venue == stored[point.paper_id].venue
    assert len(result.clusters) == cluster_count(59) == 3
    assert [c.id for c in result.clusters] == [0, 1, 2]
    assert sum(c.size for c in result.clusters) == 59
    assert [c.size for c in result.clusters] == sorted((c.size for c in result.clusters), reverse=True)
    for cluster in result.clusters:
        assert cluster.size == sum(p.cluster == cluster.id for p in result.points)
        assert len(cluster.terms) == 3 and cluster.label == ", ".join(cluster.terms)
        assert not {"the", "propose", "paper", "method", "results"} & set(cluster.terms)
    assert len({c.label for c in result.clusters}) == 3


def test_the_map_keeps_embedding_neighbours_close(assistant: Assistant) -> None:
    """A paper's most similar paper (cosine of the stored embeddings) is among its 8 nearest points on the map."""
    result = assistant.paper_map()
    xy = np.array([[p.x, p.y] for p in result.points])
    index = {p.paper_id: i for i, p in enumerate(result.points)}
    kept = 0
    for point in result.points:
        nearest = assistant.related(point.paper_id, 1)[0].paper_id
        distances = np.linalg.norm(xy - xy[index[point.paper_id]], axis=1)
        kept += index[nearest] in np.argsort(distances)[1:9]
    assert kept / len(result.points) >= 0.7, kept


def test_second_call_and_a_restart_use_the_cache(assistant: Assistant, mapped: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    first = assistant.paper_map()
    monkeypatch.setattr(paper_map_module, "build", lambda *a, **k: pytest.fail("recomputed"))
    assert assistant.paper_map() is first  # memory, same store generation
    files = sorted(f.name for f in (mapped.cache_dir / "paper_map").rglob("*.json"))
    assert files == [f"{first.key}.json", "generation.json"]
    monkeypatch.setattr(paper_map_module, "_entries", lambda *a, **k: pytest.fail("read every paper's metadata"))
    restarted = Assistant(mapped, engine="extractive", auto_ingest=False).paper_map()  # a new process: the file
    assert restarted == first


def test_an_ingest_invalidates_the_map(request: pytest.FixtureRequest, tmp_path: Path, seed_jsonl: Path) -> None:
    lines = _lines(seed_jsonl)
    first_file, more_file = tmp_path / "first.jsonl", tmp_path / "more.jsonl"
    first_file.write_text("\n".join(lines[:9]) + "\n", encoding="utf-8")
    more_file.write_text("\n".join(lines[9:12]) + "\n", encoding="utf-8")
    settings = make_settings("embedded", tmp_path / "store", request, "remap")
    one = Assistant(settings, engine="extractive", auto_ingest=False)
    one.add_papers([first_file])
    before = one.paper_map()
    assert len(before.points) == 9 and before.method == "umap"
    one.add_papers([more_file])
    after = one.paper_map()
    new_ids = {json.loads(line)["id"] for line in lines[9:12]}
    assert len(after.points) == 12 and new_ids <= {p.paper_id for p in after.points}
    assert after.key != before.key
    assert Assistant(settings, engine="extractive", auto_ingest=False).paper_map().key == after.key  # the file is the new map
    assert sorted(f.name for f in (settings.cache_dir / "paper_map").rglob("*.json")) == [f"{after.key}.json", "generation.json"]


# -- the parts, on synthetic input ----------------------------------------------------------------------------
def test_labels_are_the_clusters_distinctive_words() -> None:
    texts = ([f"Diffusion for image generation {i}. We propose a new method, with results." for i in range(5)]
             + [f"Regret bounds for the bandit {i}. We propose a new method, with results." for i in range(5)])
    clusters = label_clusters(texts, np.array([0] * 5 + [1] * 5))
    assert {"diffusion", "image", "generation"} == set(clusters[0].terms)
    assert {"regret", "bounds", "bandit"} == set(clusters[1].terms)  # "propose", "method", "new": in every paper or generic
    assert [c.size for c in clusters] == [5, 5]


def test_knn_puts_each_point_first_and_sorts_neighbours() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(30, 8)).astype(np.float32)
    vectors[1] = vectors[0]  # an exact duplicate must not take its twin's first place
    indices, distances = knn(vectors, 5)
    assert (indices[:, 0] == np.arange(30)).all() and (distances[:, 0] == 0).all()
    assert indices[0, 1] == 1 and distances[0, 1] == pytest.approx(0, abs=1e-6)
    assert (np.diff(distances[:, 1:], axis=1) >= -1e-6).all()
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    assert distances[5, 2] == pytest.approx(1 - float(unit[5] @ unit[indices[5, 2]]), abs=1e-5)


def test_tiny_stores_are_placed_without_umap() -> None:
    assert project(np.zeros((0, 4), dtype=np.float32))[1] == "none"
    xy, method = project(np.eye(3, 4, dtype=np.float32))
    assert method == "pca" and xy.shape == (3, 2) and len({tuple(p) for p in xy.round(6).tolist()}) == 3
    assert cluster_count(0) == 0 and cluster_count(3) == 1 and cluster_count(59) == 3 and cluster_count(4378) == 16
    assert PaperMap().points == []
