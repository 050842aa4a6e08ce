"""The browser chat: a Gradio app built from an ``Assistant`` (``create_app``), and ``serve`` to run it.

The app calls only the Assistant's public methods (``tests/test_public_api.py`` checks which). Everything that comes from papers or users
(titles, abstracts, questions, answers, upload reports) is escaped before it reaches the page, so an abstract
containing ``<script>`` shows as text. Markdown components (the chat, status lines) get ``md_text``: the
engine's text is rendered as markdown for its emphasis and bullets, but every character that could make
a link, image, autolink or HTML is escaped first, whatever the engine wrote (an LLM may quote an abstract's
``![x](http://…)``), streamed partial text included; LaTeX rendering is off. The only links on the page
are the app's own, to a paper's http(s) URL in the sources panel and the Explore tab (``_link``). Scripted access: ``/chat`` returns ``Answer.to_dict()``,
``/upload`` starts adding a paper file (same validation as ``paperchat ingest``, within the upload caps) and
returns at once; the ingest runs in the background (``ui/uploads.py``) and ``/upload_status`` reports its progress.
"""

from __future__ import annotations

import json
import logging
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import gradio as gr

from assistant import Answer, Assistant, Citation, Hit, ListPage
from ui.explore import explore_tab
from ui.markup import error_message as _error_message
from ui.markup import escape as _e
from ui.markup import link as _link
from ui.markup import md_text
from ui.markup import meta_line as _meta_line
from ui.mcp import add_tools, launch_options
from ui.tools import RELATED_CSS, RELATED_JS, ChatTools
from ui.uploads import UploadBusy, UploadJob, Uploads
from vectorstore.errors import InputError, PaperchatError
from vectorstore.settings import Settings

log = logging.getLogger("paperchat.ui")

