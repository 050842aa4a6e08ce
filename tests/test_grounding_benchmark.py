"""The grounding benchmark's machinery (benchmarks/grounding.py), on a few cases, with the real parts:
embedded Chroma, the packaged MiniLM, the real ``openai`` engine and the scripted server on loopback.

Only the harness is checked here, not the verifier's rates (those are what the benchmark measures).
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from assistant.core import SECOND_DRAFT_TIMING
from benchmarks import grounding
from benchmarks.scripted_openai import ScriptedOpenAI, parse_sources

PROMPT = ("<papers>\n[1] Quest: Query-Aware Sparsity\nQuest keeps track of Key values.\n\n"
          "[2] EAGLE: Speculative Sampling\nEAGLE is fast.\n</papers>\n\nQuestion: what?\n\nAnswer in 1-3 sentences.")


def _post(url: str, payload: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers.get("Content-Type", ""), response.read()


def test_cases_file_is_complete():
    cases = grounding.load_cases()
    assert len(cases) >= 150
    counts = {kind: sum(c["kind"] == kind for c in cases) for kind in grounding.KINDS}
    assert min(counts.values()) >= 18, counts
    assert len({c["id"] for c in cases}) == len(cases)
    corpus = grounding.load_corpus()
    for case in cases:
        assert case["paper"] in corpus and (case["other"] is None) == (case["kind"] != "wrong_paper")
        if case["kind"] == "exact":  # verbatim, or with the LaTeX and markdown of the abstract normalised
            assert _plain(case["claim"]) in _plain(corpus[case["paper"]]["abstract"]), case["id"]


def _plain(text: str) -> str:
    return grounding.normalize(text.replace("$", "").replace("\\times", "×").replace("*", ""))


def test_scripted_server_substitutes_numbers_and_streams():
    with ScriptedOpenAI(chunk_chars=5) as server:
        server.script("Quest is query aware [{A}]; EAGLE is not [{B}]. Missing [{C}].",
                      A="Quest: Query-Aware  Sparsity", B="eagle: speculative sampling", C="Not A Source")
        messages = [{"role": "system", "content": "x"}, {"role": "user", "content": PROMPT}]
        kind, body = _post(server.base_url, {"model": "scripted", "stream": True, "messages": messages})
        assert kind.startswith("text/event-stream")
        events = [line[len("data: "):] for line in body.decode().splitlines() if line.startswith("data: ")]
        assert events[-1] == "[DONE]" and len(events) > 5
        text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1] if json.loads(e)["choices"])
        assert text == "Quest is query aware [1]; EAGLE is not [2]. Missing [3]."
        assert server.last.numbers == {"A": 1, "B": 2, "C": 3} and server.last.missing == ["C"]
        _, body = _post(server.base_url, {"model": "scripted", "messages": messages})
        assert json.loads(body)["choices"][0]["message"]["content"] == text
        assert [bool(r.get("stream")) for r in server.requests] == [True, False]
        with urllib.request.urlopen(server.base_url + "/models", timeout=10) as response:
            assert json.loads(response.read())["data"][0]["id"] == "scripted"
    assert parse_sources(PROMPT) == {"quest: query-aware sparsity": 1, "eagle: speculative sampling": 2}


def _answer(text: str, cited: dict[int, str], removed=None) -> SimpleNamespace:
    return SimpleNamespace(text=text, removed=removed,
                           citations=[SimpleNamespace(number=n, paper_id=p, quote="") for n, p in cited.items()])


def test_kept_is_judged_per_sentence():
    claim = "Vim saves 86.8\\% GPU memory."
    assert grounding.is_kept(_answer("Lead. [1] vim saves 86.8%  GPU memory. [1]", {1: "A"}), claim, "A")
    assert grounding.is_kept(_answer("Lead [1]. Vim saves 86.8% GPU memory [1].", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Lead. [1] Vim saves 86.8% GPU memory.", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Lead [1]. Vim saves 86.8% GPU memory.", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Vim saves 86.8% GPU memory. [1]", {1: "B"}), claim, "A")
    assert not grounding.is_kept(_answer("_The model's answer could not be verified_\nVim saves 86.8% GPU memory. [1]", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Vim saves 86.8% GPU memory. [1]", {1: "A"}, removed=[{"reason": "fallback"}]), claim, "A")


def test_a_claim_of_two_sentences_is_kept_when_both_keep_a_marker():
    claim = "Vim is fast. It saves 86.8% GPU memory."
    # the verifier checks each sentence and gives each its own marker; the benchmark read that as dropped before
    assert grounding.is_kept(_answer("Vim is fast. [1] It saves 86.8% GPU memory. [1]", {1: "A"}), claim, "A")
    assert grounding.is_kept(_answer("Vim is fast. It saves 86.8% GPU memory. [1]", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("It saves 86.8% GPU memory. [1]", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Vim is fast. [1] It saves 86.8% GPU memory.", {1: "A"}), claim, "A")
    assert not grounding.is_kept(_answer("Vim is fast. [2] It saves 86.8% GPU memory. [1]", {1: "A", 2: "B"}), claim, "A")


def test_templates_place_markers():
    case = {"claim": "Vim is fast.", "kind": "exact"}
    assert grounding.template(case, "alone", "Lead.") == "Vim is fast. [{A}]"
    assert grounding.template(case, "after", "Lead.") == "Lead. [{A}] Vim is fast. [{A}]"
    assert grounding.template(case, "after", "Lead.", "before-period") == "Lead [{A}]. Vim is fast [{A}]."


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory):
    """A small store (three case papers, ten distractors) and an openai-engine Assistant on the scripted server."""
    from assistant import Assistant
    from ingest import ingest
    from vectorstore import Settings

    cases = [c for c in grounding.load_cases() if c["paper"] in {"icml2024-poster-34319", "icml2024-poster-35153"}]
    tmp: Path = tmp_path_factory.mktemp("gbench")
    needed, _ = grounding.write_corpus(cases, grounding.load_corpus(), tmp / "papers.jsonl", distractors=10)
    settings = Settings(data_dir=tmp / "store", collection="gbench", engine="openai", quotes_under_summary=False)
    ingest([tmp / "papers.jsonl"], settings, progress=False)
    with ScriptedOpenAI() as server:
        assistant = Assistant(settings, engine="openai", openai_base_url=server.base_url, openai_model="scripted",
                              openai_api_key="x", auto_ingest=False)
        titles = {pid: assistant.paper(pid).title for pid in needed}
        yield SimpleNamespace(cases=cases, server=server, assistant=assistant, titles=titles)


def _ask(bench, case, position: str):
    lead = grounding.lead_sentence(case, bench.cases, bench.assistant.paper(case["paper"]).abstract)
    placeholders = {"A": bench.titles[case["paper"]]}
    if case["other"]:
        placeholders["B"] = bench.titles[case["other"]]
    bench.server.script(grounding.template(case, position, lead), **placeholders)
    before = len(bench.server.requests)
    answer = bench.assistant.ask(grounding.question(case, bench.titles))
    calls = len(bench.server.requests) - before  # a second draft when the check kept nothing of the first
    assert calls == 1 + (SECOND_DRAFT_TIMING in answer.timings), "the openai engine did not call the scripted server"
    return answer, bench.server.requests[before], bench.server.last


@pytest.mark.parametrize("position", grounding.POSITIONS)
def test_exact_case_through_the_openai_engine_is_kept(bench, position):
    case = next(c for c in bench.cases if c["kind"] == "exact" and c["paper"] == "icml2024-poster-34319")
    answer, payload, resolution = _ask(bench, case, position)
    assert answer.engine == "openai"
    assert payload["stream"] is True and payload["model"] == "scripted"
    user = payload["messages"][-1]["content"]
    assert "<papers>" in user and bench.titles[case["paper"]] in user
    assert resolution.missing == [] and f"[{resolution.numbers['A']}]" in resolution.answer
    assert case["claim"] in resolution.answer
    assert grounding.is_kept(answer, case["claim"], case["paper"]), answer.text


def test_wrong_paper_claim_loses_its_marker(bench):
    # select first, then write: paper B may not even be given to the model; the claim cited to A must be dropped
    case = next(c for c in bench.cases if c["kind"] == "wrong_paper" and c["paper"] == "icml2024-poster-34319")
    bench.server.script(case["claim"] + " [{A}]", A=bench.titles[case["paper"]])
    answer = bench.assistant.ask(bench.titles[case["paper"]])
    assert bench.server.last.missing == [] and bench.server.last.answer.endswith("[1]")
    assert not grounding.is_kept(answer, case["claim"], case["paper"]), answer.text


def test_out_of_range_marker_is_dropped(bench):
    case = next(c for c in bench.cases if c["kind"] == "exact" and c["paper"] == "icml2024-poster-35153")
    bench.server.script(case["claim"] + " [9]")
    answer = bench.assistant.ask(bench.titles[case["paper"]])
    assert "[9]" in bench.server.last.answer
    assert not grounding.is_kept(answer, case["claim"], case["paper"]), answer.text


def test_the_entailment_model_runs_on_the_openai_engines_claims_unless_switched_off(bench, monkeypatch):
    from assistant import entailment

    calls: list[list[tuple[str, str]]] = []
    scores = entailment.EntailmentModel.scores

    def spy(self, pairs):
        calls.append(pairs)
        return scores(self, pairs)

    monkeypatch.setattr(entailment.EntailmentModel, "scores", spy)
    claim = "By loading only the Top-K critical KV cache pages for attention, Quest speeds up self-attention a lot without losing accuracy."
    for on in (False, True):  # the Assistant's own setting decides, as a keyword override or PAPERCHAT_ENTAILMENT_CHECK
        monkeypatch.setattr(bench.assistant.settings, "entailment_check", on)
        bench.server.script(claim + " [{A}]", A=bench.titles["icml2024-poster-34319"])
        answer = bench.assistant.ask(bench.titles["icml2024-poster-34319"])
        assert grounding.is_kept(answer, claim, "icml2024-poster-34319"), answer.text
        assert bool(calls) == on, calls
    assert any(c.startswith("By loading only") and "Top-K critical KV cache pages" in e for pairs in calls for c, e in pairs), calls
