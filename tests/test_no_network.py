"""No outbound network at run time: ingest, ask and serve run while any non-loopback connection
attempt (or DNS look-up of a non-local name) is refused and recorded by tests/netguard/sitecustomize.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

GUARD = Path(__file__).parent / "netguard"


def _env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    log = tmp_path / "netguard.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERCHAT_", "HF_", "GRADIO_", "ANONYMIZED"))}
    env.update(PYTHONPATH=os.pathsep.join([str(GUARD), env.get("PYTHONPATH", "")]), NETGUARD_LOG=str(log),
               PAPERCHAT_DATA_DIR=str(tmp_path / "data"))
    env.pop("NO_PROXY", None)
    return env, log


def test_guard_itself_blocks_outbound(tmp_path: Path):
    env, log = _env(tmp_path)
    out = subprocess.run([sys.executable, "-c", "import socket; socket.create_connection(('93.184.215.14', 80), timeout=2)"],
                         env=env, capture_output=True, text=True)
    assert out.returncode != 0 and "netguard" in out.stderr
    assert "93.184.215.14" in log.read_text()


def test_ingest_ask_and_serve_make_no_outbound_connections(tmp_path: Path, seed_jsonl: Path):
    env, log = _env(tmp_path)
    cli = [sys.executable, "-m", "ui.cli"]
    ingest = subprocess.run([*cli, "ingest", str(seed_jsonl)], env=env, capture_output=True, text=True, timeout=600)
    assert ingest.returncode == 0, ingest.stderr
    ask = subprocess.run([*cli, "ask", "What is Nester?", "--engine", "extractive"], env=env, capture_output=True, text=True, timeout=600)
    assert ask.returncode == 0 and "[1]" in ask.stdout, ask.stderr

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([*cli, "serve", "--port", str(port), "--engine", "extractive"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while True:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline, "paperchat serve did not start"
                time.sleep(0.5)
        assert b"paperchat" in page.lower()
        from gradio_client import Client

        result = Client(f"http://127.0.0.1:{port}/", verbose=False).predict("What is MARASON?", api_name="/chat")
        assert result["citations"][0]["paper_id"] == "icml2025-44092"
        time.sleep(2)  # give any background analytics thread its chance to phone home
    finally:
        server.terminate()
        server.wait(30)
    attempts = log.read_text() if log.exists() else ""
    assert attempts == "", f"outbound network attempts:\n{attempts}"
