"""Research tools in the browser chat: filter controls and removable filter chips, "Related" on source cards, exports.

``create_app`` (``ui/app.py``) builds them with ``ChatTools``: ``controls()`` (venue, year, author pick lists
filled from the store by ``Assistant.filter_values``), ``chips()`` (the filters the last answer applied, each
removable: the last question is asked again with that filter switched off, ``{"venue": None}``),
``downloads()`` (BibTeX/CSV of the answer's papers and of the conversation's, the conversation as Markdown,
built by ``assistant.export``) and ``wire()``. gr.HTML cannot call Python from its markup, so the chips and the
sources panel get a small ``js_on_load`` handler that turns a button click into the component's ``click``
event with the button's data (``trigger('click', {...})``, read as ``gr.EventData``).
Everything from papers and users is escaped as in ``ui/app.py``.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from pathlib import Path
from typing import Any, Iterator, Protocol, Sequence

import gradio as gr

from assistant import Answer
from assistant.export import conversation_markdown, references, to_bibtex, to_csv
from ui.markup import escape as _e
from ui.markup import link as _link
from vectorstore.errors import PaperchatError

log = logging.getLogger("paperchat.ui")

MAX_AUTHOR_CHOICES = 1000  # pick-list size; any other author can be typed (matched with initials, as --author)
RELATED_K = 5
FILTERS = ("venue", "year", "author")
ANY = {"venue": "Any venue", "year": "Any year"}
# (label, file name, what) of each download button
DOWNLOADS = [
    ("Answer BibTeX", "paperchat-answer.bib", "answer-bib"),
    ("Answer CSV", "paperchat-answer.csv", "answer-csv"),
    ("Conversation BibTeX", "paperchat-conversation.bib", "conversation-bib"),
    ("Conversation CSV", "paperchat-conversation.csv", "conversation-csv"),
    ("Conversation Markdown", "paperchat-conversation.md", "conversation-md"),
]

# Appended to the sources panel's css_template (a JS template string: no backticks or "${").
RELATED_CSS = """
.pc-related-btn { margin-top: 0.45rem; padding: 0.1rem 0.55rem; font-size: 0.8rem; border-radius: 5px; cursor: pointer;
                  border: 1px solid var(--border-color-primary); background: var(--background-fill-secondary); color: var(--body-text-color); }
.pc-related-btn:disabled { opacity: 0.6; cursor: progress; }
.pc-related { margin-top: 0.4rem; padding: 0.4rem 0.6rem; border-radius: 6px; background: var(--background-fill-secondary); }
.pc-related ol { margin: 0.2rem 0 0 1.2rem; padding: 0; }
.pc-related li { margin: 0.15rem 0; }
.pc-related .pc-meta { display: inline; margin: 0; }
"""
CHIPS_CSS = """
.pc-chips { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; font-size: 0.85rem; min-height: 1.6rem; }
.pc-chips-label { color: var(--body-text-color-subdued); }
.pc-chip { display: inline-flex; align-items: center; gap: 0.25rem; padding: 0.05rem 0.2rem 0.05rem 0.55rem; border-radius: 999px;
           background: var(--color-accent-soft); color: var(--body-text-color); border: 1px solid var(--border-color-primary); }
.pc-chip-x { border: none; background: transparent; cursor: pointer; font-size: 1rem; line-height: 1; padding: 0 0.3rem;
             color: var(--body-text-color-subdued); border-radius: 999px; }
