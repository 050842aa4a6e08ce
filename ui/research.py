"""CLI research tools: filter flags, ``paperchat search``, ``paperchat related`` and ``paperchat map``.

Separate from ``ui/cli.py`` so the commands stay small; every command goes through the ``Assistant``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Callable

from assistant import Assistant, Hit
from vectorstore.text import printable


def filter_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("filters (applied before ranking)")
    group.add_argument("--venue", metavar="NAME", help='venue, with or without its year: "ICML", "ICML 2024"')
    group.add_argument("--year", type=int, metavar="YYYY", help="publication year")
    group.add_argument("--author", metavar="NAME", help='any author; case and accents ignored, initials allowed ("Y. Wan")')


def filters_of(args: argparse.Namespace) -> dict[str, Any]:
    return {k: getattr(args, k) for k in ("venue", "year", "author") if getattr(args, k, None) not in (None, "")}


def describe(filters: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in filters.items())


def render_hits(hits: list[Hit]) -> str:
    if not hits:
        return "no papers found"
    lines = []
    for rank, h in enumerate(hits, 1):
        lines.append(f"{rank:>2}. {printable(h.title)} ({printable(h.venue) or 'venue unknown'}) [{h.paper_id}] score {h.score:.3f}")
        if h.url:
            lines.append(f"    {h.url}")
    return "\n".join(lines)


def cmd_search(args: argparse.Namespace, assistant: Assistant) -> int:
    filters = filters_of(args)
    hits = assistant.search(args.query, args.k or 10, filters=filters)
    if args.json:
        print(json.dumps({"filters": filters, "hits": [h.model_dump() for h in hits]}, ensure_ascii=False, indent=2))
        return 0
    if filters:
        print(f"(filters: {describe(filters)})")
    print(render_hits(hits))
    return 0


def cmd_related(args: argparse.Namespace, assistant: Assistant) -> int:
    filters = filters_of(args)
    hits = assistant.related(args.paper_id, args.k or 5, filters=filters)
    if args.json:
        print(json.dumps({"paper_id": args.paper_id, "filters": filters, "hits": [h.model_dump() for h in hits]},
                         ensure_ascii=False, indent=2))
        return 0
    paper = assistant.paper(args.paper_id)
    print(f"Papers related to {printable(paper.title) if paper else args.paper_id}:")
    print(render_hits(hits))
    return 0


def cmd_map(args: argparse.Namespace, assistant: Assistant) -> int:
    """The paper map's topics (largest first) with a few titles each; ``--json``: every point too."""
    paper_map = assistant.paper_map()
    if args.json:
        print(json.dumps(paper_map.model_dump(), ensure_ascii=False, indent=2))
        return 0
    print(f"{len(paper_map.points)} papers in {len(paper_map.clusters)} topics ({paper_map.method}):")
    for cluster in paper_map.clusters:
        titles = [p.title for p in paper_map.points if p.cluster == cluster.id][: args.titles]
        print(f"{cluster.size:>6}  {printable(cluster.label)}")
        for title in titles:
            print(f"        - {printable(title)}")
    return 0


def add_commands(sub: Any, store_flags: Callable[[argparse.ArgumentParser], None],
                 make: Callable[[argparse.Namespace], Assistant]) -> None:
    """Register ``search``, ``related`` and ``map`` on the ``paperchat`` parser."""
    p = sub.add_parser("search", help="the best papers for a query (no answer), optionally filtered")
    p.add_argument("query")
    p.add_argument("--k", type=int, metavar="N", help="papers to list (default 10)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")
    filter_flags(p)
    store_flags(p)
    p.set_defaults(func=lambda args: cmd_search(args, make(args)))

    p = sub.add_parser("related", help="the papers most similar to one paper (by id)")
    p.add_argument("paper_id", metavar="ID")
    p.add_argument("--k", type=int, metavar="N", help="papers to list (default 5)")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")
    filter_flags(p)
    store_flags(p)
    p.set_defaults(func=lambda args: cmd_related(args, make(args)))

    p = sub.add_parser("map", help="the paper map's topics (the Explore tab's clusters), or every point with --json")
    p.add_argument("--titles", type=int, default=3, metavar="N", help="titles shown per topic (default 3)")
    p.add_argument("--json", action="store_true", help="print the whole map (points and clusters) as JSON")
    store_flags(p)
    p.set_defaults(func=lambda args: cmd_map(args, make(args)))
