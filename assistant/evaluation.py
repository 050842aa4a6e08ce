"""``paperchat eval``: run a question file through the ``Assistant`` API and score it.

The question format is that of ``shared/eval/dev_qa.jsonl`` (kinds: single, multi, abstain, followup, near_miss).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np

from assistant.core import SECOND_DRAFT_TIMING, Assistant
from assistant.lists import list_topic
from assistant.types import Answer
from ingest.cleaning import unescape_latex
from ingest.records import read_jsonl
from vectorstore.errors import InputError


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions of a ``dev_qa.jsonl``-style file; ``InputError`` names the first bad line."""
    questions = []
    for number, item in read_jsonl(Path(path).read_text(encoding="utf-8")):
        if isinstance(item, json.JSONDecodeError):
            raise InputError(f"malformed JSON ({item.msg})", "fix the line", path=path, where=f":{number}")
        if not isinstance(item, dict) or "question" not in item or item.get("kind") not in KINDS:
            raise InputError(f"needs 'question' and 'kind' ({', '.join(KINDS)})", path=path, where=f":{number}")
        questions.append(item)
    return questions


KINDS = ("single", "multi", "abstain", "followup", "near_miss", "switch")


def _history(assistant: Assistant, item: dict[str, Any], answers: bool) -> list[dict[str, str]]:
    """The conversation before the question: each earlier question asked in turn and answered (as in the chat),
    or, without ``answers``, the questions alone."""
    history: list[dict[str, str]] = []
    for turn in item.get("history") or []:
        reply = assistant.ask(str(turn), history).text if answers else ""
        history += [{"role": "user", "content": str(turn)}] + ([{"role": "assistant", "content": reply}] if answers else [])
    return history


def _plain(text: str) -> str:
    """``text`` as a reader compares it: LaTeX read as the chat shows it (``$O(\\sqrt{T})$`` is ``O(sqrt(T))``), Unicode
    compatibility forms folded ("𝖭𝖯" is "NP"), case and spaces ignored ("8.69 ×" is "8.69×")."""
    return "".join(unicodedata.normalize("NFKC", unescape_latex(text)).lower().split())


def holds(answer: str, expected: list[str]) -> bool:
    """Whether ``answer`` contains every expected string, both read by ``_plain``: an expected string copied from an
    abstract's LaTeX source counts as contained when the answer shows it as the chat renders it."""
    plain = _plain(answer)
    return all(_plain(s) in plain for s in expected)


def _rank(ids: list[str], gold: set[str]) -> int | None:
    return next((i for i, pid in enumerate(ids) if pid in gold), None)


