"""Issue 13: ``paperchat serve --mcp`` serves the MCP tools ask, search, related and paper.

Driven with the real ``mcp`` Python client over loopback against real ``paperchat serve --mcp`` processes
on the seed corpus: one open, one with ``--auth`` (the MCP routes then need HTTP Basic credentials).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from ui_server import SEED, Server, launch_server, paperchat, stop_all, wait_ready

from ingest.cleaning import clean_text
from ui.cli import serve_flags

pytestmark = pytest.mark.slow
NESTER = "icml2025-44081"
USER, PASSWORD = "alice", "s3cret-pass"
TOOLS = {
    "ask": ({"question", "history", "venue", "year", "author"}, ["question"]),
    "search": ({"query", "k", "venue", "year", "author"}, ["query"]),
    "related": ({"paper_id", "k"}, ["paper_id"]),
    "paper": ({"paper_id"}, ["paper_id"]),
}


def _seed() -> dict[str, dict[str, Any]]:
    records = [json.loads(line) for line in SEED.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {rec["id"]: rec for rec in records}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """An open ``serve --mcp`` and one with ``--auth``, each on its own copy of the seed store, started together."""
    root = tmp_path_factory.mktemp("mcp")
    paperchat("ingest", str(SEED), "--persist-dir", str(root / "open"), "--no-progress")
    shutil.copytree(root / "open", root / "auth")
    started = {"open": launch_server(root / "open", "--mcp"),
               "auth": launch_server(root / "auth", "--mcp", "--auth", f"{USER}:{PASSWORD}")}
    try:
        for server in started.values():
            wait_ready(server)
        yield started
    finally:
        stop_all(list(started.values()))


def _endpoint(server: Server) -> str:
    return server.url + "gradio_api/mcp/"


async def _session(server: Server, auth: tuple[str, str] | None, work: Any) -> Any:
    client = httpx.AsyncClient(auth=httpx.BasicAuth(*auth) if auth else None, trust_env=False,
                               timeout=httpx.Timeout(30, read=300))
    async with client, streamable_http_client(_endpoint(server), http_client=client) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await work(session)


def mcp(server: Server, work: Any, auth: tuple[str, str] | None = None) -> Any:
    """Run ``await work(session)`` in an initialized MCP session with ``server``."""
    return asyncio.run(asyncio.wait_for(_session(server, auth, work), timeout=300))


def call(server: Server, tool: str, arguments: dict[str, Any], auth: tuple[str, str] | None = None) -> CallToolResult:
    result: CallToolResult = mcp(server, lambda session: session.call_tool(tool, arguments), auth)
    return result


def ok(result: CallToolResult) -> Any:
    assert not result.isError, result.content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


def error(result: CallToolResult) -> str:
    assert result.isError, result.content
    text = str(result.content[0].text)  # type: ignore[union-attr]
    assert "\n" not in text and "Traceback" not in text, text
    return text


def test_serve_has_the_mcp_flag() -> None:
    parser = argparse.ArgumentParser()
    serve_flags(parser)
    assert parser.parse_args(["--mcp"]).mcp and not parser.parse_args([]).mcp


def test_exactly_the_four_tools_with_their_parameters(servers: dict[str, Server]) -> None:
    listed = mcp(servers["open"], lambda session: session.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOLS)  # not the app's chat and upload endpoints
    for name, (params, required) in TOOLS.items():
        schema = tools[name].inputSchema
        assert set(schema["properties"]) == params, name
        assert schema.get("required") == required, name
        assert tools[name].description, name
        assert all(p.get("description") for p in schema["properties"].values()), name
    assert tools["search"].inputSchema["properties"]["k"]["type"] == "integer"
    assert tools["search"].inputSchema["properties"]["k"]["default"] == 10
    assert {"type": "integer"} in tools["ask"].inputSchema["properties"]["year"]["oneOf"]


def test_ask_returns_the_structured_answer_with_a_verified_nester_citation(servers: dict[str, Server]) -> None:
    answer = ok(call(servers["open"], "ask", {"question": "What is Nester?"}))
    assert answer["question"] == "What is Nester?" and not answer["abstained"] and answer["error"] is None
    abstract = clean_text(_seed()[NESTER]["abstract"])  # as stored
    nester = [c for c in answer["citations"] if c["paper_id"] == NESTER]
    assert nester, answer["citations"]
    for citation in nester:
        assert citation["title"] == _seed()[NESTER]["title"] and citation["url"] == _seed()[NESTER]["url"]
        assert citation["quote"] and citation["quote"] in abstract
        assert abstract[citation["start"]:citation["end"]] == citation["quote"]
        assert f"[{citation['number']}]" in answer["text"]


def test_ask_with_history_and_filters(servers: dict[str, Server]) -> None:
    history = [{"role": "user", "content": "What is Nester?"},
               {"role": "assistant", "content": "Nester is a neuro-symbolic type inference method [1]."}]
    answer = ok(call(servers["open"], "ask", {"question": "Which dataset was it evaluated on?", "history": history,
                                              "venue": "ICML", "year": 2025}))
    assert answer["filters"] == {"venue": "ICML", "year": 2025}
    assert any(c["paper_id"] == NESTER and "ManyTypes4Py" in c["quote"] for c in answer["citations"]), answer


def test_search_related_and_paper(servers: dict[str, Server]) -> None:
    seed = _seed()
    found = ok(call(servers["open"], "search", {"query": "neuro-symbolic type inference", "k": 3}))
    assert len(found["hits"]) == 3 and found["hits"][0]["paper_id"] == NESTER
    assert {h["paper_id"] for h in found["hits"]} <= set(seed)
    assert found["hits"][0]["title"] == seed[NESTER]["title"]

    filtered = ok(call(servers["open"], "search", {"query": "type inference", "k": 5, "venue": "ICML 2025", "author": "Yao Wan"}))
    assert filtered["filters"] == {"venue": "ICML 2025", "author": "Yao Wan"}
    assert filtered["hits"] and all("Yao Wan" in h["authors"] for h in filtered["hits"])

    related = ok(call(servers["open"], "related", {"paper_id": NESTER, "k": 4}))
    ids = [h["paper_id"] for h in related["hits"]]
    assert related["paper_id"] == NESTER and len(ids) == 4 and NESTER not in ids and set(ids) <= set(seed)
    assert "best_sentence" not in related["hits"][0]
    scores = [h["score"] for h in related["hits"]]
    assert scores == sorted(scores, reverse=True)

    paper = ok(call(servers["open"], "paper", {"paper_id": NESTER}))
    assert paper == {"paper_id": NESTER, "title": seed[NESTER]["title"], "authors": seed[NESTER]["authors"],
                     "venue": paper["venue"], "url": seed[NESTER]["url"], "abstract": clean_text(seed[NESTER]["abstract"])}
    assert "ICML" in paper["venue"]


@pytest.mark.parametrize(("tool", "arguments", "expected"), [
    ("paper", {"paper_id": "no-such-paper"}, "paper_id: no paper with id 'no-such-paper'; find ids with the search tool"),
    ("related", {"paper_id": "no-such-paper", "k": 3}, "paper_id: no paper with id 'no-such-paper'"),
    ("related", {"paper_id": NESTER, "k": 0}, "k: must be a whole number from 1 to 50 (got 0)"),
    ("search", {"query": "type inference", "k": 1000}, "k: must be a whole number from 1 to 50 (got 1000)"),
    ("search", {"query": "type inference", "venue": "NeurIPS"}, "NeurIPS"),
    ("search", {"query": "  "}, "query: empty"),
    ("ask", {"question": "What is Nester?", "author": "Nobody Atall"}, "Nobody Atall"),
    ("ask", {"question": "   "}, "question: empty question"),
])
def test_bad_input_is_a_one_line_error(servers: dict[str, Server], tool: str, arguments: dict[str, Any], expected: str) -> None:
    assert expected in error(call(servers["open"], tool, arguments))


def _status(url: str, headers: dict[str, str]) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _leaves(exc: BaseException) -> list[BaseException]:
    inner = getattr(exc, "exceptions", None)
    return [leaf for e in inner for leaf in _leaves(e)] if inner else [exc]


def test_auth_refuses_mcp_requests_without_credentials(servers: dict[str, Server]) -> None:
    server = servers["auth"]
    wrong = "Basic " + base64.b64encode(f"{USER}:wrong".encode()).decode()  # as an MCP client sends credentials
    for path in ("gradio_api/mcp/", "gradio_api/mcp", "gradio_api/mcp/http/", "gradio_api/mcp/schema",
                 "gradio_api/mcp/sse", "gradio_api/mcp/messages/", "gradio_api//mcp/", "gradio_api/run/ask"):
        assert _status(server.url + path, {}) == 401, path
        assert _status(server.url + path, {"Authorization": wrong}) == 401, path
    with pytest.raises(BaseException) as refused:  # noqa: PT011 - an exception group carrying the HTTP error
        mcp(server, lambda session: session.list_tools())
    assert {e.response.status_code for e in _leaves(refused.value) if isinstance(e, httpx.HTTPStatusError)} == {401}


def test_auth_with_credentials_works(servers: dict[str, Server]) -> None:
    server = servers["auth"]
    listed = mcp(server, lambda session: session.list_tools(), auth=(USER, PASSWORD))
    assert {tool.name for tool in listed.tools} == set(TOOLS)
    answer = ok(call(server, "ask", {"question": "What is Nester?"}, auth=(USER, PASSWORD)))
    assert any(c["paper_id"] == NESTER for c in answer["citations"])
    assert ok(call(server, "paper", {"paper_id": NESTER}, auth=(USER, PASSWORD)))["paper_id"] == NESTER
