"""Run the real ``paperchat serve`` in a subprocess for the UI tests (shared by the API and browser tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# CI clones the repository elsewhere with shared/ beside it
SHARED = Path(__file__).resolve().parents[2] / "shared"
SEED = SHARED / "data" / "icml2025_seed" / "papers.jsonl"

# the tests and the servers they start must not reach the network
OFFLINE_ENV = {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "NO_PROXY": "127.0.0.1,localhost",
}
os.environ.update(OFFLINE_ENV)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERCHAT_")}
    env.update(OFFLINE_ENV)
    env.update(extra or {})
    env["PYTHONUNBUFFERED"] = "1"
    return env


def paperchat(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the ``paperchat`` CLI (``python -m ui.cli``) and fail with its output if it fails."""
    proc = subprocess.run([sys.executable, "-m", "ui.cli", *args], cwd=REPO, env=_env(),
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"paperchat {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


@dataclass
class Server:
    """A running ``paperchat serve``; ``stop()`` terminates it."""

    proc: subprocess.Popen[bytes]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        stop_all([self])


def stop_all(servers: list[Server]) -> None:
    """Terminate the servers (SIGTERM: a clean shutdown), all at once; kill any that hang."""
    running = [s for s in servers if s.proc.poll() is None]
    for server in running:
        server.proc.terminate()
    for server in running:
        try:
            server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(timeout=10)


def launch_server(persist_dir: Path, *extra: str, env: dict[str, str] | None = None) -> Server:
    """Start ``paperchat serve --engine extractive`` on a free port (without waiting; see ``wait_ready``);
    ``env``: extra environment variables (e.g. ``PAPERCHAT_UPLOAD_MAX_PAPERS``)."""
    port = free_port()
    log = persist_dir.parent / f"serve-{port}.log"
    cmd = [sys.executable, "-m", "ui.cli", "serve", "--port", str(port), "--persist-dir", str(persist_dir),
           "--engine", "extractive", *extra]
    with open(log, "wb") as handle:
        proc = subprocess.Popen(cmd, cwd=REPO, env=_env(env), stdout=handle, stderr=subprocess.STDOUT)
    return Server(proc, f"http://127.0.0.1:{port}/", log)


def wait_ready(server: Server, timeout: float = 300) -> Server:
    """Wait until the server's port answers HTTP; fail with its log if it exits or times out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise AssertionError(f"paperchat serve exited with {server.proc.returncode}:\n{server.output()[-4000:]}")
        try:
            with urllib.request.urlopen(server.url + "config", timeout=2):
                return server
        except urllib.error.HTTPError:  # 401 with --auth: the server answers
            return server
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    server.stop()
    raise AssertionError(f"paperchat serve did not answer on {server.url} within {timeout:.0f}s:\n{server.output()[-4000:]}")


def start_server(persist_dir: Path, *extra: str, timeout: float = 300, env: dict[str, str] | None = None) -> Server:
    """``launch_server`` and ``wait_ready``."""
    return wait_ready(launch_server(persist_dir, *extra, env=env), timeout)
