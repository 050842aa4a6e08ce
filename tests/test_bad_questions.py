"""Hostile or odd questions get a sensible reply or a clear message, never an exception; the CLI output is inert."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assistant import Answer, Assistant
from ingest import ingest
from vectorstore import Settings


@pytest.fixture(scope="module")
def assistant(tmp_path_factory, seed_jsonl: Path) -> Assistant:
    settings = Settings(data_dir=tmp_path_factory.mktemp("badq"), engine="extractive")
    ingest([seed_jsonl], settings, progress=False)
    return Assistant(settings, auto_ingest=False)


QUESTIONS = {
    "empty": "",
    "whitespace": " \t\n  ",
    "huge": "type inference " * 7000,  # ~105,000 characters
    "nul_and_control": "What is\x00 Nester\x07?\x1b[31m",
    "emoji": "🤖🧠 What is Nester? 🚀",
    "rtl": "ما هو Nester؟ מה זה",
    "markup": "<script>alert(1)</script> **What** is `Nester`? <img src=x onerror=alert(2)>",
    "other_language": "¿Qué es Nester y para qué sirve la inferencia de tipos?",
    "only_punctuation": "?!?!...",
}


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_odd_questions_never_raise(assistant: Assistant, name: str):
    answer = assistant.ask(QUESTIONS[name])
    assert isinstance(answer, Answer) and answer.text
    assert "\x00" not in answer.question and "\x1b" not in answer.question
    assert len(answer.question) <= 2000
    if name in ("empty", "whitespace"):
        assert answer.error and "question" in answer.text.lower()
    if name in ("nul_and_control", "emoji", "huge"):
        assert not answer.abstained and answer.citations[0].paper_id == "icml2025-44081"
    if name == "markup":  # mostly markup words: abstaining is as sensible as answering about Nester
        assert answer.abstained or answer.citations[0].paper_id == "icml2025-44081"
    for citation in answer.citations:  # whatever the question, citations stay verified
        assert citation.quote in (assistant.paper(citation.paper_id).abstract)


def test_the_assistant_keeps_serving_after_odd_input(assistant: Assistant):
    for question in QUESTIONS.values():
        assistant.ask(question)
    assert assistant.ask("What is MARASON?").citations[0].paper_id == "icml2025-44092"


def test_cli_output_is_inert(tmp_path: Path, seed_jsonl: Path):
    evil = tmp_path / "evil.csv"
    evil.write_text('id,title,abstract\nx1,"Evil \x1b]0;pwned\x07 title","We study terminal escapes \x1b[2J\x1b[31m in '
                    'CSV abstracts called EscapeBench. EscapeBench has 12 tasks."\n', encoding="utf-8")
    data = tmp_path / "data"
    cli = [sys.executable, "-m", "ui.cli"]
    assert subprocess.run([*cli, "ingest", str(seed_jsonl), str(evil), "--persist-dir", str(data)], capture_output=True).returncode == 0
    out = subprocess.run([*cli, "ask", "How many tasks does EscapeBench have?", "--engine", "extractive", "--persist-dir", str(data)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "EscapeBench" in out.stdout and "\x1b" not in out.stdout and "\x07" not in out.stdout
