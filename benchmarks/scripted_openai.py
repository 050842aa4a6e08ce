"""A scripted OpenAI-compatible chat server on loopback, for exercising the real ``openai`` engine.

The server speaks the parts of the OpenAI HTTP API that ``langchain-openai`` uses:
``POST /v1/chat/completions`` (streaming as server-sent events, and plain JSON) and ``GET /v1/models``.
Instead of a model it answers with a *template* set by the caller; placeholders ``{A}``, ``{B}`` ...
name papers by title and are replaced by the numbers those papers got in the request's ``<papers>``
block (``[n] Title`` lines, see ``assistant/prompts.py``). A placeholder whose paper is not among the
sources is recorded in ``missing`` (and replaced by an out-of-range number, so the answer stays
well formed). Every request payload is recorded in ``requests``.

    with ScriptedOpenAI() as server:
        server.script("Nester reaches 70.7% [{A}].", A="Dataflow-Guided Neuro-Symbolic ...")
        ... Assistant(engine="openai", openai_base_url=server.base_url, openai_model="scripted") ...
        server.last.numbers, server.last.missing
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PAPERS = re.compile(r"<papers>\n?(.*?)\n?</papers>", re.S)
_SOURCE = re.compile(r"^\[(\d+)\] (.+)$")
_PLACEHOLDER = re.compile(r"\{([A-Z])\}")


def norm_title(title: str) -> str:
    return " ".join(str(title).split()).casefold()


def parse_sources(prompt: str) -> dict[str, int]:
    """Normalised title -> number, from the last ``<papers>...</papers>`` block of a user message.

    Sources are ``[n] Title\\ntext`` blocks separated by blank lines.
    """
    blocks = _PAPERS.findall(prompt)
    if not blocks:
        return {}
    found: dict[str, int] = {}
    for block in blocks[-1].split("\n\n"):
        first = block.strip("\n").split("\n", 1)[0]
        match = _SOURCE.match(first)
        if match:
            found.setdefault(norm_title(match.group(2)), int(match.group(1)))
    return found


@dataclass
class Resolution:
    """What the server did with one request: the sources it saw and the answer it sent."""

    sources: dict[str, int] = field(default_factory=dict)  # normalised title -> number
    numbers: dict[str, int] = field(default_factory=dict)  # placeholder -> number used
    missing: list[str] = field(default_factory=list)       # placeholders whose paper was not a source
    answer: str = ""
    stream: bool = False


class ScriptedOpenAI:
    """An OpenAI-compatible server answering with a scripted template. Use as a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, chunk_chars: int = 12) -> None:
        self.chunk_chars = chunk_chars
        self.template = ""
        self.then: list[str] = []
        self.placeholders: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        self.resolutions: list[Resolution] = []
        self._lock = threading.Lock()
        self._httpd = _QuietServer((host, port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedOpenAI":
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-openai", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "ScriptedOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- scripting ---------------------------------------------------------------------------
    def script(self, template: str, *then: str, **placeholders: str) -> None:
        """Answer the next requests with ``template``; ``{X}`` -> number of the paper titled ``placeholders[X]``.
        With ``then``, later requests get those templates in turn, the last one repeated (a second draft's answer)."""
        with self._lock:
            self.template = template
            self.then = list(then)
            self.placeholders = dict(placeholders)

    @property
    def last(self) -> Resolution | None:
        with self._lock:
            return self.resolutions[-1] if self.resolutions else None

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.resolutions.clear()

    def resolve(self, messages: list[dict[str, Any]]) -> Resolution:
        """Fill the template for a request's messages (the last user message holds the papers)."""
        prompt = ""
        for message in reversed(messages or []):
            if message.get("role") == "user":
                prompt = _text(message.get("content"))
                break
        sources = parse_sources(prompt)
        with self._lock:
            template, placeholders = self.template, dict(self.placeholders)
            if self.then:
                self.template = self.then.pop(0)
        res = Resolution(sources=sources)
        absent = len(sources) + 1  # out of range: the verifier must drop it

        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in placeholders:
                return match.group(0)
            number = sources.get(norm_title(placeholders[key]))
            if number is None:
                if key not in res.missing:
                    res.missing.append(key)
                number = absent
            res.numbers[key] = number
            return str(number)

        res.answer = _PLACEHOLDER.sub(fill, template)
        for key, title in placeholders.items():  # placeholders the template does not use are checked too
            if key not in res.numbers:
                number = sources.get(norm_title(title))
                if number is None:
                    res.missing.append(key)
                else:
                    res.numbers[key] = number
        return res


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # clients closing keep-alive sockets
            super().handle_error(request, client_address)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def _handler(server: ScriptedOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _json(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": [{"id": "scripted", "object": "model", "created": 0, "owned_by": "paperchat"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                payload = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            res = server.resolve(payload.get("messages") or [])
            res.stream = bool(payload.get("stream"))
            with server._lock:
                server.requests.append(payload)
                server.resolutions.append(res)
            model = str(payload.get("model") or "scripted")
            cid = f"chatcmpl-{uuid.uuid4().hex[:12]}"
            created = int(time.time())
            if not res.stream:
                self._json(200, {
                    "id": cid, "object": "chat.completion", "created": created, "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": res.answer}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                })
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

            def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
                return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

            events = [chunk({"role": "assistant", "content": ""})]
            text = res.answer
            events += [chunk({"content": text[i : i + server.chunk_chars]}) for i in range(0, len(text), server.chunk_chars)]
            events.append(chunk({}, "stop"))
            if (payload.get("stream_options") or {}).get("include_usage"):
                events.append({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
                               "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
            try:
                for event in events:
                    self._send_chunk(f"data: {json.dumps(event)}\n\n".encode())
                self._send_chunk(b"data: [DONE]\n\n")
                self._send_chunk(b"")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _send_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler
