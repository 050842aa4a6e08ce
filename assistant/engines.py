"""Answer engines: ``extractive`` (no LLM), ``local`` (llama.cpp GGUF) and ``openai`` (any compatible endpoint).

LLM engines are LCEL chains ``prompt | chat_model | StrOutputParser()``; their output is then
checked by ``assistant.grounding.verify`` like every other engine's.
"""

from __future__ import annotations

import atexit
import threading
from dataclasses import dataclass
from typing import Any, Iterator, Protocol

import numpy as np

from assistant import prompts
from assistant.grounding import Source
from vectorstore.errors import PaperchatError
from vectorstore.settings import Settings


class EngineError(PaperchatError):
    """The answer engine failed (server down, timeout, model missing); the message says what to do."""


@dataclass
class Evidence:
    """A source plus its sentences ranked for the question (for prompts and extractive answers)."""

    source: Source
    sentences: list[tuple[int, int, float]]  # (start, end, relevance) best first


class Engine(Protocol):
    name: str

    def stream(self, question: str, evidence: list[Evidence]) -> Iterator[str]:
        """Yield answer text with ``[n]`` markers as it is produced."""
        ...


class ExtractiveEngine:
    """Answers with the most relevant sentences of the top papers, each cited. Deterministic."""

    name = "extractive"

    def __init__(self, max_sentences: int = 4, relative_cutoff: float = 0.85) -> None:
        self.max_sentences = max_sentences
        self.relative_cutoff = relative_cutoff

    def stream(self, question: str, evidence: list[Evidence]) -> Iterator[str]:
        if not evidence or not evidence[0].sentences:
            return
        # the top paper's three best sentences, in abstract order; other papers only if nearly as relevant
        lead = evidence[0]
        picked = [(lead, s, e) for s, e, _ in sorted(lead.sentences[:3])]
        best = lead.sentences[0][2]
        for ev in evidence[1:3]:
            if ev.sentences and ev.sentences[0][2] >= self.relative_cutoff * best and len(picked) < self.max_sentences:
                picked.append((ev, ev.sentences[0][0], ev.sentences[0][1]))
        lines = []
        for ev, start, end in picked:
            sentence = ev.source.abstract[start:end].strip()
            lines.append(f"- **{ev.source.title}**: {sentence} [{ev.source.number}]" if ev is not lead or not lines
                         else f"- {sentence} [{ev.source.number}]")
        yield "\n".join(lines)


def evidence_context(evidence: list[Evidence], max_sentences: int = 4) -> str:
    """The delimited context for LLM prompts: top sentences of each paper, in abstract order."""
    blocks = []
    for ev in evidence:
        spans = sorted(ev.sentences[:max_sentences])
        text = " ".join(ev.source.abstract[s:e] for s, e, _ in spans)
        text = text.replace("<", "‹").replace(">", "›")  # the abstract cannot close the <papers> block
        blocks.append(prompts.SOURCE.format(number=ev.source.number, title=ev.source.title, text=text))
    return "\n\n".join(blocks)


class ChatEngine:
    """An LCEL chain over a LangChain chat model; streams tokens."""

    def __init__(self, name: str, model: Any, max_sentences: int = 4) -> None:
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate

        self.name = name
        self.model = model
        self.max_sentences = max_sentences
        prompt = ChatPromptTemplate.from_messages([
            ("system", prompts.SYSTEM),
            ("human", _literal(prompts.EXAMPLE_USER)),
            ("ai", _literal(prompts.EXAMPLE_ANSWER)),
            ("human", prompts.USER),
        ])
        self.chain = prompt | model | StrOutputParser()

    def stream(self, question: str, evidence: list[Evidence]) -> Iterator[str]:
        context = evidence_context(evidence, self.max_sentences)
        try:
            yield from self.chain.stream({"context": context, "question": question})
        except PaperchatError:
            raise
        except Exception as exc:
            raise EngineError(_engine_failure(self.name, exc)) from None


def _literal(text: str) -> str:
    """Escape braces so a fixed example is not read as template variables."""
    return text.replace("{", "{{").replace("}", "}}")


def _engine_failure(name: str, exc: Exception) -> str:
    kind = exc.__class__.__name__
    if "Timeout" in kind:
        return f"the {name} engine timed out; try again, raise PAPERCHAT_REQUEST_TIMEOUT, or use --engine extractive"
    if "Connection" in kind or "connect" in str(exc).lower():
        return f"the {name} engine's server is unreachable ({kind}); start it or check PAPERCHAT_OPENAI_BASE_URL, or use --engine extractive"
    return f"the {name} engine failed ({kind}: {str(exc)[:160]}); use --engine extractive meanwhile"


