"""``python -m ui``: serve the browser chat with the environment's settings (``PAPERCHAT_*``)."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui", description="Serve the paperchat browser chat (Gradio).")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=7860)
    parser.add_argument("--auth", metavar="USER:PASS", help="require a login for the UI and the API")
    args = parser.parse_args(argv)

    from ui.app import serve
    from vectorstore.errors import PaperchatError
    from vectorstore.settings import Settings

    try:
        return serve(Settings(), host=args.host, port=args.port, auth=args.auth)
    except PaperchatError as exc:
        print(f"paperchat: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
