"""MCP tools: ``ask``, ``search``, ``related`` and ``paper``, served by ``paperchat serve --mcp``.

Each tool is a ``gr.api`` endpoint whose name, docstring and type hints Gradio turns into an MCP tool
(name, description, typed input schema); ``serve(..., mcp=True)`` launches Gradio's MCP server at
``/gradio_api/mcp/`` and ``launch_options`` drops the app's other API endpoints (``chat``,
``upload``) from it. A tool returns JSON text (a dict); bad input (unknown paper id, unknown filter
value, impossible ``k``) raises ``ToolError`` with a one-line message, which the MCP client receives as
an error result (``isError``), never a traceback. Every tool goes through the public ``Assistant`` methods.

The MCP routes are a sub-application Gradio's login does not cover: with ``--auth`` the middleware
``McpAuth`` requires the same credentials as HTTP Basic auth (``Authorization: Basic base64(user:pass)``).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hmac
import json
import logging
import posixpath
import threading
import warnings
from typing import Any, AsyncIterator, Callable

import gradio as gr
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from assistant import Assistant, Hit
from vectorstore.errors import PaperchatError

log = logging.getLogger("paperchat.mcp")

TOOLS = ("ask", "search", "related", "paper")
MCP_PATH = "/gradio_api/mcp"
MAX_K = 50
ANSWERS_AT_ONCE = 2  # as the browser chat's concurrency limit


class ToolError(Exception):
    """A tool's bad input or failure; its message is all the MCP client sees."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _k(k: Any) -> int:
    try:
        value = int(k)
    except (TypeError, ValueError):
        raise ToolError(f"k: must be a whole number from 1 to {MAX_K} (got {k!r})") from None
    if not 1 <= value <= MAX_K or value != k:
        raise ToolError(f"k: must be a whole number from 1 to {MAX_K} (got {k!r})")
    return value


def _filters(venue: str | None, year: int | None, author: str | None) -> dict[str, Any]:
    return {name: value for name, value in (("venue", venue), ("year", year), ("author", author)) if value not in (None, "")}


def _hits(hits: list[Hit], sentence: bool = True) -> list[dict[str, Any]]:
    return [{"paper_id": h.paper_id, "title": h.title, "authors": h.authors, "venue": h.venue, "url": h.url,
             "score": round(h.score, 4), **({"best_sentence": h.text} if sentence else {})} for h in hits]


def _call(tool: str, fn: Callable[[], Any]) -> str:
    """Run one tool body: its result as JSON, a library error as ``ToolError`` (one line), anything else logged."""
    try:
        return _json(fn())
    except ToolError:
        raise
    except PaperchatError as exc:
        raise ToolError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the client gets one line, the server log the traceback
        log.exception("MCP tool %s failed", tool)
        raise ToolError(f"{tool} failed unexpectedly ({exc.__class__.__name__}); see the paperchat server log") from None


