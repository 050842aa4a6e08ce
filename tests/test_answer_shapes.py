"""Answer shapes (issue 11) on the real store and model: lists, comparisons, near misses, no padding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assistant import Assistant
from ingest import ingest
from assistant.selection import question_shape


@pytest.fixture(scope="module")
def assistant(seeded) -> Assistant:
    return Assistant(seeded, engine="extractive", auto_ingest=False)


def test_question_shapes():
    assert question_shape("Which papers study reinforcement learning?") == "list"
    assert question_shape("List all papers on graph neural networks") == "list"
    assert question_shape("How many papers use diffusion?") == "list"
    assert question_shape("Which paper introduces Nester?") == "single"
    assert question_shape("Compare Nester and TINED") == "compare"
    assert question_shape("What is Nester?") == "single"


def test_a_comparison_is_a_shape_only_when_it_is_what_is_asked():
    """Two papers are quoted for "compare A and B" and its phrasings; a question that mentions a comparison while asking
    something else ("which metrics are used to compare …") is about the paper that makes it, and gets the near-miss test."""
    for asked in ("Compare Nester and TINED", "How does Nester compare with TINED?", "How do Nester and TINED differ?",
                  "What is the difference between Nester and TINED?", "Nester vs TINED", "and how does it compare to TINED?",
                  "Differences between Nester and TINED", "Nester versus TINED: which one needs graphs?"):
        assert question_shape(asked) == "compare", asked
    for one in ("Which metrics are used to compare Langevin Predictive Coding with VAEs?",
                "What speed-up does USBS report versus the best prior scalable SDP solver?",
                "In the comparison of Gibbs sampling and Hamiltonian Monte Carlo on GLMs, why does dimensionality help?",
                "Does the paper compare its algorithms against DP-SGD fine-tuning, and how large is the gap?",
                "How does the proposed universal critic differ from the discriminators used in GANs?",
                "What is the main result in the analysis of kernels vs neural networks?",
                "In the computational complexity study of local vs. global interpretability, which class is it in?"):
        assert question_shape(one) == "single", one


def test_list_answer_cites_every_relevant_paper(assistant: Assistant):
    answer = assistant.ask("Which papers involve protein, DNA or molecule data?")
    cited = {c.paper_id for c in answer.citations}
    assert {"icml2025-44082", "icml2025-44084", "icml2025-44092"} <= cited
    assert answer.text.splitlines()[0].endswith("match:")
    assert sum(line.startswith("- ") for line in answer.text.splitlines()) == len(cited)


def test_compare_quotes_both_papers(assistant: Assistant):
    answer = assistant.ask("Compare Nester and TINED")
    assert {c.paper_id for c in answer.citations} == {"icml2025-44081", "icml2025-44094"}


def test_single_question_does_not_pad_with_another_paper(assistant: Assistant):
    answer = assistant.ask("What is Nester?")
    assert {c.paper_id for c in answer.citations} == {"icml2025-44081"}


def test_near_miss_says_so_and_lists_the_nearest(assistant: Assistant):
    answer = assistant.ask("What learning rate and optimizer were used to train Nester?")
    assert answer.near_miss and not answer.abstained
    assert "optimizer" in answer.text.lower() and "nearest paper:" in answer.text.lower()
    # the question is about Nester: the near miss quotes it alone, not unrelated "nearest" papers
    assert [c.paper_id for c in answer.citations] == ["icml2025-44081"]
    plain = assistant.ask("What results does Nester report on ManyTypes4Py?")
    assert not plain.near_miss and not plain.abstained
    # a comparison named on the way is not what is asked: still a near miss about Nester, not two papers quoted
    compared = assistant.ask("Which optimizer and learning rate were used to compare Nester with HiTyper?")
    assert compared.near_miss and [c.paper_id for c in compared.citations] == ["icml2025-44081"]


def test_a_question_naming_two_papers_quotes_both_not_a_near_miss(assistant: Assistant):
    """The second paper's words are missing from the first: its title holds them, so it joins the answer."""
    answer = assistant.ask("Dataflow-Guided Neuro-Symbolic Language Models for Type Inference and "
                           "TINED: GNNs-to-MLPs by Teacher Injection and Dirichlet Energy Distillation")
    assert not answer.near_miss and not answer.abstained
    assert {c.paper_id for c in answer.citations} == {"icml2025-44081", "icml2025-44094"}


def test_a_second_paper_named_by_title_joins_instead_of_a_near_miss():
    from assistant.evidence import Evidence
    from assistant.selection import unanswered, with_named_paper
    from assistant.types import Source
    from vectorstore.keyword import query_terms

    jet = Source(1, "a", "Jetfire: Efficient Transformer Pretraining with INT8 Data Flow",
                 "We pretrain transformers with INT8 data flow. Jetfire is efficient and accurate.")
    qa = Source(2, "b", "QA-LoRA: Quantization-Aware Low-Rank Adaptation of Large Language Models",
                "We propose quantization-aware low-rank adaptation. It fine-tunes large language models.")
    evidence = [Evidence(jet, [(0, 48, 0.9)]), Evidence(qa, [(0, 52, 0.5)])]
    def idf(q: str) -> dict[str, float]:
        return {t: 1.0 for t in query_terms(q)}

    named = "Jetfire: Efficient Transformer Pretraining with INT8 Data Flow and QA-LoRA: Quantization-Aware Low-Rank Adaptation"
    assert unanswered(named, idf(named), evidence[:1])  # the lead alone: a near miss
    joined = with_named_paper(named, idf(named), evidence[:1], evidence)
    assert [ev.source.paper_id for ev in joined] == ["a", "b"] and not unanswered(named, idf(named), joined, together=True)
    detail = "Which learning rate schedule and optimizer momentum did Jetfire pretraining use?"
    assert with_named_paper(detail, idf(detail), evidence[:1], evidence) == evidence[:1]


