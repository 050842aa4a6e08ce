"""Adversarial grounding benchmark (issue 11): does the verifier keep supported citations and drop unsupported ones?

Each case of ``benchmarks/grounding_cases.jsonl`` is a claim about an ICML 2024 paper A, written by hand
from its abstract. Keep kinds (the citation must survive): ``exact``, ``paraphrase``, ``summary``.
Drop kinds (the citation must be removed): ``wrong_number``, ``negation``, ``invented_detail``,
``wrong_paper`` (a fact of paper B cited to A), ``repeat_unsupported`` (an unsupported claim citing A
right after a supported one).

The whole answer path runs: a temporary embedded store (the cases' papers plus distractors), real
retrieval, the real ``openai`` engine (langchain-openai, streaming) talking to a scripted
OpenAI-compatible server on loopback that answers with the case's claim and the number paper A got
among the sources, then the verifier. Positions:

* ``alone``: ``"{claim} [A]"``
* ``after``: ``"{lead} [A] {claim} [A]"``, lead = a verbatim sentence of A's abstract.

A case is **kept** when a sentence of the final ``answer.text`` (markers removed, whitespace, case and
``\\%`` normalised) contains the claim and carries a marker whose citation is paper A, and the answer
was not replaced by the extractive fallback. Cases whose placeholder papers were not among the sources
given to the LLM are reported as "not retrieved" and left out of the rates.

    python -m benchmarks.grounding [--cases FILE] [--json OUT] [--kinds exact negation ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PAPERCHAT_SHARED", ROOT.parent / "shared"))
if not SHARED.is_dir() and Path("/work/shared").is_dir():  # worktrees live beside main/, not inside it
    SHARED = Path("/work/shared")
CORPUS = SHARED / "data" / "icml2024_abstracts" / "papers.jsonl"
# Sets 35 on are written on 2025-conference papers (the ICML 2024 abstracts ran out); distractors stay ICML 2024.
MORE_CORPORA = (SHARED / "data" / "ml2025_conferences" / "papers.jsonl",)
CASES = Path(__file__).with_name("grounding_cases.jsonl")

KEEP = ("exact", "paraphrase", "summary")
DROP = ("wrong_number", "negation", "invented_detail", "wrong_paper", "repeat_unsupported")
KINDS = KEEP + DROP
POSITIONS = ("alone", "after")
GOAL = 0.95

_MARKERS = re.compile(r"\[(?:0|[1-9]\d*(?:\s*[,;]\s*[1-9]\d*)*)\]")  # as ``assistant.grounding`` reads them: "[0,1]" is an interval
_MARKER_RUN = re.compile(r"(?:\s*\[(?:0|[1-9]\d*(?:\s*[,;]\s*[1-9]\d*)*)\])+")


# ------------------------------------------------------------------------------------ cases and corpus


def load_cases(path: str | Path = CASES, kinds: Iterable[str] | None = None) -> list[dict[str, Any]]:
    wanted = set(kinds or KINDS)
    cases = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        case = json.loads(line)
        if case["kind"] not in KINDS:
            raise ValueError(f"{path}:{n}: unknown kind {case['kind']!r}")
        if case["kind"] == "wrong_paper" and not case.get("other"):
            raise ValueError(f"{path}:{n}: wrong_paper needs 'other'")
        if case["kind"] in wanted:
            cases.append(case)
    return cases


def load_corpus(*paths: str | Path) -> dict[str, dict[str, Any]]:
    """Papers by id from ``paths`` (default: the ICML 2024 abstracts, then the 2025-conference papers)."""
    papers = {}
    for path in paths or (CORPUS, *MORE_CORPORA):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    paper = json.loads(line)
                    papers[paper["id"]] = paper
    return papers


def write_corpus(cases: list[dict[str, Any]], corpus: dict[str, dict[str, Any]], out: Path,
                 distractors: int = 150, seed: int = 11) -> tuple[list[str], list[str]]:
    """The cases' papers plus ``distractors`` other papers of the corpus, as JSONL: (case paper ids, all ids)."""
    needed = list(dict.fromkeys([c["paper"] for c in cases] + [c["other"] for c in cases if c.get("other")]))
    missing = [pid for pid in needed if pid not in corpus]
    if missing:
        raise SystemExit(f"case papers not in {CORPUS} or {MORE_CORPORA[0]}: {missing}")
    rest = sorted(pid for pid in set(corpus) - set(needed) if pid.startswith("icml2024"))  # as before set 35
    chosen = needed + random.Random(seed).sample(rest, min(distractors, len(rest)))
    with open(out, "w", encoding="utf-8") as handle:
        for pid in chosen:
            handle.write(json.dumps(corpus[pid], ensure_ascii=False) + "\n")
    return needed, chosen


