"""A minimal LangChain chat model over an in-process ``llama_cpp.Llama`` (streaming, thread safe)."""

from __future__ import annotations

import threading
from typing import Any, Iterator

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

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
