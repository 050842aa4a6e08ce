"""The ``paperchat`` command: ingest, ask, chat, serve, eval (also ``python -m ui.cli``).

Every command goes through the ``Assistant``. Library errors become one line on stderr and exit
code 2; no tracebacks for user errors.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from typing import Sequence

from pydantic import ValidationError

from assistant import Answer, Assistant, ListPage
from ingest.records import FORMATS
from ui import research
from vectorstore.errors import PaperchatError
from vectorstore.settings import Settings
from vectorstore.text import printable

EXIT_USAGE = 2
LIST_PAGE = 10  # papers per page of `paperchat ask "Which papers …" --page N`


# -- flags -------------------------------------------------------------------------------------------
def store_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("store (also PAPERCHAT_* environment variables)")
    group.add_argument("--persist-dir", dest="data_dir", metavar="DIR", help="data directory (PAPERCHAT_DATA_DIR; default ~/.local/share/paperchat)")
    group.add_argument("--chroma-url", metavar="URL", help="use a Chroma server, e.g. http://127.0.0.1:8000 (PAPERCHAT_CHROMA_URL)")
    group.add_argument("--collection", metavar="NAME", help="Chroma collection (PAPERCHAT_COLLECTION; default papers)")
    group.add_argument("--embedding-model", metavar="MODEL", help="sentence-transformers model name or path (PAPERCHAT_EMBEDDING_MODEL)")


def engine_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=["auto", "extractive", "local", "openai"], help="answer engine (PAPERCHAT_ENGINE; default auto)")
    parser.add_argument("--k", type=int, metavar="N", help="papers in an answer's evidence (PAPERCHAT_K; default 5)")
    parser.add_argument("--llm-model", metavar="NAME_OR_GGUF", help="local engine model (PAPERCHAT_LLM_MODEL)")
    parser.add_argument("--openai-base-url", metavar="URL", help="OpenAI-compatible endpoint (PAPERCHAT_OPENAI_BASE_URL)")
    parser.add_argument("--openai-model", metavar="NAME", help="model name at that endpoint (PAPERCHAT_OPENAI_MODEL)")


def serve_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of ``paperchat serve``, shared with ``python -m ui``."""
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=7860)
    parser.add_argument("--auth", metavar="USER:PASS", help="require a login for the UI and the API")
    parser.add_argument("--share", action="store_true", help="create a public Gradio share link (off by default)")
    parser.add_argument("--mcp", action="store_true", help="also serve the MCP tools ask, search, related, paper at /gradio_api/mcp/")


def settings_from(args: argparse.Namespace) -> Settings:
    """Environment settings with the CLI flags applied on top."""
    names = Settings.model_fields.keys()
    return Settings().with_overrides(**{k: v for k, v in vars(args).items() if k in names})


def _assistant(args: argparse.Namespace, settings: Settings | None = None, auto_ingest: bool = True) -> Assistant:
    return Assistant(settings or settings_from(args), auto_ingest=auto_ingest, announce=lambda msg: print(msg, file=sys.stderr))


# -- output ------------------------------------------------------------------------------------------
def render(answer: Answer) -> str:
    """An answer for the terminal: text, the searched query of a follow-up, the sources with their quotes."""
    lines = [printable(answer.text)]
    if answer.query and answer.query != answer.question:
        lines.append(f"\n(searched: {printable(answer.query)})")
    if answer.citations:
        lines.append("\nSources:")
        for c in answer.citations:
            lines.append(f"[{c.number}] {printable(c.title)} {printable(c.url)}".rstrip())
            lines.append(f'    "{printable(c.quote)}"')
    if answer.removed:
        lines.append(f"\n[{printable(answer.removed_note())}]")
    lines.append(f"\n[engine: {printable(answer.engine)}]")
    return "\n".join(lines)


