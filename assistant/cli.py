"""The ``paperchat`` command: ingest, ask, chat, serve, eval.

Library errors become one line on stderr and exit code 2; no tracebacks for user errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Sequence

from pydantic import ValidationError

from vectorstore.errors import PaperchatError
from vectorstore.settings import Settings

EXIT_USAGE = 2


def _store_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("store (also PAPERCHAT_* environment variables)")
    group.add_argument("--persist-dir", dest="data_dir", metavar="DIR", help="data directory (PAPERCHAT_DATA_DIR; default ~/.local/share/paperchat)")
    group.add_argument("--chroma-url", metavar="URL", help="use a Chroma server, e.g. http://127.0.0.1:8000 (PAPERCHAT_CHROMA_URL)")
    group.add_argument("--collection", metavar="NAME", help="Chroma collection (PAPERCHAT_COLLECTION; default papers)")
    group.add_argument("--embedding-model", metavar="MODEL", help="sentence-transformers model name or path (PAPERCHAT_EMBEDDING_MODEL)")


def _engine_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=["auto", "extractive", "local", "openai"], help="answer engine (PAPERCHAT_ENGINE; default auto)")
    parser.add_argument("--k", type=int, metavar="N", help="papers given to the answer engine (PAPERCHAT_K; default 5)")
    parser.add_argument("--llm-model", metavar="NAME_OR_GGUF", help="local engine model (PAPERCHAT_LLM_MODEL)")
    parser.add_argument("--openai-base-url", metavar="URL", help="OpenAI-compatible endpoint (PAPERCHAT_OPENAI_BASE_URL)")
    parser.add_argument("--openai-model", metavar="NAME", help="model name at that endpoint (PAPERCHAT_OPENAI_MODEL)")


def settings_from(args: argparse.Namespace) -> Settings:
    """Environment settings with the CLI flags applied on top."""
    names = Settings.model_fields.keys()
    return Settings().with_overrides(**{k: v for k, v in vars(args).items() if k in names})


def cmd_ingest(args: argparse.Namespace) -> int:
    from ingest import ingest

    report = ingest(
        args.paths, settings_from(args), fmt=args.format, prune=args.prune,
        skip_invalid=args.skip_invalid, reset=args.reset, progress=None if not args.no_progress else False,
    )
    for problem in report.problems:
        print(f"skipped {problem}", file=sys.stderr)
    print(report)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paperchat", description="Ask questions about research papers; answers cite the abstracts.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", help="add paper files to the store")
    p.add_argument("paths", nargs="+", metavar="PATH", help="JSONL, JSON array, CSV, or blank-line separated abstracts")
    p.add_argument("--format", default="auto", choices=["auto", "bare", "jsonl", "json", "csv"], help="force the input format")
    p.add_argument("--prune", action="store_true", help="remove papers that are not in the input")
    p.add_argument("--skip-invalid", action="store_true", help="ingest the valid records and report the rest")
    p.add_argument("--reset", action="store_true", help="empty the collection first (re-index with a new model)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _store_flags(p)
    p.set_defaults(func=cmd_ingest)

    for register in _EXTRA_COMMANDS:
        register(sub, _store_flags, _engine_flags)
    return parser


# Later modules add subcommands here (ask, chat, serve, eval) without touching the ingest code.
_EXTRA_COMMANDS: list[Callable[..., Any]] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paperchat`` console script."""
    _load_extra_commands()
    parser = build_parser()
    args = parser.parse_args(argv)
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


def _load_extra_commands() -> None:
    if _EXTRA_COMMANDS:
        return
    try:
        from assistant import commands
    except ImportError:
        return
    _EXTRA_COMMANDS.extend(commands.REGISTER)


if __name__ == "__main__":
    sys.exit(main())