def normalize(text: str) -> str:
    """Markers removed, LaTeX as the reader sees it (``\\%`` -> ``%``, ``$\\varepsilon$`` -> ``ε``: answers are shown
    unescaped), case and whitespace folded."""
    from assistant.claims import unescape_latex_numbers

    text = unescape_latex_numbers(_MARKERS.sub(" ", text))
    return " ".join(text.split()).casefold()


def lead_sentence(case: dict[str, Any], cases: list[dict[str, Any]], abstract: str) -> str:
    """A supported verbatim sentence of paper A to put before the claim: A's first exact case, or
    (when that is the claim itself) the abstract's second sentence, or the next one that differs."""
    claim = normalize(case["claim"])
    for other in cases:
        if other["paper"] == case["paper"] and other["kind"] == "exact" and normalize(other["claim"]) != claim:
            return other["claim"]
    from ingest.chunking import sentence_spans

    found = [abstract[s.start : s.end] for s in sentence_spans(abstract) if len(abstract[s.start : s.end].split()) >= 6]
    for sentence in found[1:] + found[:1]:
        if normalize(sentence) != claim and claim not in normalize(sentence) and normalize(sentence) not in claim:
            return sentence
    raise ValueError(f"no lead sentence for {case['id']}")


MARKER_STYLES = ("after-period", "before-period")


def template(case: dict[str, Any], position: str, lead: str, style: str = "after-period") -> str:
    """The scripted answer: ``claim [A]`` (after-period: ``... baseline. [1]``; before-period: ``... baseline [1].``)."""

    def cite(sentence: str) -> str:
        sentence = sentence.strip()
        if style == "before-period" and sentence[-1:] in ".!?":
            return f"{sentence[:-1]} [{{A}}]{sentence[-1]}"
        return f"{sentence} [{{A}}]"

    if position == "alone":
        return cite(case["claim"])
    return f"{cite(lead)} {cite(case['claim'])}"


def question(case: dict[str, Any], titles: dict[str, str]) -> str:
    if case["kind"] == "wrong_paper":
        return f"{titles[case['paper']]} and {titles[case['other']]}"
    return titles[case["paper"]]


# ------------------------------------------------------------------------------------ judging answers


def segments(text: str) -> list[tuple[str, list[int]]]:
    """The answer cut after each run of markers: (text before the markers, the marker numbers)."""
    out = []
    last = 0
    for match in _MARKER_RUN.finditer(text):
        numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
        out.append((text[last : match.start()], numbers))
        last = match.end()
    if text[last:].strip():
        out.append((text[last:], []))
    return out


def citation_papers(answer: Any) -> dict[int, str]:
    return {int(c.number): str(c.paper_id) for c in getattr(answer, "citations", []) or []}


def removed_reasons(answer: Any) -> list[str]:
    """Reasons from ``answer.removed`` (a list being added to ``Answer``), whatever its item shape."""
    reasons = []
    for item in getattr(answer, "removed", None) or []:
        if isinstance(item, str):
            reasons.append(item)
            continue
        reason = item.get("reason") if isinstance(item, dict) else getattr(item, "reason", None)
        reasons.append(str(reason if reason is not None else item))
    return reasons


