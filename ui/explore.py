"""The Explore tab: every paper as a point on a map (``Assistant.paper_map``), coloured by topic cluster.

Hovering a point shows its title; clicking it (or choosing a title in the picker) opens the paper with
its related papers (``Assistant.related``); the papers cited by the last answer in the Chat tab are
circled. Gradio 6's ``gr.Plot`` has only a ``change`` event (no point clicks), so a small script
forwards Plotly's ``plotly_click`` to a hidden textbox whose ``change`` event reaches Python; the picker
works without it. Everything from papers is escaped: Plotly renders ``<a>``/``<b>`` in hover text,
legend names and annotations, so titles go through ``html.escape`` there as in the HTML panel.
"""

from __future__ import annotations

import html
import logging
import re
import textwrap
from typing import Any, Iterator

import gradio as gr

from assistant import Assistant, PaperMap
from ui.markup import error_message, escape, link, md_text, meta_line

log = logging.getLogger("paperchat.ui")

RELATED = 5
MAP_HEIGHT = 640
COLORS = ["#0067A5", "#F38400", "#008856", "#BE0032", "#875692", "#C9A800", "#6FA8DC", "#848482", "#E68FAC", "#A89060",
          "#604E97", "#F99379", "#8DB600", "#882D17", "#B3446C", "#2B3D26"]  # Kelly's colours of maximum contrast
_CITED = re.compile(r'<div class="pc-card" id="pc-source-\d+" data-paper-id="([^"]*)"')
_EMPTY_PAPER = '<div class="pc-empty">Click a point on the map, or choose a title above, to open a paper.</div>'

PAPER_CSS = """
.pc-paper { font-size: 0.92rem; line-height: 1.45; }
.pc-paper .pc-head { font-weight: 600; font-size: 1.02rem; margin-bottom: 0.2rem; }
.pc-paper .pc-meta { color: var(--body-text-color-subdued); font-size: 0.85rem; margin-bottom: 0.35rem; }
.pc-paper .pc-abstract { margin: 0.3rem 0 0.8rem 0; padding-left: 0.6rem; border-left: 3px solid var(--border-color-primary); white-space: pre-wrap; }
.pc-paper .pc-related { margin: 0.2rem 0 0 1.2rem; padding: 0; }
.pc-paper .pc-related li { margin-bottom: 0.35rem; }
.pc-paper button.pc-pick { margin-left: 0.4em; padding: 0 0.4em; font-size: 0.78rem; border: 1px solid var(--border-color-primary);
                           border-radius: 4px; background: var(--background-fill-secondary); cursor: pointer; }
.pc-empty { color: var(--body-text-color-subdued); padding: 0.8rem 0; }
"""

# Runs in the page when the tab opens: forwards a click on a point (or on a related paper's "map" button)
# to the hidden textbox #pc-map-click as "paper id\ncounter" (the counter makes a second click on the same point a change).
CLICK_JS = """() => {
  const send = (id) => {
    const box = document.querySelector('#pc-map-click textarea, #pc-map-click input');
    if (!box || id == null) return;
    window.__pcClicks = (window.__pcClicks || 0) + 1;
    box.value = String(id) + '\\n' + window.__pcClicks;
    box.dispatchEvent(new Event('input', {bubbles: true}));
  };
  if (!window.__pcPickBound) {
    window.__pcPickBound = true;
    document.addEventListener('click', (ev) => {
      const button = ev.target.closest && ev.target.closest('#pc-map-paper [data-pick]');
      if (button) send(button.getAttribute('data-pick'));
    });
  }
  const bind = () => {
    const gd = document.querySelector('#pc-map .js-plotly-plot');
    if (!gd || typeof gd.on !== 'function') return false;
    if (!gd.__pcBound) {
      gd.__pcBound = true;
      gd.on('plotly_click', (ev) => { const pt = ev && ev.points && ev.points[0]; if (pt) send(pt.customdata); });
    }
    return true;
  };
  let tries = 0;
  const timer = setInterval(() => { if (bind() || ++tries > 1200) clearInterval(timer); }, 250);
}"""


def cited_ids(sources_html: str | None) -> list[str]:
    """Paper ids of the citation cards in the Chat tab's sources panel (the last answer's citations)."""
    return [html.unescape(m.group(1)) for m in _CITED.finditer(sources_html or "")]


def _plotly_text(text: str) -> str:
    """Text for Plotly labels: ``< > &`` escaped, so no tag (Plotly renders <a>, <b>, <br>, ...) can form.
    Quotes stay as they are: Plotly shows only a few entities as characters, and ``&quot;`` is not one of them."""
    return html.escape(str(text or ""), quote=False)


