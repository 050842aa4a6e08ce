"""``python -m ui``: serve the browser chat; the same flags as ``paperchat serve``."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from ui.cli import cmd_serve, engine_flags, run, serve_flags, store_flags


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui", description="Serve the paperchat browser chat (Gradio).")
    serve_flags(parser)
    engine_flags(parser)
    store_flags(parser)
    parser.set_defaults(func=cmd_serve)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
