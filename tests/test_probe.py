"""The probe on the local Qwen2.5 0.5B (assistant/probe.py) as the learned check uses it: the real installed model and
the shipped weights. The claims are written for these tests from the seed abstracts, not taken from any case set."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from assistant import entailment, probe
from assistant.claims import Abstract, check
from assistant.grounding import verify
from vectorstore.settings import Settings

sys.path.insert(0, str(Path(__file__).parent))
from test_entailment import _seed  # noqa: E402

# a reversal in words no rule lists: the paired cross-encoder's logit (about -1.9) leaves it to the probe, whose reading
# removes it; the cross-encoder that decides alone removes it too
REVERSAL = "GINNs need a large dataset of shapes to train shape-generative neural fields."
FAITHFUL = "Adding diversity as an explicit constraint lets GINNs avoid mode-collapse and generate several diverse solutions."


@pytest.fixture(scope="module")
def ginn() -> Abstract:
    source = _seed("Geometry-Informed")
    return Abstract.of(source.title, source.abstract)


def test_the_weights_are_small_and_fit_the_installed_model():
    assert probe.WEIGHTS.is_file() and probe.WEIGHTS.stat().st_size < 50_000
    reader = probe.probe()
    assert reader is not None, "./install.sh installs the local 0.5B model the probe reads"
    w = reader.weights
    assert {"mean", "scale", "coef", "bias", "mix", "threshold", "rescue", "rescue_polarity", "low", "high"} <= set(w)
    vector = reader.features("Nester reaches 70.7% Top-1 Exact Match.", "Nester achieves 70.7% Top-1 Exact Match.")
    assert vector.shape == w["coef"].shape == w["mean"].shape and np.isfinite(vector).all()
    again = reader.features("Nester reaches 70.7% Top-1 Exact Match.", "Nester achieves 70.7% Top-1 Exact Match.")
    assert np.allclose(vector, again, atol=1e-3)  # the same reading each time


def test_with_the_probe_the_paired_cross_encoder_is_read_and_without_it_the_one_that_decides_alone(ginn, monkeypatch):
    assert check(REVERSAL, ginn).supported, "the lexical rules alone should let this through"
    readers: list[entailment.EntailmentModel] = []
    scores = entailment.EntailmentModel.scores

    def spy(self, pairs):
        readers.append(self)
        return scores(self, pairs)

    monkeypatch.setattr(entailment.EntailmentModel, "scores", spy)
    paired, alone = entailment.model(entailment.PAIRED_WEIGHTS), entailment.model()
    assert paired is not alone and alone is entailment.model(entailment.WEIGHTS)  # one load per weights file
    for on, used in ((True, paired), (False, alone)):
        readers.clear()
        verdict = check(REVERSAL, ginn, learned=True, probe=on)
        assert not verdict.supported and "entailment model" in verdict.reason, (on, verdict)
        assert readers == [used], (on, readers)
        assert check(FAITHFUL, ginn, learned=True, probe=on).supported
    # with the probe on, its reading decides: the paired cross-encoder's logit alone is inside the range it can move
    reader = probe.probe()
    assert reader is not None
    logit, w = entailment._logit(REVERSAL, ginn.text, paired=True), reader.weights
    mix, level = float(w["mix"]), float(w["threshold"])
    assert logit is not None and logit + mix * float(w["low"]) < level <= logit + mix * float(w["high"])


@pytest.fixture()
def probe_calls(monkeypatch) -> list[str]:
    """The claims the probe reads, recorded as it reads them."""
    calls: list[str] = []
    score = probe.Probe.score

    def spy(self, claim, evidence):
        calls.append(claim)
        return score(self, claim, evidence)

    monkeypatch.setattr(probe.Probe, "score", spy)
    return calls


def test_the_answer_path_uses_the_probe_only_when_asked(probe_calls):
    source = _seed("Geometry-Informed")
    for on in (True, False):
        probe_calls.clear()
        _, citations, removed = verify(REVERSAL + " [1]", [source], learned=True, probe=on)
        assert citations == [] and [r.reason for r in removed] == ["the abstract says otherwise (entailment model)"]
        assert bool(probe_calls) is on, (on, probe_calls)


def test_without_the_local_model_the_cross_encoder_that_decides_alone_does(ginn, monkeypatch):
    monkeypatch.setattr("assistant.engines.local.installed_models", lambda: [])
    assert probe.probe.__wrapped__() is None
    monkeypatch.setattr(entailment, "probe_model", lambda: None)
    logit = entailment._logit(REVERSAL, "GINNs train without any data.")
    assert logit is not None
    assert entailment.contradicted(REVERSAL, "GINNs train without any data.", probe=True) is (logit < entailment.THRESHOLD)
    monkeypatch.setattr(entailment, "_logit", lambda claim, evidence, paired=False: None if paired else entailment.THRESHOLD)
    assert check(REVERSAL, ginn, learned=True, probe=True).supported  # the alone model's verdict, at its threshold


def test_the_setting_is_on_by_default_and_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("PAPERCHAT_ENTAILMENT_PROBE", raising=False)
    assert Settings().entailment_probe is True
    monkeypatch.setenv("PAPERCHAT_ENTAILMENT_PROBE", "false")
    assert Settings().entailment_probe is False


def test_the_probe_runs_only_where_its_reading_can_change_the_decision(monkeypatch, probe_calls):
    reader = probe.probe()
    assert reader is not None
    calls = probe_calls
    w = {k: float(v) for k, v in reader.weights.items() if v.ndim == 0}
    evidence = "GINNs train shape-generative neural fields without any data."
    for logit, runs in ((w["threshold"] - w["mix"] * w["low"] + 0.1, False),  # kept whatever the probe says
                        (w["threshold"] - w["mix"] * w["high"] - 0.1, False),  # vetoed whatever it says
                        (w["threshold"], True)):
        calls.clear()
        monkeypatch.setattr(entailment, "_logit", lambda claim, evidence, paired=False, value=logit: value)
        entailment.contradicted(REVERSAL, evidence, probe=True)
        assert bool(calls) is runs, (logit, calls)


def test_a_claim_the_rules_read_as_reversed_needs_the_polarity_threshold_to_be_rescued(monkeypatch):
    """Rescuing a claim from a negation or a direction the rules read as reversed takes a surer reading than rescuing
    one from words the abstract lacks (``rescue_polarity`` above ``rescue``, both fitted by benchmarks.train_probe)."""
    reader = probe.probe()
    assert reader is not None
    w = {k: float(v) for k, v in reader.weights.items() if v.ndim == 0}
    assert w["rescue_polarity"] > w["rescue"]
    between = (w["rescue"] + w["rescue_polarity"]) / 2  # a combined score over one threshold and under the other
    monkeypatch.setattr(entailment, "_logit", lambda claim, evidence, paired=False: between)
    monkeypatch.setattr(probe.Probe, "score", lambda self, claim, evidence: 0.0)
    evidence = "GINNs train shape-generative neural fields without any data."
    assert entailment.affirmed(REVERSAL, evidence, probe=True)
    assert not entailment.affirmed(REVERSAL, evidence, probe=True, polarity=True)
    # in the check: a claim that drops the abstract's negation is a polarity fault, one with a field it never names is not
    seen: list[bool] = []
    monkeypatch.setattr(entailment, "affirmed", lambda claim, evidence, probe=False, polarity=False: seen.append(polarity))
    paper = Abstract.of("GINNs", evidence)
    check("GINNs train shape-generative neural fields with data.", paper, learned=True, probe=True)
    check("GINNs train shape-generative neural fields for video without any data.", paper, learned=True, probe=True)
    assert seen == [True, False], seen


def test_the_grounding_benchmark_says_which_check_ran_and_when_the_fallback_did(monkeypatch):
    from benchmarks.grounding import learned_check

    monkeypatch.delenv("PAPERCHAT_ENTAILMENT_CHECK", raising=False)
    monkeypatch.delenv("PAPERCHAT_ENTAILMENT_PROBE", raising=False)
    assert learned_check() == "cross-encoder + probe on the local 0.5B"
    monkeypatch.setenv("PAPERCHAT_ENTAILMENT_PROBE", "false")
    assert learned_check() == "the cross-encoder that decides alone (probe off)"
    monkeypatch.delenv("PAPERCHAT_ENTAILMENT_PROBE")
    monkeypatch.setattr("assistant.engines.local.installed_models", lambda: [])
    probe.probe.cache_clear()
    try:
        assert "fallback ran for every claim" in learned_check()
    finally:
        probe.probe.cache_clear()


def test_a_process_that_used_the_probe_exits_without_noise():
    """The probe's llama.cpp model is freed before interpreter teardown, like the local engine's (no "Exception
    ignored in Llama.__del__" on stderr after a CLI answer), and llama.cpp's loading logs are not shown."""
    import subprocess

    code = ("from assistant.probe import probe; "
            "print(round(probe().score('GINNs need no training data.', 'GINNs train without any data.'), 1))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert "llama_init" not in done.stderr, done.stderr  # llama.cpp's C logs stay out of a user's terminal
    float(done.stdout.strip())


def test_the_thresholds_serve_the_worse_group_of_case_files():
    """``benchmarks.train_probe`` picks the thresholds for the worse of two groups of case files (those before set
    ``NEWER`` and those since), not for all claims pooled, where the larger group would decide alone."""
    from benchmarks.train_probe import NEWER, best_thresholds, group_of

    rows, scores = [], []
    # the older group (many claims): unsupported vetoed claims score low, so a low veto threshold serves it
    for i in range(40):
        rows.append({"file": "grounding_heldout5.jsonl", "call": "veto", "polarity": False, "rules": True, "keep": True})
        scores.append(-3.0 + i * 0.1)
    for i in range(40):
        rows.append({"file": "grounding_heldout5.jsonl", "call": "veto", "polarity": False, "rules": True, "keep": False})
        scores.append(-8.0 + i * 0.1)
    # the newer group (few claims): its unsupported claims score higher, among the older group's supported ones
    for i in range(10):
        rows.append({"file": f"grounding_heldout{NEWER}.jsonl", "call": "veto", "polarity": False, "rules": True, "keep": True})
        scores.append(0.0 + i * 0.1)
    for i in range(10):
        rows.append({"file": f"grounding_heldout{NEWER}.jsonl", "call": "veto", "polarity": False, "rules": True, "keep": False})
        scores.append(-2.5 + i * 0.1)
    assert [group_of(r) for r in rows[-1:] + rows[:1]] == [1, 0]
    score = np.array(scores)
    pooled = best_thresholds(rows, score, polarity=False, grouped=False)
    grouped = best_thresholds(rows, score, polarity=False)
    assert pooled[0] < grouped[0], (pooled, grouped)  # the newer group's unsupported claims are vetoed only when grouped
    newer = [i for i, r in enumerate(rows) if group_of(r)]
    removed = lambda veto: np.mean([score[i] < veto for i in newer if not rows[i]["keep"]])  # noqa: E731
    assert removed(grouped[0]) > removed(pooled[0])


def test_the_best_thresholds_can_be_kept_to_the_allowed_vetoes():
    """``best_thresholds(..., vetoes=...)``, as ``benchmarks.compare_cross_encoders`` uses it: the thresholds with the
    highest worse-of-two rate, the veto only among those given (those that keep the tests' verdicts)."""
    from benchmarks.compare_cross_encoders import set_range
    from benchmarks.train_probe import best_thresholds

    assert set_range("61-63") == [61, 62, 63] and set_range("80") == [80]
    # veto calls: supported claims score -1..0.9, unsupported ones -3..-1.1; one rescue call of each kind
    keep = [True] * 20 + [False] * 20 + [True, False]
    score = np.array([-1 + i * 0.1 for i in range(20)] + [-3 + i * 0.1 for i in range(20)] + [4.0, 2.0])
    rows = [{"file": "grounding_heldout61.jsonl", "call": "veto" if i < 40 else "rescue", "polarity": False,
             "rules": True, "keep": k} for i, k in enumerate(keep)]
    veto, rescue, _ = best_thresholds(rows, score, polarity=False, grouped=False)
    assert veto == -1.0 and 2.0 < rescue <= 4.0
    veto, _, _ = best_thresholds(rows, score, polarity=False, grouped=False, vetoes=np.array([-3.0, -2.5]))
    assert veto == -2.5  # only lower vetoes allowed: the higher of them
