"""Research tools on a real mixed store (ICML 2025 seed, ICML 2024, AISTATS/UAI 2025): filters, related papers, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from assistant import Assistant
from assistant.filters import LISTING_ENGINE, Catalog, Filters, author_matches, fold
from conftest import CliResult, cli_store_args, make_settings
from vectorstore.errors import InputError
from vectorstore.settings import Settings

ICML2024 = [*range(12), 19, 25, 1457]  # 19, 25: diffusion; 1457: MLLM-as-a-Judge, a Yao Wan paper (he also wrote the seed's Nester paper)
ML2025 = [*range(12), 213, 1529]  # 213: causal graph distances (AISTATS), 1529: Clément Yvernes (UAI)


@pytest.fixture(scope="session")
def mixed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Settings:
    """An embedded store with papers from three venues and two years (built once, left unchanged)."""
    from ingest import ingest

    folder = tmp_path_factory.mktemp("mixed")
    lines = (shared / "data" / "icml2025_seed" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    icml2024 = (shared / "data" / "icml2024_abstracts" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    ml2025 = (shared / "data" / "ml2025_conferences" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    lines += [icml2024[i] for i in ICML2024] + [ml2025[i] for i in ML2025]
    path = folder / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = make_settings("embedded", folder, request, "mixed")
    report = ingest([path], settings, progress=False)
    assert report.added == len(lines), report
    return settings


@pytest.fixture(scope="session")
def assistant(mixed: Settings) -> Assistant:
    return Assistant(mixed, engine="extractive", auto_ingest=False)


# -- filters ------------------------------------------------------------------------------------------------
def test_author_matching_ignores_case_accents_and_accepts_initials() -> None:
    assert fold("Clément  Yvernes") == "clement yvernes"
    assert author_matches("clement yvernes", "Clément Yvernes")
    assert author_matches("Y. Wan", "Yao Wan") and author_matches("yao WAN", "Yao Wan") and author_matches("Wan", "Yao Wan")
    assert not author_matches("Z. Wan", "Yao Wan") and not author_matches("Yao Wang", "Yao Wan")


def test_question_filters_need_a_venue_as_spelled_in_the_store() -> None:
    from assistant.filters import _Entry

    catalog = Catalog([_Entry("a", "ALT 2025", 2025, ["Yao Wan"]), _Entry("b", "ICML 2024", 2024, []), _Entry("c", "CoRL 2025", 2025, [])])
    assert not catalog.from_question("alt text generation")[0]
    assert catalog.from_question("ICML 2024 papers on diffusion") == (Filters(venue="ICML", year=2024), "papers on diffusion")
    assert catalog.from_question("CoRL robots")[0] == Filters(venue="CoRL")
    assert catalog.from_question("What has Yao Wan published?")[0] == Filters(author="Yao Wan")


def test_filtered_search_ranks_the_whole_subset(assistant: Assistant) -> None:
    unfiltered = assistant.search("causal graphs", 40)
    hits = assistant.search("causal graphs", 5, filters={"venue": "AISTATS"})
    assert len(hits) == 5 and all(h.venue == "AISTATS 2025" for h in hits)
    # the best AISTATS papers of the whole store, in the same order as in the unfiltered ranking
    assert [h.paper_id for h in hits] == [h.paper_id for h in unfiltered if h.venue == "AISTATS 2025"][:5]
    icml24 = assistant.search("diffusion models", 3, filters=Filters(venue="icml", year=2024))
    assert icml24 and all(h.venue == "ICML 2024" for h in icml24)
    assert {h.paper_id for h in assistant.search("language models", 10, filters={"author": "y. wan"})} == {
        "icml2025-44081", "icml2024-poster-33545"}
    assert [h.paper_id for h in assistant.search("time series", 5, filters={"author": "clement yvernes"})] == ["pmlr-v286-yvernes25a"]


@pytest.mark.parametrize(("filters", "message"), [
    ({"venue": "NeurIPS"}, "no papers from NeurIPS; venues here: AISTATS, ICML, UAI"),
    ({"year": 1800}, "impossible year 1800"),
    ({"year": 2023}, "no papers from 2023; years here: 2024, 2025"),
    ({"venue": "UAI", "year": 2024}, "no papers from 2024 in UAI; years here: 2025"),
    ({"author": "Nobody Here"}, "no papers by Nobody Here"),
    ({"year": "soon"}, "bad filter"),
])
def test_unknown_filter_values_raise_one_clear_error(assistant: Assistant, filters: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as err:
        assistant.search("anything", 3, filters=filters)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("question", "applied", "venue"), [
    ("ICML 2024 papers on diffusion", {"venue": "ICML", "year": 2024}, "ICML 2024"),
    ("AISTATS papers about causal graphs", {"venue": "AISTATS"}, "AISTATS 2025"),
])
def test_filters_stated_in_the_question_are_applied_and_shown(assistant: Assistant, question: str,
                                                              applied: dict[str, object], venue: str) -> None:
    answer = assistant.ask(question)
    assert answer.filters == applied and answer.error is None and not answer.abstained
    assert answer.citations and all(h.venue == venue for h in answer.hits)


def test_a_list_question_with_a_stated_filter_is_still_a_list(assistant: Assistant) -> None:
    """The filter words are taken out before the shape is read: "Which ICML 2024 papers …" lists papers."""
    answer = assistant.ask("Which ICML 2024 papers study diffusion models?")
    assert answer.filters == {"venue": "ICML", "year": 2024}
    assert answer.text.splitlines()[0].endswith("match:") and len(answer.citations) >= 2


def test_a_question_naming_only_an_author_lists_their_papers(assistant: Assistant) -> None:
    answer = assistant.ask("What has Yao Wan published here?")
    assert answer.filters == {"author": "Yao Wan"}
    assert {h.paper_id for h in answer.hits} == {"icml2025-44081", "icml2024-poster-33545"}
    assert "Dataflow-Guided Neuro-Symbolic" in answer.text and "MLLM-as-a-Judge" in answer.text


def test_explicit_filters_on_ask(assistant: Assistant) -> None:
    answer = assistant.ask("What benchmark is used?", filters={"author": "Yao Wan", "year": 2024})
    assert answer.filters == {"author": "Yao Wan", "year": 2024}
    assert {h.paper_id for h in answer.hits} <= {"icml2024-poster-33545"}
    assert assistant.ask("x", filters={"venue": "NeurIPS"}).error.startswith("no papers from NeurIPS")


def test_catalog_values_come_from_the_store(mixed: Settings) -> None:
    catalog = Catalog.of(Assistant(mixed, engine="extractive", auto_ingest=False).store)
    assert catalog.venues() == ["AISTATS", "ICML", "UAI"] and catalog.years() == [2024, 2025]


def test_filter_values_for_pick_lists(assistant: Assistant) -> None:
    values = assistant.filter_values(3)
    assert values["venue"] == ["AISTATS", "ICML", "UAI"] and values["year"] == [2024, 2025]
    assert values["author"][0] == "Yao Wan" and len(values["author"]) == 3  # the only author with two papers here
    assert len(assistant.filter_values()["author"]) > 100


def test_a_filter_given_as_none_is_switched_off() -> None:
    parsed = Filters.parse({"venue": "ICML", "year": None, "author": ""})
    assert parsed.active() == {"venue": "ICML"} and parsed.off == {"year"} and parsed.describe() == "venue=ICML"
    assert parsed.over(Filters(venue="UAI", year=2024, author="Yao Wan")) == Filters(venue="ICML", author="Yao Wan")
    with pytest.raises(InputError, match="unknown filter colour; filters are venue, year and author"):
        Filters.parse({"colour": "red"})
    with pytest.raises(InputError, match="bad filter"):
        Filters.parse({"year": "soon"})
    with pytest.raises(ValueError, match="venue is both given and switched off"):
        Filters(venue="ICML", off={"venue"})


def test_a_stated_filter_switched_off_no_longer_restricts_the_answer(assistant: Assistant) -> None:
    question = "ICML 2024 papers on diffusion"
    ids = lambda answer: [h.paper_id for h in answer.hits]  # noqa: E731
    assert {h.venue for h in assistant.ask(question).hits} == {"ICML 2024"}
    no_year = assistant.ask(question, filters={"year": None})
    assert no_year.filters == {"venue": "ICML"} and no_year.error is None
    # the question's "2024" is not applied: the same papers as asking for ICML without a year
    assert ids(no_year) == ids(assistant.ask("papers on diffusion", filters={"venue": "ICML"}))
    assert no_year.match_count is not None and no_year.match_count >= len(assistant.ask(question).members)
    unfiltered = assistant.ask(question, filters={"venue": None, "year": None})
    assert unfiltered.filters == {} and {h.venue for h in unfiltered.hits} - {"ICML 2024", "ICML 2025"}  # other venues too
    assert unfiltered.query == question  # every stated filter off: searched as typed
    anyone = assistant.ask("What has Yao Wan published here?", filters={"author": None})
    assert anyone.filters == {} and anyone.engine != LISTING_ENGINE  # not the author's listing any more
    assert assistant.ask("x", filters={"year": "soon"}).error.startswith("bad filter")  # reported, not raised


@pytest.fixture(scope="module")
def server_store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Assistant:
    """A small mixed store (ICML 2025 seed, ICML 2024, AISTATS 2025) on a `chroma run` server."""
    from ingest import ingest

    folder = tmp_path_factory.mktemp("mixed-server")
    data = shared / "data"
    icml2024 = (data / "icml2024_abstracts" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    ml2025 = (data / "ml2025_conferences" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    lines = (data / "icml2025_seed" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    lines += [icml2024[i] for i in (0, 1, 19, 25)] + [ml2025[i] for i in (0, 1, 2, 3, 213)]
    path = folder / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = make_settings("server", folder, request, "mixed-server")
    assert settings.chroma_url
    assert ingest([path], settings, progress=False).added == len(lines)
    return Assistant(settings, engine="extractive", auto_ingest=False)


def test_filters_on_a_chroma_server_store(server_store: Assistant) -> None:
    unfiltered = server_store.search("causal graphs", 28)
    assert {h.venue for h in unfiltered} == {"AISTATS 2025", "ICML 2024", "ICML 2025"}
    hits = server_store.search("causal graphs", 10, filters={"venue": "AISTATS"})
    assert len(hits) == 5 and {h.venue for h in hits} == {"AISTATS 2025"}  # the whole subset, nothing else
    ranked = [h.paper_id for h in unfiltered if h.venue == "AISTATS 2025"]
    assert len(ranked) >= 3 and [h.paper_id for h in hits if h.paper_id in ranked] == ranked  # in the same order
    answer = server_store.ask("ICML 2024 papers on diffusion")
    assert answer.filters == {"venue": "ICML", "year": 2024} and answer.citations
    assert {h.venue for h in answer.hits} == {"ICML 2024"} and {c.venue for c in answer.citations} == {"ICML 2024"}
    answer = server_store.ask("What is studied?", filters={"venue": "ICML", "year": 2025, "author": "y. wan"})
    assert [h.paper_id for h in answer.hits] == ["icml2025-44081"]
    assert server_store.ask("x", filters={"venue": "NeurIPS"}).error == (
        "no papers from NeurIPS; venues here: AISTATS, ICML")


def test_cli_search_and_ask_with_filters(mixed: Settings, run_cli: Callable[..., CliResult]) -> None:
    store = cli_store_args(mixed)
    result = run_cli("search", "causal graphs", "--venue", "AISTATS", "--k", "3", "--json", *store)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert len(hits) == 3 and {h["venue"] for h in hits} == {"AISTATS 2025"}
    result = run_cli("ask", "What is Nester?", "--author", "yao wan", "--engine", "extractive", *store)
    assert result.returncode == 0 and "[filters: author=yao wan]" in result.stdout
    for flags, message in [(["--venue", "NeurIPS"], "no papers from NeurIPS; venues here: AISTATS, ICML, UAI"),
                           (["--year", "1800"], "impossible year 1800"), (["--author", "Nobody"], "no papers by Nobody")]:
        result = run_cli("ask", "anything", *flags, "--engine", "extractive", *store)
        assert result.returncode == 2 and len(result.stderr_lines) == 1 and result.stderr.startswith("paperchat: error: ")
        assert message in result.stderr and "Traceback" not in result.stderr
    result = run_cli("search", "x", "--venue", "NeurIPS", *store)
    assert result.returncode == 2 and "venues here" in result.stderr


# -- related papers -----------------------------------------------------------------------------------------
def test_related_papers_are_nearest_by_embedding_excluding_the_paper(assistant: Assistant) -> None:
    hits = assistant.related("aistats2025-KO7fATqh2W", 3)
    assert len(hits) == 3 and "aistats2025-KO7fATqh2W" not in {h.paper_id for h in hits}
    assert hits[0].score >= hits[1].score >= hits[2].score
    assert "causal" in hits[0].title.lower()  # a causal-graph neighbour first
    assert {h.venue for h in assistant.related("icml2025-44081", 4, filters={"year": 2024})} == {"ICML 2024"}
    with pytest.raises(InputError, match="no paper with id 'nope'"):
        assistant.related("nope", 3)


def test_related_skips_other_versions_of_the_paper(tmp_path: Path, seed_jsonl: Path, request: pytest.FixtureRequest) -> None:
    records = [json.loads(line) for line in seed_jsonl.read_text(encoding="utf-8").splitlines()[:4]]
    copy = {**records[0], "id": "copy-of-" + records[0]["id"], "url": "https://example.org/preprint"}
    path = tmp_path / "dup.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [*records, copy]) + "\n", encoding="utf-8")
    settings = make_settings("embedded", tmp_path, request, "dup")
    small = Assistant(settings, engine="extractive", auto_ingest=False)
    small.add_papers([path])
    ids = [h.paper_id for h in small.related(records[0]["id"], 10)]
    assert sorted(ids) == sorted(r["id"] for r in records[1:])


def test_cli_related(mixed: Settings, run_cli: Callable[..., CliResult]) -> None:
    store = cli_store_args(mixed)
    result = run_cli("related", "aistats2025-KO7fATqh2W", "--k", "2", *store)
    assert result.returncode == 0 and result.stdout.startswith("Papers related to Separation-Based Distance Measures")
    assert " 1. " in result.stdout and " 3. " not in result.stdout
    result = run_cli("related", "no-such-id", *store)
    assert result.returncode == 2 and result.stderr_lines == [
        "paperchat: error: no paper with id 'no-such-id'; find ids with `paperchat search QUERY`"]


def test_a_small_subset_is_compared_exactly_like_chromas_filtered_query(assistant: Assistant) -> None:
    """A subset's vectors read by paper id and compared here (``nearest_rows``) rank as Chroma's own filtered query does."""
    from vectorstore.store import nearest_rows

    ids = {"icml2025-44081", "icml2024-poster-33545", "aistats2025-KO7fATqh2W"}
    vector = assistant.embedder.encode(["type inference with language models"])[0].tolist()
    ours = nearest_rows(*assistant.store.vectors_among(ids), np.asarray(vector, dtype=np.float32), 12)
    chroma = assistant.store.nearest_ids(vector, 12, where={"paper_id": {"$in": sorted(ids)}})
    assert [cid for cid, _ in ours] == [cid for cid, _ in chroma] and len(ours) == 12
    assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(ours, chroma))


def test_a_small_store_is_searched_exactly_like_chromas_index(assistant: Assistant, monkeypatch: pytest.MonkeyPatch) -> None:
    """An embedded store of at most ``EXACT_CHUNKS`` chunks is scanned in memory: the same ranking as Chroma's own
    query, no Chroma query per search, and a larger store (or a server) goes to Chroma's index."""
    from assistant import retrieval

    retriever = assistant.retriever
    snapshot = retriever.keyword.snapshot()
    vector = assistant.embedder.encode(["type inference with language models"])[0]
    chroma = assistant.store.nearest_ids(vector.tolist(), 40)
    queried: list[int] = []
    real = assistant.store.nearest_ids
    monkeypatch.setattr(assistant.store, "nearest_ids", lambda *a, **k: queried.append(1) or real(*a, **k))
    ours = retriever._nearest(vector, 40, None, snapshot.generation)
    assert [cid for cid, _ in ours] == [cid for cid, _ in chroma] and not queried
    assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(ours, chroma))
    monkeypatch.setattr(retrieval, "EXACT_CHUNKS", 10)
    assert [cid for cid, _ in retriever._nearest(vector, 40, None, "another generation")] == [cid for cid, _ in chroma] and queried


