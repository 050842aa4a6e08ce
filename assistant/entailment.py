"""A learned check of meaning for claims the lexical rules let through.

The rules in ``assistant/claims.py`` catch changed numbers, invented names and the negations and
direction words they list; a claim that reverses its sentence in other words ("lags behind the state
of the art" for "achieves state-of-the-art results", "sensitive to" for "robust against") passes them.
This module scores ``(claim, the sentences the rules matched)`` with a cross-encoder: the packaged
all-MiniLM-L6-v2 with low-rank adapters and a one-unit head trained on grounding cases written from
ICML 2024 abstracts (``python -m benchmarks.train_entailment``; the weights ship in
``assistant/data/entailment_lora.npz``, 1.4 MB). A claim scoring below ``THRESHOLD`` loses its marker.

It runs only on claims of at least ``MIN_WORDS`` words that are not verbatim quotes (the extractive
engine never needs it; on terse claims, which it was not trained on, it drops faithful ones) and loads
torch and the model on first use (seconds, once). ``check(..., learned=True)`` runs it; the ``Assistant``
asks for that only when ``Settings.entailment_check`` is on (``PAPERCHAT_ENTAILMENT_CHECK=true``): on
held-out cases it removes more unsupported markers, but it also drops some terse faithful claims unlike
the ones it was trained on (README, Quality, "Learned entailment check").
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ingest.cleaning import unescape_latex

WEIGHTS = Path(__file__).with_name("data") / "entailment_lora.npz"
# logit: the highest (in steps of 0.5) at which no supported claim is lost among held-out set 3 (not trained on) and the
# faithful claims of tests/test_grounding.py (at -4.0 one of those, a summary that spells out two acronyms, is lost);
# reported on held-out set 4
THRESHOLD = -5.0
MAX_TOKENS = 160
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")  # words, not numbers: "18.3%" and "Top-1" are one word each or none
MIN_WORDS = 10  # it was trained on claims of 12-45 words; terser claims ("Nester does type inference") stay with the rules
_LINEARS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
            "intermediate.dense", "output.dense")
_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


class EntailmentModel:
    """The cross-encoder: ``scores([(claim, evidence), ...])`` gives one logit per pair (> 0: entailed)."""

    def __init__(self, model_dir: str, weights: Path = WEIGHTS) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.encoder = AutoModel.from_pretrained(model_dir).eval()
        saved = np.load(weights)
        scale = float(saved["scale"])
        with torch.no_grad():
            for i, layer in enumerate(self.encoder.encoder.layer):
                for name in _LINEARS:
                    linear = layer.get_submodule(name)
                    delta = saved[f"{i}.{name}.B"].astype(np.float32) @ saved[f"{i}.{name}.A"].astype(np.float32)
                    linear.weight += torch.from_numpy(delta * scale)
                for name in _NORMS:
                    norm = layer.get_submodule(name)
                    norm.weight.copy_(torch.from_numpy(saved[f"{i}.{name}.weight"].astype(np.float32)))
                    norm.bias.copy_(torch.from_numpy(saved[f"{i}.{name}.bias"].astype(np.float32)))
        self.head_weight = torch.from_numpy(saved["head.weight"].astype(np.float32))
        self.head_bias = float(saved["head.bias"])
        self._lock = threading.Lock()

    def scores(self, pairs: list[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        torch = self._torch
        pairs = [prepare(c, e) for c, e in pairs]
        batch = self.tokenizer([c for c, _ in pairs], [e for _, e in pairs], truncation="only_second",
                               max_length=MAX_TOKENS, padding=True, return_tensors="pt")
        with self._lock, torch.inference_mode():
            hidden = self.encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            logits = pooled @ self.head_weight + self.head_bias
        return [float(x) for x in logits]


def prepare(claim: str, evidence: str) -> tuple[str, str]:
    """Both texts as the model reads them: LaTeX escapes undone and math dollars dropped (``70.7\\%`` is ``70.7%``)."""
    return unescape_latex(claim).replace("$", ""), unescape_latex(evidence).replace("$", "")


@lru_cache(maxsize=1)
def model() -> EntailmentModel:
    """The shared model, loaded on first use."""
    from vectorstore.embeddings import embedding_model_path
    from vectorstore.settings import DEFAULT_EMBEDDING_MODEL

    return EntailmentModel(embedding_model_path(DEFAULT_EMBEDDING_MODEL))


def contradicted(claim: str, evidence: str) -> bool:
    """True when the model reads ``claim`` as not entailed by ``evidence``; claims under ``MIN_WORDS`` words are not scored."""
    return len(_WORD.findall(claim)) >= MIN_WORDS and model().scores([(claim, evidence)])[0] < THRESHOLD