def test_a_value_the_abstract_never_gives_is_a_near_miss(assistant: Assistant):
    """The words naming the paper (its title's, "AminoAseed") no longer dilute the asked ones ("license", "released")."""
    for question, paper in (("Under which license is the AminoAseed protein structure tokenizer released?", "icml2025-44084"),
                            ("What tokenizer vocabulary size does SPACE use for DNA sequences?", "icml2025-44082")):
        answer = assistant.ask(question)
        assert answer.near_miss and not answer.abstained, question
        assert answer.citations[0].paper_id == paper and "nearest paper" in answer.text.lower()


def test_the_near_miss_verdict_reads_the_quotes_it_was_fitted_on_and_the_answer_quotes_what_is_asked(assistant: Assistant):
    """A near miss whose asked part looks like one of the paper's sentences ("how much were the human annotators paid":
    "the high cost of collecting human-annotated data") is judged on the quotes the rules and the probe were fitted on;
    only an answered question is requoted through its ``Focus`` (judged on the focused quotes, this one was taken)."""
    answer = assistant.ask("How much were the human annotators paid in the sparse preference learning paper?")
    assert answer.near_miss and not answer.abstained, answer.text
    answered = assistant.ask("What does the sparse preference learning paper show about the minimax optimal rate under "
                             "the sparse random utility model?")
    assert not answered.near_miss and "reduced" in answered.text, answered.text


def test_a_paraphrased_answerable_question_is_not_a_near_miss(assistant: Assistant):
    """Asking words ("kind", "authors", "observe"), one synonym ("hold") and LaTeX ("$L^2$") are not an absent attribute."""
    for question, paper in (("What kind of structure did the authors observe in the Hessian of well-trained networks?", "icml2025-44080"),
                            ("Which layers hold the reasoning ability of merged vision-language models?", "icml2025-44093"),
                            ("What rate of convergence can an L2-minimizing network reach on images with local pixel dependence?",
                             "icml2025-44079")):
        answer = assistant.ask(question)
        assert not answer.near_miss and not answer.abstained, question
        assert {c.paper_id for c in answer.citations} == {paper}


def test_a_count_the_paper_never_gives_is_a_near_miss_though_it_has_every_word(assistant: Assistant):
    """TINED's abstract speaks of GNN layers, MLPs and replicating, but never counts the layers: the question's words
    are all there, its slot (a number of "GNN layers") is not. The paper that counts its datasets answers."""
    answer = assistant.ask("How many GNN layers does the TINED student MLP replicate?")
    assert answer.near_miss and not answer.abstained
    assert "no number for “GNN layers”" in answer.text and answer.citations[0].paper_id == "icml2025-44094"
    for question, value in (("How many datasets was TINED evaluated on?", "seven datasets"),
                            ("Across how many supervised tasks does AminoAseed improve on ESM3?", "24 supervised tasks")):
        answer = assistant.ask(question)
        assert not answer.near_miss and not answer.abstained and value in answer.text, question


def test_answer_slots_are_read_from_the_question_and_filled_from_the_sentences():
    from assistant.answer_types import Slot, asked_slot, slot_filled

    assert asked_slot("What does Nester do?") is None and asked_slot("Why does merging help reasoning?") is None
    assert asked_slot("Which module handles noise suppression?") is None  # descriptive answers are not judged
    assert asked_slot("Which paper studies robot grasping with tactile sensors?") is None  # the answer is a paper
    assert asked_slot("How much does SpecDec++ accelerate inference?") == Slot("number", ())
    raters, batch = asked_slot("How many expert raters checked the votes?"), asked_slot("What batch size was used?")
    gpu, model = asked_slot("Which GPU model accelerated X?"), asked_slot("Which base language model did BAGEL use?")
    assert (raters.kind, raters.words, batch.kind, batch.words) == ("number", "expert raters", "number", "batch size")
    assert (gpu.kind, gpu.words, gpu.bare) == ("name", "GPU", False) and (model.kind, model.bare) == ("name", True)
    title = "A Method"
    assert slot_filled(raters, "How many raters?", title, "Votes agree with those of expert raters. We collect 240K votes.") is False
    assert slot_filled(raters, "How many raters?", title, "Votes agree with those of 12 expert raters.") is True
    assert slot_filled(raters, "How many raters?", title, "Agreement is high. Twelve experts rated it.") is False  # never says raters
    assert slot_filled(gpu, "Which GPU model accelerated X?", title, "X can use GPU acceleration to scale.") is False
    assert slot_filled(gpu, "Which GPU model accelerated X?", title, "X scales on one NVIDIA A100 GPU.") is True
    assert slot_filled(gpu, "Which GPU model accelerated X?", title, "X scales to thousands of nodes.") is False  # no GPU at all
    assert slot_filled(model, "Which base language model did BAGEL use?", title, "BAGEL bootstraps GPT-4 agents.") is None  # a model is named bare
    assert slot_filled(batch, "What batch size was used to train ResNet-50?", title, "We train ResNet-50 with batch size 256.") is True
    assert slot_filled(batch, "What batch size was used for 50 epochs?", title, "A batch size study over 50 epochs.") is False  # 50 is the question's
    paid = asked_slot("How much were the human annotators paid?")  # a quantity of nothing named: the quoted sentences decide
    abstract = "We study preference learning with rate Θ(d/n). Experiments on 3 datasets agree."
    assert paid.about == () and slot_filled(paid, "How much were the annotators paid?", title, abstract, [abstract.split(". ")[0]]) is False
    assert slot_filled(paid, "How much were the annotators paid?", title, abstract, [abstract.split(". ")[1]]) is None