def test_cli_map(mixed: Settings, run_cli: Callable[..., CliResult]) -> None:
    """`paperchat map`: the Explore tab's topics in the terminal; --json every paper once."""
    store = cli_store_args(mixed)
    papers = 19 + len(ICML2024) + len(ML2025)
    result = run_cli("map", "--titles", "1", *store)
    assert result.returncode == 0 and result.stdout.startswith(f"{papers} papers in "), result.stdout[:200]
    lines = result.stdout.splitlines()[1:]
    assert sum(int(line.split()[0]) for line in lines if not line.lstrip().startswith("-")) == papers
    full = json.loads(run_cli("map", "--json", *store).stdout)
    assert len({p["paper_id"] for p in full["points"]}) == len(full["points"]) == papers and full["method"] == "umap"


# -- export -------------------------------------------------------------------------------------------------
def test_bibtex_export_parses_with_a_real_parser_and_escapes(assistant: Assistant) -> None:
    import bibtexparser

    from assistant import PaperRef
    from assistant.export import to_bibtex, to_csv

    answer = assistant.ask("AISTATS papers about causal graphs")
    library = bibtexparser.parse_string(answer.to_bibtex())
    assert not library.failed_blocks and len(library.entries) == len(answer.citations) >= 2
    for entry, citation in zip(library.entries, answer.citations):
        assert entry["booktitle"] == "AISTATS" and entry["year"] == "2025" and entry["url"] == citation.url
    tricky = [PaperRef(paper_id="a_1", title=r"$\bf{\Phi}$ flows: 100% & #1 {fast} ~ever", authors=["Clément Yvernes"], venue="UAI 2025"),
              PaperRef(paper_id="a_2", title="Flows", authors=["C. Yvernes"], venue="UAI 2025"),
              PaperRef(paper_id="a_3", title="Flows", authors=["Clement Yvernes"], venue="UAI 2025")]
    library = bibtexparser.parse_string(to_bibtex(tricky))
    assert not library.failed_blocks and len(library.entries) == 3
    assert len({e.key for e in library.entries}) == 3 and all(e.key.isascii() for e in library.entries)
    assert library.entries[0]["title"] == r"{\$\textbackslash{}bf\{\textbackslash{}Phi\}\$ flows: 100\% \& \#1 \{fast\} \textasciitilde{}ever}"
    assert library.entries[0]["author"] == "Clément Yvernes"
    rows = to_csv(tricky).splitlines()
    assert rows[0] == "key,paper_id,title,authors,venue,year,url" and len(rows) == 4 and ",UAI,2025," in rows[1]


