"""Faults: Chroma server stopped and restarted under `paperchat serve`, LLM server down or slow,
and missing or corrupted data directories. Each gives a clear message, in bounded time, and nothing hangs."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from assistant import Assistant
from vectorstore import Settings, StoreError
from ui_server import SEED, free_port, paperchat, start_server

BIN = Path(sys.executable).parent


def _chroma(path: Path, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([str(BIN / "chroma"), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("chroma run did not start")


def test_chroma_server_down_then_back_while_serving(tmp_path: Path):
    from gradio_client import Client

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    chroma = _chroma(tmp_path / "chroma", port)
    paperchat("ingest", str(SEED), "--chroma-url", url, "--persist-dir", str(tmp_path / "data"))
    server = start_server(tmp_path / "data", "--chroma-url", url)
    try:
        client = Client(server.url, verbose=False)
        assert client.predict("What is Nester?", api_name="/chat")["citations"][0]["paper_id"] == "icml2025-44081"

        chroma.terminate()
        chroma.wait(20)
        started = time.monotonic()
        down = client.predict("What is MARASON?", api_name="/chat")
        assert time.monotonic() - started < 60
        assert down["error"] and "Chroma server" in down["error"] and "chroma run" in down["error"]

        chroma = _chroma(tmp_path / "chroma", port)  # same data, same port: no paperchat restart
        back = client.predict("What is MARASON?", api_name="/chat")
        assert back["error"] is None and back["citations"][0]["paper_id"] == "icml2025-44092"
    finally:
        server.stop()
        chroma.terminate()
        chroma.wait(20)


@pytest.fixture(scope="module")
def seeded_dir(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("faults-data")
    paperchat("ingest", str(SEED), "--persist-dir", str(data))
    return data


def test_openai_server_down_is_a_clear_error(seeded_dir: Path):
    port = free_port()  # nothing listens here
    assistant = Assistant(Settings(data_dir=seeded_dir, engine="openai", openai_base_url=f"http://127.0.0.1:{port}/v1",
                                   request_timeout=5), auto_ingest=False)
    started = time.monotonic()
    answer = assistant.ask("What is Nester?")
    assert time.monotonic() - started < 30
    assert answer.error and "unreachable" in answer.error and "--engine extractive" in answer.error
    # switching engines needs no restart of anything else
    other = Assistant(Settings(data_dir=seeded_dir, engine="extractive"), auto_ingest=False).ask("What is Nester?")
    assert other.error is None and other.citations


def test_slow_openai_server_times_out(seeded_dir: Path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_stall() -> None:  # accepts connections, never answers
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept_and_stall, daemon=True)
    thread.start()
    try:
        port = listener.getsockname()[1]
        assistant = Assistant(Settings(data_dir=seeded_dir, engine="openai", openai_base_url=f"http://127.0.0.1:{port}/v1",
                                       request_timeout=2), auto_ingest=False)
        started = time.monotonic()
        answer = assistant.ask("What is Nester?")
        elapsed = time.monotonic() - started
        assert answer.error and "timed out" in answer.error, answer.error
        assert elapsed < 20, elapsed  # 2 s timeout, one retry, plus retrieval
    finally:
        stop.set()
        thread.join(5)
        for conn in accepted:
            conn.close()
        listener.close()


def test_missing_data_dir_is_created_and_filled(tmp_path: Path):
    assistant = Assistant(Settings(data_dir=tmp_path / "new" / "dir", engine="extractive"))
    assert assistant.paper_count() == 19


def test_corrupted_store_says_how_to_rebuild(tmp_path: Path):
    data = tmp_path / "data"
    paperchat("ingest", str(SEED), "--persist-dir", str(data))
    sqlite = data / "chroma" / "chroma.sqlite3"
    sqlite.write_bytes(b"this is not a database" * 100)
    out = subprocess.run([sys.executable, "-m", "ui.cli", "ask", "What is Nester?", "--persist-dir", str(data),
                          "--engine", "extractive"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, out.stdout
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert "paperchat ingest" in lines[0] and str(data) in lines[0]


def test_data_dir_that_is_a_file(tmp_path: Path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(StoreError, match="not a directory|cannot open"):
        Assistant(Settings(data_dir=target, engine="extractive"))