.pc-chip-x:hover { color: var(--body-text-color); background: var(--background-fill-secondary); }
.pc-chip-x:disabled { cursor: progress; opacity: 0.5; }
"""
# One delegated listener on the component's root (its content is re-rendered, the root stays): a click on
# one of its buttons becomes the component's click event carrying the button's data (gr.EventData).
RELATED_JS = """
let shown = null;
element.addEventListener('click', function (event) {
  const button = event.target.closest('button.pc-related-btn');
  if (!button || !element.contains(button) || button.disabled) return;
  event.preventDefault();
  const open = button.getAttribute('aria-expanded') === 'true';
  button.disabled = true;
  button.textContent = open ? 'Hiding…' : 'Finding related…';
  shown = open ? null : (button.dataset.paperId || '');
  trigger('click', {paper_id: button.dataset.paperId || '', open: open});
});
watch('value', function () {
  const list = shown === null ? null : element.querySelector('.pc-card[data-paper-id="' + CSS.escape(shown) + '"] .pc-related');
  if (list) list.scrollIntoView({block: 'nearest'});
  shown = null;
});
"""
CHIPS_JS = """
element.addEventListener('click', function (event) {
  const button = event.target.closest('button.pc-chip-x');
  if (!button || !element.contains(button) || button.disabled) return;
  event.preventDefault();
  element.querySelectorAll('button.pc-chip-x').forEach(function (b) { b.disabled = true; });
  trigger('click', {remove: button.dataset.filter || ''});
});
"""
_NO_CHIPS = '<div class="pc-chips"></div>'


# -- rendering ------------------------------------------------------------------------------------------------------
def chips_html(answer: Answer | None, given: dict[str, Any] | None = None) -> str:
    """The filters ``answer`` applied as chips, each with a remove button; a filter not ``given`` was stated in the question."""
    if answer is None or not answer.filters:
        return _NO_CHIPS
    given = given or {}
    chips = []
    for name, value in answer.filters.items():
        origin = "chosen above" if given.get(name) not in (None, "") else "stated in the question"
        chips.append(f'<span class="pc-chip" data-filter="{_e(name)}" title="{_e(origin)}">{_e(name)}: {_e(value)}'
                     f'<button type="button" class="pc-chip-x" data-filter="{_e(name)}" '
                     f'aria-label="Remove filter {_e(name)}" title="Ask again without this filter">×</button></span>')
    return f'<div class="pc-chips"><span class="pc-chips-label">Filters:</span>{"".join(chips)}</div>'


def related_html(hits: Sequence[Any], error: str | None = None) -> str:
    """The related papers shown inside a source card (titles linked only for http(s) URLs)."""
    if error:
        return f'<div class="pc-related pc-warn">Related papers: {_e(error)}</div>'
    if not hits:
        return '<div class="pc-related">No related papers here.</div>'
    items = "".join(f'<li data-paper-id="{_e(h.paper_id)}">{_link(h.url, h.title)} '
                    f'<span class="pc-meta">({_e(h.venue or "venue unknown")} · similarity {h.score:.2f})</span></li>'
                    for h in hits)
    return f'<div class="pc-related"><b>Related papers</b><ol>{items}</ol></div>'


def control_filters(venue: Any = None, year: Any = None, author: Any = None) -> dict[str, Any]:
    """The filters set in the controls (an empty control filters nothing); a year from the pick list becomes a number."""
    chosen: dict[str, Any] = {}
    if venue not in (None, ""):
        chosen["venue"] = str(venue)
    if year not in (None, ""):
        chosen["year"] = int(year) if str(year).strip().isdigit() else str(year)
    if author not in (None, "") and str(author).strip():
        chosen["author"] = str(author).strip()
    return chosen


class ExportFiles:
    """Export files under one temporary folder, one sub-folder per content (Gradio serves them from there)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or Path(tempfile.mkdtemp(prefix="paperchat-export-"))

    def write(self, name: str, text: str) -> str:
        folder = self.root / hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists():
            path.write_text(text, encoding="utf-8")
        return str(path)

    def contents(self, answers: Sequence[Answer]) -> dict[str, str | None]:
        """What -> text of each export (None: nothing to export)."""
        mine = references(answers[-1:])
        refs = references(answers)
        return {
            "answer-bib": to_bibtex(mine) if mine else None,
            "answer-csv": to_csv(mine) if mine else None,
            "conversation-bib": to_bibtex(refs) if refs else None,
            "conversation-csv": to_csv(refs) if refs else None,
            "conversation-md": conversation_markdown(answers) if answers else None,
        }

    def updates(self, answers: Sequence[Answer]) -> list[Any]:
        """One ``gr.DownloadButton`` update per ``DOWNLOADS`` entry: the file, or disabled when there is nothing."""
        try:
            texts = self.contents(answers)
        except Exception:  # noqa: BLE001 - the answer is shown whatever happens to its exports
            log.exception("building the exports failed")
            texts = {}
        out = []
        for _label, name, what in DOWNLOADS:
            text = texts.get(what)
            out.append(gr.DownloadButton(value=self.write(name, text), interactive=True) if text
                       else gr.DownloadButton(value=None, interactive=False))
        return out