def render_page(page: ListPage, number: int, size: int) -> str:
    """One page of a list answer for the terminal: its range, the papers with their quotes, the sources."""
    pages = max(1, -(-page.total // size))
    lines = [f"Papers {page.offset + 1}-{page.offset + len(page.members)} of {page.total} (page {number} of {pages}):",
             printable(page.text)]
    if page.citations:
        lines.append("\nSources:")
        for c in page.citations:
            lines.append(f"[{c.number}] {printable(c.title)} {printable(c.url)}".rstrip())
            lines.append(f'    "{printable(c.quote)}"')
    return "\n".join(lines)


def positive(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a page number (1, 2, ...), got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"pages start at 1, got {value}")
    return value


# -- commands ----------------------------------------------------------------------------------------
def cmd_ingest(args: argparse.Namespace) -> int:
    report = _assistant(args, auto_ingest=False).add_papers(
        args.paths, fmt=args.format, prune=args.prune, skip_invalid=args.skip_invalid, reset=args.reset,
        progress=None if not args.no_progress else False,
    )
    for problem in report.problems:
        print(f"skipped {problem}", file=sys.stderr)
    print(report)
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    assistant = _assistant(args)
    filters = research.filters_of(args)
    assistant.check_filters(filters)  # an unknown venue or author: one line, exit 2
    if args.page > 1:  # a later page of a list answer: "Which papers …" --page 2
        if args.bibtex or args.csv:
            raise PaperchatError("--page cannot be combined with --bibtex or --csv; export the first page, or use --json")
        size = LIST_PAGE
        page = assistant.list_page(args.question, (args.page - 1) * size, size, filters=filters)
        if not page.members:
            raise PaperchatError(f"page {args.page} is past the end: {page.total} matching papers make "
                                 f"{max(1, -(-page.total // size))} page(s) of {size}")
        print(json.dumps(page.model_dump(), ensure_ascii=False, indent=2) if args.json else render_page(page, args.page, size))
        return 0
    if args.bibtex or args.csv:  # only the cited papers, ready to redirect into a file
        answer = assistant.ask(args.question, filters=filters)
        print(answer.to_bibtex() if args.bibtex else answer.to_csv(), end="")
        if not answer.citations:
            print(f"paperchat: no cited papers to export ({printable(answer.error or 'the answer cites none')})", file=sys.stderr)
        return 0 if answer.error is None else 1
    if args.json:
        answer = assistant.ask(args.question, filters=filters)
        print(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
        return 0 if answer.error is None else 1
    final: Answer | None = None
    for item in assistant.stream(args.question, filters=filters):
        if isinstance(item, Answer):
            final = item
        elif sys.stdout.isatty():
            print(printable(item), end="", flush=True)
    if sys.stdout.isatty():
        print("\n" + "-" * 40)
    assert final is not None
    print(render(final))
    if final.filters:
        print(f"[filters: {research.describe(final.filters)}]")
    return 0 if final.error is None else 1


def cmd_chat(args: argparse.Namespace) -> int:
    assistant = _assistant(args)
    history: list[dict[str, str]] = []
    print(f"paperchat: {assistant.paper_count()} papers indexed, engine {assistant.engine_label}. Empty line or Ctrl-D to quit.")
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
    from ui.app import serve  # gradio loads only for this command

    return serve(settings_from(args), host=args.host, port=args.port, auth=args.auth, share=args.share, mcp=args.mcp)


def temporary_store(settings: Settings, data_dir: str) -> Settings:
    """``settings`` pointed at an embedded store in ``data_dir`` with the default collection.

    Whatever ``PAPERCHAT_CHROMA_URL`` or ``--chroma-url`` say (``with_overrides`` skips None values).
    """
    fresh = settings.model_dump() | {"data_dir": data_dir, "chroma_url": None,
                                     "collection": Settings.model_fields["collection"].default}
    return Settings(**fresh)


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.evaluation import evaluate, format_table, load_questions

    questions = load_questions(args.questions)
    settings = settings_from(args)
    with tempfile.TemporaryDirectory(prefix="paperchat-eval-") as tmp:
        if args.corpus:
            settings = temporary_store(settings, tmp)
            print(_assistant(args, settings, auto_ingest=False).add_papers(args.corpus, progress=sys.stderr.isatty()), file=sys.stderr)
        result = evaluate(_assistant(args, settings), questions)
    print(format_table(result["metrics"]))
    print(f"engine: {result['rows'][0]['engine'] if result['rows'] else '-'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paperchat", description="Ask questions about research papers; answers cite the abstracts.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", help="add paper files to the store")
    p.add_argument("paths", nargs="+", metavar="PATH", help="JSONL, JSON array, CSV, or blank-line separated abstracts")
    p.add_argument("--format", default="auto", choices=list(FORMATS), help="force the input format")
    p.add_argument("--prune", action="store_true", help="remove papers that are not in the input")
    p.add_argument("--skip-invalid", action="store_true", help="ingest the valid records and report the rest")
    p.add_argument("--reset", action="store_true", help="empty the collection first (re-index with a new model)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    store_flags(p)
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("ask", help="answer one question with citations")
    p.add_argument("question")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the Answer as JSON")
    output.add_argument("--bibtex", action="store_true", help="print only the cited papers, as BibTeX")
    output.add_argument("--csv", action="store_true", help="print only the cited papers, as CSV")
    p.add_argument("--page", type=positive, default=1, metavar="N",
                   help=f'list questions ("Which papers …"): show page N of the matching papers, {LIST_PAGE} a page (default 1)')
    research.filter_flags(p)
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_ask)
    research.add_commands(sub, store_flags, lambda args: _assistant(args, auto_ingest=False))

    p = sub.add_parser("chat", help="a conversation in the terminal")
    engine_flags(p)
    store_flags(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("serve", help="the browser chat (Gradio)")
    serve_flags(p)
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
    return parser


def run(args: argparse.Namespace) -> int:
    """Run a parsed command; a library error becomes one line on stderr and exit code 2."""
    try:
        return int(args.func(args) or 0)
    except PaperchatError as exc:
        print(f"paperchat: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ValidationError as exc:  # a bad flag or PAPERCHAT_* value
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "settings"
        print(f"paperchat: error: invalid {field} ({first['msg']}); fix the flag or PAPERCHAT_{field.upper()}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("paperchat: interrupted", file=sys.stderr)
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paperchat`` console script."""
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