EXAMPLES = [
    "What is Nester?",
    "Is there a paper on neuro-symbolic type inference?",
    "Which papers study the Hessian of neural network loss landscapes?",
]
UPLOAD_TYPES = [".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".txt"]
_ESCAPED_MARKER = re.compile(r"\\\[(\d+)\\\]")
LIST_PAGE = 10  # papers a "Show more papers" click appends
# the first line of a list answer that shows fewer papers than match (assistant/lists.py `heading`)
_MORE = re.compile(r"^(?:\*\*)?(\d+) papers(?:\*\*)? match(?:, showing (\d+):|\. The (\d+) most relevant:)")
_EMPTY_SOURCES = '<div class="pc-empty">Sources for the current answer appear here.</div>'

# Scoped to the sources panel by gr.HTML; a JS template string, so no backticks or "${" here.
SOURCES_CSS = """
.pc-sources { font-size: 0.92rem; line-height: 1.45; }
.pc-note { margin: 0 0 0.6rem 0; padding: 0.45rem 0.6rem; border-radius: 6px; background: var(--background-fill-secondary); }
.pc-note.pc-warn { border-left: 4px solid #d97706; }
.pc-card { margin: 0 0 0.8rem 0; padding: 0.6rem 0.7rem; border: 1px solid var(--border-color-primary); border-radius: 8px; }
.pc-head { font-weight: 600; margin-bottom: 0.2rem; }
.pc-num { display: inline-block; min-width: 1.9em; margin-right: 0.35em; padding: 0 0.3em; border-radius: 4px;
          background: var(--color-accent-soft); color: var(--color-accent); text-align: center; font-weight: 700; }
.pc-meta { color: var(--body-text-color-subdued); font-size: 0.85rem; margin-bottom: 0.35rem; }
.pc-abstract { margin: 0.3rem 0 0 0; padding-left: 0.6rem; border-left: 3px solid var(--border-color-primary); white-space: pre-wrap; }
.pc-abstract mark { background: #fde68a; color: #1f2937; padding: 0 0.1em; border-radius: 2px; }
.pc-best { margin-top: 0.3rem; font-style: italic; }
.pc-foot { color: var(--body-text-color-subdued); font-size: 0.8rem; margin-top: 0.4rem; }
.pc-empty { color: var(--body-text-color-subdued); padding: 0.8rem 0; }
"""


# -- rendering (all untrusted text goes through _e) -------------------------------------------
def chat_text(text: str, cited: Sequence[int] = ()) -> str:
    """Answer text for the Chatbot's markdown: ``md_text``, ``[n]`` markers kept, cited ones in bold."""
    numbers = {str(n) for n in cited}
    return _ESCAPED_MARKER.sub(lambda m: f"**[{m.group(1)}]**" if m.group(1) in numbers else f"[{m.group(1)}]", md_text(text))


def highlight(abstract: str, quote: str, start: int, end: int) -> str:
    """The abstract, escaped, with the quote wrapped in ``<mark>``."""
    if not (0 <= start < end <= len(abstract) and abstract[start:end] == quote):
        start = abstract.find(quote) if quote else -1
        end = start + len(quote)
    if start < 0:
        return f"<mark>{_e(quote)}</mark>"
    return f"{_e(abstract[:start])}<mark>{_e(abstract[start:end])}</mark>{_e(abstract[end:])}"


def _related_action(paper_id: str, related: str | None) -> str:
    """The card's "Related" button (``ui/tools.py`` handles its click) and, once asked for, the related papers (HTML)."""
    if related is None:
        return ""
    expanded = "true" if related else "false"
    return (f'<button type="button" class="pc-related-btn" data-paper-id="{_e(paper_id)}" aria-expanded="{expanded}">'
            f'{"Hide related" if related else "Related"}</button>{related}')


def _citation_card(citation: Citation, abstract: str | None, related: str | None = None) -> str:
    body = highlight(abstract, citation.quote, citation.start, citation.end) if abstract else f"<mark>{_e(citation.quote)}</mark>"
    return (
        f'<div class="pc-card" id="pc-source-{citation.number}" data-paper-id="{_e(citation.paper_id)}">'
        f'<div class="pc-head"><span class="pc-num">[{citation.number}]</span>{_link(citation.url, citation.title)}</div>'
        f'<div class="pc-meta">{_meta_line(citation.authors, citation.venue)}</div>'
        f'<div class="pc-abstract">{body}</div>{_related_action(citation.paper_id, related)}</div>'
    )


def _hit_card(hit: Hit, number: int | None, related: str | None = None) -> str:
    num = f'<span class="pc-num">[{number}]</span>' if number is not None else ""
    best = f'<div class="pc-best">“{_e(hit.text)}”</div>' if hit.text else ""
    return (
        f'<div class="pc-card" data-paper-id="{_e(hit.paper_id)}"><div class="pc-head">{num}{_link(hit.url, hit.title)}</div>'
        f'<div class="pc-meta">{_meta_line(hit.authors, hit.venue)}</div>{best}{_related_action(hit.paper_id, related)}</div>'
    )


def _searched(question: str, query: str) -> str:
    if query and query != question:
        return f'<div class="pc-note">Follow-up searched as: <b>{_e(query)}</b></div>'
    return ""


def hits_html(hits: Sequence[Hit], k: int) -> str:
    """The panel while the answer is being written: the retrieved papers, numbered as the engine sees them."""
    if not hits:
        return '<div class="pc-sources"><div class="pc-note">No papers matched.</div></div>'
    cards = "".join(_hit_card(h, i) for i, h in enumerate(hits[:k], 1))
    return (f'<div class="pc-sources"><div class="pc-note">Retrieved {min(len(hits), k)} papers; '
            f'writing the answer…</div>{cards}</div>')


def answer_html(answer: Answer, abstracts: dict[str, str], related: dict[str, str] | None = None) -> str:
    """The sources panel for a finished answer: cited papers with the quote highlighted in the abstract.

    Each card has a "Related" button; ``related`` maps a paper id to its related papers' HTML, shown in its card.
    """
    related = related or {}
    parts = ['<div class="pc-sources">', _searched(answer.question, answer.query)]
    if answer.removed:  # what the verifier took out of the engine's text, and why: above the cards
        parts.append(f'<div class="pc-note pc-warn pc-removed">{_e(answer.removed_note())}</div>')
    if answer.error:
        parts.append(f'<div class="pc-note pc-warn">No answer: {_e(answer.error)}</div>')
    elif answer.abstained:
        parts.append('<div class="pc-note pc-warn">No answer: the indexed papers do not cover this question. Nearest papers:</div>')
        parts.extend(_hit_card(h, None, related.get(h.paper_id, "")) for h in answer.hits[:5])
    elif answer.citations:
        parts.extend(_citation_card(c, abstracts.get(c.paper_id), related.get(c.paper_id, "")) for c in answer.citations)
    else:
        parts.append('<div class="pc-note pc-warn">No verified citation: this answer is not grounded in the indexed abstracts.</div>')
    total = answer.timings.get("total")
    parts.append(f'<div class="pc-foot">engine: {_e(answer.engine or "-")}' + (f" · {total:.2f} s" if total else "") + "</div></div>")
    return "".join(parts)


SKIP_HINT = "tick 'Skip invalid records'"
UPLOAD_WAIT = 1.0  # seconds an upload's response waits for the job (a refused file or a tiny upload reports at once)


def _job_fields(job: UploadJob) -> dict[str, Any]:
    """The progress fields of an upload's report dict."""
    return {"state": job.state, "job": job.number, "file": job.name, "done": job.done, "total": job.total}


def _upload_message(exc: BaseException, path: Path) -> str:
    """An ingest error as seen in the page: the upload's file name, the page's option for skipping."""
    if isinstance(exc, InputError):
        return exc.describe(path=path.name if exc.path == str(path) else None, skip_hint=SKIP_HINT)
    return _error_message(exc)


def _error_answer(question: str, exc: BaseException, engine: str) -> Answer:
    message = _error_message(exc)
    return Answer(question=question, text=f"Error: {message}", error=message, engine=engine)


def _error_chat(message: str) -> str:
    return f"**Could not answer:** {md_text(message)}"


def _example_text(evt: gr.SelectData) -> str:
    value = evt.value
    return str(value.get("text", "")) if isinstance(value, dict) else str(value or "")


# -- the app --------------------------------------------------------------------------------------
class _Handlers:
    """Event handlers bound to one Assistant; every handler catches its errors (no endless spinner)."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant
        self.uploads = Uploads(lambda path, skip, progress: self.assistant.add_papers(
            [path], skip_invalid=skip, on_progress=progress, capped=True))

    # header
    def engine_label(self) -> str:
        try:
            return self.assistant.engine_label
        except Exception as exc:  # noqa: BLE001 - whatever happens, the header renders and the app keeps serving
            return f"unavailable: {_error_message(exc)}"

    def paper_count(self) -> int:
        """Committed papers in the store (one paper chunk each)."""
        return self.assistant.paper_count()

    def header(self) -> str:
        try:
            count = f"{self.paper_count():,} papers indexed"
        except PaperchatError as exc:
            count = f"store unavailable: {exc}"
        except Exception as exc:  # noqa: BLE001 - the header must render whatever the store does
            count = f"store unavailable ({exc.__class__.__name__})"
        return (f"## paperchat\nAsk questions about research papers; answers cite the abstracts.  \n"
                f"<small>{md_text(count)} · engine: **{md_text(self.engine_label())}**</small>")

    # answering
    def _abstracts(self, answer: Answer) -> dict[str, str]:
        out = {}
        for citation in answer.citations:
            paper = self.assistant.paper(citation.paper_id)
            if paper is not None:
                out[citation.paper_id] = paper.abstract
        return out

    def _final(self, answer: Answer) -> tuple[str, str]:
        """(chat markdown, sources HTML) for a finished answer."""
        if answer.error:
            return _error_chat(answer.error), answer_html(answer, {})
        body = chat_text(answer.text, [c.number for c in answer.citations])
        if answer.query and answer.query != answer.question:
            body = f"<small>Searched for: {md_text(answer.query)}</small>\n\n{body}"
        try:
            abstracts = self._abstracts(answer)
        except Exception:  # noqa: BLE001 - show the quotes alone
            log.exception("reading abstracts for the sources panel failed")
            abstracts = {}
        return body, answer_html(answer, abstracts)

    def sources(self, answer: Answer, related: dict[str, str] | None = None) -> str:
        """The sources panel of a finished answer; ``related`` (paper id -> HTML) is shown in those papers' cards."""
        try:
            abstracts = self._abstracts(answer)
        except Exception:  # noqa: BLE001 - show the quotes alone
            log.exception("reading abstracts for the sources panel failed")
            abstracts = {}
        return answer_html(answer, abstracts, related)

    def respond(self, message: str, chat: list[dict[str, Any]] | None, history: list[dict[str, str]] | None,
                filters: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """Stream one answer into the chat: (textbox, chat, sources, history, answer) per update.

        The retrieved papers fill the sources panel as soon as retrieval is done; the text
        follows as it is produced; the final update shows the verified citations and carries the
        ``Answer`` (``gr.skip()`` before). ``filters`` go to ``Assistant.stream_events``.
        """
        question = (message or "").strip()
        chat = list(chat or [])
        history = list(history or [])
        if not question:
            yield gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
            return
        chat += [{"role": "user", "content": md_text(question)}, {"role": "assistant", "content": "…"}]
        yield "", chat, '<div class="pc-empty">Searching the papers…</div>', gr.skip(), gr.skip()
        text = ""
        answer: Answer | None = None
        try:
            for kind, payload in self.assistant.stream_events(question, history, filters):
                if kind == "hits":
                    yield gr.skip(), gr.skip(), hits_html(payload, self.assistant.k), gr.skip(), gr.skip()
                elif kind == "delta":
                    text += payload
                    chat[-1] = {"role": "assistant", "content": chat_text(text) + " ▌"}
                    yield gr.skip(), chat, gr.skip(), gr.skip(), gr.skip()
                elif kind == "answer":
                    answer = payload
        except Exception as exc:  # noqa: BLE001 - any failure becomes a chat message
            log.exception("answering %r failed", question)
            answer = _error_answer(question, exc, self.engine_label())
        if answer is None:
            answer = _error_answer(question, RuntimeError("the assistant returned no answer"), self.engine_label())
        body, sources = self._final(answer)
        chat[-1] = {"role": "assistant", "content": body}
        if not answer.error:
            history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer.text}]
        yield gr.skip(), chat, sources, history, answer

    def chat_api(self, message: str, history: list[dict[str, str]] | None = None,
                 state: list[dict[str, str]] | None = None) -> tuple[dict[str, Any], list[dict[str, str]]]:
        """Answer ``message`` and return ``Answer.to_dict()``.

        ``history`` (a list of ``{"role", "content"}`` messages) is optional; without it the
        conversation of this client session is used, so follow-ups work.
        """
        question = str(message or "")
        if isinstance(history, str):  # a JSON-encoded list is accepted too
            try:
                history = json.loads(history)
            except ValueError:
                history = None
        past = list(history) if isinstance(history, list) else list(state or [])
        try:
            answer = self.assistant.ask(question, past)
        except Exception as exc:  # noqa: BLE001 - the API returns the error in the same shape
            log.exception("API answer to %r failed", question)
            answer = _error_answer(question, exc, self.engine_label())
        if answer.error is None:
            past += [{"role": "user", "content": answer.question}, {"role": "assistant", "content": answer.text}]
        return answer.to_dict(), past

    # uploads: ingested in the background (ui/uploads.py), the page polls ``upload_poll``
    def upload(self, file: str | None, skip_invalid: bool = False) -> tuple[str, dict[str, Any], str]:
        """Start adding the papers in an uploaded file: (status markdown, report dict, header), at once.

        The ingest runs in the background, one upload at a time (a second one is refused while one runs);
        the file is validated completely before anything is written (as ``paperchat ingest``), within the
        upload caps. The response waits up to ``UPLOAD_WAIT`` s, so a refused file or a small upload
        reports its outcome directly; otherwise ``report["state"]`` is "checking" or "embedding" and
        ``/upload_status`` (or the page's timer) follows it.
        """
        if not file:
            result = {"ok": False, "state": None, "error": "no file", "papers": self._safe_count()}
            return "Choose a paper file first (JSONL, JSON, CSV or TXT).", result, self.header()
        try:
            job = self.uploads.start(Path(file), bool(skip_invalid))
        except UploadBusy as busy:
            # the progress fields are the running upload's
            result = {**_job_fields(busy.job), "ok": False, "state": "busy", "error": str(busy), "papers": self._safe_count()}
            return f"**Not started:** {md_text(busy)}", result, self.header()
        return self._upload_view(self.uploads.wait(UPLOAD_WAIT) or job)

    def upload_status(self) -> dict[str, Any]:
        """The current (or last) upload's report dict, as ``/upload`` returns it; ``state`` None before any."""
        job = self.uploads.current()
        if job is None:
            return {"ok": True, "state": None, "error": None, "papers": self._safe_count()}
        return self._upload_view(job, header=False)[1]

    def upload_poll(self) -> tuple[Any, ...]:
        """The page's timer: (status, report, header, timer) while an upload runs; stops the timer when it ends."""
        job = self.uploads.current()
        if job is None:
            return gr.skip(), gr.skip(), gr.skip(), gr.Timer(active=False)
        status, report, header = self._upload_view(job, header=not job.running)
        return status, report, header if not job.running else gr.skip(), gr.Timer(active=job.running)

    def _upload_view(self, job: UploadJob, header: bool = True) -> tuple[str, dict[str, Any], Any]:
        """(status markdown, report dict, header) for an upload job in any state."""
        name = Path(job.path)
        fields = _job_fields(job)
        head = self.header() if header else gr.skip()
        if job.running:
            result = {"ok": True, "error": None, "papers": self._safe_count(), **fields}
            status = (f"**Adding** {md_text(job.name)}: {md_text(job.progress())} "
                      f"({time.monotonic() - job.started:.0f} s). Questions are answered meanwhile.")
            return status, result, head
        if job.error is not None:
            exc = job.error
            message = _upload_message(exc, name)
            prefix = "Not added, the file is invalid" if isinstance(exc, InputError) else "Not added"
            result = {"ok": False, "error": message, "papers": self._safe_count(), **fields}
            return f"**{prefix}:** {md_text(message)}", result, head
        report = job.report
        problems = [_upload_message(p.error, name) for p in report.problems]
        result = {"ok": True, "error": None, "added": report.added, "updated": report.updated,
                  "unchanged": report.unchanged, "skipped": problems, "summary": str(report), "papers": self._safe_count(),
                  **fields}
        status = (f"**Added** {md_text(job.name)}: {md_text(report)}. "
                  f"{result['papers']} papers indexed.")
        status += "".join(f"\n- skipped {md_text(p)}" for p in problems[:20])
        return status, result, head

    # list answers: "Show more papers"
    def list_state(self, history: list[dict[str, str]] | None) -> tuple[dict[str, Any] | None, Any]:
        """After each answer: a list answer showing fewer papers than match gets the "Show more" control."""
        history = list(history or [])
        if len(history) >= 2 and history[-1].get("role") == "assistant" and history[-2].get("role") == "user":
            found = _MORE.match(str(history[-1].get("content", "")))
            if found:
                return {"question": history[-2]["content"], "offset": int(found.group(2) or found.group(3))}, gr.update(visible=True)
        return None, gr.update(visible=False)

    def show_more(self, listing: dict[str, Any] | None, chat: list[dict[str, Any]] | None) -> tuple[list[dict[str, Any]], Any, Any]:
        """Append the next ``LIST_PAGE`` papers of the last list answer to the chat: (chat, listing, button)."""
        chat = list(chat or [])
        if not listing:
            return chat, None, gr.update(visible=False)
        try:
            page: ListPage = self.assistant.list_page(str(listing["question"]), int(listing["offset"]), LIST_PAGE)
        except Exception as exc:  # noqa: BLE001 - the chat says why, the app keeps serving
            log.exception("list page for %r failed", listing)
            return chat + [{"role": "assistant", "content": _error_chat(_error_message(exc))}], None, gr.update(visible=False)
        head = f"Papers {page.offset + 1}–{page.offset + len(page.members)} of {page.total}:"
        chat.append({"role": "assistant", "content": f"{head}\n{chat_text(page.text, [c.number for c in page.citations])}"})
        more = page.next_offset is not None
        return chat, ({**listing, "offset": page.next_offset} if more else None), gr.update(visible=more)

    def _safe_count(self) -> int | None:
        try:
            return self.paper_count()
        except Exception:  # noqa: BLE001
            return None