def _hover(title: str, venue: str, topic: str) -> str:
    """Plotly hover text: escaped title, wrapped with <br>, then venue and topic."""
    lines = [_plotly_text(line) for line in textwrap.wrap(title, 70)[:4]] or ["(untitled)"]
    meta = " · ".join(_plotly_text(part) for part in (venue, topic) if part)
    return "<b>" + "<br>".join(lines) + "</b>" + (f"<br>{meta}" if meta else "")


def figure(paper_map: PaperMap, cited: list[str] | None = None, selected: str | None = None,
           related: list[str] | None = None) -> Any:
    """The map as a Plotly figure: one Scattergl trace per cluster, then the cited, related and selected papers on top."""
    import plotly.graph_objects as go

    fig = go.Figure()
    topics = {c.id: c.label for c in paper_map.clusters}
    by_id = {p.paper_id: p for p in paper_map.points}
    for cluster in paper_map.clusters:
        points = [p for p in paper_map.points if p.cluster == cluster.id]
        fig.add_trace(go.Scattergl(
            x=[p.x for p in points], y=[p.y for p in points], mode="markers", name=f"{_plotly_text(cluster.label)} ({cluster.size})",
            customdata=[p.paper_id for p in points], hovertext=[_hover(p.title, p.venue, cluster.label) for p in points],
            hoverinfo="text", marker={"size": 6, "color": COLORS[cluster.id % len(COLORS)], "opacity": 0.75},
        ))
    overlays = [("Cited in the last answer", cited, {"size": 15, "symbol": "circle-open", "color": "#111111", "line": {"width": 2.5}}),
                ("Related to the open paper", related, {"size": 12, "symbol": "diamond-open", "color": "#b45309", "line": {"width": 2}}),
                ("Open paper", [selected] if selected else [], {"size": 18, "symbol": "star", "color": "#facc15",
                                                               "line": {"width": 1.5, "color": "#111111"}})]
    for name, ids, marker in overlays:
        points = [by_id[i] for i in dict.fromkeys(ids or []) if i in by_id]
        if points:
            fig.add_trace(go.Scattergl(
                x=[p.x for p in points], y=[p.y for p in points], mode="markers", name=name, marker=marker,
                customdata=[p.paper_id for p in points], hoverinfo="text",
                hovertext=[_hover(p.title, p.venue, topics.get(p.cluster, "")) for p in points],
            ))
    for cluster in paper_map.clusters:  # the topic's label at its centre
        xs = sorted(p.x for p in paper_map.points if p.cluster == cluster.id)
        ys = sorted(p.y for p in paper_map.points if p.cluster == cluster.id)
        if xs:
            fig.add_annotation(x=xs[len(xs) // 2], y=ys[len(ys) // 2], text=_plotly_text(cluster.label), showarrow=False,
                               font={"size": 11, "color": "#111111"}, bgcolor="rgba(255,255,255,0.7)")
    fig.update_layout(
        height=MAP_HEIGHT, margin={"l": 10, "r": 10, "t": 36, "b": 10}, plot_bgcolor="white", hovermode="closest",
        uirevision=paper_map.key, xaxis={"visible": False}, yaxis={"visible": False}, dragmode="pan",
        legend={"title": {"text": "Topics (papers)"}, "itemsizing": "constant", "font": {"size": 10}, "x": 1.01, "y": 1},
    )
    return fig


def _status(paper_map: PaperMap, cited: int) -> str:
    how = {"umap": "UMAP", "pca": "PCA (fewer than 8 papers)", "none": "nothing to place"}[paper_map.method]
    text = (f"**{len(paper_map.points):,} papers** in {len(paper_map.clusters)} topics · {how} of the stored title + abstract "
            f"embeddings (computed in {paper_map.seconds:.1f} s, cached) · hover a point for its title, click it to open the paper")
    return text + (f" · circled: the {cited} paper{'s' if cited != 1 else ''} cited in the last answer" if cited else "")


class _Explore:
    """Event handlers of the Explore tab, bound to one Assistant; each catches its errors."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant

    def open(self, sources_html: str | None, shown: str | None) -> Iterator[tuple[Any, ...]]:
        """(status, plot, picker, shown key): the map with the last answer's citations circled.

        The picker's choices are sent only when the map differs from the one this page already has.
        """
        yield "_Preparing the paper map (the first time for these papers it takes a few seconds)…_", gr.skip(), gr.skip(), gr.skip()
        try:
            paper_map = self.assistant.paper_map()
            cited = [i for i in cited_ids(sources_html) if paper_map.point(i) is not None]
            fig = figure(paper_map, cited)
        except Exception as exc:  # noqa: BLE001 - the tab shows the error, the app keeps serving
            log.exception("building the paper map failed")
            yield f"**No map:** {md_text(error_message(exc))}", gr.skip(), gr.skip(), gr.skip()
            return
        picker: Any = gr.skip()
        if shown != paper_map.key:
            choices = sorted(((f"{p.title} ({p.venue})" if p.venue else p.title, p.paper_id) for p in paper_map.points),
                             key=lambda c: c[0].lower())
            picker = gr.update(choices=choices, value=None)
        yield _status(paper_map, len(cited)), fig, picker, paper_map.key

    def select(self, paper_id: str | None, sources_html: str | None = None) -> tuple[Any, Any, Any]:
        """(paper panel, plot, picker value) for a chosen paper: its abstract and related papers, marked on the map."""
        paper_id = (paper_id or "").split("\n")[0].strip()
        if not paper_id:
            return _EMPTY_PAPER, gr.skip(), gr.skip()
        try:
            paper = self.assistant.paper(paper_id)
            if paper is None:
                return f'<div class="pc-paper pc-empty">No paper with id {escape(paper_id)} (the store changed?).</div>', gr.skip(), gr.skip()
            related = self.assistant.related(paper_id, RELATED)
            paper_map = self.assistant.paper_map()
        except Exception as exc:  # noqa: BLE001
            log.exception("opening paper %r failed", paper_id)
            return f'<div class="pc-paper pc-empty">Could not open the paper: {escape(error_message(exc))}</div>', gr.skip(), gr.skip()
        point = paper_map.point(paper_id)
        topic = next((c.label for c in paper_map.clusters if point is not None and c.id == point.cluster), "")
        items = "".join(
            f'<li data-paper-id="{escape(h.paper_id)}">{link(h.url, h.title)}'
            f'<button class="pc-pick" data-pick="{escape(h.paper_id)}" title="open this paper">open</button>'
            f'<div class="pc-meta">{escape(h.venue)}{" · " if h.venue else ""}similarity {h.score:.2f}</div></li>'
            for h in related
        )
        body = (
            f'<div class="pc-paper" data-paper-id="{escape(paper.id)}">'
            f'<div class="pc-head">{link(paper.url, paper.title)}</div>'
            f'<div class="pc-meta">{meta_line(paper.authors, paper.venue)}{" · topic: " + escape(topic) if topic else ""}</div>'
            f'<div class="pc-abstract">{escape(paper.abstract)}</div>'
            f'<div class="pc-head">Related papers</div>'
            + (f'<ol class="pc-related">{items}</ol>' if items else '<div class="pc-empty">No related papers.</div>')
            + "</div>"
        )
        cited = [i for i in cited_ids(sources_html) if paper_map.point(i) is not None]
        fig = figure(paper_map, cited, paper_id, [h.paper_id for h in related])
        return body, fig, gr.update(value=paper_id) if point is not None else gr.skip()


def explore_tab(assistant: Assistant, sources: gr.HTML) -> None:
    """Add the Explore tab (inside a ``gr.Tabs``); ``sources`` is the Chat tab's sources panel (its citations are circled)."""
    ex = _Explore(assistant)
    with gr.Tab("Explore", id="explore", elem_id="pc-tab-explore") as tab:
        status = gr.Markdown("_Open this tab to draw the paper map._", elem_id="pc-map-status")
        with gr.Row(equal_height=False):
            with gr.Column(scale=3, min_width=480):
                plot = gr.Plot(show_label=False, elem_id="pc-map")
            with gr.Column(scale=2, min_width=320):
                picker = gr.Dropdown(choices=[], value=None, label="Paper (type to search the titles)", filterable=True,
                                     elem_id="pc-map-picker", allow_custom_value=False)
                paper = gr.HTML(_EMPTY_PAPER, elem_id="pc-map-paper", css_template=PAPER_CSS, max_height=MAP_HEIGHT, padding=True)
        clicked = gr.Textbox(visible="hidden", elem_id="pc-map-click", label="clicked paper")
    shown = gr.State("")
    tab.select(ex.open, [sources, shown], [status, plot, picker, shown], api_visibility="private",
               concurrency_id="paper_map", concurrency_limit=2)
    tab.select(None, None, None, js=CLICK_JS, api_visibility="private", queue=False)
    clicked.change(ex.select, [clicked, sources], [paper, plot, picker], api_visibility="private")
    picker.input(ex.select, [picker, sources], [paper, plot, picker], api_visibility="private")