def test_a_slot_is_found_under_the_papers_acronym_and_after_a_quantity_of():
    """Papers define an acronym once and count with it after ("We evaluated 23 LCLMs"), and "what size of language
    model" asks for a number at the model ("a 1.3B LLM"), not for the word "size"."""
    from assistant.answer_types import abbreviates, asked_slot, slot_filled

    counted = asked_slot("How many long-context language models were evaluated on the benchmark?")
    question = "How many long-context language models were evaluated on the benchmark?"
    defined = "Benchmarks for long-context language models (LCLMs) test recall. "
    assert slot_filled(counted, question, "A Benchmark", defined + "We evaluated 23 LCLMs on it at three levels.") is True
    assert slot_filled(counted, question, "A Benchmark", defined + "We evaluated LCLMs on it at three levels.") is False
    size = asked_slot("What size of language model was trained from scratch to test the traps?")
    assert (size.about, size.of.about, size.of.words) == (("size",), ("model",), "language model")
    assert slot_filled(size, "What size of language model was trained?", "Traps", "We insert traps and train a 1.3B LLM from scratch.") is True
    assert slot_filled(size, "What size of language model was trained?", "Traps", "We insert traps and train an LLM from scratch.") is False
    assert slot_filled(size, "What size of language model was trained?", "Traps", "We train an LLM of size 1.3B.") is True  # as before
    assert asked_slot("What batch size was used?").of is None  # no "of": only the quantity's own noun
    assert abbreviates("LLMs", "language models") and abbreviates("GNN", "neural network")
    assert not abbreviates("LLM", "models") and not abbreviates("Large", "language models") and not abbreviates("RL", "language models")


def test_datasets_benchmarks_and_corpora_are_named_slots_and_the_slots_own_acronym_names_nothing():
    """"Which datasets" asks for names, like "which GPU": a paper on "real-world datasets" that names none does not
    answer it, one "on the MovieLens and Amazon datasets" does, and one that never says "dataset" cannot be judged.
    "sLM" in "small language model (sLM)-based policies" is the slot's own acronym, not a model's name."""
    from assistant.answer_types import asked_slot, own_acronym, slot_filled

    question = "Which real-world event datasets were used to evaluate the estimator?"
    slot = asked_slot(question)
    assert (slot.kind, slot.about, slot.bare) == ("name", ("dataset",), True)
    assert slot_filled(slot, question, "An Estimator", "We evaluate the estimator on real-world event datasets.") is False
    assert slot_filled(slot, question, "An Estimator", "We evaluate it on the MovieLens and Amazon datasets.") is True
    assert slot_filled(slot, question, "An Estimator", "Experiments on MovieLens show gains.") is None
    for asked, about in (("On which corpus was the model pretrained?", "corpus"), ("Which benchmarks show the gains?", "benchmark")):
        assert asked_slot(asked).about == (about,)
    assert asked_slot("What perplexity does the model reach?").about == ("perplex",)
    model = asked_slot("Which small language model does the framework distil into?")
    assert model.kind == "name" and model.words == "small language model"
    acronym_only = "We distil LLM reasoning into efficient, small language model (sLM)-based policies."
    assert slot_filled(model, "Which small language model does it use?", "Distillation", acronym_only) is False
    assert slot_filled(model, "Which small language model does it use?", "Distillation",
                       "We distil LLM reasoning into a small language model, Phi-2, as the policy.") is True
    assert own_acronym("sLM)-based", "small language model") and own_acronym("LLMs", "small language model")
    assert not own_acronym("LLaMA", "large language model") and not own_acronym("GPT-4", "language model")
    # a measure is not a name ("a 7B model", "3D scenes"); modifiers joined by "and" stay in the slot's phrase
    llm = asked_slot("Which large language model lays out the 3D scene?")
    assert slot_filled(llm, "Which large language model lays out the scene?", "Scenes", "A 7B large language model lays out 3D scenes.") is False
    assert slot_filled(llm, "Which large language model lays out the scene?", "Scenes", "Llama-2, a large language model, lays out scenes.") is True
    assert asked_slot("On which regression and classification datasets was it run?").words == "regression classification datasets"
    assert asked_slot("Which vision encoders does the model keep?").about == ("encod",)
    # "hardware" alone may be named without the word ("on a Jetson Orin Nano"); "robot hand hardware" names the hand
    assert asked_slot("Which hardware does the drone use?").bare and not asked_slot("Which robot hand hardware was used?").bare


