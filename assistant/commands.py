"""The ``ask``, ``chat``, ``serve`` and ``eval`` subcommands (registered into ``assistant.cli``)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from typing import Any, Callable

from assistant.types import Answer


def _assistant(args: argparse.Namespace) -> Any:
    from assistant.cli import settings_from
    from assistant.core import Assistant

    return Assistant(settings_from(args), announce=lambda msg: print(msg, file=sys.stderr))


def _sanitize(text: str) -> str:
    """Terminal-safe text: no escape sequences or control characters from abstracts or questions."""
    return "".join(ch if ch in "\n\t" or (ch.isprintable()) else " " for ch in text)


def render(answer: Answer) -> str:
    lines = [_sanitize(answer.text)]
    if answer.query and answer.query != answer.question:
        lines.append(f"\n(searched: {_sanitize(answer.query)})")
    if answer.citations:
        lines.append("\nSources:")
        for c in answer.citations:
            lines.append(f"[{c.number}] {_sanitize(c.title)} {c.url}".rstrip())
            lines.append(f'    "{_sanitize(c.quote)}"')
    lines.append(f"\n[engine: {answer.engine}]")
    return "\n".join(lines)


def cmd_ask(args: argparse.Namespace) -> int:
    assistant = _assistant(args)
    if args.json:
        answer = assistant.ask(args.question)
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
        return 0 if answer.error is None else 1
    answer = None
    for item in assistant.stream(args.question):
        if isinstance(item, Answer):
            answer = item
        elif sys.stdout.isatty():
            print(_sanitize(item), end="", flush=True)
    if sys.stdout.isatty():
        print("\n" + "-" * 40)
    assert answer is not None
    print(render(answer))
    return 0 if answer.error is None else 1


def cmd_chat(args: argparse.Namespace) -> int:
    assistant = _assistant(args)
    history: list[dict[str, str]] = []
    print(f"paperchat: {assistant.count()} chunks indexed, engine {assistant.engine_name}. Empty line or Ctrl-D to quit.")
    while True:
        try:
            question = input("you> ").strip()
        except EOFError:
            print()
            return 0
        if not question:
            return 0
        answer = assistant.ask(question, history)
        print(render(answer))
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]


def cmd_serve(args: argparse.Namespace) -> int:
    from assistant.cli import settings_from
    from ui.app import serve

    return serve(settings_from(args), host=args.host, port=args.port, auth=args.auth, share=args.share)


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.cli import settings_from
    from assistant.core import Assistant
    from assistant.evaluation import evaluate, format_table, load_questions
    from ingest import ingest

    questions = load_questions(args.questions)
    settings = settings_from(args)
    with tempfile.TemporaryDirectory(prefix="paperchat-eval-") as tmp:
        if args.corpus:
            settings = settings.with_overrides(data_dir=tmp, chroma_url=None)
            print(ingest(args.corpus, settings, progress=sys.stderr.isatty()), file=sys.stderr)
        assistant = Assistant(settings, announce=lambda msg: print(msg, file=sys.stderr))
        result = evaluate(assistant, questions)
    print(format_table(result["metrics"]))
    print(f"engine: {result['rows'][0]['engine'] if result['rows'] else '-'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0


def register(sub: Any, store_flags: Callable[..., None], engine_flags: Callable[..., None]) -> None:
    p = sub.add_parser("ask", help="answer one question with citations")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the Answer as JSON")
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("chat", help="a conversation in the terminal")
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("serve", help="the browser chat (Gradio)")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--auth", metavar="USER:PASS", help="require a login for the UI and the API")
    p.add_argument("--share", action="store_true", help="create a public Gradio share link (off by default)")
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("eval", help="score a question file (dev_qa.jsonl format)")
    p.add_argument("questions", metavar="QUESTIONS.jsonl")
    p.add_argument("--corpus", nargs="+", metavar="FILE", help="build a temporary store from these files first")
    p.add_argument("--json", metavar="OUT", help="write metrics and per-question rows as JSON")
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_eval)


REGISTER = [register]