def add_tools(assistant: Assistant) -> None:
    """Register the four tools as ``gr.api`` endpoints of the Blocks being built (call inside ``with gr.Blocks()``)."""
    answering = threading.BoundedSemaphore(ANSWERS_AT_ONCE)  # unqueued, so the limit the chat's queue gives is kept here

    def known_paper(paper_id: str) -> Any:
        found = assistant.paper(str(paper_id or "").strip())
        if found is None:
            raise ToolError(f"paper_id: no paper with id {paper_id!r}; find ids with the search tool")
        return found

    def ask(question: str, history: list[dict[str, str]] | None = None, venue: str | None = None,
            year: int | None = None, author: str | None = None) -> str:
        """Answer a question about the indexed research papers; every claim cites a verbatim quote from an abstract.

        Args:
            question: the question, e.g. "What is Nester?"
            history: earlier messages of the conversation, oldest first, as [{"role": "user" or "assistant", "content": "..."}], for follow-up questions
            venue: only papers from this venue, with or without the year, e.g. "ICML" or "ICML 2024"
            year: only papers from this year, e.g. 2025
            author: only papers with this author (case and accents ignored, initials allowed)
        Returns:
            JSON: the answer text with [n] markers, citations (number, paper_id, title, url, authors, venue, quote), abstained, grounded, hits, filters, engine
        """
        def run() -> dict[str, Any]:
            filters = _filters(venue, year, author)
            assistant.check_filters(filters)
            with answering:
                answer = assistant.ask(question, history or [], filters=filters)
            if answer.error:
                raise ToolError(f"question: {answer.error}" if answer.error == "empty question" else answer.error)
            return answer.to_dict()

        return _call("ask", run)

    def search(query: str, k: int = 10, venue: str | None = None, year: int | None = None, author: str | None = None) -> str:
        """Find the papers that best match a query (hybrid keyword + semantic search), best first; no answer is written.

        Args:
            query: what to look for, e.g. "type inference for Python"
            k: how many papers to return (1 to 50)
            venue: only papers from this venue, with or without the year, e.g. "ICML" or "ICML 2024"
            year: only papers from this year, e.g. 2025
            author: only papers with this author (case and accents ignored, initials allowed)
        Returns:
            JSON: {"query", "filters", "hits": [{"paper_id", "title", "authors", "venue", "url", "score", "best_sentence"}]}
        """
        def run() -> dict[str, Any]:
            if not str(query or "").strip():
                raise ToolError("query: empty; give the words to search for")
            filters = _filters(venue, year, author)
            return {"query": query, "filters": filters, "hits": _hits(assistant.search(query, _k(k), filters=filters))}

        return _call("search", run)

    def related(paper_id: str, k: int = 5) -> str:
        """Find the papers most similar to one paper (by its title and abstract), most similar first.

        Args:
            paper_id: the paper's id, as returned by search or ask
            k: how many papers to return (1 to 50)
        Returns:
            JSON: {"paper_id", "hits": [{"paper_id", "title", "authors", "venue", "url", "score"}]}; score is the cosine similarity
        """
        def run() -> dict[str, Any]:
            count = _k(k)
            known = known_paper(paper_id)
            return {"paper_id": known.id, "hits": _hits(assistant.related(known.id, count), sentence=False)}

        return _call("related", run)

    def paper(paper_id: str) -> str:
        """Get one stored paper: title, authors, venue, url and the full abstract.

        Args:
            paper_id: the paper's id, as returned by search or ask
        Returns:
            JSON: {"paper_id", "title", "authors", "venue", "url", "abstract"}
        """
        def run() -> dict[str, Any]:
            found = known_paper(paper_id)
            return {"paper_id": found.id, "title": found.title, "authors": found.authors, "venue": found.venue,
                    "url": found.url, "abstract": found.abstract}

        return _call("paper", run)

    for fn in (ask, search, related, paper):
        # not queued: Gradio's MCP server then calls the function in-process (a queued tool would call back
        # into this server over HTTP without the client's credentials)
        gr.api(fn, api_name=fn.__name__, queue=False)


def launch_options(app: gr.Blocks, credentials: tuple[str, str] | None) -> dict[str, Any]:
    """Keyword arguments for ``app.launch`` that serve the MCP tools (``TOOLS`` only, behind ``credentials``)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise PaperchatError("--mcp needs the mcp package: pip install 'mcp>=1.21,<2'") from None

    @contextlib.asynccontextmanager
    async def only_paperchat_tools(_: Any) -> AsyncIterator[None]:
        # runs at startup, before the first request: Gradio makes every public endpoint a tool, so
        # the app's chat and upload endpoints are dropped from the MCP server (they stay in the API)
        server = app.mcp_server_obj
        if server is None:
            raise PaperchatError(f"the MCP server did not start: {app.mcp_error or 'unknown reason'}")
        server.tool_to_endpoint = {name: ep for name, ep in server.tool_to_endpoint.items() if name in TOOLS}
        yield

    # Gradio warns about the chat endpoint's gr.State input, which is not among the tools
    warnings.filterwarnings("ignore", message="This MCP server includes a tool that has a gr.State input", category=UserWarning)
    middleware = [Middleware(McpAuth, credentials=credentials)] if credentials else []
    return {"mcp_server": True, "app_kwargs": {"lifespan": only_paperchat_tools, "middleware": middleware}}


class McpAuth:
    """ASGI middleware: requests under ``/gradio_api/mcp`` need HTTP Basic credentials ``user:password``."""

    def __init__(self, app: ASGIApp, credentials: tuple[str, str]) -> None:
        self.app = app
        user, password = credentials
        self.expected = b"Basic " + base64.b64encode(f"{user}:{password}".encode())

    def _authorized(self, scope: Scope) -> bool:
        for key, value in scope.get("headers", []):
            if key.lower() == b"authorization":
                scheme, _, token = value.partition(b" ")
                if scheme.lower() != b"basic":
                    return False
                try:
                    given = b"Basic " + base64.b64encode(base64.b64decode(token.strip(), validate=True))
                except (binascii.Error, ValueError):
                    return False
                return hmac.compare_digest(given, self.expected)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = posixpath.normpath("/" + str(scope.get("path", "")).lstrip("/"))
        if scope["type"] == "http" and (path == MCP_PATH or path.startswith(MCP_PATH + "/")) and not self._authorized(scope):
            body = b"paperchat MCP: authentication required; send the --auth credentials as HTTP Basic auth"
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"www-authenticate", b'Basic realm="paperchat MCP"')]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