def test_a_name_slot_is_not_filled_by_a_link_a_term_written_out_or_a_word_that_only_shares_its_stem():
    """Near misses that looked answered (benchmarks/HISTORY.md, session 42): "Large Language Models (LLMs)" writes out
    a term, not a model's name; a link is no name; "simulation" and "optimal" share Porter's stem with "simulator" and
    "optimizer" without being one. A name next to the noun itself still fills the slot."""
    from assistant.answer_types import asked_slot, slot_filled

    llm = "Which large language model generates the tasks?"
    spelled = "Large Language Models (LLMs) generate the tasks for our agents."
    assert slot_filled(asked_slot(llm), llm, "Tasks", spelled) is False
    assert slot_filled(asked_slot(llm), llm, "Tasks", "Large Language Models (LLMs) such as Llama-3 generate the tasks.") is True
    clip = "Which pretrained models does it distil?"
    assert slot_filled(asked_slot(clip), clip, "Distillation",
                       "Pre-trained models such as Contrastive Language-Image Pre-Training (CLIP) are costly.") is True  # CLIP names one
    gala = "Which large language model does GALA3D prompt for the layout?"
    linked = "An LLM proposes a coarse layout. Code and models will be available at gala3d.github.io."
    assert slot_filled(asked_slot(gala), gala, "GALA3D", linked) is False
    simulator = "Which physics simulator was used in the loop?"
    simulation = "Methods employing differentiable simulation, such as FO-MBRL, reduce variance."
    assert slot_filled(asked_slot(simulator), simulator, "Horizons", simulation) is None  # no simulator written: cannot tell
    assert slot_filled(asked_slot(simulator), simulator, "Horizons", "Policies train in the MuJoCo simulator.") is True
    optimizer = "Which optimizer is used to train the networks?"
    optimal = "We prove that SGD-like updates reach the optimal rate, unlike the Bayes optimal algorithm."
    assert slot_filled(asked_slot(optimizer), optimizer, "Rates", optimal) is None
    assert slot_filled(asked_slot(optimizer), optimizer, "Rates", "Optimizers such as AdaGrad fail here.") is True


def test_the_sentence_that_gives_the_asked_value_is_quoted_though_others_match_the_question_better():
    """A value question mostly describes its paper; the sentence that gives the value replaces the lead's third best
    sentence (``selection._keep_lead``), and a question without such a slot keeps the best three."""
    from assistant.evidence import Evidence
    from assistant.selection import select
    from assistant.types import Source

    sentences = ["Agents act by writing JSON or text actions in a fixed format.",
                 "We propose executable code actions for agents instead of JSON actions.",
                 "Code actions can be revised upon new observations in multi-turn interactions.",
                 "Our analysis of 17 LLMs shows that code actions reach higher success rates.",
                 "We release an open agent fine-tuned on the collected interactions."]
    abstract = " ".join(sentences)
    spans, start = [], 0
    for sentence in sentences:
        start = abstract.index(sentence, start)
        spans.append((start, start + len(sentence)))
    scores = [0.9, 0.8, 0.7, 0.4, 0.3]  # the describing sentences rank first, as the question's words make them
    ranked = [(a, b, score) for (a, b), score in zip(spans, scores)]
    source = Source(1, "p1", "Executable Code Actions for Agents", abstract, "", [], "")

    def quoted(question: str) -> list[str]:
        lead = select(question, [Evidence(source, ranked)], "single")[0]
        return [abstract[a:b] for a, b, _ in lead.sentences]

    asked = quoted("How many LLMs were evaluated when comparing code actions against JSON actions for agents?")
    assert sentences[3] in asked and sentences[0] in asked and sentences[1] in asked and len(asked) == 3
    assert quoted("Why do code actions help agents compared with JSON actions?") == sentences[:3]
    # "which / what X" with no typed slot: the best sentence naming X ("open agent") replaces the third
    named = quoted("Which open agent is released with the code actions that replace JSON actions?")
    assert sentences[4] in named and sentences[2] not in named and len(named) == 3
    assert quoted("Which format do agents act in besides code actions?") == sentences[:3]  # the best already names it
    assert quoted("What is the benefit of code actions over JSON actions?") == sentences[:3]  # not a value question


def test_value_questions_and_written_out_acronyms():
    from assistant.selection import _spelled_out, asks_value

    assert asks_value("Under which license is it released?") and asks_value("How many GPUs did TINED use?")
    assert asks_value("What batch size was used?")
    assert not asks_value("Why does the position paper recommend layerwise linear models?")
    assert not asks_value("What is Nester?") and not asks_value("How does FedICU prevent catastrophic forgetting?")
    assert _spelled_out("RL", "multiagent reinforcement learning in network MDPs")
    assert not _spelled_out("RL", "multiagent control in network MDPs") and not _spelled_out("Nester", "Nester infers types")


def _idf(question: str) -> dict[str, float]:
    from vectorstore.keyword import query_terms

    return {t: 1.0 for t in query_terms(question)}


