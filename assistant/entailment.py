"""A learned check of meaning for claims the lexical rules let through.

The rules in ``assistant/claims.py`` catch changed numbers, invented names and the negations and
direction words they list; a claim that reverses its sentence in other words ("lags behind the state
of the art" for "achieves state-of-the-art results", "sensitive to" for "robust against") passes them.
This module scores ``(claim, the sentences the rules matched)`` with a cross-encoder: the packaged
all-MiniLM-L6-v2 with low-rank adapters and a one-unit head trained on grounding cases
(``python -m benchmarks.train_entailment``). A claim the rules keep loses its marker when it scores below
the veto threshold; a claim the rules drop for its wording alone (a word the abstract lacks, a negation said another
way; never a number, a formula or a name) keeps it when it scores at least the rescue threshold.

Two sets of weights ship, each with the thresholds fitted for it:

* ``WEIGHTS`` (``assistant/data/entailment_lora_alone.npz``, 1.4 MB), the cross-encoder that decides alone, at
  ``THRESHOLD`` / ``RESCUE``: trained on grounding sets 1-60 as well (session 35). Alone it is the better of the two
  (benchmarks/HISTORY.md, session 35: "a cross-encoder that decides alone").
* ``PAIRED_WEIGHTS`` (``assistant/data/entailment_lora.npz``), the earlier cross-encoder, read together with the probe
  on the local Qwen2.5 0.5B (``assistant/probe.py``): with ``probe=True`` (``Settings.entailment_probe``, on by
  default) and that model installed, the score is this logit plus ``mix`` times the probe's, against the thresholds
  fitted for that sum (``python -m benchmarks.train_probe``): a veto, a rescue from words the abstract lacks, and a
  higher one from a polarity fault (a negation, a direction or a comparison the rules read as reversed).

It runs only on claims of at least ``MIN_WORDS`` words that are not verbatim quotes (the extractive
engine never needs it) and loads torch and the model on first use (seconds, once). ``check(...,
learned=True)`` runs it; the ``Assistant`` asks for that when ``Settings.entailment_check`` is on, the
default for LLM engines (``PAPERCHAT_ENTAILMENT_CHECK=false`` turns it off).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from assistant.cross_encoder import CrossEncoder, packaged_model_dir
from assistant.probe import probe as probe_model

__all__ = ["EntailmentModel", "THRESHOLD", "MIN_WORDS", "RESCUE", "affirmed", "contradicted", "model"]

WEIGHTS = Path(__file__).with_name("data") / "entailment_lora_alone.npz"  # decides alone, at THRESHOLD / RESCUE
PAIRED_WEIGHTS = Path(__file__).with_name("data") / "entailment_lora.npz"  # read with the probe, at the probe's thresholds
# logits of both thresholds, for WEIGHTS: the grid point (steps of 0.5) with the highest min(supported kept, unsupported
# removed) over the learned check's calls on grounding sets 61-79 (which it never trained on), among the veto thresholds
# that keep the verdicts of the tests' real-model claims (a veto in (-3.01, -1.57]): `python -m
# benchmarks.compare_cross_encoders assistant/data/entailment_lora_alone.npz` (session 35: fit 0.966 / 0.967; on the
# fresh sets 80-82 0.935 / 0.958 through the answer path, against 0.954 / 0.925 for the earlier weights alone)
THRESHOLD = -2.0
MAX_TOKENS = 160
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")  # words, not numbers: "18.3%" and "Top-1" are one word each or none
MIN_WORDS = 6  # terser claims ("Nester trains 2 models") stay with the rules
# logit at which the model keeps a claim the rules drop for its wording alone (never for a number, a formula or a name);
# chosen with THRESHOLD, above
RESCUE = 3.5


class EntailmentModel(CrossEncoder):
    """The cross-encoder: ``scores([(claim, evidence), ...])`` gives one logit per pair (> 0: entailed)."""

    def __init__(self, model_dir: str, weights: Path = WEIGHTS) -> None:
        super().__init__(model_dir, weights, MAX_TOKENS)


@lru_cache(maxsize=2)
def _load(weights: Path) -> EntailmentModel:
    return EntailmentModel(packaged_model_dir(), weights)


def model(weights: Path = WEIGHTS) -> EntailmentModel:
    """The shared model with these weights, loaded on first use (once per weights file)."""
    return _load(weights)


def as_sentence(claim: str) -> str:
    """The claim as the model reads it: the verifier cuts claims before their marker, the model learnt whole sentences."""
    claim = claim.strip()
    return claim if not claim or claim[-1] in ".!?" else claim + "."


def _scored(claim: str) -> bool:
    """Claims under ``MIN_WORDS`` words stay with the rules."""
    return len(_WORD.findall(claim)) >= MIN_WORDS


def _logit(claim: str, evidence: str, paired: bool = False) -> float | None:
    """The logit of the model that decides alone (``paired``: of the one read with the probe) for ``claim`` given
    ``evidence``, or None for claims under ``MIN_WORDS`` words."""
    if not _scored(claim):
        return None
    return model(PAIRED_WEIGHTS if paired else WEIGHTS).scores([(as_sentence(claim), evidence)])[0]


def _reaches(claim: str, evidence: str, probe: bool, veto: bool, polarity: bool = False) -> bool | None:
    """Does the claim's score reach the veto threshold (``veto``) or the rescue threshold? None for claims under
    ``MIN_WORDS`` words. With ``probe`` on and the local 0.5B model installed, the score is the paired cross-encoder's
    logit plus ``mix`` times the probe's (``assistant/probe.py``), against the thresholds fitted for that sum, with its
    own threshold for a rescue from a polarity fault (``polarity``); the probe does not run when no score it gave its
    training claims (``low``..``high``) could change the answer. Otherwise the cross-encoder that decides alone does, at
    ``THRESHOLD`` / ``RESCUE``."""
    if not _scored(claim):
        return None
    reader = probe_model() if probe else None
    if reader is None:
        alone = _logit(claim, evidence)
        return None if alone is None else alone >= (THRESHOLD if veto else RESCUE)
    logit = _logit(claim, evidence, paired=True)
    if logit is None:
        return None
    w = reader.weights
    level, mix = float(w["threshold" if veto else "rescue_polarity" if polarity else "rescue"]), float(w["mix"])
    if logit + mix * float(w["low"]) >= level:
        return True  # no score in the probe's range could bring it under
    if logit + mix * float(w["high"]) < level:
        return False  # nor over
    return logit + mix * reader.score(claim, evidence) >= level


def contradicted(claim: str, evidence: str, probe: bool = False) -> bool:
    """True when the model reads ``claim`` as not entailed by ``evidence``; claims under ``MIN_WORDS`` words are not scored."""
    return _reaches(claim, evidence, probe, veto=True) is False


def affirmed(claim: str, evidence: str, probe: bool = False, polarity: bool = False) -> bool:
    """True when the model reads ``claim`` as clearly entailed by ``evidence`` (at least the rescue threshold; with the
    probe, the polarity one for a claim the rules read as negating or reversing the abstract)."""
    return _reaches(claim, evidence, probe, veto=False, polarity=polarity) is True