def is_fallback(answer: Any) -> bool:
    """The model's text was replaced by the extractive fallback (an underscore note opens the answer)."""
    if str(getattr(answer, "text", "")).lstrip().startswith("_"):
        return True
    return any("fallback" in r.lower() or "replaced" in r.lower() for r in removed_reasons(answer))


def is_kept(answer: Any, claim: str, paper_id: str) -> bool:
    """Each sentence of the claim is in a stretch of the answer that carries a marker whose citation is ``paper_id``
    (and no fallback). A claim of two sentences is kept when the verifier keeps both, each with its own marker
    ("S1. [1] S2. [1]") or one after both; it is not kept when either loses its marker."""
    if is_fallback(answer):
        return False
    from ingest.chunking import sentence_spans

    cited = citation_papers(answer)
    stretches = [normalize(text) for text, numbers in segments(str(getattr(answer, "text", "")))
                 if any(cited.get(n) == paper_id for n in numbers)]
    parts = [claim[s.start : s.end] for s in sentence_spans(claim)] or [claim]
    # the marker may sit before a sentence's final period
    return all(any(normalize(part).rstrip(".!?") in text for text in stretches) for part in parts)


# ------------------------------------------------------------------------------------ running


def run(cases: list[dict[str, Any]], distractors: int = 150, progress: bool = True,
        positions: Iterable[str] = POSITIONS, lead_cases: list[dict[str, Any]] | None = None,
        style: str = "after-period") -> list[dict[str, Any]]:
    """Run every case in every position through a fresh store, the openai engine and the scripted server.

    Leads are taken from ``lead_cases`` (default: ``cases``), so filtering kinds does not change them.
    """
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    os.environ["no_proxy"] = os.environ["NO_PROXY"]
    from assistant import Assistant
    from ingest import ingest
    from vectorstore import Settings

    from benchmarks.scripted_openai import ScriptedOpenAI

    corpus = load_corpus()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="paperchat-gbench-") as tmp, ScriptedOpenAI() as server:
        papers_file = Path(tmp) / "papers.jsonl"
        needed, ids = write_corpus(cases, corpus, papers_file, distractors)
        settings = Settings(data_dir=Path(tmp) / "store", collection="gbench", engine="openai",
                            quotes_under_summary=False)  # the verifier on the model's text alone
        t0 = time.perf_counter()
        report = ingest([papers_file], settings, progress=False)
        log(f"store: {len(ids)} papers ({report}) in {time.perf_counter() - t0:.0f}s; server {server.base_url}", progress)
        assistant = Assistant(settings, engine="openai", openai_base_url=server.base_url, openai_model="scripted",
                              openai_api_key="x", auto_ingest=False)
        cache_embeddings(assistant.embedder)
        titles = {}
        for pid in needed:
            stored = assistant.paper(pid)
            titles[pid] = stored.title if stored else corpus[pid]["title"]
        t1 = time.perf_counter()
        total = len(cases) * len(tuple(positions))
        for case in cases:
            abstract = corpus[case["paper"]]["abstract"]
            lead = lead_sentence(case, lead_cases or cases, abstract)
            placeholders = {"A": titles[case["paper"]]}
            if case.get("other"):
                placeholders["B"] = titles[case["other"]]
            for position in positions:
                server.script(template(case, position, lead, style), **placeholders)
                before = len(server.resolutions)
                answer = assistant.ask(question(case, titles))
                seen = server.resolutions[before:]
                if not seen:
                    status = "not retrieved (no LLM call: %s)" % ("abstained" if answer.abstained else answer.error or "?")
                elif seen[-1].missing:
                    status = "not retrieved (%s)" % ", ".join(seen[-1].missing)
                else:
                    status = "ok"
                kept = is_kept(answer, case["claim"], case["paper"])
                expected = "keep" if case["kind"] in KEEP else "drop"
                rows.append({
                    "id": case["id"], "kind": case["kind"], "position": position, "expected": expected,
                    "status": status, "kept": kept, "correct": kept == (expected == "keep"),
                    "fallback": is_fallback(answer), "removed": removed_reasons(answer),
                    "paper": case["paper"], "other": case.get("other"), "claim": case["claim"],
                    "question": question(case, titles), "sent": seen[-1].answer if seen else None,
                    "sources": seen[-1].sources if seen else {},
                    "text": answer.text, "engine": answer.engine,
                    "citations": [{"number": c.number, "paper_id": c.paper_id, "quote": c.quote} for c in answer.citations],
                })
                if progress and len(rows) % 50 == 0:
                    rate = len(rows) / (time.perf_counter() - t1)
                    log(f"  {len(rows)}/{total} answers ({rate:.1f}/s)", progress)
        log(f"answered {len(rows)} in {time.perf_counter() - t1:.0f}s", progress)
    return rows