def _lead_other_twin(lead: tuple[str, str, tuple[int, int]], other: tuple[str, str, tuple[int, int]],
                     twin: tuple[str, str]) -> tuple[list[Any], Any]:
    """Evidence for the second-paper rules: [lead, an about-as-close other paper], and a twin covering the question."""
    from assistant.evidence import Evidence
    from assistant.types import Source

    close = [Evidence(Source(1, "a", lead[0], lead[1]), [(*lead[2], 0.50)]), Evidence(Source(2, "b", other[0], other[1]), [(*other[2], 0.48)])]
    return close, Evidence(Source(3, "c", twin[0], twin[1]), [(0, len(twin[1]), 0.48)])


def test_a_second_paper_joins_a_single_answer_only_if_it_covers_the_question_as_well_as_the_lead():
    """"Which leading model does AminoAseed compare against?": another paper's sentence as close in embedding
    similarity does not join when it never mentions AminoAseed; one that covers as much of the question does."""
    from assistant.evidence import Evidence
    from assistant.selection import select, with_named_paper

    close, twin = _lead_other_twin(
        ("Protein Structure Tokenization: Benchmarking and New Recipe",
         "We develop AminoAseed. Compared to the leading model ESM3, AminoAseed improves by 6.31%.", (26, 91)),
        ("Causality Based Front-door Defense Against Backdoor Attack on Language Models",
         "We defend language models against backdoor attacks with a leading causal model.", (0, 79)),
        ("AminoAseed Revisited", "We compare AminoAseed against the leading model ESM3 again."))
    question = "Which leading model does AminoAseed compare against?"
    assert [ev.source.paper_id for ev in select(question, close, "single", _idf(question))] == ["a"]
    unnamed = "Which leading model does the protein structure tokenizer compare against?"  # no name: coverage decides
    assert [ev.source.paper_id for ev in select(unnamed, close, "single")] == ["a", "b"]  # similarity alone lets it in
    assert [ev.source.paper_id for ev in select(unnamed, close, "single", _idf(unnamed))] == ["a"]
    assert [ev.source.paper_id for ev in select(question, [close[0], twin], "single", _idf(question))] == ["a", "c"]
    assert with_named_paper(question, _idf(question), close[:1], close) == close[:1]  # nor by "against" in its title


def test_a_second_paper_must_have_the_names_the_question_writes_as_one_word():
    """"the 1-identification problem": the term weights keep only "identification", which a best-arm identification
    paper covers as well as the lead; the name as written is the lead's alone, so that paper does not join."""
    from assistant.evidence import Evidence
    from assistant.selection import select
    from assistant.types import Source

    close, twin = _lead_other_twin(
        ("Sample Complexity of 1-Identification",
         "We study the 1-identification problem. The goal is to find an arm above a threshold.", (40, 86)),
        ("Best Arm Identification with Fixed Confidence", "Our goal in this identification problem is the Pareto front.", (0, 52)),
        ("1-Identification Revisited", "The goal of the 1-identification problem is an arm above a threshold."))
    question = "What is the goal of the 1-identification problem?"
    assert [ev.source.paper_id for ev in select(question, close, "single", _idf(question))] == ["a"]
    assert [ev.source.paper_id for ev in select(question, [close[0], twin], "single", _idf(question))] == ["a", "c"]
    both = "What is the goal of the 1-identification problem and of LoRA-Bandit identification?"  # names the other too
    pareto = Evidence(Source(2, "b", "Best Arm Identification", "Our goal is LoRA-Bandit, an identification problem."), [(0, 60, 0.49)])
    assert [ev.source.paper_id for ev in select(both, [close[0], pareto], "single", _idf(both))] == ["a", "b"]
    plain = "What is the goal of the identification problem?"  # no name written: equal coverage joins, as before
    assert [ev.source.paper_id for ev in select(plain, close, "single", _idf(plain))] == ["a", "b"]


def test_a_question_naming_two_papers_by_their_titles_gets_both():
    """"<title A> and <title B>": B joins though it covers less of the question's weight than A (its title is shorter)."""
    from assistant.evidence import Evidence
    from assistant.selection import select
    from assistant.types import Source

    lora = Source(1, "a", "LoRA+: Efficient Low Rank Adaptation of Large Models",
                  "LoRA+ sets different learning rates for the adapter matrices of large models, improving low rank adaptation.")
    irqlora = Source(2, "b", "Accurate LoRA-Finetuning Quantization of LLMs",
                     "IR-QLoRA quantizes LLMs accurately with information retention.")
    flows = Source(3, "c", "Efficient Flows", "Normalizing flows that are efficient for large models.")
    question = "LoRA+: Efficient Low Rank Adaptation of Large Models and Accurate LoRA-Finetuning Quantization of LLMs"
    evidence = [Evidence(lora, [(0, 60, 0.6)]), Evidence(flows, [(0, 40, 0.59)]), Evidence(irqlora, [(0, 40, 0.3)])]
    assert [ev.source.paper_id for ev in select(question, evidence, "single", _idf(question))] == ["a", "b"]
    one = "What does LoRA+: Efficient Low Rank Adaptation of Large Models change?"  # names one paper: the lead alone
    assert [ev.source.paper_id for ev in select(one, evidence, "single", _idf(one))] == ["a"]