class AppHandlers(Protocol):
    """What the tools use of the chat's handlers (``ui.app._Handlers``)."""

    assistant: Any

    def respond(self, message: str, chat: list[dict[str, Any]] | None, history: list[dict[str, str]] | None,
                filters: dict[str, Any] | None = None) -> Iterator[tuple[Any, ...]]: ...

    def sources(self, answer: Answer, related: dict[str, str] | None = None) -> str: ...


def _error_message(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, PaperchatError) else f"unexpected error ({exc.__class__.__name__}); see the server log"


# -- handlers and components -------------------------------------------------------------------------------------
class ChatTools:
    """The Chat tab's research tools, bound to the app's handlers (and so to its Assistant)."""

    def __init__(self, handlers: AppHandlers, exports: ExportFiles | None = None) -> None:
        self.handlers = handlers
        self.assistant = handlers.assistant
        self.exports = exports or ExportFiles()

    # components
    def controls(self) -> list[gr.Dropdown]:
        """Venue, year and author pick lists, filled from the store (build inside a layout context)."""
        venue, year, author = self.filter_choices()
        with gr.Row(elem_id="pc-filters", equal_height=True):
            self.venue = gr.Dropdown(label="Venue", elem_id="pc-filter-venue", scale=2, min_width=140, **venue)
            self.year = gr.Dropdown(label="Year", elem_id="pc-filter-year", scale=1, min_width=110, **year)
            self.author = gr.Dropdown(label="Author (pick or type; empty: any)", elem_id="pc-filter-author", scale=3, min_width=180,
                                      allow_custom_value=True, filterable=True, **author)
        return [self.venue, self.year, self.author]

    def chips(self) -> gr.HTML:
        self.chips_panel = gr.HTML(_NO_CHIPS, elem_id="pc-chips", css_template=CHIPS_CSS, js_on_load=CHIPS_JS, padding=False)
        return self.chips_panel

    def downloads(self) -> list[gr.DownloadButton]:
        with gr.Accordion("Export", open=False, elem_id="pc-export"):
            gr.Markdown("The current answer's papers, all papers cited in this conversation (each once), or the "
                        "conversation itself with its references.")
            with gr.Row():
                self.buttons = [gr.DownloadButton(label, value=None, interactive=False, size="sm", elem_id=f"pc-dl-{what}")
                                for label, _name, what in DOWNLOADS]
        return self.buttons

    # the pick lists
    def filter_choices(self) -> list[dict[str, Any]]:
        """Dropdown settings (choices, value) for venue, year and author from the store's papers."""
        try:
            values = self.assistant.filter_values(MAX_AUTHOR_CHOICES)
        except Exception as exc:  # noqa: BLE001 - the page renders without pick lists when the store is unavailable
            log.warning("filter values unavailable: %s", _error_message(exc))
            values = {}
        authors = sorted(values.get("author", []), key=str.casefold)
        lists = {"venue": values.get("venue", []), "year": [str(y) for y in values.get("year", [])], "author": authors}
        # venue and year: pick one or "Any"; author: pick or type a name (left empty: any author)
        return [{"choices": [*([(ANY[name], "")] if name != "author" else []), *((str(v), str(v)) for v in lists[name])],
                 "value": ""} for name in FILTERS]

    def refresh_choices(self, venue: Any, year: Any, author: Any) -> tuple[Any, ...]:
        """Pick lists after the store changed (an upload), keeping what is chosen."""
        current = {"venue": venue, "year": year, "author": author}
        return tuple(gr.update(choices=c["choices"], value=current[name] or "")
                     for name, c in zip(FILTERS, self.filter_choices()))

    # answering
    def respond(self, message: str, chat: list[dict[str, Any]] | None, history: list[dict[str, str]] | None,
                answers: list[Answer] | None, venue: Any = None, year: Any = None, author: Any = None) -> Iterator[tuple[Any, ...]]:
        """``_Handlers.respond`` with the controls' filters; also updates the answers, the chips and the downloads."""
        yield from self._answer(message, chat, history, answers, control_filters(venue, year, author), ())

    def _answer(self, message: str, chat: list[dict[str, Any]] | None, history: list[dict[str, str]] | None,
                answers: list[Answer] | None, filters: dict[str, Any], controls: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        """Per update: (textbox, chat, sources, history, answers, asked filters, chips, *downloads, venue, year, author)."""
        answers = list(answers or [])
        reset = controls or (gr.skip(),) * len(FILTERS)
        waiting = (gr.skip(),) * (3 + len(DOWNLOADS))
        for *shown, answer in self.handlers.respond(message, chat, history, filters):
            if isinstance(answer, Answer):
                answers.append(answer)
                yield (*shown, answers, filters, chips_html(answer, filters), *self.exports.updates(answers), *reset)
            else:
                yield (*shown, *waiting, *reset)
                reset = (gr.skip(),) * len(FILTERS)

    def remove_filter(self, evt: gr.EventData, chat: list[dict[str, Any]] | None, history: list[dict[str, str]] | None,
                      answers: list[Answer] | None, asked: dict[str, Any] | None) -> Iterator[tuple[Any, ...]]:
        """Ask the last question again without the chip's filter (switched off, even when the question states it)."""
        name = str((evt._data or {}).get("remove", "")) if isinstance(evt._data, dict) else ""
        answers, chat, history = list(answers or []), list(chat or []), list(history or [])
        if name not in FILTERS or not answers:
            yield (gr.skip(),) * (7 + len(DOWNLOADS)) + (gr.skip(),) * len(FILTERS)
            return
        last = answers.pop()
        filters = {**(asked or {}), name: None}  # the question's other stated filters still apply
        if len(chat) >= 2:  # the last turn is replaced by the new answer
            chat = chat[:-2]
        if last.error is None and len(history) >= 2:
            history = history[:-2]
        controls = tuple(gr.update(value="") if n == name else gr.skip() for n in FILTERS)
        yield from self._answer(last.question, chat, history, answers, filters, controls)

    def related(self, evt: gr.EventData, answers: list[Answer] | None) -> Any:
        """The sources panel with the clicked card's related papers shown (or hidden again)."""
        data = evt._data if isinstance(evt._data, dict) else {}
        paper_id = str(data.get("paper_id") or "")
        if not answers:
            return gr.skip()
        last = answers[-1]
        shown: dict[str, str] = {}
        if paper_id and not data.get("open"):
            try:
                shown[paper_id] = related_html(self.assistant.related(paper_id, RELATED_K))
            except Exception as exc:  # noqa: BLE001 - an unknown id or a store error is shown in the card
                log.warning("related papers of %r: %s", paper_id, exc)
                shown[paper_id] = related_html([], _error_message(exc))
        return self.handlers.sources(last, shown)

    def reset(self) -> tuple[Any, ...]:
        """A new conversation: no answers, chips or exports."""
        return ([], {}, _NO_CHIPS, *self.exports.updates([]))

    def wire(self, demo: gr.Blocks, *, chat: gr.Chatbot, history: gr.State, sources: gr.HTML, question: gr.Textbox,
             answers: gr.State, asked: gr.State, clear: gr.Button, upload_report: gr.JSON) -> None:
        """Events of the tools (the question's submit is wired by ``create_app`` with ``outputs()``)."""
        controls = [self.venue, self.year, self.author]
        self.chips_panel.click(self.remove_filter, [chat, history, answers, asked], self.outputs(question, chat, sources, history, answers, asked),
                               api_visibility="private", concurrency_id="answer", concurrency_limit=2)
        sources.click(self.related, [answers], sources, api_visibility="private", concurrency_id="related", concurrency_limit=2)
        clear.click(self.reset, None, [answers, asked, self.chips_panel, *self.buttons], queue=False, api_visibility="private")
        upload_report.change(self.refresh_choices, controls, controls, api_visibility="private", queue=False)
        demo.load(self.refresh_choices, controls, controls, api_visibility="private", queue=False)

    def inputs(self, question: gr.Textbox, chat: gr.Chatbot, history: gr.State, answers: gr.State) -> list[Any]:
        return [question, chat, history, answers, self.venue, self.year, self.author]

    def outputs(self, question: gr.Textbox, chat: gr.Chatbot, sources: gr.HTML, history: gr.State, answers: gr.State,
                asked: gr.State) -> list[Any]:
        return [question, chat, sources, history, answers, asked, self.chips_panel, *self.buttons, self.venue, self.year, self.author]

