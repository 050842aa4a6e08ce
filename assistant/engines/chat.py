"""LLM engines: an LCEL chain ``prompt | chat_model | StrOutputParser()`` over any LangChain chat model.

``local`` (llama.cpp, see ``assistant.engines.local``) and ``openai`` (any compatible endpoint) differ
only in the chat model. Their output is checked by ``assistant.grounding.verify`` like every engine's.
"""

from __future__ import annotations

import os
from typing import Any, Iterator

from assistant import prompts
from assistant.evidence import Evidence
from vectorstore.errors import EngineError, PaperchatError
from vectorstore.settings import Settings
from vectorstore.text import printable

# A 0.5B model with a 2,048-token context answers best from three abstracts' best sentences
# (README, "Choice of local model": top 3 abstracts in the prompt).
LLM_PAPERS = 3
PROMPT_SENTENCES = 4  # sentences of each abstract in the prompt, in abstract order


def defang(text: str) -> str:
    """Paper text (title, abstract, any metadata) as prompt data: one line, no tags, no control characters.

    It cannot close the ``<papers>`` block (``<``/``>`` become ``‹``/``›``) nor start a forged
    ``[n] Title`` source (newlines become spaces).
    """
    return " ".join(printable(text).split()).replace("<", "‹").replace(">", "›")


def evidence_context(evidence: list[Evidence], max_sentences: int = PROMPT_SENTENCES) -> str:
    """The delimited context for LLM prompts: top sentences of each paper, in abstract order."""
    blocks = []
    for ev in evidence:
        spans = sorted(ev.sentences[:max_sentences])
        text = " ".join(ev.source.abstract[s:e] for s, e, _ in spans)
        blocks.append(prompts.SOURCE.format(number=ev.source.number, title=defang(ev.source.title), text=defang(text)))
    return "\n\n".join(blocks)


class ChatEngine:
    """An LCEL chain over a LangChain chat model; streams tokens. Answers the standalone query."""

    max_papers: int | None = LLM_PAPERS
    free_text = True

    def __init__(self, name: str, model: Any, max_sentences: int = PROMPT_SENTENCES) -> None:
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate

        self.name = name
        self.model = model
        self.max_sentences = max_sentences
        self.chain, self.second_chain = (
            ChatPromptTemplate.from_messages([
                ("system", prompts.SYSTEM),
                ("human", _literal(example)),
                ("ai", _literal(prompts.EXAMPLE_ANSWER)),
                ("human", user),
            ]) | model | StrOutputParser()
            for example, user in ((prompts.EXAMPLE_USER, prompts.USER), (prompts.SECOND_EXAMPLE_USER, prompts.SECOND_USER)))

    def stream(self, question: str, query: str, evidence: list[Evidence], second: bool = False) -> Iterator[str]:
        """The model's answer as it is written; ``second``: the second draft's prompt (``prompts.SECOND_USER``), which
        the Assistant asks for when the verifier kept no claim of the first."""
        context = evidence_context(evidence, self.max_sentences)
        try:
            yield from (self.second_chain if second else self.chain).stream({"context": context, "question": query})
        except PaperchatError:
            raise
        except Exception as exc:
            raise _engine_failure(self.name, exc) from None


def _literal(text: str) -> str:
    """Escape braces so a fixed example is not read as template variables."""
    return text.replace("{", "{{").replace("}", "}}")


def _engine_failure(name: str, exc: Exception) -> EngineError:
    kind = exc.__class__.__name__
    if "Timeout" in kind:
        return EngineError(f"the {name} engine timed out; try again, raise PAPERCHAT_REQUEST_TIMEOUT, or use --engine extractive",
                           engine=name, kind="timeout")
    if "Connection" in kind or "connect" in str(exc).lower():
        return EngineError(f"the {name} engine's server is unreachable ({kind}); start it or check PAPERCHAT_OPENAI_BASE_URL, "
                           "or use --engine extractive", engine=name, kind="unreachable")
    return EngineError(f"the {name} engine failed ({kind}: {str(exc)[:160]}); use --engine extractive meanwhile", engine=name)


def openai_chat_model(settings: Settings) -> Any:
    """A streaming ``ChatOpenAI`` for the configured OpenAI-compatible endpoint."""
    from langchain_openai import ChatOpenAI

    if not settings.openai_base_url and not (settings.openai_api_key or os.environ.get("OPENAI_API_KEY")):
        raise EngineError("the openai engine needs PAPERCHAT_OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1) or OPENAI_API_KEY",
                          engine="openai", kind="missing")
    return ChatOpenAI(
        base_url=settings.openai_base_url, model=settings.openai_model,
        api_key=settings.openai_api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        timeout=settings.request_timeout, max_retries=1, temperature=0.0, max_tokens=settings.llm_max_tokens,
        streaming=True, extra_body=settings.openai_body or None,
    )