def cache_embeddings(embedder: Any) -> None:
    """Memoize ``embedder.encode`` per text on this instance (the package is untouched).

    The benchmark asks the same few questions many times, and the answer path re-embeds the top
    papers' sentences on every question; on a shared 2-core machine that dominated the run time.
    The vectors are the same (the model is deterministic), so the answers are too.
    """
    import numpy as np

    original = embedder.encode
    cache: dict[str, Any] = {}

    def encode(texts: list[str], show_progress_bar: bool = False) -> Any:
        todo = list(dict.fromkeys(t for t in texts if t not in cache))
        if todo:
            for text, vector in zip(todo, original(todo)):
                cache[text] = vector
        if not texts:
            return original(texts)
        return np.stack([cache[t] for t in texts]).astype(np.float32, copy=False)

    embedder.encode = encode


def log(message: str, enabled: bool = True) -> None:
    if enabled:
        print(message, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ report


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per kind and position: n (retrieved), rate (kept for keep kinds, dropped for drop kinds), fallbacks."""
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for kind in KINDS:
        for position in POSITIONS:
            mine = [r for r in rows if r["kind"] == kind and r["position"] == position]
            ok = [r for r in mine if r["status"] == "ok"]
            if not mine:
                continue
            good = sum(r["correct"] for r in ok)
            table[(kind, position)] = {"n": len(ok), "good": good, "rate": good / len(ok) if ok else None,
                                       "not_retrieved": len(mine) - len(ok), "fallback": sum(r["fallback"] for r in ok)}
    goals = {}
    for name, kinds in (("supported kept", KEEP), ("unsupported removed", DROP)):
        goals[name] = {}
        for position in POSITIONS:
            ok = [r for r in rows if r["kind"] in kinds and r["position"] == position and r["status"] == "ok"]
            goals[name][position] = sum(r["correct"] for r in ok) / len(ok) if ok else None
    return {"table": table, "goals": goals}


def _rate(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def learned_check() -> str:
    """Which learned check the answers went through, as the settings and the installed models decide."""
    from assistant.probe import probe
    from vectorstore import Settings

    settings = Settings()
    if not settings.entailment_check:
        return "off (rules only)"
    if not settings.entailment_probe:
        return "the cross-encoder that decides alone (probe off)"
    return "cross-encoder + probe on the local 0.5B" if probe() is not None else \
        "the cross-encoder that decides alone (the local 0.5B is not installed: the probe's fallback ran for every claim)"


def print_report(rows: list[dict[str, Any]], max_failures: int | None = None, width: int = 220) -> None:
    summary = summarize(rows)
    table = summary["table"]
    print(f"\n{'kind':<19} | {'expected':<8} | {'n alone':>7} | {'rate alone':>10} | {'n after':>7} | {'rate after':>10} | fallback a/a | not retrieved a/a")
    print("-" * 112)
    for kind in KINDS:
        a, b = table.get((kind, "alone")), table.get((kind, "after"))
        if not a and not b:
            continue
        a = a or {"n": 0, "rate": None, "fallback": 0, "not_retrieved": 0}
        b = b or {"n": 0, "rate": None, "fallback": 0, "not_retrieved": 0}
        expected = "keep" if kind in KEEP else "drop"
        print(f"{kind:<19} | {expected:<8} | {a['n']:>7} | {_rate(a['rate']):>10} | {b['n']:>7} | {_rate(b['rate']):>10} | "
              f"{a['fallback']:>5}/{b['fallback']:<6} | {a['not_retrieved']:>5}/{b['not_retrieved']}")
    print("(rate = kept rate for keep kinds, dropped rate for drop kinds; fallback = answer replaced by the extractive fallback)")
    print()
    for name in ("supported kept", "unsupported removed"):
        g = summary["goals"][name]
        if all(v is None for v in g.values()):
            continue
        met = all(v is not None and v >= GOAL for v in g.values())
        print(f"{name} >= {GOAL} (alone {_rate(g['alone'])}, after {_rate(g['after'])}): {'met' if met else 'NOT MET'}")

    not_retrieved = [r for r in rows if r["status"] != "ok"]
    if not_retrieved:
        print(f"\nnot retrieved (excluded from the rates): {len(not_retrieved)}")
        for r in not_retrieved:
            print(f"  {r['id']} {r['kind']} {r['position']}: {r['status']}; question {r['question'][:120]!r}")

    reasons: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        for reason in r["removed"]:
            reasons[r["kind"]][reason] += 1
    if reasons:
        print("\nremoved-marker reasons by kind:")
        for kind in KINDS:
            if reasons.get(kind):
                print(f"  {kind}: " + ", ".join(f"{k} x{v}" for k, v in reasons[kind].most_common()))

    failures = [r for r in rows if r["status"] == "ok" and not r["correct"]]
    if failures:
        print(f"\nfailing cases ({len(failures)}):")
        for r in failures[: max_failures or len(failures)]:
            text = " ".join(r["text"].split())
            cited = ",".join(f"{c['number']}={c['paper_id'].rsplit('-', 1)[-1]}" for c in r["citations"])
            line = f"  {r['id']} {r['kind']:<18} {r['position']:<5} {'kept' if r['kept'] else 'dropped'}{' (fallback)' if r['fallback'] else ''} [{cited}]: {text}"
            print(line if len(line) <= width else line[: width - 3] + "...")
        if max_failures and len(failures) > max_failures:
            print(f"  ... {len(failures) - max_failures} more (--max-failures 0 lists all, --json has every row)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grounding", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=str(CASES), help="JSONL of cases (default: benchmarks/grounding_cases.jsonl)")
    parser.add_argument("--json", dest="json_out", help="write every row (case x position) to this file")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, help="only these kinds")
    parser.add_argument("--positions", nargs="+", choices=POSITIONS, default=list(POSITIONS))
    parser.add_argument("--marker-style", choices=MARKER_STYLES, default="after-period",
                        help="where the scripted answer puts [n]: after the sentence's period (default) or before it")
    parser.add_argument("--distractors", type=int, default=150, help="other ICML 2024 papers in the store (default 150)")
    parser.add_argument("--limit", type=int, help="only the first N cases (a quick look)")
    parser.add_argument("--max-failures", type=int, default=0, help="list at most N failing cases (0: all)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if not CORPUS.is_file():
        sys.exit(f"ICML 2024 abstracts not found at {CORPUS}; set PAPERCHAT_SHARED to the shared/ folder")
    every = load_cases(args.cases)
    cases = [c for c in every if not args.kinds or c["kind"] in args.kinds]
    if args.limit:
        cases = cases[: args.limit]
    counts = Counter(c["kind"] for c in cases)
    log(f"{len(cases)} cases: " + ", ".join(f"{k} {counts[k]}" for k in KINDS if counts[k]), not args.quiet)
    started = time.perf_counter()
    rows = run(cases, args.distractors, progress=not args.quiet, positions=args.positions, lead_cases=every,
               style=args.marker_style)
    print_report(rows, args.max_failures or None)
    print(f"\n{len(cases)} cases x {len(args.positions)} positions in {time.perf_counter() - started:.0f}s, "
          f"engine {rows[0]['engine'] if rows else '?'}, markers {args.marker_style}")
    print(f"learned check: {learned_check()}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"rows written to {args.json_out}")


if __name__ == "__main__":
    main()
