"""The small cross-encoders behind the learned checks: the packaged all-MiniLM-L6-v2 with low-rank adapters.

``assistant.entailment`` (does a sentence entail a claim?) ships its adapters, layer norms and one-unit head as a
small ``.npz`` (``python -m benchmarks.train_entailment``); ``benchmarks.train_answerability`` trains the same
model for an experiment (does a sentence answer a question?). Loading merges the adapters into the packaged
model's weights; torch is imported on first use.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ingest.cleaning import unescape_latex

LINEARS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
           "intermediate.dense", "output.dense")
NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


def prepare(first: str, second: str) -> tuple[str, str]:
    """Both texts as the model reads them: LaTeX escapes undone and math dollars dropped (``70.7\\%`` is ``70.7%``)."""
    return unescape_latex(first).replace("$", ""), unescape_latex(second).replace("$", "")


class CrossEncoder:
    """``scores([(first, second), ...])`` gives one logit per pair (> 0: the trained relation holds)."""

    def __init__(self, model_dir: str, weights: Path, max_tokens: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self.max_tokens = max_tokens
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.encoder = AutoModel.from_pretrained(model_dir).eval()
        saved = np.load(weights)
        scale = float(saved["scale"])
        with torch.no_grad():
            for i, layer in enumerate(self.encoder.encoder.layer):
                for name in LINEARS:
                    linear = layer.get_submodule(name)
                    delta = saved[f"{i}.{name}.B"].astype(np.float32) @ saved[f"{i}.{name}.A"].astype(np.float32)
                    linear.weight += torch.from_numpy(delta * scale)
                for name in NORMS:
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
        pairs = [prepare(a, b) for a, b in pairs]
        batch = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="only_second",
                               max_length=self.max_tokens, padding=True, return_tensors="pt")
        with self._lock, torch.inference_mode():
            hidden = self.encoder(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1)
            logits = pooled @ self.head_weight + self.head_bias
        return [float(x) for x in logits]


def packaged_model_dir() -> str:
    """The directory of the packaged embedding model the cross-encoders adapt."""
    from vectorstore.embeddings import embedding_model_path
    from vectorstore.settings import DEFAULT_EMBEDDING_MODEL

    return embedding_model_path(DEFAULT_EMBEDDING_MODEL)
