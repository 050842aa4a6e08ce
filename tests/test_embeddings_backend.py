"""The embedding backend: choice from the settings, the cached ONNX export, fp32 ONNX = torch vectors,
and the collection metadata check that lets torch and ONNX fp32 share a store but refuses int8 <-> fp32.

Real model and real Chroma throughout; the ONNX exports are made once per session into a shared cache.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from vectorstore import ModelMismatchError, PaperStore, Settings, StoreError
from vectorstore import embeddings as emb
from vectorstore import onnx_backend

MODEL = "all-MiniLM-L6-v2"


@pytest.fixture(scope="session")
def onnx_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir whose cache/onnx holds the exports for the whole session."""
    return tmp_path_factory.mktemp("onnx-data")


@pytest.fixture(scope="session")
def sample_texts(shared: Path) -> list[str]:
    """A fixed sample: every chunk paperchat embeds for the 19 seed papers plus 40 ICML 2024 papers."""
    from ingest import load_papers
    from ingest.pipeline import chunk_records

    papers, _ = load_papers([shared / "data" / "icml2025_seed" / "papers.jsonl"])
    more, _ = load_papers([shared / "data" / "icml2024_abstracts" / "papers.jsonl"])
    return [text for paper in [*papers, *more[:40]] for _, text, _, _ in chunk_records(paper)]


@pytest.fixture(scope="session")
def vectors(onnx_data_dir: Path, sample_texts: list[str]) -> dict[str, np.ndarray]:
    out = {}
    for backend, precision in (("torch", "fp32"), ("onnx", "fp32"), ("onnx", "int8")):
        embedder = emb.Embedder(MODEL, 64, backend=backend, precision=precision, data_dir=onnx_data_dir, bf16="off")
        out[embedder.label] = embedder.encode(sample_texts)
    return out


# ------------------------------------------------------------------ backend choice