def evaluate(assistant: Assistant, questions: list[dict[str, Any]], answers: bool = True) -> dict[str, Any]:
    """Score retrieval (and, with ``answers``, the answers) of every question. Returns metrics and rows."""
    rows = []
    for item in questions:
        gold = set(item.get("gold") or [])
        accept = gold | set(item.get("accept") or [])
        history = _history(assistant, item, answers)
        answer: Answer = assistant.ask(item["question"], history) if answers else Answer(
            question=item["question"], text="", query=item["question"], hits=assistant.search(item["question"]))
        ids = [h.paper_id for h in answer.hits]
        rank = _rank(ids, gold)
        cited = [c.paper_id for c in answer.citations]
        rows.append({
            "id": item.get("id"), "kind": item["kind"], "question": item["question"], "query": answer.query,
            "rank": rank, "recall5": len(gold & set(ids[:5])) / len(gold) if gold else None,
            "abstained": answer.abstained, "top_dense": answer.hits[0].dense if answer.hits else 0.0,
            "contains": holds(answer.text, item.get("answer_contains") or []),
            "has_contains": bool(item.get("answer_contains")),
            "cited": cited, "cited_ok": sum(c in accept for c in cited), "cites_gold": bool(gold & set(cited)),
            "only_relevant": bool(cited) and all(c in accept for c in cited),
            "gold_cited": len(gold & set(cited)) / len(gold) if gold else None,
            "fallback": answer.fallback, "near_miss": answer.near_miss,
            "rewritten": answer.query not in (item["question"], list_topic(item["question"])),  # a list searches its topic
            "timings": answer.timings, "text": answer.text, "engine": answer.engine,
        })
    return {"metrics": summarize(rows), "rows": rows}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def of(kind: str) -> list[dict[str, Any]]:
        return [r for r in rows if r["kind"] == kind]

    single, multi, abstain, follow, near = of("single"), of("multi"), of("abstain"), of("followup"), of("near_miss")
    switch = of("switch")
    answerable = [r for r in rows if r["kind"] not in ("abstain", "near_miss", "switch")]
    mean = lambda xs: float(np.mean(xs)) if xs else float("nan")  # noqa: E731
    cited = [r for r in answerable if r["cited"]]
    stages: dict[str, list[float]] = {}
    for r in rows:
        for stage, seconds in r["timings"].items():
            stages.setdefault(stage, []).append(seconds)
    return {
        "single": {"n": len(single), "hit@1": mean([r["rank"] == 0 for r in single]),
                   "hit@3": mean([r["rank"] is not None and r["rank"] < 3 for r in single]),
                   "mrr": mean([1 / (r["rank"] + 1) if r["rank"] is not None else 0.0 for r in single])},
        "multi": {"n": len(multi), "recall@5": mean([r["recall5"] for r in multi]),
                  "gold_cited": mean([r["gold_cited"] for r in multi])},
        "near_miss": {"n": len(near), "handled": sum(r["near_miss"] or r["abstained"] for r in near)},
        "abstain": {"n": len(abstain), "abstained": sum(r["abstained"] for r in abstain),
                    "answerable": len(answerable), "wrongly_abstained": sum(r["abstained"] for r in answerable)},
        "followup": {"n": len(follow), "hit@3": mean([r["rank"] is not None and r["rank"] < 3 for r in follow])},
        "switch": {"n": len(switch), "rewritten": sum(r["rewritten"] for r in switch)},
        "answers": {"contains": mean([r["contains"] for r in answerable if r["has_contains"]]),
                    "citation_precision": (sum(r["cited_ok"] for r in cited) / sum(len(r["cited"]) for r in cited)) if cited else float("nan"),
                    "cite_gold": sum(r["cites_gold"] for r in answerable), "answerable": len(answerable),
                    "only_relevant": mean([r["only_relevant"] for r in answerable if not r["abstained"]]),
                    "fallback": mean([r["fallback"] for r in answerable if not r["abstained"]]),
                    "second_draft": mean([SECOND_DRAFT_TIMING in r["timings"] for r in answerable if not r["abstained"]])},
        "latency_ms": {stage: {"p50": 1000 * float(np.percentile(v, 50)), "p95": 1000 * float(np.percentile(v, 95))}
                       for stage, v in stages.items()},
    }


def format_table(metrics: dict[str, Any]) -> str:
    m = metrics
    lines = [
        f"{'metric':34} value",
        f"{'single  hit@1 / hit@3 / MRR':34} {m['single']['hit@1']:.3f} / {m['single']['hit@3']:.3f} / {m['single']['mrr']:.3f}  (n={m['single']['n']})",
        f"{'multi   recall@5':34} {m['multi']['recall@5']:.3f}  (n={m['multi']['n']})",
        f"{'        gold papers cited':34} {m['multi']['gold_cited']:.3f}",
        f"{'abstain abstained':34} {m['abstain']['abstained']}/{m['abstain']['n']}",
        f"{'        wrongly abstained':34} {m['abstain']['wrongly_abstained']}/{m['abstain']['answerable']}",
        f"{'followup hit@3':34} {m['followup']['hit@3']:.3f}  (n={m['followup']['n']})",
        f"{'topic switches rewritten':34} {m['switch']['rewritten']}/{m['switch']['n']}",
        f"{'answers contain expected':34} {m['answers']['contains']:.3f}",
        f"{'        citation precision':34} {m['answers']['citation_precision']:.3f}",
        f"{'        cite a gold paper':34} {m['answers']['cite_gold']}/{m['answers']['answerable']}",
        f"{'        cite only relevant papers':34} {m['answers']['only_relevant']:.3f}",
        f"{'        second draft written':34} {m['answers']['second_draft']:.3f}",
        f"{'        fallback (engine text replaced)':34} {m['answers']['fallback']:.3f}",
        f"{'near-miss said so / abstained':34} {m['near_miss']['handled']}/{m['near_miss']['n']}",
    ]
    for stage, v in m["latency_ms"].items():
        lines.append(f"{'latency ' + stage + ' p50 / p95 ms':34} {v['p50']:.1f} / {v['p95']:.1f}")
    return "\n".join(lines)