_llama_lock = threading.Lock()
_llama_cache: dict[tuple[str, int, int], Any] = {}


@atexit.register
def _close_models() -> None:
    """Free llama.cpp models before interpreter teardown (avoids noise from their finalizers)."""
    for llama in _llama_cache.values():
        try:
            llama.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass
    _llama_cache.clear()


def _llama(path: str, threads: int, ctx: int) -> Any:
    with _llama_lock:
        key = (path, threads, ctx)
        if key not in _llama_cache:
            from llama_cpp import Llama

            _llama_cache[key] = Llama(model_path=path, n_ctx=ctx, n_threads=threads, n_batch=512, verbose=False)
        return _llama_cache[key]


def local_chat_model(settings: Settings) -> Any:
    """A LangChain chat model over llama-cpp-python (the GGUF is assembled once into the cache)."""
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise EngineError("the local engine needs llama-cpp-python: run `pip install 'paperchat[local]'` or use --engine extractive") from None
    from assistant.llm_models import resolve_model_path

    try:
        path = resolve_model_path(settings.llm_model, settings.cache_dir / "models")
    except (RuntimeError, KeyError, OSError, ValueError) as exc:
        message = exc.args[0] if exc.args else str(exc)
        raise EngineError(f"local model unavailable: {message}") from None
    from assistant.llamacpp_chat import LlamaCppChat

    return LlamaCppChat(
        llama=_llama(str(path), settings.llm_threads, settings.llm_ctx),
        lock=_llama_lock, max_tokens=settings.llm_max_tokens, model_name=path.name,
    )


def openai_chat_model(settings: Settings) -> Any:
    import os

    from langchain_openai import ChatOpenAI

    if not settings.openai_base_url and not (settings.openai_api_key or os.environ.get("OPENAI_API_KEY")):
        raise EngineError("the openai engine needs PAPERCHAT_OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1) or OPENAI_API_KEY")
    return ChatOpenAI(
        base_url=settings.openai_base_url, model=settings.openai_model,
        api_key=settings.openai_api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        timeout=settings.request_timeout, max_retries=1, temperature=0.0, max_tokens=settings.llm_max_tokens,
        streaming=True,
    )


def local_available(settings: Settings) -> bool:
    """True when llama-cpp-python and the configured model are installed."""
    try:
        import importlib.util

        if importlib.util.find_spec("llama_cpp") is None:
            return False
        from assistant.llm_models import installed_models

        spec = settings.llm_model
        return spec in installed_models() or spec.endswith(".gguf") and __import__("pathlib").Path(spec).is_file()
    except Exception:
        return False


def make_engine(settings: Settings) -> Engine:
    """Build the engine named by ``settings.engine`` (``auto``: local if installed, else extractive)."""
    name = settings.engine
    if name == "auto":
        name = "local" if local_available(settings) else "extractive"
    if name == "extractive":
        return ExtractiveEngine()
    if name == "local":
        return ChatEngine("local", local_chat_model(settings))
    if name == "openai":
        return ChatEngine("openai", openai_chat_model(settings))
    raise EngineError(f"unknown engine {name!r}; use auto, extractive, local or openai")


def rank_sentences(question_vec: np.ndarray, idf: dict[str, float], sentences: list[tuple[str, dict, Any]],
                   embed: Any = None, cosine_weight: float = 0.5) -> list[tuple[int, int, float]]:
    """Score a paper's sentences for the question: cosine similarity plus idf-weighted term overlap.

    ``embed`` re-embeds the bare sentences (the stored vectors carry the title, which makes every
    sentence of a paper look alike); without it the stored vectors are used.
    """
    from vectorstore.keyword import tokenize

    if not sentences:
        return []
    total = sum(idf.values()) or 1.0
    tokens = tokenize([doc for doc, _, _ in sentences])
    vectors = embed([doc for doc, _, _ in sentences]) if embed else np.asarray([e for _, _, e in sentences], dtype=np.float32)
    cosines = vectors @ question_vec
    ranked = []
    for (doc, meta, _), words, cosine in zip(sentences, tokens, cosines):
        present = set(words)
        overlap = sum(w for t, w in idf.items() if t in present) / total
        ranked.append((int(meta["start"]), int(meta["end"]), cosine_weight * float(cosine) + (1 - cosine_weight) * overlap))
    ranked.sort(key=lambda r: -r[2])
    return ranked