def _show_more_control(h: _Handlers, chat: gr.Chatbot, history: gr.State) -> None:
    """A "Show more papers" button under the chat, shown after a list answer with more papers than it shows."""
    listing = gr.State(None)
    more = gr.Button("Show more papers", visible=False, elem_id="pc-more", size="sm")
    history.change(h.list_state, [history], [listing, more], queue=False, api_visibility="private")
    more.click(h.show_more, [listing, chat], [chat, listing, more], api_visibility="private",
               concurrency_id="answer", concurrency_limit=2)


def create_app(assistant: Assistant, mcp: bool = False) -> gr.Blocks:
    """Build the chat app for ``assistant`` (not launched; see ``serve``); ``mcp``: add the MCP tool endpoints (``ui.mcp``)."""
    h = _Handlers(assistant)
    tools = ChatTools(h)
    with gr.Blocks(title="paperchat", analytics_enabled=False, fill_width=False) as demo:
        header = gr.Markdown(h.header(), elem_id="pc-header", label="header")
        history = gr.State([])
        answers, asked = gr.State([]), gr.State({})  # the conversation's Answers; the filters the last question was asked with
        with gr.Tabs(elem_id="pc-tabs"):
            with gr.Tab("Chat", id="chat", elem_id="pc-tab-chat"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3, min_width=380):
                        tools.controls()
                        chat = gr.Chatbot(
                            label="Chat", show_label=False, elem_id="pc-chat", height=560, sanitize_html=True, allow_tags=False,
                            render_markdown=True, latex_delimiters=[], feedback_options=None, buttons=["copy"],
                            placeholder="Ask about the indexed papers. Answers quote the abstracts and cite them as [1], [2], …",
                            examples=[{"text": q} for q in EXAMPLES],
                        )
                        tools.chips()
                        with gr.Row():
                            question = gr.Textbox(placeholder="Ask a question about the papers…", show_label=False,
                                                  elem_id="pc-question", scale=5, max_lines=4, autofocus=True)
                            ask = gr.Button("Ask", variant="primary", elem_id="pc-ask", scale=1, min_width=80)
                        _show_more_control(h, chat, history)
                        clear = gr.Button("New conversation", variant="secondary", elem_id="pc-clear", size="sm")
                        tools.downloads()
                    with gr.Column(scale=2, min_width=320):
                        gr.Markdown("### Sources")
                        sources = gr.HTML(_EMPTY_SOURCES, elem_id="pc-sources", css_template=SOURCES_CSS + RELATED_CSS, js_on_load=RELATED_JS,
                                          max_height=640, padding=True)
                with gr.Accordion("Add papers", open=False, elem_id="pc-add"):
                    gr.Markdown("Upload a paper list: JSONL or a JSON array (fields `abstract`, optional `id`, `title`, "
                                "`authors`, `url`, `venue`), CSV with an `abstract` column, or TXT with blank-line separated "
                                "abstracts. The file is checked completely before anything is added.")
                    with gr.Row():
                        upload_file = gr.File(label="Paper file", file_types=UPLOAD_TYPES, type="filepath", elem_id="pc-upload", scale=3)
                        with gr.Column(scale=1, min_width=160):
                            skip_invalid = gr.Checkbox(False, label="Skip invalid records", elem_id="pc-skip-invalid")
                            add = gr.Button("Add papers", elem_id="pc-add-btn", variant="primary")
                    upload_status = gr.Markdown(elem_id="pc-upload-status", label="status")
                    upload_report = gr.JSON(visible=False, label="report")
                    upload_timer = gr.Timer(1.0, active=False)
            explore_tab(assistant, sources)  # the paper map (ui/explore.py)

        stream_io: dict[str, Any] = dict(inputs=tools.inputs(question, chat, history, answers),
                                         outputs=tools.outputs(question, chat, sources, history, answers, asked),
                                         concurrency_id="answer", concurrency_limit=2)
        question.submit(tools.respond, api_visibility="private", **stream_io)
        ask.click(tools.respond, api_visibility="private", **stream_io)
        chat.example_select(_example_text, None, question, api_visibility="private",
                            queue=False).then(tools.respond, api_visibility="private", **stream_io)

        def reset() -> tuple[list[Any], list[Any], str, str]:
            return [], [], _EMPTY_SOURCES, ""

        clear.click(reset, None, [chat, history, sources, question], queue=False, api_visibility="private")
        chat.clear(reset, None, [chat, history, sources, question], queue=False, api_visibility="private")
        # the event returns at once (the ingest runs in the background); the timer polls until the job ends
        add.click(h.upload, [upload_file, skip_invalid], [upload_status, upload_report, header], api_name="upload",
                  concurrency_id="ingest", concurrency_limit=1).then(
            lambda: (gr.Timer(active=True), None), None, [upload_timer, upload_file], queue=False, api_visibility="private")
        upload_timer.tick(h.upload_poll, None, [upload_status, upload_report, header, upload_timer], queue=False,
                          api_visibility="private")
        gr.api(h.upload_status, api_name="upload_status", queue=False)
        demo.load(h.header, None, header, api_visibility="private", queue=False)
        tools.wire(demo, chat=chat, history=history, sources=sources, question=question, answers=answers, asked=asked,
                   clear=clear, upload_report=upload_report)

        # scripted access: Client(url).predict(message, api_name="/chat") -> Answer.to_dict()
        api_state = gr.State([])
        api_message = gr.Textbox(visible=False, label="message")
        api_history = gr.JSON(visible=False, label="history")
        api_answer = gr.JSON(visible=False, label="answer")
        api_message.submit(h.chat_api, [api_message, api_history, api_state], [api_answer, api_state],
                           api_name="chat", concurrency_id="answer", concurrency_limit=2)
        if mcp:
            add_tools(assistant)
    return demo