def test_cli_ask_bibtex(mixed: Settings, run_cli: Callable[..., CliResult]) -> None:
    import bibtexparser

    result = run_cli("ask", "What is Nester?", "--bibtex", "--engine", "extractive", *cli_store_args(mixed))
    assert result.returncode == 0, result.stderr
    library = bibtexparser.parse_string(result.stdout)
    assert [e.key for e in library.entries] == ["li2025dataflow"] and library.entries[0]["year"] == "2025"


def test_a_filtered_search_sees_papers_added_after_its_subset_was_read(tmp_path: Path, seed_jsonl: Path,
                                                                        request: pytest.FixtureRequest) -> None:
    """The filtered subset's vectors are held between questions, per store generation: an ingest adding a
    matching paper makes the next filtered search read the subset again and find it."""
    records = [{**json.loads(line), "venue": "TESTCONF 2025"} for line in seed_jsonl.read_text(encoding="utf-8").splitlines()[:4]]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("\n".join(json.dumps(r) for r in records[:3]) + "\n", encoding="utf-8")
    second.write_text(json.dumps(records[3]) + "\n", encoding="utf-8")
    small = Assistant(make_settings("embedded", tmp_path, request, "subset"), engine="extractive", auto_ingest=False)
    small.add_papers([first])
    query, venue = records[3]["title"], {"venue": "TESTCONF"}
    assert records[3]["id"] not in [h.paper_id for h in small.search(query, 5, filters=venue)]
    small.add_papers([second])
    found = small.search(query, 5, filters=venue)
    assert found and found[0].paper_id == records[3]["id"]


def test_a_warm_unfiltered_search_reads_only_the_generation_from_chroma(assistant: Assistant,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "one Chroma call per search": with the store unchanged, a search reads the generation (the
    collection's metadata) and nothing else: no filter catalog, no chunk or sentence reads, no Chroma query."""
    from vectorstore import store as store_module

    monkeypatch.setattr(store_module, "COUNT_TTL", 1e9)  # the count is re-read at most once a second: not in this window
    assistant.search("type inference with language models", 5)  # warm: keyword snapshot, held vectors, count
    store = assistant.store
    calls: list[str] = []
    real_call, real_get = store._call, store.client.get_collection
    monkeypatch.setattr(store, "_call", lambda fn, *a, **k: calls.append(fn) or real_call(fn, *a, **k))
    monkeypatch.setattr(store.client, "get_collection", lambda *a, **k: calls.append("get_collection") or real_get(*a, **k))
    hits = assistant.search("How are pixels turned into patterns by neural networks?", 5)
    assert hits and all(h.text for h in hits)
    assert calls == ["get_collection"], calls
