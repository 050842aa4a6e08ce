"""A second learned reading of a claim: a linear probe on the local Qwen2.5-Coder 0.5B.

The cross-encoder of ``assistant/entailment.py`` reads ``(claim, evidence)`` with a 22M-parameter encoder. This
module asks the local 0.5B instruct model (the ``local`` engine's default, installed by ``./install.sh``) whether the
evidence supports every part of the claim, and reads its answer as a linear function of the final token's hidden
state (llama.cpp's last-token pooling), not as the words it would generate: generated Yes/No answers of this model
ranked claims worse than chance (benchmarks/HISTORY.md), while the probe on its hidden state ranks them as well as the
cross-encoder, and the two together better than either (``python -m benchmarks.train_probe``).

The probe's weights (standardisation, coefficients, the mix with the cross-encoder and its three thresholds) ship in
``assistant/data/entailment_probe.npz`` (a few kB). ``probe()`` returns None when the 0.5B model's part packages are
not installed; the check then uses the cross-encoder alone, with its own thresholds.

The same model reads a question with a paper's title and abstract (``Probe.answers``): whether the abstract states the
answer, for the near-miss test (``assistant/selection.py::learned_gap``), with its own probe
(``assistant/data/near_miss_probe.npz``, fitted by ``python -m benchmarks.train_near_miss_probe``), and a quick probe for
a reading of only the sentences the answer quotes (half the tokens), read first.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from assistant.cross_encoder import prepare

WEIGHTS = Path(__file__).with_name("data") / "entailment_probe.npz"
MODEL = "qwen2.5-0.5b"  # the probe was fitted on this model's hidden states; another model needs another probe
PROMPT = ("<|im_start|>system\nYou check whether a claim is true to the evidence.<|im_end|>\n<|im_start|>user\n"
          "Evidence: {evidence}\n\nClaim: {claim}\n\nDoes the evidence support every part of the claim, with nothing "
          "reversed, changed or added? Answer yes or no.<|im_end|>\n<|im_start|>assistant\nAnswer:")
MAX_EVIDENCE_CHARS = 1500  # two long sentences; keeps the prompt well inside the context
NEAR_MISS_WEIGHTS = Path(__file__).with_name("data") / "near_miss_probe.npz"
QUESTION_PROMPT = ("<|im_start|>system\nYou judge whether a paper's abstract answers a question.<|im_end|>\n<|im_start|>user\n"
                   "Abstract: {title}. {abstract}\n\nQuestion: {question}\n\nDoes the abstract state the answer to this "
                   "question? Answer yes or no.<|im_end|>\n<|im_start|>assistant\nAnswer:")
MAX_ABSTRACT_CHARS = 2200  # a long abstract; the prompt stays under the 1,024-token context
_QUESTION_HEAD = QUESTION_PROMPT[:QUESTION_PROMPT.index("{title}")]  # the fixed part before the paper, decoded once


class Probe:
    """``features(claim, evidence)``: the model's last hidden state; ``score(...)``: the probe's logit (> 0: supported).
    ``reading(question, title, abstract)`` and ``answers(...)``: the same for a question and a paper (> 0: answered)."""

    def __init__(self, gguf: Path, weights: Path | None = WEIGHTS, threads: int = 2,
                 near_miss_weights: Path | None = NEAR_MISS_WEIGHTS) -> None:
        from assistant.engines.local import load_llama

        self._llm = load_llama(str(gguf), threads, 1024, embedding=True)  # shared, and freed before the interpreter exits
        self._lock = threading.Lock()
        self.weights = dict(np.load(weights)) if weights is not None else {}
        self.near_miss_weights = dict(np.load(near_miss_weights)) if near_miss_weights is not None else {}
        self._kept: list[int] = []  # the tokens whose keys and values the model's cache holds (``_last_hidden``)

    def _hidden(self, prompt: str) -> np.ndarray:
        """The last token's hidden state by llama-cpp-python's ``embed`` (chat markers read as text), which the
        entailment probe was fitted on."""
        with self._lock:
            vector = self._llm.embed(prompt, normalize=False)
            self._kept = []  # embed clears the cache
        return np.asarray(vector, dtype=np.float32).reshape(-1)

    def _last_hidden(self, head: str, rest: str) -> np.ndarray:
        """The last token's hidden state for ``head + rest``, chat markers read as the model's special tokens.

        ``embed`` makes llama.cpp output every token (through the 151k-word output layer too) and cuts the prompt at
        512 tokens; here only the last token is decoded with outputs, and the fixed ``head`` is decoded once and kept
        in the cache (decoded alone, so the reading does not depend on what was read before): 1.25x faster
        (``python -m benchmarks.latency``, session 37)."""
        import llama_cpp

        llm, ctx = self._llm, self._llm.ctx
        with self._lock:
            start = llm.tokenize(head.encode(), add_bos=False, special=True)
            tokens = llm.tokenize(rest.encode(), add_bos=False, special=True)[-(llm.n_ctx() - len(start)):]  # a long question: its end
            memory = llama_cpp.llama_get_memory(ctx)
            llama_cpp.llama_set_embeddings(ctx, False)
            if self._kept == start:
                llama_cpp.llama_memory_seq_rm(memory, 0, len(start), -1)
            else:
                llama_cpp.llama_memory_clear(memory, True)
                _decode(ctx, start, llm.n_batch)
                self._kept = start
            _decode(ctx, tokens[:-1], llm.n_batch)
            llama_cpp.llama_set_embeddings(ctx, True)  # the pooled (last-token) hidden state of the final token
            _decode(ctx, tokens[-1:], llm.n_batch)
            vector = np.array(llama_cpp.llama_get_embeddings_seq(ctx, 0)[:llm.n_embd()], dtype=np.float32)
        return vector

    def features(self, claim: str, evidence: str) -> np.ndarray:
        claim, evidence = prepare(claim, evidence[:MAX_EVIDENCE_CHARS])
        return self._hidden(PROMPT.format(evidence=evidence, claim=claim))

    def score(self, claim: str, evidence: str) -> float:
        return linear(self.weights, self.features(claim, evidence))

    def reading(self, question: str, title: str, abstract: str) -> np.ndarray:
        """The last hidden state for "does this abstract state the answer to ``question``?" (the stored, cleaned text)."""
        title, abstract, question = (text.replace("<|", "< |") for text in (title, abstract[:MAX_ABSTRACT_CHARS], question))
        prompt = QUESTION_PROMPT.format(title=title, abstract=abstract, question=question)  # no chat markers but the prompt's
        return self._last_hidden(_QUESTION_HEAD, prompt[len(_QUESTION_HEAD):])

    def answers(self, question: str, title: str, abstract: str, prefix: str = "") -> float:
        """The near-miss probe's logit: above 0, the paper's abstract states the answer to ``question``. With
        ``prefix="quick_"``, the quick probe's, for a reading of the sentences the answer quotes instead of the abstract."""
        return linear(self.near_miss_weights, self.reading(question, title, abstract), prefix)