# -- serving ---------------------------------------------------------------------------------------
def parse_auth(auth: str | tuple[str, str] | None) -> tuple[str, str] | None:
    """``"USER:PASS"`` (or a tuple) -> ``(user, password)``; raises ``PaperchatError`` if malformed."""
    if auth is None or isinstance(auth, tuple):
        return auth
    user, sep, password = str(auth).partition(":")
    if not sep or not user or not password:
        raise PaperchatError("--auth must be USER:PASS with a non-empty user and password, e.g. --auth alice:s3cret")
    return user, password


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _sigterm_to_interrupt() -> None:
    """Shut down cleanly on SIGTERM (service managers, test teardown) as on Ctrl-C."""
    try:
        signal.signal(signal.SIGTERM, _interrupt)
    except (ValueError, AttributeError):  # not the main thread / no SIGTERM
        pass


def serve(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 7860,
          auth: str | tuple[str, str] | None = None, share: bool = False, mcp: bool = False) -> int:
    """Run the browser chat until interrupted; returns the exit code.

    Builds the Assistant (ingesting the bundled corpus into an empty store), then serves on
    ``host:port``. Nothing calls the network: no analytics, no share link unless ``share``.
    ``mcp``: also serve the MCP tools at ``/gradio_api/mcp/`` (``ui.mcp``), behind ``auth`` too.
    """
    credentials = parse_auth(auth)
    announce = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    settings = settings or Settings()
    assistant = Assistant(settings, announce=announce)
    app = create_app(assistant, mcp=mcp)
    mcp_options = launch_options(app, credentials) if mcp else {"mcp_server": False}
    if host not in ("127.0.0.1", "localhost", "::1") and credentials is None:
        announce(f"warning: serving on {host} without --auth: anyone who can reach this port can use the chat and upload papers")
    _sigterm_to_interrupt()
    app.queue(default_concurrency_limit=2)
    try:
        app.launch(
            server_name=host, server_port=port, auth=credentials, share=share, inbrowser=False,
            prevent_thread_lock=True, show_error=False, quiet=False, ssr_mode=False, pwa=False,
            enable_monitoring=False, run_history=False, footer_links=["api", "settings"],
            max_file_size=settings.upload_max_bytes, auth_message="paperchat: log in with the --auth credentials",
            **mcp_options,
        )
    except OSError as exc:
        app.close()
        reason = "the port is in use" if "empty port" in str(exc) else str(exc).split(". ")[0]
        raise PaperchatError(f"cannot serve on {host}:{port}: {reason}; choose another --port "
                             "or stop the process using it") from None
    try:
        app.block_thread()  # returns on Ctrl-C or SIGTERM
    finally:
        app.close()
    return 0