def test_backend_follows_the_setting(onnx_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert emb.Embedder(MODEL, backend="torch", precision="fp32", data_dir=onnx_data_dir).backend == "torch"
    assert emb.Embedder(MODEL, backend="onnx", precision="fp32", data_dir=onnx_data_dir).backend == "onnx"
    assert emb.Embedder(MODEL, backend="auto", precision="fp32", data_dir=onnx_data_dir).backend == "onnx"
    # from the environment, as the CLI and `paperchat serve` read it
    monkeypatch.setenv("PAPERCHAT_EMBEDDING_BACKEND", "torch")
    assert emb.Embedder.from_settings(Settings()).backend == "torch"
    assert emb.Embedder(MODEL).backend == "torch"
    monkeypatch.setenv("PAPERCHAT_EMBEDDING_BACKEND", "onnx")
    monkeypatch.setenv("PAPERCHAT_EMBEDDING_PRECISION", "int8")
    embedder = emb.Embedder.from_settings(Settings())
    assert (embedder.backend, embedder.precision, embedder.label) == ("onnx", "int8", "onnx-int8")
    # the export cache: PAPERCHAT_ONNX_CACHE_DIR if set (the tests share one), else inside the data directory
    monkeypatch.delenv("PAPERCHAT_ONNX_CACHE_DIR", raising=False)
    assert emb.Embedder(MODEL, data_dir=onnx_data_dir).cache_root == str(onnx_data_dir / "cache" / "onnx")


def test_auto_falls_back_to_torch_without_onnxruntime(onnx_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_backend, "runtime_available", lambda: False)
    assert emb.Embedder(MODEL, backend="auto", precision="fp32", data_dir=onnx_data_dir).backend == "torch"
    for backend, precision in (("onnx", "fp32"), ("auto", "int8")):
        with pytest.raises(StoreError) as err:
            emb.Embedder(MODEL, backend=backend, precision=precision, data_dir=onnx_data_dir)
        message = str(err.value)
        assert "\n" not in message and "pip install onnxruntime onnx" in message and "PAPERCHAT_EMBEDDING_BACKEND=torch" in message


def test_int8_needs_onnx_and_unsupported_models_fall_back(onnx_data_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="PAPERCHAT_EMBEDDING_PRECISION=fp32"):
        emb.Embedder(MODEL, backend="torch", precision="int8", data_dir=onnx_data_dir)
    # a model folder the ONNX path does not handle (an extra Dense module): auto keeps torch
    folder = tmp_path / "model"
    shutil.copytree(emb.embedding_model_path(MODEL), folder, ignore=shutil.ignore_patterns("*.safetensors"))
    (folder / "model.safetensors").write_bytes(b"")
    modules = json.loads((folder / "modules.json").read_text())
    (folder / "modules.json").write_text(json.dumps([*modules, {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}]))
    assert "Dense" in (onnx_backend.unsupported_reason(folder) or "")
    assert emb.resolve_backend(str(folder), "auto", "fp32") == "torch"


# ------------------------------------------------------------------ the export cache


def test_export_is_cached_by_weights_checksum(onnx_data_dir: Path, vectors: dict[str, np.ndarray]) -> None:
    cache = Settings(data_dir=onnx_data_dir).onnx_cache  # the session's shared cache (conftest), else DATA_DIR/cache/onnx
    folders = sorted(p for p in cache.glob("*/*") if p.is_dir())
    assert [p.name for p in folders] == [f"fp32-v{onnx_backend.RECIPE}", f"int8-v{onnx_backend.RECIPE}"], folders
    assert not list(cache.glob("*/.tmp-*")), "an export left its temporary folder behind"
    info = json.loads((folders[0] / "export.json").read_text())
    weights = Path(emb.embedding_model_path(MODEL)) / "model.safetensors"
    import hashlib

    assert info["weights_sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    assert folders[0].parent.name == info["weights_sha256"][:32]
    mtimes = {p: (p / "model.onnx").stat().st_mtime_ns for p in folders}
    exports = onnx_backend.EXPORTS
    emb._load.cache_clear()  # a new process would start here
    for precision in ("fp32", "int8"):
        emb.Embedder(MODEL, backend="onnx", precision=precision, data_dir=onnx_data_dir).encode(["cached?"])
    assert onnx_backend.EXPORTS == exports, "a second load exported again"
    assert {p: (p / "model.onnx").stat().st_mtime_ns for p in folders} == mtimes


def test_int8_export_into_an_empty_cache_exports_fp32_first(tmp_path: Path, sample_texts: list[str]) -> None:
    """int8 is quantised from the fp32 export: into an empty cache it makes both (no deadlock on the export lock)."""
    embedder = emb.Embedder(MODEL, backend="onnx", precision="int8", cache_dir=tmp_path / "onnx", threads=0)
    assert embedder.encode(sample_texts[:3]).shape == (3, 384)
    assert sorted(p.name for p in (tmp_path / "onnx").glob("*/*")) == [f"fp32-v{onnx_backend.RECIPE}", f"int8-v{onnx_backend.RECIPE}"]


def test_export_publish_keeps_the_first_complete_export(tmp_path: Path) -> None:
    """Two processes exporting at once: the second rename finds the folder there and keeps it."""
    target = tmp_path / "fp32"
    first, second = tmp_path / ".tmp-a", tmp_path / ".tmp-b"
    for folder, text in ((first, "first"), (second, "second")):
        folder.mkdir()
        (folder / "model.onnx").write_text(text)
        (folder / "export.json").write_text("{}")
    onnx_backend._publish(first, target)
    onnx_backend._publish(second, target)
    assert (target / "model.onnx").read_text() == "first"
    # a half-written leftover (no export.json) is replaced
    (target / "export.json").unlink()
    third = tmp_path / ".tmp-c"
    third.mkdir(); (third / "model.onnx").write_text("third"); (third / "export.json").write_text("{}")
    onnx_backend._publish(third, target)
    assert (target / "model.onnx").read_text() == "third"


# ------------------------------------------------------------------ the vectors


def test_onnx_fp32_vectors_match_torch(vectors: dict[str, np.ndarray], sample_texts: list[str]) -> None:
    torch_v, onnx_v, int8_v = vectors["torch"], vectors["onnx-fp32"], vectors["onnx-int8"]
    assert torch_v.shape == onnx_v.shape == int8_v.shape == (len(sample_texts), 384)
    assert len(sample_texts) > 400
    cos = np.sum(torch_v * onnx_v, axis=1)
    assert cos.min() >= 0.9999, f"fp32 ONNX vs torch: min cosine {cos.min():.6f}"
    assert np.allclose(np.linalg.norm(onnx_v, axis=1), 1.0, atol=1e-5)
    # int8 is close but not interchangeable: that is why the store refuses to mix them
    cos8 = np.sum(torch_v * int8_v, axis=1)
    assert cos8.mean() > 0.99 and cos8.min() < 0.9999, (cos8.mean(), cos8.min())


def test_single_and_batched_onnx_encodes_agree(onnx_data_dir: Path, sample_texts: list[str]) -> None:
    embedder = emb.Embedder(MODEL, 64, backend="onnx", precision="fp32", data_dir=onnx_data_dir)
    batched = embedder.encode(sample_texts[:50])
    single = np.stack([embedder.encode([t])[0] for t in sample_texts[:50]])
    assert np.sum(batched * single, axis=1).min() >= 0.99999


def test_onnx_batches_are_cut_by_tokens(onnx_data_dir: Path, sample_texts: list[str],
                                       vectors: dict[str, np.ndarray]) -> None:
    """Ingest-sized encodes run longest first in batches of at most TOKEN_BUDGET padded tokens and batch_size
    texts (a longer text alone), and every vector lands on its own text's row."""
    embedder = emb.Embedder(MODEL, 64, backend="onnx", precision="fp32", data_dir=onnx_data_dir)
    encoder = embedder.model
    real, shapes = encoder.session, []

    class Spy:
        def run(self, names: object, feeds: dict[str, np.ndarray]) -> object:
            shapes.append(feeds["input_ids"].shape)
            return real.run(names, feeds)

    encoder.session = Spy()
    try:
        out = embedder.encode(sample_texts)
        encoder.token_budget = 10**9  # the old shape: batch_size texts, whatever their length
        wide = embedder.encode(sample_texts[:128])
    finally:
        encoder.session, encoder.token_budget = real, onnx_backend.TOKEN_BUDGET
    budgeted, old = shapes[:-2], shapes[-2:]
    assert sum(rows for rows, _ in budgeted) == len(sample_texts)
    assert all(rows * length <= onnx_backend.TOKEN_BUDGET or rows == 1 for rows, length in budgeted), budgeted
    assert [length for _, length in budgeted] == sorted((length for _, length in budgeted), reverse=True)
    assert max(rows for rows, _ in budgeted) > 4 and old == [(64, old[0][1]), (64, old[1][1])]
    assert np.sum(out * vectors["torch"], axis=1).min() >= 0.9999  # row i is text i's vector
    assert np.sum(wide * out[:128], axis=1).min() >= 0.99999


# ------------------------------------------------------------------ the store's metadata check


def _store_settings(data_dir: Path, collection: str, backend: str, precision: str) -> Settings:
    """Full precision throughout (no bf16 batches) unless a test turns them on."""
    return Settings(data_dir=data_dir, collection=collection, embedding_backend=backend, embedding_precision=precision,
                    embedding_bf16="off", engine="extractive")


def test_store_written_by_torch_opens_with_onnx_fp32(onnx_data_dir: Path, seed_jsonl: Path) -> None:
    from assistant import Assistant
    from ingest import ingest

    written = _store_settings(onnx_data_dir, "torch-written", "torch", "fp32")
    assert ingest([seed_jsonl], written, progress=False).added == 19
    meta = PaperStore(written)._collection.metadata
    assert (meta["embedding_backend"], meta["embedding_precision"]) == ("torch", "fp32")
    reader = Assistant(written.with_overrides(embedding_backend="onnx"), auto_ingest=False)
    assert reader.embedder.label == "onnx-fp32"
    torch_reader = Assistant(written, auto_ingest=False)
    for question in ("What is Nester?", "type inference with neuro-symbolic language models"):
        assert [h.paper_id for h in reader.search(question, 5)] == [h.paper_id for h in torch_reader.search(question, 5)]
    # and ONNX fp32 may add to it (same precision): an unchanged re-ingest writes nothing
    assert ingest([seed_jsonl], reader.settings, progress=False).chunks_written == 0


@pytest.mark.parametrize(("writer", "reader"), [(("onnx", "int8"), ("torch", "fp32")), (("onnx", "int8"), ("onnx", "fp32")),
                                                (("torch", "fp32"), ("onnx", "int8"))])
def test_int8_and_fp32_stores_refuse_each_other(onnx_data_dir: Path, seed_jsonl: Path, writer: tuple[str, str],
                                                reader: tuple[str, str]) -> None:
    from ingest import ingest

    collection = f"mix-{writer[1]}-{reader[0]}-{reader[1]}"
    assert ingest([seed_jsonl], _store_settings(onnx_data_dir, collection, *writer), progress=False).added == 19
    with pytest.raises(ModelMismatchError) as err:
        PaperStore(_store_settings(onnx_data_dir, collection, *reader))
    message = str(err.value)
    assert "\n" not in message
    assert f"embedding_precision {writer[1]!r}, not {reader[1]!r}" in message
    assert "re-index with `paperchat ingest --reset FILE...`" in message
    assert f"PAPERCHAT_EMBEDDING_PRECISION={writer[1]}" in message


def test_store_from_before_the_precision_was_recorded(onnx_data_dir: Path) -> None:
    """A store written by an earlier paperchat (torch, no precision key): fp32 reads it, int8 is refused."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from vectorstore.store import CHUNKING, SCHEMA

    settings = _store_settings(onnx_data_dir, "legacy", "onnx", "fp32")
    client = chromadb.PersistentClient(path=str(settings.chroma_dir), settings=ChromaSettings(anonymized_telemetry=False))
    client.create_collection("legacy", metadata={"schema": SCHEMA, "embedding_model": MODEL, "chunking": CHUNKING,
                                                 "generation": "g", "committed": "g"}, configuration={"hnsw": {"space": "cosine"}})
    assert PaperStore(settings).count() == 0
    with pytest.raises(ModelMismatchError, match="embedding_precision 'fp32', not 'int8'"):
        PaperStore(settings.with_overrides(embedding_precision="int8"))


def test_auto_precision_follows_the_store(onnx_data_dir: Path, seed_jsonl: Path) -> None:
    """``embedding_precision=auto`` (the default): a new store gets int8 under ONNX and fp32 under torch (bf16 batches
    or not), and an existing store is read with its own precision, so upgrading paperchat never refuses a store it
    wrote."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from assistant import Assistant
    from ingest import ingest
    from vectorstore.store import CHUNKING, SCHEMA

    assert Settings().embedding_precision == "auto"
    new = PaperStore(_store_settings(onnx_data_dir, "auto-new", "auto", "auto").with_overrides(embedding_bf16="off"))
    assert new.settings.embedding_precision == "int8" and new._collection.metadata["embedding_precision"] == "int8"
    new_bf16 = PaperStore(_store_settings(onnx_data_dir, "auto-new-bf16", "auto", "auto").with_overrides(embedding_bf16="on"))
    assert new_bf16.settings.embedding_precision == "int8"  # bf16 batches do not change what a new store gets
    for bf16 in ("on", "off"):
        torch_store = _store_settings(onnx_data_dir, f"auto-torch-{bf16}", "torch", "auto").with_overrides(embedding_bf16=bf16)
        assert PaperStore(torch_store).settings.embedding_precision == "fp32"

    fp32 = _store_settings(onnx_data_dir, "auto-old-fp32", "onnx", "fp32")
    assert ingest([seed_jsonl], fp32, progress=False).added == 19
    reader = Assistant(fp32.with_overrides(embedding_precision="auto"), auto_ingest=False)
    assert (reader.settings.embedding_precision, reader.embedder.label) == ("fp32", "onnx-fp32")
    assert reader.search("What is Nester?", 1)[0].paper_id == "icml2025-44081"
    assert ingest([seed_jsonl], fp32.with_overrides(embedding_precision="auto"), progress=False).chunks_written == 0

    int8 = _store_settings(onnx_data_dir, "auto-int8", "auto", "auto").with_overrides(embedding_bf16="off")
    assert ingest([seed_jsonl], int8, progress=False).added == 19
    assert Assistant(int8, auto_ingest=False).embedder.label == "onnx-int8"
    with pytest.raises(StoreError, match="precision int8 needs the ONNX backend"):  # torch cannot encode its queries
        Assistant(int8.with_overrides(embedding_backend="torch"), auto_ingest=False)

    legacy = _store_settings(onnx_data_dir, "auto-legacy", "auto", "auto")  # no precision key: torch fp32 vectors
    client = chromadb.PersistentClient(path=str(legacy.chroma_dir), settings=ChromaSettings(anonymized_telemetry=False))
    client.create_collection("auto-legacy", metadata={"schema": SCHEMA, "embedding_model": MODEL, "chunking": CHUNKING,
                                                      "generation": "g", "committed": "g"}, configuration={"hnsw": {"space": "cosine"}})
    assert PaperStore(legacy).settings.embedding_precision == "fp32"


def test_cli_refuses_with_one_line(onnx_data_dir: Path, seed_jsonl: Path, run_cli, store_checks,  # type: ignore[no-untyped-def]
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's view: an int8 reader on an fp32 store gets exit 2 and one line naming the fix."""
    from ingest import ingest

    written = _store_settings(onnx_data_dir, "cli-fp32", "onnx", "fp32")
    assert ingest([seed_jsonl], written, progress=False).added == 19
    monkeypatch.setenv("PAPERCHAT_EMBEDDING_PRECISION", "int8")
    result = run_cli("ask", "What is Nester?", "--engine", "extractive", *store_checks.cli_store_args(written))
    assert result.returncode == 2, result
    lines = [line for line in result.stderr_lines if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "re-index with `paperchat ingest --reset" in lines[0] and "PAPERCHAT_EMBEDDING_PRECISION=fp32" in lines[0], lines[0]


def test_mean_paper_vectors_are_the_mean_of_their_sentences_and_follow_the_store(onnx_data_dir: Path, seed_jsonl: Path) -> None:
    """``paper_vector=mean`` gives each paper chunk the normalised mean of its sentence vectors (only sentences are
    embedded); a new store (``auto``), a store recorded as ``encode`` and one written before the choice was recorded
    embed title and abstract; asking for the other kind than the store's is refused with the re-index message."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from ingest import ingest
    from ingest.pipeline import chunk_records
    from ingest.records import parse_file
    from vectorstore.embeddings import Embedder
    from vectorstore.store import CHUNKING, SCHEMA

    papers = {p.id: p for p in parse_file(seed_jsonl)[0]}
    for collection, want in (("pv-mean", "mean"), ("pv-new", "encode")):
        settings = _store_settings(onnx_data_dir, collection, "onnx", "int8")
        if want == "mean":
            settings = settings.with_overrides(paper_vector="mean")
        assert ingest([seed_jsonl], settings, progress=False).added == 19
        store = PaperStore(settings.with_overrides(paper_vector="auto"))
        assert store.settings.paper_vector == want and store._collection.metadata["paper_vector"] == want
        embedder = Embedder.from_settings(store.settings)
        for pid in list(papers)[:5]:
            sentences = np.stack([v for _, _, v in store.sentences_of([pid])])
            mean = sentences.mean(axis=0) / np.linalg.norm(sentences.mean(axis=0))
            stored = store.chunk_embeddings([chunk_records(papers[pid])[-1][0]])
            paper = next(iter(stored.values()))
            encoded = embedder.encode([chunk_records(papers[pid])[-1][1]])[0]
            to_mean, to_encoded = float(paper @ mean), float(paper @ encoded)
            if want == "mean":
                assert to_mean > 0.9999 and to_encoded < 0.99, (pid, to_mean, to_encoded)
            else:
                assert to_encoded > 0.99 and to_mean < to_encoded, (pid, to_mean, to_encoded)
        other = "encode" if want == "mean" else "mean"
        with pytest.raises(ModelMismatchError, match=f"paper_vector {want!r}, not {other!r}.*PAPERCHAT_PAPER_VECTOR={want}"):
            PaperStore(settings.with_overrides(paper_vector=other))

    legacy = _store_settings(onnx_data_dir, "pv-legacy", "onnx", "fp32")  # no paper_vector key: embedded paper chunks
    client = chromadb.PersistentClient(path=str(legacy.chroma_dir), settings=ChromaSettings(anonymized_telemetry=False))
    client.create_collection("pv-legacy", metadata={"schema": SCHEMA, "embedding_model": MODEL, "chunking": CHUNKING,
                                                    "generation": "g", "committed": "g"}, configuration={"hnsw": {"space": "cosine"}})
    assert PaperStore(legacy).settings.paper_vector == "encode"
    with pytest.raises(ModelMismatchError, match="paper_vector 'encode', not 'mean'"):
        PaperStore(legacy.with_overrides(paper_vector="mean"))


# ------------------------------------------------------------------ bf16 batches (ingest) for fp32 stores


def test_bf16_batches_give_fp32_vectors_and_an_fp32_store(onnx_data_dir: Path, vectors: dict[str, np.ndarray],
                                                          sample_texts: list[str], shared: Path, tmp_path: Path) -> None:
    """Ingest's large encodes may run torch in bf16 autocast: the vectors still match torch fp32 (cosine >= 0.9999),
    so the store stays fp32 and a plain fp32 reader opens it. Small encodes and queries stay on the fp32 encoder."""
    from assistant import Assistant
    from ingest import ingest

    on = emb.Embedder(MODEL, 64, backend="onnx", precision="fp32", data_dir=onnx_data_dir, bf16="on")
    assert on.bf16 and on.label == "onnx-fp32 +torch-bf16 batches"
    texts, fp32 = sample_texts * 2, np.vstack([vectors["torch"]] * 2)  # one call of >= BF16_MIN_TEXTS, as ingest makes
    assert len(texts) >= emb.BF16_MIN_TEXTS
    batch = on.encode_documents(texts)
    cos = np.sum(batch * fp32, axis=1)
    assert cos.min() >= 0.9999, f"bf16 batches vs torch fp32: min cosine {cos.min():.6f}"
    assert np.abs(batch - fp32).max() > 1e-4  # it really ran in bf16 (fp32 ONNX differs by ~2e-7)
    small = on.encode_documents(sample_texts[:10])  # under BF16_MIN_TEXTS: the fp32 encoder
    assert np.abs(small - vectors["onnx-fp32"][:10]).max() < 1e-5

    off = emb.Embedder(MODEL, 64, backend="onnx", precision="fp32", data_dir=onnx_data_dir, bf16="off")
    assert not off.bf16 and np.abs(off.encode_documents(texts) - np.vstack([vectors["onnx-fp32"]] * 2)).max() < 1e-5
    assert not emb.Embedder(MODEL, backend="onnx", precision="int8", data_dir=onnx_data_dir, bf16="on").bf16  # int8: never
    with pytest.raises(StoreError, match="PAPERCHAT_EMBEDDING_BF16"):
        emb.Embedder(MODEL, backend="onnx", precision="fp32", data_dir=onnx_data_dir, bf16="maybe")

    papers = tmp_path / "papers.jsonl"  # enough papers for ingest encode calls of >= BF16_MIN_TEXTS chunks
    with open(shared / "data" / "icml2024_abstracts" / "papers.jsonl") as src:
        papers.write_text("".join(line for _, line in zip(range(90), src)))
    settings = Settings(data_dir=onnx_data_dir, collection="bf16-written", engine="extractive", embedding_precision="fp32",
                        embedding_bf16="on")
    assert ingest([papers], settings, progress=False).added == 90
    meta = PaperStore(settings)._collection.metadata
    assert meta["embedding_precision"] == "fp32" and meta["embedding_backend"] == "onnx-fp32 +torch-bf16 batches"
    reader = Assistant(settings.with_overrides(embedding_bf16="off", embedding_backend="torch"), auto_ingest=False)
    first = json.loads(papers.read_text().splitlines()[37])
    assert reader.search(first["title"], 1)[0].paper_id == first["id"]
    with pytest.raises(ModelMismatchError, match="embedding_precision 'fp32', not 'int8'"):
        PaperStore(settings.with_overrides(embedding_precision="int8"))


def test_deciding_on_bf16_batches_does_not_import_torch(onnx_data_dir: Path) -> None:
    """An fp32 store queried on ONNX Runtime never needs torch; probing the CPU for bf16 must not import it (~2 s)."""
    import subprocess
    import sys

    code = ("import sys; from vectorstore.embeddings import Embedder; "
            f"e = Embedder({MODEL!r}, backend='onnx', precision='fp32', data_dir={str(onnx_data_dir)!r}, bf16='auto'); "
            "e.encode(['a query']); print(e.bf16, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300).stdout.split()
    assert out[-1] == "False", out
    assert out[-2] == str(emb.bf16_native())