def test_a_paper_named_by_title_joins_only_if_the_question_names_it_and_the_lead_would_not_answer():
    """A title holding one stray question word ("against") or the asked detail ("e-commerce") brings nothing in;
    of two titles holding missing words, the one the question names ("the SPACE DNA foundation model") joins."""
    from assistant.evidence import Evidence
    from assistant.selection import with_named_paper
    from assistant.types import Source

    superbpe = Source(1, "a", "SuperBPE: Space Travel for Language Models",
                      "SuperBPE tokenizers learn superword tokens. Fixing the vocabulary size to 200k, it encodes text with fewer tokens.")
    caduceus = Source(2, "b", "Caduceus: Bi-Directional Equivariant Long-Range DNA Sequence Modeling",
                      "We model long DNA sequences with bi-directional equivariant layers.")
    space = Source(3, "c", "SPACE: Your Genomic Profile Predictor is a Powerful DNA Foundation Model",
                   "SPACE predicts genomic profiles and learns DNA representations with a mixture of experts.")
    evidence = [Evidence(s, [(0, 40, 0.5)]) for s in (superbpe, caduceus, space)]
    question = "What tokenizer vocabulary size does the SPACE DNA foundation model use?"
    joined = with_named_paper(question, _idf(question), evidence[:1], evidence)
    assert [ev.source.paper_id for ev in joined] == ["a", "c"]

    shop = Source(4, "d", "Online Assortment and Price Optimization Under Contextual Choice Models",
                  "A seller offers assortments and prices to users with contextual preferences, with regret bounds.")
    ecommerce = Source(5, "e", "eCeLLM: Generalizing Large Language Models for E-commerce from Large-scale, High-quality Instruction Data",
                       "We instruction-tune language models for e-commerce tasks on a real e-commerce dataset.")
    evidence = [Evidence(shop, [(0, 40, 0.5)]), Evidence(ecommerce, [(0, 40, 0.45)])]
    question = "Which real e-commerce dataset was used to evaluate online assortment and price optimization under contextual choice models?"
    idf = {**_idf(question), "commerc": 9.0}  # rare in the corpus: most of what the lead never mentions, and eCeLLM's title holds it
    assert with_named_paper(question, idf, evidence[:1], evidence) == evidence[:1]  # but the question does not name eCeLLM


def test_a_question_writing_a_formula_as_the_abstract_shows_it_is_not_a_near_miss():
    """"ℓ_p" in the question and "$\\ell_p$" (shown as "ℓ_p") in the paper are the same term (held-out grounding set 2)."""
    from assistant.evidence import Evidence
    from assistant.selection import unanswered
    from assistant.types import Source
    from vectorstore.keyword import query_terms

    paper = Source(1, "c", "Coresets for Multiple ℓ_p Regression",
                   "We construct coresets for multiple ℓ_p regression of size independent of the number of responses.")
    evidence = [Evidence(paper, [(0, 98, 0.9)])]
    question = "Are the coresets for multiple ℓ_p regression independent of the number of responses?"
    idf = {t: 6.0 if "ℓ" in t else 1.0 for t in query_terms(question)}  # the rare term weighs most, as in a real store
    assert not unanswered(question, idf, evidence)
    elsewhere = Source(1, "d", "Coresets for least squares", "We construct coresets for least squares regression.")
    assert "ℓ_p" in unanswered(question, idf, [Evidence(elsewhere, [(0, 52, 0.9)])])


def test_an_answer_orders_a_papers_sentences_by_the_words_its_title_does_not_hold():
    """The question's words that the title holds say which paper is meant; the sentence that answers has the others
    (``evidence._answer_order``). Ordered by cross-paper relevance, the sentence repeating the title comes first."""
    import numpy as np

    from assistant.evidence import rank_sentences

    title = "Model Merging for Vision-Language Reasoning"
    sentences = ["We study model merging for vision-language reasoning.", "Reasoning is located in the late layers."]
    starts = [0, len(sentences[0]) + 1]
    rows = [(s, {"start": a, "end": a + len(s)}, np.ones(2, dtype=np.float32) / np.sqrt(2)) for s, a in zip(sentences, starts)]
    question = np.ones(2, dtype=np.float32) / np.sqrt(2)
    idf = {"merg": 3.0, "vision": 3.0, "reason": 2.0, "locat": 3.5}
    by_relevance = rank_sentences(question, idf, rows)
    by_answer = rank_sentences(question, idf, rows, title=title)
    assert [a for a, _, _ in by_relevance] == [starts[0], starts[1]]
    assert [a for a, _, _ in by_answer] == [starts[1], starts[0]]
    assert sorted(by_answer) == sorted(by_relevance)  # each sentence keeps its cross-paper score


def test_an_abstracts_opening_sentence_yields_to_a_later_one_that_answers_as_well():
    """The first sentence sets out the problem; of two sentences that answer alike, the later one is quoted first
    (``evidence.OPENING_PENALTY``)."""
    import numpy as np

    from assistant.evidence import rank_sentences

    sentences = ["Reasoning in merged models is poorly understood.", "Reasoning sits in the middle-to-late layers."]
    starts = [0, len(sentences[0]) + 1]
    rows = [(s, {"start": a, "end": a + len(s)}, np.ones(2, dtype=np.float32) / np.sqrt(2)) for s, a in zip(sentences, starts)]
    question = np.ones(2, dtype=np.float32) / np.sqrt(2)
    idf = {"reason": 2.0, "where": 1.0}
    by_answer = rank_sentences(question, idf, rows, title="Bring Reason to Vision")
    assert [a for a, _, _ in by_answer] == [starts[1], starts[0]]
    by_answer = rank_sentences(question, idf, rows[::-1], title="Bring Reason to Vision")
    assert [a for a, _, _ in by_answer] == [starts[1], starts[0]]