def _decode(ctx: Any, tokens: list[int], batch: int) -> None:
    """Run ``tokens`` through the model after what its cache holds, ``batch`` at a time (outputs: the last only)."""
    import llama_cpp

    for i in range(0, len(tokens), batch):
        chunk = (llama_cpp.llama_token * len(tokens[i:i + batch]))(*tokens[i:i + batch])  # kept alive through the call
        if llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(chunk, len(chunk))):
            raise RuntimeError("the local 0.5B model could not read the prompt (llama_decode failed); reinstall it with ./install.sh")


def linear(weights: dict[str, np.ndarray], x: np.ndarray, prefix: str = "") -> float:
    """A logistic regression's logit for features ``x`` (standardised by the weights' mean and scale); ``prefix`` names
    a second model in the same weights (``"mix_"``: the near-miss mix, ``selection.learned_gap``)."""
    return float((x - weights[prefix + "mean"]) / weights[prefix + "scale"] @ weights[prefix + "coef"] + weights[prefix + "bias"])


@lru_cache(maxsize=1)
def probe() -> Probe | None:
    """The shared probe, loaded on first use; None when the local 0.5B model is not installed."""
    from assistant.engines.local import ensure_model, installed_models
    from vectorstore.settings import Settings

    if MODEL not in installed_models():
        return None
    return Probe(ensure_model(MODEL, Settings().cache_dir / "models"))