@pytest.fixture(scope="module")
def heldout_papers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Assistant:
    """Three papers of ``benchmarks/data/near_miss_heldout*`` whose answering sentence the cross-paper order ranked fourth."""
    import json

    from conftest import make_settings

    wanted = {"icml2024-poster-35625", "icml2024-poster-35204", "aistats2025-KskYMxXVKX"}
    lines = [line for name in ("icml2024_abstracts", "ml2025_conferences")
             for line in (shared / "data" / name / "papers.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip() and json.loads(line)["id"] in wanted]
    folder = tmp_path_factory.mktemp("answer-order")
    path = folder / "papers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = make_settings("embedded", folder, request, "order")
    assert ingest([path], settings, progress=False).added == 3
    return Assistant(settings, engine="extractive", auto_ingest=False)


@pytest.mark.parametrize("question, expected", [
    ("Which scoring rule is singled out as well suited for comparing probabilistic top list predictions with "
     "single-class predictions?", "Brier score"),
    ("What type of manifolds are assumed in the accelerated methods for Riemannian min-max optimization with bounded "
     "geometric penalties?", "Hadamard"),
    ("What optimization algorithm is proposed to solve the autonomous sparse mean-CVaR portfolio model?",
     "proximal alternating linearized minimization"),
])
def test_the_sentence_that_answers_reaches_the_answer_though_others_repeat_the_title(heldout_papers: Assistant, question: str,
                                                                                       expected: str):
    """Real store and embedding model: the answer quotes the sentence with the asked words, not the ones restating the
    title (the order before, cross-paper relevance, ranked it fourth: ``python -m benchmarks.sentences``)."""
    answer = heldout_papers.ask(question)
    assert not answer.abstained and not answer.near_miss, answer.text
    assert expected in answer.text, answer.text


def test_a_question_is_split_into_what_it_asks_and_the_clause_that_names_its_paper():
    """``evidence.asked_part``: an opening "In the work that …," or a closing "in the method that …" / ", according to
    the … study" names the paper; the rest is asked. A question with no such clause has no focus."""
    from assistant.evidence import asked_part

    assert asked_part("In the work that generates tasks with LLMs, which LLM was used?") == (
        "which LLM was used?", "In the work that generates tasks with LLMs,")
    assert asked_part("Which estimator is combined with UCB in the data-driven bandit algorithm that needs no moments?") == (
        "Which estimator is combined with UCB", "in the data-driven bandit algorithm that needs no moments?")
    assert asked_part("Do LLMs help Bayesian optimization, according to the sober-look study?")[0] == "Do LLMs help Bayesian optimization"
    for question in ("What is Nester?", "Why does the position paper recommend layerwise linear models?",
                     "What rate of convergence can an L2-minimizing network reach on images with local pixel dependence?"):
        assert asked_part(question) is None


def test_with_a_focus_the_answer_order_reads_what_is_asked_not_the_clause_that_names_the_paper():
    """A sentence repeating the identifying clause's words loses to the one with the asked words: those words count
    ``IDENTIFYING_WEIGHT`` and the cosine is the asked part's (``evidence.Focus``)."""
    import numpy as np

    from assistant.evidence import Focus, rank_sentences

    sentences = ["We propose a data-driven bandit algorithm needing no moment information.",
                 "It combines UCB with a resampled median-of-means estimator."]
    starts = [0, len(sentences[0]) + 1]
    rows = [(s, {"start": a, "end": a + len(s)}, v) for s, a, v in zip(sentences, starts, np.eye(2, dtype=np.float32))]
    question = np.array([0.8, 0.6], dtype=np.float32)  # the whole question reads like the first sentence
    idf = {"data": 2.0, "driven": 2.0, "moment": 3.0, "inform": 1.0, "estim": 2.0, "ucb": 1.0}
    title = "Upper Confidence Bounds for Heavy Tails"
    assert [a for a, _, _ in rank_sentences(question, idf, rows, title=title)] == [starts[0], starts[1]]
    focus = Focus(np.array([0.0, 1.0], dtype=np.float32), frozenset({"data", "driven", "moment", "inform"}), frozenset())
    by_focus = rank_sentences(question, idf, rows, title=title, focus=focus)
    assert [a for a, _, _ in by_focus] == [starts[1], starts[0]]
    assert sorted(by_focus) == sorted(rank_sentences(question, idf, rows))  # each sentence keeps its cross-paper score


def test_a_name_that_recurs_in_the_papers_sentences_names_the_paper_and_the_answer_has_the_other_words():
    """"Does the analysis of ASY-DAGP rely on Lyapunov functions?": ASY-DAGP is the paper's own name (two of its
    sentences have it), so it counts ``IDENTIFYING_WEIGHT`` like a clause that only identifies the paper; a name the
    paper writes once (a dataset it reports on) is asked about and counts in full."""
    import numpy as np

    from assistant.evidence import focus_of, rank_sentences

    sentences = ["We propose ASY-DAGP, a decentralized algorithm.", "ASY-DAGP is robust to message failure.",
                 "The analysis of ASY-DAGP gives a sublinear rate.", "It does not require Lyapunov functions."]
    starts = [sum(len(s) + 1 for s in sentences[:i]) for i in range(len(sentences))]
    rows = [(s, {"start": a, "end": a + len(s)}, np.ones(2, dtype=np.float32) / np.sqrt(2)) for s, a in zip(sentences, starts)]
    question = np.ones(2, dtype=np.float32) / np.sqrt(2)
    asked = "Does the analysis of ASY-DAGP rely on Lyapunov functions?"
    focus = focus_of(asked, lambda texts: np.ones((len(texts), 2), dtype=np.float32))
    assert focus.vector is None and {"asi", "dagp"} <= focus.names
    idf = {"analysi": 1.0, "asi": 3.0, "dagp": 3.0, "lyapunov": 3.0, "function": 1.0}
    title = "Asynchronous Decentralized Optimization"
    assert rank_sentences(question, idf, rows, title=title)[0][0] == starts[2]
    assert rank_sentences(question, idf, rows, title=title, focus=focus)[0][0] == starts[3]
    once = [rows[0], rows[3]]  # a name in one sentence only is what is asked about: it keeps its weight
    assert focus.weight("dagp", [{"asi", "dagp"}, {"lyapunov"}]) == 1.0
    assert rank_sentences(question, idf, once, title=title, focus=focus)[0][0] == starts[0]


@pytest.fixture(scope="module")
def described_papers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Assistant:
    """Papers of the seen near-miss sets whose answering sentence lost to the ones matching the question's identifying
    clause before ``evidence.Focus``, among 200 other 2025 papers (so that term weights are a real corpus's)."""
    import json

    from conftest import make_settings

    wanted = {"aistats2025-8e9XlbzHbx", "aistats2025-mkkFubLdNW", "pmlr-v286-kong25c", "corl2025-rbMoMEK4m2"}
    lines = [line for line in (shared / "data" / "ml2025_conferences" / "papers.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    chosen = [line for line in lines if json.loads(line)["id"] in wanted] + [line for line in lines[:200]
                                                                             if json.loads(line)["id"] not in wanted]
    folder = tmp_path_factory.mktemp("answer-focus")
    path = folder / "papers.jsonl"
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    settings = make_settings("embedded", folder, request, "focus")
    assert ingest([path], settings, progress=False).added == len(chosen)
    return Assistant(settings, engine="extractive", auto_ingest=False)


@pytest.mark.parametrize("question, expected", [
    ("Which estimation method is combined with UCB in the distribution-free, data-driven bandit algorithm for symmetric "
     "heavy-tailed rewards that needs no moment information?", "resampled median-of-means"),
    ("In the causal framework for evaluating ML systems that defer predictions to human experts, which technique is used "
     "to estimate a local causal effect when only human predictions are available for the deferred instances?",
     "regression discontinuity design"),
    ("In the work using a conditional diffusion model of poacher behavior inside game-theoretic patrol optimization, how "
     "is accurate sampling from an unnormalized distribution to estimate utilities achieved?", "twisted Sequential Monte Carlo"),
    ("In the work on learning models that imitate a time-optimal quadrotor trajectory planner, how is the robustness of "
     "the learned models enhanced?", "random perturbations to the input paths"),
])
def test_the_answer_quotes_what_is_asked_not_the_sentences_that_match_the_papers_description(
        described_papers: Assistant, question: str, expected: str):
    """Real store and embedding model: the question describes its paper at length, and the answer still quotes the
    sentence that answers (each answer quoted only the described sentences before ``evidence.Focus``)."""
    answer = described_papers.ask(question)
    assert not answer.abstained, answer.text
    assert expected in answer.text, answer.text


def test_a_word_the_paper_says_in_other_words_is_not_missing():
    """With the packaged embedding model, a question's word that the abstract says in other words ("several":
    "many", "harder": "difficult") does not make the question a near miss; a detail the abstract lacks still does."""
    from assistant.evidence import Evidence
    from assistant.selection import Paraphrases, unanswered
    from assistant.types import Source
    from vectorstore.embeddings import Embedder
    from vectorstore.settings import Settings

    abstract = ("When many experimenters compete for the same participants, treatment effects become difficult to "
                "estimate. We propose an estimator that corrects for the competition.")
    lead = Evidence(Source(1, "a", "Competing Experimenters", abstract), [(0, abstract.index(" We") , 0.9)])
    embed = Embedder(Settings().embedding_model).encode
    paraphrases = Paraphrases(embed)
    question = "Why does competition between several experimenters make treatment effects harder to estimate?"
    # as in a real store, abstracts rarely write "several" and "harder": they weigh more than "effects"
    idf = {t: 4.0 if t in ("sever", "harder") else 1.0 for t in _idf(question)}
    assert unanswered(question, idf, [lead])  # word for word, "several" and "harder" are missing
    assert not unanswered(question, idf, [lead], paraphrases=paraphrases)
    detail = "Under which software license is the treatment effect estimator released?"
    assert unanswered(detail, _idf(detail), [lead], paraphrases=paraphrases)
    # a word's vector is its own, not its batch's (int8 vectors depend on the batch): verdicts do not depend on history
    fresh = Paraphrases(embed)
    fresh.said(["several", "a much longer phrase about estimating treatment effects"], abstract)
    assert (fresh._of(["several"])[0] == embed(["several"])[0]).all()
