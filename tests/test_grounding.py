"""Citation checking with adversarial model output (fast unit tests, no model, no store)."""

from __future__ import annotations

import pytest

from assistant.grounding import verify
from assistant.types import Source

NESTER = ("We present Nester, the first neuro-symbolic approach for type inference. "
          "Evaluated on ManyTypes4Py, Nester achieves 70.7% Top-1 Exact Match. It runs locally.")
TINED = "We distill GNNs into MLPs. Dirichlet energy distillation preserves the smoothing effects of GNN layers."
BANDIT = "We study the 1-identification problem for multi-armed bandits with a known threshold."
SOURCES = [Source(1, "p-nester", "Nester", NESTER), Source(2, "p-tined", "TINED", TINED), Source(3, "p-bandit", "SEE", BANDIT)]


def test_valid_markers_get_verbatim_quotes():
    text, cites, _ = verify("Nester reaches 70.7% Top-1 Exact Match on ManyTypes4Py [1].", SOURCES)
    assert text == "Nester reaches 70.7% Top-1 Exact Match on ManyTypes4Py [1]."
    assert [c.paper_id for c in cites] == ["p-nester"]
    assert cites[0].quote == "Evaluated on ManyTypes4Py, Nester achieves 70.7% Top-1 Exact Match."
    assert NESTER[cites[0].start : cites[0].end] == cites[0].quote


def test_invented_marker_is_removed():
    text, cites, _ = verify("Nester does type inference [7].", SOURCES)
    assert "[7]" not in text and cites == []


def test_out_of_range_with_three_sources_and_renumbering():
    text, cites, _ = verify("Dirichlet energy preserves smoothing [2][7]. Nester does type inference [1].", SOURCES)
    assert text == "Dirichlet energy preserves smoothing [1]. Nester does type inference [2]."
    assert [(c.number, c.paper_id) for c in cites] == [(1, "p-tined"), (2, "p-nester")]


def test_unsupported_citation_is_dropped():
    # paper 3 (bandits) says nothing about Dirichlet energy
    text, cites, _ = verify("Dirichlet energy preserves the smoothing effects [3].", SOURCES)
    assert "[" not in text and cites == []


def test_quote_not_in_abstract_is_rejected():
    text, cites, _ = verify('The paper states "Nester solves quantum gravity in constant time" [1].', SOURCES)
    assert cites == [] and "[1]" not in text


def test_real_quote_is_accepted():
    text, cites, _ = verify('It says "Nester achieves 70.7% Top-1 Exact Match" on ManyTypes4Py [1].', SOURCES)
    assert [c.paper_id for c in cites] == ["p-nester"]


def test_grouped_markers_and_marker_after_period():
    text, cites, _ = verify("GNN distillation and type inference are both studied. [1, 2]", SOURCES)
    assert {c.paper_id for c in cites} == {"p-nester", "p-tined"}
    assert "[1][2]" in text


def test_no_markers_means_no_citations():
    text, cites, _ = verify("Nobody knows.", SOURCES)
    assert text == "Nobody knows." and cites == []


def test_bare_marker_claims_nothing():
    text, cites, _ = verify("[1]", SOURCES)
    assert cites == [] and text == ""


def test_claim_naming_another_paper_loses_its_marker():
    # seen with the 0.5B model: a follow-up about Nester answered with the Hessian paper's sentence
    text = "Nester reports that GNN layers keep their smoothing effects [2]."
    cleaned, citations, _ = verify(text, SOURCES)
    assert citations == [] and "[" not in cleaned


def test_naming_a_paper_that_the_claim_also_cites_is_fine():
    text = "Nester reaches 70.7% Top-1 Exact Match [1], while TINED preserves the smoothing effects of GNN layers [2]."
    _, citations, _ = verify(text, SOURCES)
    assert [c.paper_id for c in citations] == ["p-nester", "p-tined"]


def test_a_name_the_cited_abstract_also_uses_is_fine():
    other = Source(4, "p-typegen", "TypeGen", "TypeGen generates types. It is compared with Nester on ManyTypes4Py.")
    _, citations, _ = verify("TypeGen is compared with Nester on ManyTypes4Py [4].", [*SOURCES, other])
    assert [c.paper_id for c in citations] == ["p-typegen"]


def test_names_are_names_not_capitalized_words():
    from assistant.claims import analyse

    names = analyse("Evaluated on ManyTypes4Py, Nester beats GPT-4 and Llama-2-7B.").names
    assert {"manytypes4py", "nester", "gpt-4", "llama-2-7b"} <= names
    assert "evaluated" not in names  # capitalized only at a sentence start


def test_unmarked_claim_restating_another_paper_is_caught():
    # the model named paper 1 but copied paper 2's sentence, with no marker at all
    text = "Nester shows that Dirichlet energy distillation preserves the smoothing effects of GNN layers."
    cleaned, citations, _ = verify(text, SOURCES, attribute=0.6)
    assert citations == [], "the verifier must not attribute a mixed-up claim to paper 2"
    fine = "Dirichlet energy distillation preserves the smoothing effects of GNN layers."
    assert [c.paper_id for c in verify(fine, SOURCES, attribute=0.6)[1]] == ["p-tined"]
    _, _, removed = verify(text, SOURCES, attribute=0.6, strict=True)
    assert [r.reason for r in removed] == ["no citation ('nester' is not in the abstract)"]


# ---------------------------------------------------------------- claim by claim (issue 11)

HITYPER = ("Evaluated on the ManyTypes4Py dataset, Nester outperforms HiTyper by 18.3% on Top-1 Exact Match. "
           "Unlike prior work, Nester does not require retraining for new type systems. "
           "We train two large language models (LLMs) of different sizes.")
TYPED = [Source(1, "p-nester", "Nester", HITYPER), Source(2, "p-tined", "TINED", TINED)]


def _kept(claim: str, sources: list[Source] = TYPED, paper: str = "p-nester") -> bool:
    text, citations, _ = verify(claim, sources)
    return any(c.paper_id == paper for c in citations)


def _reason(claim: str, sources: list[Source] = TYPED) -> str:
    return " ".join(r.reason for r in verify(claim, sources)[2])


def test_a_changed_number_loses_its_marker():
    assert _kept("Nester outperforms HiTyper by 18.3% on ManyTypes4Py [1].")
    assert not _kept("Nester outperforms HiTyper by 28.3% on ManyTypes4Py [1].")
    assert "number not in the abstract" in _reason("Nester outperforms HiTyper by 28.3% on ManyTypes4Py [1].")


def test_numbers_are_compared_as_values():
    latex = [Source(1, "p", "Nester", r"Nester reaches 70.7\% Top-1 Exact Match and trains two models.")]
    assert _kept("Nester reaches 70.7% Top-1 Exact Match [1].", latex, "p")
    assert _kept("Nester trains 2 models [1].", latex, "p")
    assert not _kept("Nester trains three models [1].", latex, "p")


def test_a_level_is_not_a_difference():
    """A number the claim gives as a difference must be a difference in the abstract too (a 0.5B model wrote the first)."""
    sentence = [Source(1, "p", "Nester", "Nester achieves 70.7% Top-1 Exact Match, which is 18.3% and 3.6% higher than HiTyper and TypeGen.")]
    assert not _kept("Nester's Top-1 exact match is 70.7% higher than HiTyper's [1].", sentence, "p")
    assert _kept("Nester's Top-1 exact match is 18.3% higher than HiTyper's [1].", sentence, "p")
    assert _kept("Nester reaches 70.7% Top-1 Exact Match [1].", sentence, "p")


def test_a_reversed_finding_loses_its_marker():
    assert _kept("Nester needs no retraining for new type systems [1].")
    assert not _kept("Nester requires retraining for new type systems [1].")
    assert not _kept("Nester underperforms HiTyper by 18.3% on ManyTypes4Py [1].")
    assert "direction" in _reason("Nester underperforms HiTyper by 18.3% on ManyTypes4Py [1].")


def test_a_word_of_a_negated_clause_does_not_make_a_claim_negate_it():
    """The main clause restated in other words keeps its marker; restating the negated part loses it."""
    lms = [Source(1, "p-nester", "Nester", "Language Models (LMs) are used for type inference. We present Nester, the first "
                  "neuro-symbolic approach that enhances LMs for type inference without increasing model size.")]
    assert _kept("Nester is a neuro-symbolic approach that enhances language models for type inference [1].", lms)
    assert not _kept("Nester enhances LMs for type inference by increasing model size [1].", lms)


def test_an_invented_detail_loses_its_marker():
    assert not _kept("Nester outperforms HiTyper by 18.3% on ImageNet [1].")
    assert not _kept("Nester outperforms GPT-4 on ManyTypes4Py [1].")
    assert "not in the abstract" in _reason("Nester outperforms HiTyper by 18.3% on ImageNet [1].")


def test_a_repeat_citation_is_checked_like_the_first():
    text, citations, removed = verify(
        "Nester outperforms HiTyper by 18.3% on ManyTypes4Py [1]. Nester also runs on GPUs with quantum annealing [1].", TYPED)
    assert [c.paper_id for c in citations] == ["p-nester"]
    assert text.count("[1]") == 1 and len(removed) == 1 and removed[0].marker == 1


def test_a_claim_from_another_paper_loses_its_marker():
    assert not _kept("Dirichlet energy distillation preserves the smoothing effects of GNN layers [1].")
    assert _kept("Dirichlet energy distillation preserves the smoothing effects of GNN layers [2].", paper="p-tined")


def test_paraphrases_survive():
    assert _kept("On ManyTypes4Py, Nester beats HiTyper by 18.3% in Top-1 Exact Match [1].")
    assert _kept("The authors train two LLMs of different sizes [1].")
    assert _kept("Nester doesn't need to be retrained for new type systems [1].")


def test_strict_mode_removes_claims_left_without_a_verified_marker():
    text, citations, removed = verify(
        "Nester outperforms HiTyper by 18.3% [1]. It beats HiTyper by 40% [1]. Nester was written in Rust by Google.",
        TYPED, strict=True)
    assert "40%" not in text and "Rust" not in text and "18.3%" in text
    assert {r.reason.split(" (")[0] for r in removed} == {"number not in the abstract", "no citation"}


# ------------------------------------------- held-out grounding set 1 (session 13): one case per kind of miss

BOUNDS = ("We study private learning with user-level privacy. "
          "We prove a tighter upper bound than the one proved by Ghazi et al. (2023). "
          "Larger values of the parameter $\\rho$ correspond to a greater degree of nonconvexity. "
          "For smooth objectives our algorithm converges at rate $\\mathcal{O}(d)$. "
          "The loss of multi-epoch SGD with heavy-ball momentum becomes unbounded on some convex function. "
          "The intervention is free of any model-dependent hyperparameters.")
VISION = ("Monocular depth estimation (MDE) and optical flow estimation (OFE) are pixel-wise regression tasks. "
          "We propose PatchBox, a square-based patch attack with score-based gradient estimation. "
          "PatchBox is evaluated on MDE and OFE tasks with 7 models. "
          "It improves the error of SGD when training ResNet-18 on ImageNet. "
          "Using PatchBox has two steps. "
          "The approach has benefits: 1) it is simple 2) it is fast 3) it is cheap. "
          "Compression is at least 100x better across federated tasks. "
          "The dataset offers whole-hand tactile perception for robotic hands. "
          "We explore how vision models solve graph problems with a trainable decoder and an analysis of formulations. "
          "Our derivations lead to closed-form adjustments, but it is not possible to close the gap with only "
          "closed-form adjustments. "
          "Experiments on four Image Aesthetics Assessment (IAA) datasets show that it mitigates the long tail in IAA datasets. "
          "PatchBox shows superior performance over the state-of-the-art methods across benchmark datasets.")
HELD = [Source(1, "p-bounds", "Private learning bounds", BOUNDS), Source(2, "p-vision", "PatchBox", VISION)]


def test_a_reference_with_et_al_is_one_claim_and_a_marker_after_the_period_is_its_sentences():
    text, citations, removed = verify("The bound is tighter than the one proved by Ghazi et al. (2023). [1] PatchBox is "
                                      "evaluated on MDE and OFE tasks with 7 models. [2]", HELD, strict=True)
    assert [c.paper_id for c in citations] == ["p-bounds", "p-vision"] and removed == []
    assert "Ghazi et al. (2023). [1] PatchBox" in text


def test_a_reversed_comparison_loses_its_marker_even_in_other_words():
    assert not _kept("The bound is looser than the one proved by Ghazi et al. (2023) [1].", HELD, "p-bounds")
    assert not _kept("Larger values of the parameter rho correspond to a lesser degree of nonconvexity [1].", HELD, "p-bounds")
    assert not _kept("PatchBox trails the state-of-the-art methods across benchmark datasets [2].", HELD, "p-vision")
    assert _kept("PatchBox outperforms the state-of-the-art methods across benchmark datasets [2].", HELD, "p-vision")


def test_negations_said_with_a_prefix_or_free_of_are_the_same_negation():
    assert _kept("The loss of multi-epoch SGD with heavy-ball momentum grows without bound on some convex function [1].",
                 HELD, "p-bounds")
    assert _kept("The intervention needs no model-dependent hyperparameters [1].", HELD, "p-bounds")
    assert not _kept("The intervention needs model-dependent hyperparameters [1].", HELD, "p-bounds")
    assert not _kept("Closed-form adjustments alone are sufficient to close the gap [2].", HELD, "p-vision")


def test_setting_aside_what_the_abstract_states_loses_its_marker():
    assert not _kept("The dataset offers only fingertip perception rather than whole-hand tactile perception [2].",
                     HELD, "p-vision")


def test_numbers_are_checked_each_time_they_are_written_and_list_enumerators_are_not_numbers():
    assert _kept("Compression is at least 100x better across federated tasks [2].", HELD, "p-vision")
    assert not _kept("With 100 clients sampled per round, compression is at least 100x better across federated tasks [2].",
                     HELD, "p-vision")
    assert _kept("Using PatchBox takes two steps [2].", HELD, "p-vision")
    assert not _kept("Using PatchBox takes three steps [2].", HELD, "p-vision")


def test_a_numbered_name_must_match_and_formulas_must_be_the_abstracts():
    assert _kept("It improves the error of SGD when training ResNet-18 on ImageNet [2].", HELD, "p-vision")
    assert not _kept("It improves the error of SGD when training ResNet-50 on ImageNet [2].", HELD, "p-vision")
    assert _kept("For smooth objectives the algorithm converges at rate $\\mathcal{O}(d)$ [1].", HELD, "p-bounds")
    assert not _kept("For smooth objectives the algorithm converges at rate $\\mathcal{O}(\\sqrt{d})$ [1].", HELD, "p-bounds")


def test_acronyms_spelled_out_roots_and_common_paraphrases_survive():
    assert _kept("PatchBox is a square-based patch attack with score-based gradient estimation, evaluated on monocular "
                 "depth estimation and optical flow estimation with seven models [2].", HELD, "p-vision")
    assert _kept("It mitigates the long tail in Image Aesthetics Assessment datasets [2].", HELD, "p-vision")
    assert _kept("The authors probe how vision models solve graph problems with a decoder that is trained [2].",
                 HELD, "p-vision")
    assert _kept("The authors analyze formulations and train the decoder end to end, since it is trainable [2].",
                 HELD, "p-vision")


# ------------------------------------------- held-out grounding set 2 (session 13): one case per kind of miss

SCALING = ("Low-rank gradiEnt Similarity Search (LESS) selects instruction data. "
           "Experiments show that training on a LESS-selected 5% of the data can often outperform the full dataset. "
           "Model quality continues to improve as we scale tokens per parameter. "
           "Dedicated training approaches are proposed to avoid modality dominance. "
           "The model understands not only visual frames and audio events, but speech as well. "
           "We propose StoP, which conditions the model on stochastic positions. "
           "Prior work could achieve comparable guarantees only for even k in general. "
           "Like prior work, we use a Gaussian prior over positions. "
           "We provide upper and lower bounds which are independent of n in the mean-field regime. "
           "RobustSL has the speed of earlier data structures, while providing robustness guarantees that are absent in "
           "the previous work. "
           "Our framework utilizes text supervision and is grounded in the physical principles of sound propagation. "
           "We provide evidence that the two text distributions are consistently separable. "
           "Experiments on CIFAR-100 show that the method is accurate. "
           "Any single-message protocol must incur error $\\Omega(n^{d/(d+2)})$.")
SCALE = [Source(1, "p-scale", "Selecting data with LESS", SCALING)]


def _wrongly_judged(cases: list[tuple[str, bool]]) -> list[str]:
    """The claims (each cited [1] to SCALE's paper) whose marker was kept when it should go, or the reverse."""
    return [claim for claim, keep in cases if _kept(claim, SCALE, "p-scale") != keep]


def test_second_held_out_negation_kinds():
    assert _wrongly_judged([
        ("Dedicated training approaches are proposed to prevent modality dominance [1].", True),  # prevent = avoid
        ("The model understands visual frames, audio events and speech [1].", True),  # "not only" negates nothing
        ("StoP conditions the model on stochastic positions [1].", True),  # a name, not "stop"
        ("Model quality stops improving as we scale tokens per parameter [1].", False),
        ("The bounds do not depend on n [1].", True),  # "independent of n"
        ("RobustSL keeps the speed of earlier data structures and adds the robustness guarantees they lack [1].", True),
    ]) == []


def test_a_claim_likening_the_paper_to_prior_work_must_have_the_abstract_liken_it_too():
    assert _wrongly_judged([
        ("Just as in prior work, the method achieves comparable guarantees only for even k [1].", False),
        ("Like prior work, the method uses a Gaussian prior over positions [1].", True),
    ]) == []


def test_second_held_out_names_numbers_and_paraphrases():
    assert _wrongly_judged([
        ("Training on 5% of the data chosen by Low-rank gradient similarity search often outperforms the full dataset [1].", True),
        ("LESS leverages text supervision and is grounded in the physical principles of sound propagation [1].", True),
        ("The study finds that the two text distributions are consistently separable [1].", True),
        ("Experiments on CIFAR-10 show that the method is accurate [1].", False),
        ("Experiments on CIFAR-100 show that the method is accurate [1].", True),
        ("Any single-message protocol must incur error $\\Omega(n^{d/(d+2)})$ [1].", True),
        ("Any single-message protocol must incur error $\\Omega(n^{d/(d+4)})$ [1].", False),
    ]) == []


def test_third_held_out_numbers_in_context_and_paraphrases():
    abstract = ("We revisit the optimality verification problem for optimization proxies. "
                "The algorithm terminates within $\\mathcal{O}(1/\\varepsilon)$ iterations. "
                "StableMask shows significant enhancements in language models with parameter sizes ranging from 71M to "
                "1.4B across diverse datasets and encoding methods. "
                "Current approaches select data by state-action similarity to expert demonstrations. "
                "We select data by the states that behaviors lead to. "
                "Our method outperforms existing methods on 20/21 benchmarks, typically by 2-5x, while maintaining a "
                "comparable runtime.")
    source = [Source(1, "p-third", "Third", abstract)]
    assert [claim for claim, keep in [
        ("The paper reconsiders the optimality verification problem for optimization proxies [1].", True),
        ("The algorithm terminates within O(1/ε²) iterations [1].", False),  # "ε²" is "ε^2": a 2 the abstract lacks
        ("StableMask significantly enhances language models from 71M to 1.4B parameters [1].", True),
        ("Instead of selecting data by state-action similarity, the method selects data by the states behaviors lead to [1].", True),
        ("The method beats existing methods on 20 of 21 benchmarks, usually by two to five times, while keeping a "
         "comparable runtime [1].", True),
    ] if _kept(claim, source, "p-third") != keep] == []


def test_a_hyphenated_word_may_be_written_joined_and_connectives_claim_nothing():
    from assistant.claims import Abstract, analyse, check, stem

    abstract = ("Nester breaks type inference into sub-tasks based on the data and control flow of the input code. "
                "Supervised training serves as a more effective alternative to pure sequence pre-training.")
    paper = Abstract.of("Nester", abstract)
    for claim in ("Nester breaks type inference into subtasks based on the data and control flow of the input code.",
                  "Supervised training is more effective than pure sequence pretraining."):
        verdict = check(claim, paper)
        assert verdict.supported, (claim, verdict.reason)
    assert not check("Nester breaks type inference into subroutines based on the data flow of the input code.", paper).supported
    assert stem("whereas") not in analyse("Nester splits the task, whereas others do not.").weights


def test_spellings_a_reader_takes_for_the_same_words_are_the_same():
    """Possessives, markdown emphasis inside words, Greek letters spelt out, acronyms the field never defines, and
    LaTeX commands written without a space ("^{-3}\\ln") are read as the abstract means them."""
    from assistant.claims import Abstract, check, numbers

    paper = Abstract.of("Streams", "We study ***O**pen-world **P**rompt **T**uning* (OPT) for vision-language models. "
                        "Our method finds a $(2+\\epsilon)$ approximation in a single pass with $O(n^{1+\\tau})$ query time. "
                        "We apply it to a prompt engineering pipeline for large language models. "
                        "It reaches iteration complexity $\\mathcal{O}(\\epsilon^{-3}\\ln\\epsilon^{-1})$.")
    for claim in ("The paper's method finds a (2+epsilon) approximation in a single pass.",
                  "The method targets open-world prompt tuning for vision-language models.",
                  "Its query time is O(n^(1+tau)).",
                  "It was applied to a prompt engineering pipeline for LLMs.",
                  "It reaches an iteration complexity of O(ε^-3 ln(1/ε))."):
        verdict = check(claim, paper)
        assert verdict.supported, (claim, verdict.reason)
    assert not check("It was applied to a prompt engineering pipeline for GNNs.", paper).supported
    assert 3.0 in numbers("$\\mathcal{O}(\\epsilon^{-3}\\ln\\epsilon^{-1})$")
    assert numbers("perfect zero-shot and one-shot transfer") == set()


def test_a_number_may_come_from_a_sentence_that_counts_the_same_thing():
    from assistant.claims import Abstract, check

    paper = Abstract.of("Pruning", "We study pruning algorithms on a synthetic dataset named the Cubist Spiral. "
                        "We conducted an extensive series of 485,838 experiments. "
                        "Nester reaches 70.7% Top-1 Exact Match, surpassing TypeGen by 28.3%.")
    assert check("The authors ran 485,838 pruning experiments on their synthetic Cubist Spiral dataset.", paper).supported
    assert not check("The authors ran 485,838 pruning algorithms on their synthetic Cubist Spiral dataset.", paper).supported
    assert not check("Nester outperforms HiTyper by 28.3% on the Cubist Spiral.", paper).supported


def test_a_negation_may_restate_a_difficulty_or_come_from_another_sentence_of_the_same_subject():
    from assistant.claims import Abstract, check

    paper = Abstract.of("FiT", "Existing diffusion models often face challenges when processing image resolutions outside "
                        "of their trained domain. We present FiT, a transformer that generates images at unrestricted "
                        "resolutions. FiT beats prior models on ImageNet. Moreover, FiT introduces limited or even no "
                        "side effects on the sampling speed.")
    # "struggle with" restates "face challenges when processing", said of the same things
    assert check("Existing diffusion models struggle with image resolutions outside their trained domain.", paper).supported
    # a negation the abstract does not state anywhere stays a reversal
    assert not check("FiT fails to generate images at unrestricted resolutions.", paper).supported
    # a summary takes "no side effects" from a sentence the words did not pick, said of the same method
    assert check("FiT generates images at unrestricted resolutions and beats prior models on ImageNet, "
                 "with no side effects on the sampling speed.", paper).supported
    # ... but not for another subject: a negation from a sentence about something else stays a reversal
    assert not check("Existing diffusion models generate images at unrestricted resolutions with no side effects on "
                     "the sampling speed.", paper).supported

    limited = Abstract.of("Few labels", "In many image classification applications, labeled training images are limited, "
                          "which leads to overfitting. We propose a data augmentation method.")
    assert check("Labeled training images are not plentiful in many image classification applications.", limited).supported
    assert not check("The data augmentation method does not reduce overfitting.", limited).supported


def test_reversals_in_other_words_and_paraphrases_a_reader_accepts():
    from assistant.claims import Abstract, check

    paper = Abstract.of("VQ-BeT", "Sampling from diffusion models is usually time-consuming due to the autoregressive "
                        "nature of their sampling process. Across seven environments, VQ-BeT improves on state-of-the-art "
                        "models such as BeT. We perform SVD on the outputs to maximize larger singular values while "
                        "minimizing smaller ones. We prove that this adds only negligible terms to the sample complexity. "
                        "Both the Transformer and the Mamba architecture fail on a minimal planning task. SPP keeps the "
                        "structure of pruned models intact. We isolate the two phases of next-token prediction. "
                        "Little is known about doubly SGD, except under strong assumptions such as bounded variance. "
                        "ParaTAA decreases the steps of sequential sampling algorithms.")
    # reversals said without a negation word
    assert not check("Across seven environments, VQ-BeT falls short of state-of-the-art models such as BeT.", paper).supported
    assert check("Across seven environments, VQ-BeT outperforms state-of-the-art models such as BeT.", paper).supported
    assert not check("They perform SVD on the outputs to minimize larger singular values while maximizing smaller ones.", paper).supported
    assert not check("The authors prove that this adds non-negligible terms to the sample complexity.", paper).supported
    assert not check("Both the Transformer and the Mamba architecture succeed on a minimal planning task.", paper).supported
    assert not check("SPP alters the structure of pruned models.", paper).supported
    probe = Abstract.of("QUAG", "We design QUAG, a lightweight and non-parametric probe of modality fusion.")
    assert check("QUAG is a lightweight probe of modality fusion that needs no parameters.", probe).supported
    assert check("SPP keeps the structure of pruned models intact.", paper).supported
    assert not check("SPP degrades the structure of pruned models.", paper).supported
    # paraphrases: a hedge, the two phases counted, "like" meaning "such as", the one who samples
    assert check("Sampling from diffusion models tends to be time-consuming because of its autoregressive nature.", paper).supported
    assert check("The paper isolates two phases of next-token prediction.", paper).supported
    assert not check("The paper isolates three phases of next-token prediction.", paper).supported
    assert check("Little is known about doubly SGD except under strong assumptions like bounded variance.", paper).supported
    assert check("ParaTAA decreases the steps of sequential samplers.", paper).supported


def test_exact_quantities_in_formulas_and_single_against_multiple():
    from assistant.claims import Abstract, check

    paper = Abstract.of("Bounds", r"The bounds reduce to the familiar $\sqrt{r}n^{\frac{3}{2}}$ for $p=1$. "
                        r"Such regret improves the optimal classical algorithm by a factor of $T^{2/3}$. "
                        "We first generalize a result on last-iterate convergence to CMDPs with multiple constraints.")
    assert check(r"The bounds reduce to the familiar $\sqrt{r}n^{3/2}$ when p=1.", paper).supported
    assert not check(r"The bounds reduce to the familiar $\sqrt{r}n^{3/2}$ when p=2.", paper).supported  # 2 is in 3/2
    assert check(r"The regret improves on the optimal classical algorithm by a factor of $T^{2/3}$.", paper).supported
    assert not check(r"The regret improves on the optimal classical algorithm by a factor of $T^{1/3}$.", paper).supported
    assert check("The authors generalize a last-iterate convergence result to CMDPs with several constraints.", paper).supported
    assert not check("The authors generalize a last-iterate convergence result to CMDPs with a single constraint.", paper).supported


# (what the rules must read, an abstract, [(claim, whether it keeps its marker), ...]); each has cases that fail on
# 091e815, before session 18's rules
SESSION_18_CASES = [
    ("levels_comparisons_and_shares_the_abstract_does_not_state", 'Oxygen',
     'Due to the high-cost data collection, the historical observations are severely sparse. We show '
     'evidence of hardness of competing when only given the weaker trace model. The exact solvers come at '
     'a low computational cost. Standard Riemannian optimization updates all the variables at every '
     'iteration. HDiT trains successfully without typical high-resolution training techniques such as '
     'multiscale architectures. Learning a representation from unlabeled time series is far from easy. We '
     'evaluate explanations of GPT-4 on multi-hop factual reasoning and reward modeling. The method '
     'improves recognition of unseen classes without deteriorating closed-set performance. Our fusion '
     'reaches better accuracy than ensembling at a fraction of its cost.',
     # "high" and "low" are directions as "higher" and "lower" are; so are dense / sparse and easy / hardness
     # "far from easy" says hard; a negation does not make a compound's "high-resolution" a low one
     # a comparison the abstract never makes
     # "lower accuracy" is worse, as "higher error" is
     # "half" is a quantity: all is not half
     [
         ('The exact solvers come at a low computational cost.', True),
         ('The exact solvers come at a high computational cost.', False),
         ('Historical observations are dense thanks to low-cost data collection.', False),
         ('Competing is easy when only given the weaker trace model.', False),
         ('Learning a representation from unlabeled time series is difficult.', True),
         ('HDiT trains successfully with no need for high-resolution training techniques such as multiscale architectures.', True),
         ('The method improves recognition of unseen classes but deteriorates closed-set performance.', False),
         ("GPT-4's explanations are more precise for reward modeling than for multi-hop factual reasoning.", False),
         ('The fusion reaches better accuracy than ensembling.', True),
         ('The fusion reaches lower accuracy than ensembling.', False),
         ('Standard Riemannian optimization updates all the variables at every iteration.', True),
         ('Standard Riemannian optimization updates half of the variables at every iteration.', False),
     ]),
    ("a_kind_of_data_the_abstract_never_names_is_an_addition", 'SPARC',
     'We introduce SPARC, a method for pretraining fine-grained multimodal representations from image-text '
     'pairs. SPARC improves performance on image-level tasks such as classification and retrieval.',
     # "video": everyday, but new
     [
         ('SPARC improves performance on image-level tasks like classification and retrieval.', True),
         ('SPARC also transfers well to video-text retrieval.', False),
         ('SPARC also improves classification in medical imaging tasks.', False),
     ]),
    ("counts_said_in_compounds_and_orders_of_magnitude", 'Intervals',
     'We establish two-sided confidence intervals for the optimal loss. BetterV improves several '
     'downstream tasks of EDA. We propose a single-loop algorithm. The method tunes a pipeline with '
     'hundreds of parameters using a single Gaussian process.',
     # "a single" counts one
     # a claim's "single" counts too
     [
         ('The paper establishes two-sided confidence intervals for the optimal loss.', True),
         ('The paper establishes one-sided confidence intervals for the optimal loss.', False),
         ('BetterV improves just one downstream task of EDA.', False),
         ('The authors propose a single-loop algorithm.', True),
         ('The method tunes a pipeline with hundreds of parameters.', True),
         ('The method tunes a pipeline with thousands of parameters.', False),
         ('The method tunes the pipeline with a pair of Gaussian processes.', False),
         ('The method tunes the pipeline with one Gaussian process.', True),
         ('BetterV improves a single downstream task of EDA.', False),
     ]),
    ("little_and_poorly_say_what_a_negation_says", 'Shaping',
     'Shaping strongly speeds up how quickly tasks are learned. Acquisition functions that integrate over '
     'the objective space scale poorly to many objectives. Our model transfers well to diverse downstream '
     'tasks.',
     [
         ('Shaping has little effect on how quickly tasks are learned.', False),
         ('The model transfers poorly to diverse downstream tasks.', False),
         ('Acquisition functions integrating over the objective space scale poorly with many objectives.', True),
         ('The model transfers well to a variety of downstream tasks.', True),
     ]),
    ("ignoring_giving_up_and_fixed_against_adaptive", 'Factored',
     'We propose an algorithm exploiting the factorization of the transition model. Existing methods '
     'neglect the sequential nature of the reverse chain. The new policy is computationally efficient '
     'while remaining asymptotically optimal. IRED adapts the number of optimization steps during '
     'inference based on problem difficulty.',
     [
         ('The algorithm ignores the factorization of the transition model.', False),
         ('Existing methods ignore the sequential nature of the reverse chain.', True),
         ('The new policy is computationally efficient but gives up asymptotic optimality.', False),
         ('IRED uses a fixed number of optimization steps during inference regardless of problem difficulty.', False),
         ("IRED adjusts the number of optimization steps at inference to the problem's difficulty.", True),
     ]),
    ("a_restriction_or_an_already_the_abstract_does_not_state", 'Compiler',
     'LLMCompiler generates an optimized orchestration for function calls and can be used with open-source '
     'and closed-source models. A complete theoretical understanding of these heuristics remains elusive. '
     'The method requires only a pretrained vision-language model.',
     # the abstract restricts
     [
         ('LLMCompiler can be used with both open-source and closed-source models.', True),
         ('LLMCompiler can only be used with closed-source models.', False),
         ('The method needs only a pretrained vision-language model.', True),
         ('A complete theoretical understanding of these heuristics is already established.', False),
     ]),
    ("a_ranking_or_comparison_over_a_change_the_abstract_does_not_make", 'Exiting',
     'Diffusion models generate images, videos, text, and audio. Our early-exiting scheme reduces the '
     'overall sampling time. Severity encoding speeds up reconstruction on linear and nonlinear inverse '
     'problems.',
     [
         ('The early-exiting scheme reduces the overall sampling time.', True),
         ('Early exiting reduces the sampling time most for audio diffusion models, where it works best.', False),
         ('Severity encoding speeds up reconstruction less on nonlinear inverse problems than on linear ones.', False),
     ]),
    ("bounds_compound_names_and_reversals_said_as_costs", 'Risk',
     'Estimating CVaR with epsilon-accuracy requires at least $\\Omega(1/\\epsilon^2)$ samples, and we '
     'derive an upper bound that matches this lower bound up to logarithmic factors. The method operates '
     'as a self-learning approach, without reliance on expert knowledge or hand-crafted functions. '
     'FairProof uses Zero-Knowledge Proofs to verify the fairness of a model. A Self-Supervised Learning '
     '(SSL) model extracts the representation. Our reward shaping improves sample efficiency without '
     'sacrificing convergence stability. White-box methods can compete with computationally demanding '
     'black-box methods. In this game the principal and the agent have misaligned objectives. Memorization '
     'of spurious features weakens as generalization improves.',
     [
         ('The paper derives an upper bound that matches the lower bound up to logarithmic factors.', True),
         ('The approach learns by itself, relying neither on expert knowledge nor on hand-crafted functions.', True),
         ("FairProof uses Zero-Knowledge Proofs to verify a model's fairness.", True),
         ('The representation is extracted by an SSL-based model.', True),
         ('White-box methods can compete with costlier black-box methods.', True),
         ('The reward shaping improves sample efficiency at the cost of convergence stability.', False),
         ('In this game the principal and the agent have aligned objectives.', False),
         ('Memorization of spurious features strengthens as generalization improves.', False),
     ]),
    ("superiority_susceptibility_and_growth_rates", 'AnyTool',
     'Experiments demonstrate the superiority of AnyTool over strong baselines such as ToolLLM. Positive '
     'Lyapunov exponents exponentially amplify errors in the learned dynamics. Such restoration methods are '
     'necessarily more susceptible to adversarial attacks.',
     [
         ('AnyTool outperforms strong baselines such as ToolLLM.', True),
         ('AnyTool underperforms strong baselines such as ToolLLM.', False),
         ('Positive Lyapunov exponents amplify errors in the learned dynamics linearly.', False),
         ('Such restoration methods are necessarily more robust to adversarial attacks.', False),
         ('Such restoration methods are necessarily more vulnerable to adversarial attacks.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_18_CASES, ids=[c[0] for c in SESSION_18_CASES])
def test_session_18_rules(what, title, abstract, claims):
    from assistant.claims import Abstract, check

    paper = Abstract.of(title, abstract)
    wrong = [(claim, check(claim, paper).reason) for claim, keeps in claims if check(claim, paper).supported != keeps]
    assert not wrong, wrong


SESSION_19_CASES = [
    # scalability is a quality like accuracy: "reduced scalability" reverses "improves the scalability"
    ("a_quality_noun_said_to_fall_is_a_reversal_of_its_improvement", 'SGDM',
     'We present SGDM, a scalable graph diffusion model. Our framework not only improves the scalability and '
     'fidelity of graph diffusion models, but also leverages the reverse process to perform conditional generation.',
     [
         ('SGDM gains fidelity at the cost of reduced scalability.', False),
         ('SGDM improves both the scalability and the fidelity of graph diffusion models.', True),
     ]),
    # "debias" stems to "debia", "embeds" to "emb"; "meta-reinforcement-learning" spells out RL
    ("the_stemmer_slips_and_acronyms_inside_compounds", 'DDT',
     'Influence-function methods require debiasing the nuisance parameter multiple times. In DDT, the '
     'demonstration transformer is embedded in the policy. Besides, it integrates OSIL into a '
     'meta-reinforcement-learning training paradigm.',
     [
         ('Influence-function methods must debias the nuisance parameter multiple times.', True),
         ('DDT embeds the demonstration transformer in the policy.', True),
         ('DDT integrates OSIL into meta-RL training.', True),
     ]),
    ("outside_the_training_set_is_not_seen_in_training", 'Neural preconditioner',
     'We present a neural preconditioner that approximates the inverse of the discrete Laplacian. Our approach '
     'generalizes to domain shapes, boundary conditions, and grid sizes outside the training set.',
     [
         ('The preconditioner generalizes to domain shapes and grid sizes not seen in training.', True),
     ]),
    ("a_name_of_capitalised_parts_is_one_name", 'DDT',
     'We evaluate DDT on a new navigation task suite and robotics tasks, demonstrating superior performance over '
     'existing meta-learning methods in a world with unforeseen changes.',
     [
         ('DDT outperforms existing methods on robotics tasks from the Meta-World benchmark.', False),
         ('DDT outperforms existing meta-learning methods on robotics tasks.', True),
     ]),
    # "at the cost of", "sacrificing", "in exchange for": a trade-off an abstract without any cost word does not state
    ("a_trade_off_the_abstract_never_states", 'LAP',
     'We propose LAP, a simple regularizer for single-step adversarial training. Experiments show that LAP '
     'prevents catastrophic overfitting in single-step adversarial training.',
     [
         ('Experiments show that LAP prevents catastrophic overfitting, but at the cost of reduced robustness.', False),
         ('LAP prevents catastrophic overfitting by sacrificing clean accuracy.', False),
         ('LAP prevents catastrophic overfitting without sacrificing single-step adversarial training.', True),
     ]),
    ("a_trade_off_the_abstract_states", 'Speculative decoding',
     'Speculative decoding speeds up generation at the expense of extra memory.',
     [
         ('Speculative decoding speeds up generation at the cost of extra memory.', True),
     ]),
    ("knowing_is_knowledge", 'Bandits with knapsacks',
     'Our algorithm handles settings in which rewards and constraints are selected either stochastically or '
     'adversarially, without requiring any knowledge of the underlying process.',
     [
         ('The algorithm needs to know in advance whether rewards and constraints are selected stochastically or '
          'adversarially.', False),
     ]),

    # round 2, from sets 16-17: "has been largely overlooked" ignores what comes before it; vulnerability is weakness;
    # "very little overhead" is scant
    ("round_2_passive_neglect_vulnerability_and_little", 'VLMs',
     'However, a crucial aspect that has been largely overlooked is the confidence calibration problem in '
     'fine-tuned VLMs, which could greatly reduce reliability when deploying such models in the real world. We identify two limitations of SMP: vulnerability against oversmoothing and slow updates. '
     'It lets us simulate coreset constructions over turnstile streams with very little overhead compared to '
     'off-line subsampling.',
     [
         ('Confidence calibration in fine-tuned VLMs has been largely neglected, even though it could seriously '
          'undermine their reliability when deployed in the real world.', True),
         ('SMP is shown to be robust against oversmoothing.', False),
         ('Simulating coreset constructions over turnstile streams incurs substantial overhead compared with '
          'off-line subsampling.', False),
     ]),
    # large / small are directions; "increases FLOPs" changes what "maintaining FLOPs" keeps; MOS = mean opinion score
    ("round_2_large_against_small_and_keeping_against_changing", 'Sparse-IFT',
     'We present an efficient PAC learner that only requires a small number of training examples to infer an '
     'unknown system. Sparse-IFT uses sparsity to improve accuracy while maintaining dense model FLOPs. Our method '
     'obtained a higher similarity mean opinion score (SMOS) than a multi-speaker model.',
     [
         ('The PAC learner needs a prohibitively large number of training examples to infer an unknown system.', False),
         ('The PAC learner requires only a small number of training examples.', True),
         ('Sparse-IFT increases FLOPs relative to dense models in order to improve accuracy.', False),
         ('Sparse-IFT improves accuracy while keeping the FLOPs of the dense model.', True),
         ('The method earned a higher similarity MOS than a multi-speaker model.', True),
     ]),

    # round 3, from sets 18-19: "inability" negates; "SNNs" is known where the abstract says "SNN"
    ("round_3_inability_and_plural_acronyms", 'SNN',
     'Spiking neural network (SNN) is studied in many domains. The lack of discrete theory obstructs the practical '
     'application of SNN by limiting its performance and nonlinearity support. Their inability to count certain '
     'patterns (e.g., cycles) in a graph lies at the heart of the limitations of GNNs.',
     [
         ('Without a discrete theory, SNNs are hampered in practice because both their performance and their support '
          'for nonlinearities are restricted.', True),
         ('GNNs cannot count certain patterns such as cycles in a graph.', True),
         ('GNNs can count certain patterns such as cycles in a graph.', False),
     ]),

    # round 4, from sets 20-21: fast / slow are directions as faster / slower are
    ("round_4_fast_and_slow", 'S3W',
     'This paper introduces a fast and highly parallelizable distance for comparing spherical measures, which we '
     'refer to as the Stereographic Spherical Sliced Wasserstein (S3W) distance.',
     [
         ('S3W is a slow distance for comparing spherical measures.', False),
         ('S3W is a fast distance for comparing spherical measures.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_19_CASES, ids=[c[0] for c in SESSION_19_CASES])
def test_session_19_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


SESSION_21_CASES = [
    # round 1, from sets 24-25: "mere" restricts as "only" does; "missing" is a lack; "weakens" reverses "enhances"
    ("round_1_mere_missing_weaken", 'Score and message passing',
     'This yields an upper bound for the total variation error of the diffusion model under a mere sub-Gaussian '
     'assumption. However, current KD methods for auto-regressive sequence models suffer from missing a standardized '
     'objective function. We present a multi-track message passing scheme capable of preventing heterophilic mixing '
     'and enhancing long-distance information flow.',
     [
         ('The upper bound on the total variation error of the diffusion model holds under only a sub-Gaussian '
          'assumption.', True),
         ('Current KD methods for auto-regressive sequence models lack a standardized objective function.', True),
         ('The multi-track message passing scheme prevents heterophilic mixing but weakens long-distance information '
          'flow.', False),
     ]),
    # "A rather than B" where the abstract says "B rather than A": the roles are swapped
    ("round_1_swapped_preference", 'Audio concepts',
     'First, models discriminate audio with a combination of basic acoustic features rather than high-level abstract '
     'concepts.',
     [
         ('Models discriminate audio mainly through high-level abstract concepts rather than combinations of basic '
          'acoustic features.', False),
         ('Models discriminate audio through combinations of basic acoustic features rather than high-level abstract '
          'concepts.', True),
     ]),
    # "MDPs" where the abstract writes "Markov decision processes"; "keeps" restates "without compromising";
    # "analyzes" restates "study"
    ("round_1_plurals_kept_guarantees_and_study", 'Certified unlearning',
     'Our condition holds for learning with a batch of complete trajectories from episodic Markov decision processes. '
     'We develop an efficient computation method by inverse Hessian approximation without compromising certification '
     'guarantees. We study the asymptotic error of score-based diffusion model sampling in large-sample scenarios.',
     [
         ('The condition holds when learning from a batch of complete trajectories in episodic MDPs.', True),
         ('The inverse Hessian approximation keeps the certification guarantees.', True),
         ('The inverse Hessian approximation compromises the certification guarantees.', False),
         ('From a statistics viewpoint, the paper analyzes the asymptotic sampling error of score-based diffusion models.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_21_CASES, ids=[c[0] for c in SESSION_21_CASES])
def test_session_21_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


SESSION_22_CASES = [
    # "more than 27B" is a bound, as the abstract's "over 27B" is, not a difference ("27% higher than"); a bound the
    # abstract does not state ("more than two players" for its two-player games) is not there
    ("bounds", 'Moirai',
     'Trained on our newly introduced Large-scale Open Time Series Archive (LOTSA) featuring over 27B observations '
     'across nine domains, Moirai achieves competitive or superior performance as a zero-shot forecaster when compared '
     'to full-shot models. The polynomial-time algorithm applies to two-player general-sum games.',
     [
         ('Moirai was trained on LOTSA, a newly introduced open archive containing more than 27B observations across nine '
          'domains.', True),
         ('Moirai was trained on LOTSA, a newly introduced open archive containing 27B more observations than earlier '
          'archives.', False),
         ('The polynomial-time algorithm applies to general-sum games with more than two players.', False),
     ]),
    # "rather than" contrasts two things; it does not make the numbers beside it a difference
    ("rather_than_is_no_difference", 'NLHF',
     'Our approach entails the initial learning of a pairwise preference model, which is conditioned on two inputs '
     '(instead of a single input in the case of a reward model) given a prompt.',
     [
         ('NLHF first learns a pairwise preference model that, given a prompt, conditions on two inputs rather than the '
          'single input of a reward model.', True),
         ('NLHF first learns a pairwise preference model that, given a prompt, conditions on three inputs rather than the '
          'single input of a reward model.', False),
     ]),
    # "cannot perceive" restates "imperceptible", "cannot be applied" restates "inapplicable"
    ("negated_word_for_prefix_negation", 'Watermarks',
     'Watermarking involves embedding hidden markers in texts during the LLM inference phase, which is imperceptible '
     'to humans. Due to the opacity in their parameters, existing fine-tuning adaptation methods are inapplicable.',
     [
         ('Watermarking embeds hidden markers in texts during LLM inference that humans cannot perceive.', True),
         ('Because of the opacity of their parameters, existing fine-tuning adaptation methods cannot be applied.', True),
         ('Watermarking does not embed hidden markers in texts during LLM inference.', False),
     ]),
    # "B outperforms A" where the abstract says "A outperforms B" (also in the passive), and "all" where it says "most"
    ("swapped_comparison_and_all_for_most", 'TinyTrain',
     'TinyTrain outperforms vanilla fine-tuning of the entire network by 3.6-5.0% in accuracy. In combination with '
     'other zero-cost proxies, GRAF outperforms most existing performance predictors at a fraction of the cost.',
     [
         ('Vanilla fine-tuning of the entire network outperforms TinyTrain by 3.6-5.0% in accuracy.', False),
         ('Vanilla fine-tuning of the entire network is outperformed by TinyTrain by 3.6-5.0% in accuracy.', True),
         ('TinyTrain beats vanilla fine-tuning of the entire network by 3.6-5.0% in accuracy.', True),
         ('Combined with other zero-cost proxies, GRAF outperforms all existing performance predictors at a fraction '
          'of the cost.', False),
         ('Combined with other zero-cost proxies, GRAF outperforms most existing performance predictors at a fraction '
          'of the cost.', True),
     ]),
    # "most" where the abstract says "every"; "substantial" is large, "widens" the opposite of "bridges"; "first-order"
    # counts an order; "far from benign" negates "benign"
    ("quantities_directions_and_far_from", 'MAG listing',
     'Our method can efficiently output all the MAGs in the MEC, that is, every intermediate graph in the recursive '
     'process is necessary for the MAG listing task. This comes at the cost of additional operations; for many popular '
     'models, this overhead is quite small. A warm start for the reward model bridges the performance gap during the '
     'transition to online training. We analyze the second-order stability of mean-field dynamics. The loss landscape '
     'for the distribution of parameters, while highly nonconvex, becomes quite benign.',
     [
         ('Most intermediate graphs in the recursive process are necessary for the MAG listing task.', False),
         ('Every intermediate graph in the recursive process is needed for the MAG listing task.', True),
         ('For many popular models, this overhead turns out to be substantial.', False),
         ('For many popular models, the overhead is quite small.', True),
         ('The warm start for the reward model widens the performance gap during the transition to online training.', False),
         ('The authors analyze the first-order stability of mean-field dynamics.', False),
         ('The authors analyze the second-order stability of mean-field dynamics.', True),
         ('The loss landscape for the distribution of parameters stays highly nonconvex and far from benign.', False),
     ]),
    # a model variant the abstract never names ("ViT-Base" where it says "vision Transformer (ViT)"), while a plural of
    # a name it does use ("BRF-RSNNs") is known
    ("model_variant_names", 'UPOCR',
     'The UPOCR unifies the architecture as a vision Transformer (ViT)-based encoder-decoder with learnable task prompts. '
     'BRF-RSNN training converges faster than that of other recurrent spiking neural networks (RSNNs).',
     [
         ('UPOCR adopts a ViT-Base encoder-decoder with learnable task prompts.', False),
         ('UPOCR adopts a ViT-based encoder-decoder with learnable task prompts.', True),
         ('BRF-RSNNs converge faster in training than other recurrent spiking networks.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_22_CASES, ids=[c[0] for c in SESSION_22_CASES])
def test_session_22_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


def test_attain_restates_achieve():
    """Round 1's one word-level paraphrase with no whole-claim case here: "attains" covers "achieves" (in the case
    files it kept one supported summary, tF318, and broke nothing)."""
    from assistant.claims import _covered, stem

    assert _covered(stem("attains"), {stem("achieve")}) and _covered(stem("attained"), {stem("achieves")})
    assert not _covered(stem("attains"), {stem("improve")})


SESSION_23_CASES = [
    # "3D diffusion models" where the abstract says "2D diffusion models": the digit is elsewhere ("3D geometry"), the
    # dimension of that thing is not
    ("dimensions", 'Lift3D',
     'Lift3D distills powerful 2D diffusion models into a 3D representation, and a 3D prior keeps the geometry '
     'consistent. It handles 2D and 3D inputs.',
     [
         ('Lift3D distills 3D diffusion models into a 3D representation.', False),
         ('Lift3D distills powerful 2D diffusion models into a 3D representation.', True),
         ('Lift3D handles both 3D and 2D inputs.', True),
         ('A 2D prior keeps the geometry consistent.', False),
     ]),
    # a lower bound where the abstract gives only upper ones, and the sides swapped between the things bounded
    ("upper_and_lower_bounds", 'Bandit bounds',
     'We prove a lower bound on the sample complexity of any algorithm and an upper bound on the number of rounds our '
     'algorithm needs. The estimator is upper-bounded by the excess risk.',
     [
         ('The authors prove an upper bound on the sample complexity of any algorithm.', False),
         ('The authors prove a lower bound on the number of rounds their algorithm needs.', False),
         ('The authors prove a lower bound on the sample complexity of any algorithm and an upper bound on the number of '
          'rounds their algorithm needs.', True),
     ]),
    ("a_bound_the_abstract_never_gives", 'Memorization',
     'We derive an upper bound on memorization in terms of the curvature of the input loss.',
     [
         ('The paper derives an upper bound on memorization in terms of input loss curvature.', True),
         ('The paper derives a matching lower bound on memorization in terms of input loss curvature.', False),
     ]),
    # "k-means" names an objective: one-letter compounds are terms of art, not the everyday "means"
    ("one_letter_compound_is_a_term_of_art", 'Private clustering',
     'Private clustering has been widely studied under various privacy models. We show that a classic algorithm can be '
     'slightly modified to work for any of those models.',
     [
         ('A classic algorithm can be slightly modified to solve private k-means clustering under any of those privacy '
          'models.', False),
         ('A classic algorithm can be slightly modified to solve private clustering under any of those privacy models.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_23_CASES, ids=[c[0] for c in SESSION_23_CASES])
def test_session_23_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


SESSION_24_CASES = [
    # an ordinal said of the same thing: "the first term" where the abstract only writes "the second term"
    ("an_ordinal_the_abstract_gives_something_else", 'Graph distillation',
     'We first maximize the second term of the objective by perturbing the graph, and then minimize the overall loss. '
     'In the first stage, the teacher is frozen.',
     [
         ('The method first maximizes the first term of the objective by perturbing the graph.', False),
         ('The method first maximizes the second term of the objective by perturbing the graph.', True),
         ('In the first stage the teacher is frozen.', True),
     ]),
    # "linear Transformers" where the abstract says "(non-linear) Transformers"; "non-smooth functions" is fine where
    # it says "when functions are non-smooth"
    ("a_negating_prefix_dropped_from_what_qualifies_a_thing", 'Transformers in context',
     'We show that (non-linear) Transformers learn to implement gradient descent in function space, which lets them '
     'learn non-linear functions in context. Our bounds also hold when functions are non-smooth, as for smooth functions.',
     [
         ('Linear Transformers learn to implement gradient descent in function space and learn non-linear functions in '
          'context.', False),
         ('Non-linear Transformers learn to implement gradient descent in function space.', True),
         ('The bounds also hold for non-smooth functions.', True),
     ]),
    # "not appropriate" restates "inappropriate": a negation the claim writes out is not a prefix the abstract reverses
    ("a_negation_written_out_restates_a_negating_prefix", 'Approximate symmetry',
     'In many problems only approximate symmetry is present, which makes imposing exact symmetry inappropriate.',
     [
         ('In many problems only approximate symmetry is present, so imposing exact symmetry is not appropriate.', True),
         ('In many problems only approximate symmetry is present, so imposing exact symmetry is appropriate.', False),
     ]),
    # "45.3 billion tokens" is "45.3B tokens"; "25 more languages" counts languages ("25 additional languages"), it is
    # not a difference; "single out" is a verb, not a count
    ("numbers_written_with_words", 'Sherkala',
     'The model is trained on 45.3B tokens. We highlight the Sim-Any hypothesis as the most actionable. We first write '
     'English instructions and then translate them into 25 additional languages with native speakers.',
     [
         ('The model is trained on 45.3 billion tokens.', True),
         ('The model is trained on 45.3 million tokens.', False),
         ('The instructions were translated into 25 more languages with native speakers.', True),
         ('The instructions were translated into 26 more languages with native speakers.', False),
         ('The authors single out the Sim-Any hypothesis as the most actionable.', True),
     ]),
    # a compound of a name and a suffix ("GSM8K-based") and a plural acronym the abstract writes in a compound
    # ("RNNs" for "RNN-based")
    ("names_in_compounds", 'Object-centric learning',
     'Existing models, due to their RNN-based implementation, are slow to train. We release R-GSM, based on GSM8K, '
     'to examine the ordering effect.',
     [
         ('Existing models are slow to train due to their reliance on RNNs.', True),
         ('The authors release R-GSM, a GSM8K-based benchmark that examines the ordering effect.', True),
         ('The authors release R-GSM, a GSM1K-based benchmark that examines the ordering effect.', False),
     ]),
    # "excludes" and "omits" negate like "without"
    # "extra" and "additional" say the same, so a claim that adds what the abstract adds "without" reverses it
    ("extra_is_additional", 'Compression',
     'The compression is applied via continued training on a small share of the data without adding any extra parameters.',
     [
         ('Applying the compression requires continued training on a small share of the data and introduces additional '
          'parameters.', False),
         ('Applying the compression requires continued training on a small share of the data and introduces no additional '
          'parameters.', True),
     ]),
    ("exclude_and_omit_negate", 'A benchmark',
     'Our benchmark covers questions on image and text inputs from many domains. The model keeps all tokens of the prompt.',
     [
         ('The benchmark covers questions on image inputs from many domains, excluding text inputs.', False),
         ('The model omits tokens of the prompt.', False),
         ('The benchmark covers questions on image and text inputs from many domains.', True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_24_CASES, ids=[c[0] for c in SESSION_24_CASES])
def test_session_24_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


SESSION_25_CASES = [
    # the baselines change sides: "baselines outperform X" for the abstract's "X outperforms baselines", also when the
    # abstract says "improvement over baselines" or "improves over prior approaches" and when the claim's subject is
    # generic ("the proposed method") or its clause starts after a comma
    ("baselines_change_sides", 'Q-learning',
     'Empirically, we show that BQL achieves remarkable improvement over baselines in a variety of cooperative '
     'multi-agent tasks. We show that ARCH generalizes well to unseen objects and outperforms baseline methods in terms '
     'of success rate and data efficiency. Results on challenging drawing tasks confirm that our proposed method improves '
     'over prior TAMP approaches.',
     [
         ('Empirically, baseline methods outperform BQL across a variety of cooperative multi-agent tasks.', False),
         ('Although ARCH generalizes well to unseen objects, baseline methods outperform it in terms of success rate and '
          'data efficiency.', False),
         ('On challenging drawing tasks, prior TAMP approaches improve over the proposed method.', False),
         ('Empirically, BQL clearly improves over the baselines in a variety of cooperative multi-agent tasks.', True),
         ('ARCH generalizes well to unseen objects and beats baseline methods in success rate and data efficiency.', True),
         ('On challenging drawing tasks, the proposed method improves over prior TAMP approaches.', True),
     ]),
    # "B is outperformed by the proposed approach": the passive, with a generic side
    ("passive_with_generic_side", 'Random matrices',
     'Our evaluation, on synthetic and real-world EEG datasets, shows that we largely outperform state-of-the-art methods.',
     [
         ('On synthetic and real-world EEG datasets, state-of-the-art methods are largely outperformed by the proposed '
          'approach.', True),
         ('On synthetic and real-world EEG datasets, state-of-the-art methods largely outperform the proposed approach.', False),
     ]),
    # "A achieves better X than B" with A and B swapped
    ("comparative_swapped", 'Low-rank networks',
     'We compare our results to prior bounds, highlighting how deep networks with low-rank layers can achieve better '
     'generalization than those with full-rank layers.',
     [
         ('Deep networks with full-rank layers can achieve better generalization than those with low-rank layers.', False),
         ('Deep networks with low-rank layers can generalize better than those with full-rank layers.', True),
     ]),
    # "earlier" and "later" are opposite directions; "early stopping" is a term
    ("earlier_and_later", 'Neural collapse',
     'We show that in the hypernym label space, certain properties of neural collapse appear earlier than in the '
     'hyponym label space. XRM needs no early stopping.',
     [
         ('In the hypernym label space, some properties of neural collapse appear later than in the hyponym label space.', False),
         ('In the hypernym label space, some properties of neural collapse show up earlier than in the hyponym label space.', True),
         ('XRM does not need early stopping.', True),
     ]),
    # a negation turns the direction of the next two words only: "does not scale to multiple modalities" is not
    # "single modalities"
    ("negation_turns_two_words", 'Evidence fusion',
     'Moreover, the evidence averaging strategy is not order invariant and fails to scale to multiple modalities.',
     [
         ('The evidence averaging strategy is not order invariant and does not scale to multiple modalities.', True),
         ('The evidence averaging strategy is order invariant and scales to multiple modalities.', False),
     ]),
    # "without sacrificing X" restates "while preserving X"; a research gap said in other words
    ("kept_and_gaps", 'Private learning',
     'By employing DP-SGD, our method achieves rigorous privacy guarantees while preserving predictive accuracy. '
     'While previous optimization results have suggested that deep neural networks tend to favor low-rank weight '
     'matrices, the implications of this inductive bias on generalization bounds remain underexplored.',
     [
         ('Using DP-SGD, the method obtains rigorous privacy guarantees without sacrificing predictive accuracy.', True),
         ('Prior optimization results suggest that deep networks prefer low-rank weight matrices, but how this inductive '
          'bias affects generalization bounds has received little study.', True),
         ('Using DP-SGD, the method obtains rigorous privacy guarantees but sacrifices predictive accuracy.', False),
     ]),
    # a number joined to a word counts that thing: "a three-layer network" is not "3-uniform hypergraphs"
    ("number_joined_to_a_word", 'Hypergraphs',
     'Our approach represents the relationships between agents and tasks as dynamically evolving 3-uniform hypergraphs.',
     [
         ('The approach uses a three-layer hypergraph network to represent the relationships between agents and tasks.', False),
         ('The approach represents the relationships between agents and tasks as evolving three-uniform hypergraphs.', True),
     ]),
    # linear and sublinear (logarithmic) growth are opposite ways
    ("linear_is_not_sublinear", 'Query complexity',
     'We prove that the query complexity of GraCe depends only logarithmically on the dimension d.',
     [
         ("GraCe's query complexity depends linearly on the dimension d.", False),
         ("GraCe's query complexity grows only logarithmically with the dimension d.", True),
     ]),
]


@pytest.mark.parametrize("what,title,abstract,claims", SESSION_25_CASES, ids=[c[0] for c in SESSION_25_CASES])
def test_session_25_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


SESSION_26_CASES = [
    # numbers read as they are written: "near-100%" is 100% (not a name like "GPT-4"), "30+ languages" is a bound like
    # "more than 30", values listed together share their comparison word ("18.9% and 32.7% relative improvements")
    ("numbers_as_written", 'KineDex',
     'KineDex collects data over twice as fast as teleoperation, while maintaining a near-100% success rate. The study '
     'evaluates 36 CPT configurations across 30+ languages. Agent S2 achieves 18.9% and 32.7% relative improvements '
     'over leading baseline agents.',
     [
         ('KineDex keeps a success rate near 100% while collecting data more than twice as fast as teleoperation.', True),
         ('KineDex keeps a success rate near 90% while collecting data more than twice as fast as teleoperation.', False),
         ('The study evaluates 36 CPT configurations in more than 30 languages.', True),
         ('The study evaluates 36 CPT configurations in more than 40 languages.', False),
         ('Agent S2 achieves relative improvements of 18.9% and 32.7% over leading baseline agents.', True),
     ]),
    # a count spelled out before a noun counts things, even after a comparison word: "by minimizing a single objective",
    # "the decrease of a single iteration"; "more than two players" is still a bound
    ("spelled_counts_are_not_differences", 'DPO',
     'Instead, directly fine-tuning for human preferences is achieved via the minimization of a single closed-form '
     'training objective. We examine a single iteration of the algorithm, characterizing the objective function '
     'decrease. The result holds for two-player games.',
     [
         ('Fine-tuning for human preferences is done by minimizing a single closed-form training objective.', True),
         ('The authors characterize the objective decrease of a single iteration of the algorithm.', True),
         ('The result also holds for games with more than two players.', False),
     ]),
    # "all" / "every" for the abstract's "most" / "certain", with the thing quantified a few words on; not under a negation
    ("quantifiers_further_on", 'Dependencies',
     'Most of the recent efforts to relax this independence assumption have considered purely temporal dependencies. '
     'Most algorithms employ sampling-based methods. LMs can track certain facets of suspense. The framework does not '
     'require that all long-term outcomes are observed.',
     [
         ('All of the recent efforts to relax the independence assumption have considered purely temporal dependencies.', False),
         ('Every existing algorithm employs sampling-based methods.', False),
         ('LMs can track all facets of suspense.', False),
         ('Most recent efforts to relax the independence assumption considered purely temporal dependencies.', True),
         ('The framework does not require every long-term outcome to be observed.', True),
     ]),
    # "state of the arts" is what a paper compares itself with; "A is a special case of B" swapped
    ("baselines_and_generality_swapped", 'HIMA',
     'Our results show that HIMA outperforms state of the arts in strategic clarity and adaptability. Interestingly, '
     'rested and restless bandits are special cases of the proposed graph-triggered model.',
     [
         ('State-of-the-art methods outperform HIMA in strategic clarity and adaptability.', False),
         ('HIMA outperforms the state of the art in strategic clarity and adaptability.', True),
         ('The graph-triggered model is itself a special case of rested and restless bandits.', False),
         ('Rested and restless bandits are special cases of the graph-triggered model.', True),
     ]),
    # an example or application the abstract never names: "with applications to first-price auctions"
    ("examples_the_abstract_never_gives", 'Price of anarchy',
     'We extend existing smoothness-based lower bounds on the price of anarchy to equilibria obtained by the proposed '
     'dynamics. The approach is benchmarked on a wide variety of multivariate stochastic differential equations with '
     'arbitrary confounding, in domains such as robotics.',
     [
         ('We extend smoothness-based lower bounds on the price of anarchy to equilibria obtained by the proposed dynamics, '
          'with applications to first-price auctions.', False),
         ('The approach is benchmarked on a wide variety of multivariate stochastic differential equations, including a '
          'cart-pole control system, with arbitrary confounding.', False),
         ('The approach is benchmarked on many multivariate stochastic differential equations, in domains such as robotics.', True),
     ]),
    # paraphrase words: "copes with" for "handles", "seldom" for "rarely"
    ("paraphrase_words", 'CoRLL',
     'CoRLL handles weak and noisy user feedback well, and it rarely needs more than a few interactions.',
     [
         ('CoRLL copes well with weak, noisy user feedback and seldom needs more than a few interactions.', True),
     ]),
]


def test_faults_as_sure_as_a_number_are_not_overruled_by_the_model(monkeypatch):
    """Swapped sides, a sentence copied with one word turned opposite, a changed quantifier and an invented example
    stay removed even when the learned check vouches for every claim; a claim that only lacks a word is rescued."""
    from assistant import entailment
    from assistant.claims import Abstract, check

    monkeypatch.setattr(entailment, "affirmed", lambda claim, evidence, probe=False, polarity=False: True)
    monkeypatch.setattr(entailment, "contradicted", lambda claim, evidence, probe=False: False)
    paper = Abstract.of("CSHS", "We introduce a score which quantifies the likelihood that pruning will improve robustness. "
                                "Our results show that HIMA outperforms prior methods in strategic clarity. "
                                "Most algorithms employ sampling-based methods for the acquisition function.")
    removed = ["The authors introduce a score which quantifies the likelihood that pruning will degrade robustness.",
               "Prior methods outperform HIMA in strategic clarity.",
               "Every existing algorithm employs sampling-based methods for the acquisition function.",
               "Motivated by applications in clinical triage, HIMA outperforms prior methods in strategic clarity."]
    assert [check(claim, paper, learned=True).supported for claim in removed] == [False] * 4
    # a copy with a word turned into its negation by a prefix is as sure ("possible" for "impossible")
    task = Abstract.of("Shift", "Without regression data, we prove that task shift is impossible in sparse signal models.")
    assert not check("Without regression data, we prove that task shift is possible in sparse signal models.", task,
                     learned=True).supported
    assert check("HIMA outperforms prior methods in strategic clarity on video.", paper, learned=True).supported
    assert not check("HIMA outperforms prior methods in strategic clarity on video.", paper).supported
    # two words the abstract writes with the second negated by its prefix: "statistically tractable" (session 33)
    hard = Abstract.of("Confidence sets", "In the most general setting, this problem is statistically intractable, so we "
                                          "restrict our attention to concept classes with bounded VC-dimension.")
    assert not check("Since the problem is statistically tractable in the most general setting, the authors need not "
                     "restrict attention to concept classes with bounded VC-dimension.", hard, learned=True).supported
    # an invented item further down a list of examples is as sure as the first (session 33)
    tasks = Abstract.of("Concentration", "We provide applications in statistical tasks, such as parameter estimation in "
                                         "online linear regression, autoregressive modeling, and bounded mean estimation.")
    assert not check("The authors give applications in statistical tasks such as parameter estimation in online linear "
                     "regression, autoregressive modeling, contextual bandits, and bounded mean estimation.", tasks,
                     learned=True).supported


def test_an_unmarked_claim_the_model_reads_otherwise_says_why_it_has_no_citation(monkeypatch):
    """An LLM's unmarked sentence that paper 1 covers, which the learned check vetoes, is removed as "no citation"
    with the check's reason, not as if no paper covered it."""
    from assistant import entailment

    monkeypatch.setattr(entailment, "contradicted", lambda claim, evidence, probe=False: True)
    text = "The distillation of Dirichlet energy preserves the smoothing effects of the GNN layers."
    assert [c.paper_id for c in verify(text, SOURCES, attribute=0.6)[1]] == ["p-tined"]  # the rules alone keep it
    _, citations, removed = verify(text, SOURCES, attribute=0.6, strict=True, learned=True)
    assert citations == []
    assert [r.reason for r in removed] == ["no citation (the abstract says otherwise (entailment model))"]


SESSION_27_CASES = [
    # comparisons are rankings too: "A gives higher quality than B", "Compared to B, A achieves better efficiency", "A
    # achieves higher accuracy compared to B"; sides swapped is a fault
    ("comparisons_swapped", 'Hot DoG',
     'Hot DoG provides higher quality posterior approximations than other learning-rate-free stochastic gradient methods. '
     'Compared to CP baselines, RR-GNN achieves improved efficiency, with no loss of coverage. RL-only training with our '
     'rewards achieves higher accuracy compared to supervised fine-tuning (SFT).',
     [
         ('Other learning-rate-free stochastic gradient methods provide higher quality posterior approximations than Hot DoG.', False),
         ('Compared with RR-GNN, CP baselines achieve better efficiency with no loss of coverage.', False),
         ('Supervised fine-tuning achieves higher accuracy than RL-only training with the proposed rewards.', False),
         ('Hot DoG gives higher quality posterior approximations than other learning-rate-free stochastic gradient methods.', True),
         ('RL-only training with the proposed rewards achieves higher accuracy than supervised fine-tuning.', True),
     ]),
    # "always" where the abstract says "can"; a claim's own "can" needs no "always"
    ("always_for_can", 'PROMPT',
     'The key insight is that negative transfer can stem from misspecified prior information about non-transferable causes.',
     [
         ('Negative transfer always stems from misspecified prior information about non-transferable causes.', False),
         ('Negative transfer may stem from misspecified prior information about non-transferable causes.', True),
     ]),
    # "sensitive to" against "robust to"; exponential against polynomial growth
    ("sensitive_and_exponential", 'ReFeed',
     'Furthermore, ReFeed is robust to noisy feedback and feedback order. We permit the information exponent to be '
     'arbitrarily large, leading to convergence times that grow polynomially in the ambient dimension d.',
     [
         ('A drawback of ReFeed is that it is sensitive to noisy feedback and to feedback order.', False),
         ('Convergence times grow exponentially in the ambient dimension d when the information exponent is large.', False),
         ('ReFeed is robust to noisy feedback and to the order of the feedback.', True),
         ('Convergence times grow polynomially in the ambient dimension d even when the information exponent is large.', True),
     ]),
    # "a loss" is a loss function, not a fall: it does not reverse "improve"
    ("a_loss_is_a_function", 'RLO',
     'We introduce Rooted Logistic Objectives (RLO) to improve practical convergence behavior with benefits for '
     'downstream tasks.',
     [
         ('The authors propose RLO, a loss designed to improve convergence in practice while also benefiting downstream '
          'tasks.', True),
     ]),
    # a thousands separator inside "10,000-dimensional"; "Long-CoT" for "Long-CoT-based"; "such as IWAE cannot ...":
    # the example is IWAE
    ("numbers_names_and_examples_as_written", 'CESO',
     'The algorithm is validated on an OAM wave demultiplexing system (10,000 dimensions). We release SumFeed-CoT, a '
     'large-scale Long-CoT-based dataset. Standard VI methods like the importance-weighted autoencoder (IWAE) lack '
     'functionality for streaming data.',
     [
         ('CESO is validated on a 10,000-dimensional OAM wave demultiplexing problem.', True),
         ('CESO is validated on a 20,000-dimensional OAM wave demultiplexing problem.', False),
         ('The authors release SumFeed-CoT, a large-scale Long-CoT dataset.', True),
         ('Standard VI methods such as IWAE cannot handle streaming data.', True),
     ]),
]


SESSION_28_CASES = [
    # sides swapped when both winners share words ("torque adapters into the ..."), with "up to 2x", with an adverb,
    # and passive with a pronoun agent ("outperformed by it by a wide margin") kept
    ("rankings_with_shared_words", 'Torque',
     'Introducing torque adapters into the decoder consistently outperforms inserting them into the encoder. Our fused '
     'kernel for sliding attention is up to 3x faster than FlashAttention-2. Transformer models dramatically outperform '
     'state space models at copying text. It outperforms other strong baselines by a wide margin.',
     [
         ('Inserting torque adapters into the encoder consistently outperforms introducing them into the decoder.', False),
         ('FlashAttention-2 is up to 3x faster than the fused kernel for sliding attention.', False),
         ('Torque adapters in the decoder consistently outperform those inserted into the encoder.', True),
         ('The fused kernel for sliding attention runs up to 3x faster than FlashAttention-2.', True),
         ('State space models are dramatically outperformed by transformer models at copying text.', True),
         ('Other strong baselines are outperformed by it by a wide margin.', True),
     ]),
    # "Instead of X, we do Y": Y is preferred
    ("instead_of_leading", 'DiffLearn',
     'Instead of estimating a separate model at each time and differencing them later, we directly learn the time '
     'derivative of the parameter.',
     [
         ('Instead of learning the time derivative directly, the method estimates a separate model at each time and '
          'differences them later.', False),
         ('Rather than estimating a separate model at each time, the method directly learns the time derivative of the '
          'parameter.', True),
     ]),
    # rare/common, flat/sharp, reassuring/worrying, equivalence/difference, significantly/slightly; rates
    ("antonyms_and_rates", 'Curvature',
     'We show that high-complexity cases are rare. A flatter curvature of the manifold leads to stronger transfer. The '
     'results provide reassuring evidence for the practical use of boosting. The analysis reveals an equivalence between '
     'cost-sensitive and multi-objective losses. Importance sampling significantly reduces the number of simulations. '
     'We establish sublinear regret bounds. The regret scales with the square root of the cumulative variance.',
     [
         ('The authors show that high-complexity cases are common.', False),
         ('A sharper curvature of the manifold leads to stronger transfer.', False),
         ('The results provide worrying evidence about the practical use of boosting.', False),
         ('The analysis reveals a difference between cost-sensitive and multi-objective losses.', False),
         ('Importance sampling only slightly reduces the number of simulations.', False),
         ('The authors establish logarithmic regret bounds.', False),
         ('The regret scales linearly with the cumulative variance.', False),
         ('High-complexity cases are rare, the authors show.', True),
         ('Importance sampling substantially reduces the number of simulations.', True),
         ('The regret grows with the square root of the cumulative variance.', True),
     ]),
    # as written: initials of capitalised words, "doubles as", a single run for "one-shot", a cited year counts
    # nothing, "only a fraction", "conventional" for "traditional", "well suited" for "not appropriate"
    ("as_written_28", 'Sampling',
     'In wide Bayesian Neural Networks, the sampler is efficient. Our approach also functions as an outlier detection '
     'method. Our method enjoys an efficient one-shot training process. It extends the coefficients of Foster et al. '
     '(2023). Although our lower and upper bounds are not tight, they suffice. It performs comparably to grid search at '
     'a fraction of the cost. Traditional survival methods treat risks as independent. Models based on node '
     'exchangeability are not appropriate.',
     [
         ('In wide BNNs, the sampler is efficient.', True),
         ('The approach doubles as an outlier detection method.', True),
         ('The method enjoys a single efficient training process.', True),
         ('It extends the coefficients of Foster et al. (2023); its lower and upper bounds are not tight.', True),
         ('The method matches grid search while costing only a fraction as much.', True),
         ('Conventional survival methods treat risks as independent.', True),
         ('Models based on node exchangeability are well suited.', False),
     ]),
]


SESSION_29_CASES = [
    # paraphrases: "problems" for "challenges", "plateau" for "saturate", an active "overlooked" for a passive one whose
    # subject is a long phrase; "single-cell" counts cells, it is no difference ("by converting")
    ("paraphrases_29", 'ACE',
     'We address two predominant challenges of attribution: noisy visualizations and vulnerability to attacks. The '
     'training loss saturates for hundreds of epochs before the task is learned. The varying importance of distinct '
     'primitive behaviors during the policy learning process has been overlooked by prior model-free algorithms. We '
     'adapt language models to single-cell transcriptomics. By converting expression data into cell sentences, the '
     'method bridges language and biology.',
     [
         ('The authors tackle two main problems of attribution: noisy visualizations and vulnerability to attacks.', True),
         ('The training loss plateaus for hundreds of epochs before the task is learned.', True),
         ('Prior model-free algorithms have overlooked the fact that distinct primitive behaviors vary in importance '
          'during policy learning.', True),
         ('The method adapts language models to single-cell transcriptomics by converting expression data into cell '
          'sentences.', True),
     ]),
    # changed quantities: "many-step" for "few-step", "one of several" for "the only", "all" for "the majority",
    # "substantial" for "negligible"
    ("quantities_29", 'LangCell',
     'Our schedules show their potential especially in the few-step synthesis regime. LangCell is the only single-cell '
     'model that works in zero-shot settings. Even with bootstrap aggregation, the majority of the data can be '
     'reconstructed. We confirm that the bias of naive imputation is negligible.',
     [
         ('The schedules show their potential especially in the many-step synthesis regime.', False),
         ('LangCell is one of several single-cell models that work in zero-shot settings.', False),
         ('Even with bootstrap aggregation, all of the data can be reconstructed.', False),
         ('The authors confirm that the bias of naive imputation is substantial.', False),
         ('LangCell is the only single-cell model that works in zero-shot settings.', True),
         ('Even with bootstrap aggregation, most of the data can be reconstructed.', True),
     ]),
    # what the abstract compares its method against does not beat it; a field the abstract never names is invented
    ("beaten_and_domains_29", 'MindEye',
     'The approach attains state-of-the-art retrieval metrics compared to single-subject approaches. We show the '
     'estimator reduces variance through simulations and a real data analysis.',
     [
         ('Single-subject approaches still beat it on retrieval metrics.', False),
         ('The estimator reduces variance in simulations and a real data analysis of an online advertising experiment.',
          False),
         ('The approach beats single-subject approaches on retrieval metrics.', True),
     ]),
]


SESSION_30_CASES = [
    # the paper's own method put behind what it compares itself with, actively, passively or with "lags behind"
    ("own_method_behind_30", 'FlowSim: Fast Flow Simulation',
     'We propose FlowSim, a neural simulator for incompressible flows. Experiments show a significant advantage of our '
     'method compared to existing numerical solvers. FlowSim also outperforms prior learned simulators on long rollouts.',
     [
         ('Existing numerical solvers hold a significant advantage over the proposed method.', False),
         ('Prior learned simulators outperform FlowSim on long rollouts.', False),
         ('FlowSim lags well behind prior learned simulators on long rollouts.', False),
         ('Experiments show that current numerical solvers are more effective than FlowSim.', False),
         ('Prior learned simulators are outperformed by FlowSim on long rollouts.', True),
         ('The authors find that FlowSim outperforms prior learned simulators on long rollouts.', True),
         ('The proposed method shows a significant advantage over existing numerical solvers.', True),
     ]),
    # a paper that says its method trails a baseline is not contradicted by a claim that says so
    ("own_method_behind_said_30", 'CheapNet',
     'We introduce CheapNet, a pruned detector. CheapNet lags behind state-of-the-art detectors by 2 points of mAP but '
     'runs ten times faster.',
     [
         ('CheapNet trails state-of-the-art detectors by 2 points of mAP.', True),
     ]),
    # antonyms: outnumber (a ranking of counts), lightweight/heavyweight, suppress/amplify, hinder/advance-like gains,
    # "differently" against "the same way"
    ("antonyms_30", 'Robust',
     'Convergence holds as long as honest workers outnumber adversarial workers. The learned policies are lightweight. '
     'Such autoencoders suppress the perturbations. Each sequence should be treated differently based on its degree of '
     'memorization. Label noise hinders calibration.',
     [
         ('Convergence holds even when adversarial workers outnumber honest workers.', False),
         ('The learned policies are heavyweight.', False),
         ('Such autoencoders amplify the perturbations.', False),
         ('Every sequence should be treated the same way regardless of its degree of memorization.', False),
         ('Label noise improves calibration.', False),
         ('Convergence holds as long as honest workers outnumber adversarial ones.', True),
         ('Such autoencoders suppress the perturbations.', True),
     ]),
    # paraphrase verbs and nouns (recast, exploit, devise, derive, remedy, reweight, prompted), "nonetheless" claims
    # nothing, and the field's acronyms (CDFs, SSMs) for their long forms
    ("paraphrases_30", 'Sampler',
     'We reframe the approach as amortized Langevin sampling. It makes it possible to leverage Tensor Cores. Unlearning '
     'takes the form of devising new algorithms. We establish general conditions for the sign of the penalty. Federated '
     'learning provides a solution. The ensemble adjusts the logits of the models. The open problem even led to the '
     'proposal of an alternative index. Many image pairs can have vastly different quality scores. A generator '
     'parametrizes the inverse cumulative distribution functions. State space models have a memory limitation.',
     [
         ('The authors recast the approach as amortized Langevin sampling.', True),
         ('It can exploit Tensor Cores.', True),
         ('Unlearning amounts to designing new algorithms.', True),
         ('The authors derive general conditions for the sign of the penalty.', True),
         ('Federated learning offers a remedy.', True),
         ('The ensemble reweights the logits of the models.', True),
         ('The open problem even prompted the proposal of an alternative index.', True),
         ('Many image pairs can nonetheless have vastly different quality scores.', True),
         ('A generator parametrizes the inverse CDFs.', True),
         ('SSMs have a memory limitation.', True),
     ]),
    # names written in math, as a plain-text answer types them; "by contrast" after a number is no difference
    ("math_names_and_by_contrast_30", 'P2INNs',
     'We propose parameterized physics-informed neural networks (P$^2$INNs). Training Aurora on the ImageNet '
     '$64\\times64$ dataset improves FID. ERM on this class is $\\mathsf{NP}$-hard. IRM is a total variation model '
     'based on $L^2$ norm (TV-$\\ell_2$). In contrast, Code Llama 34B achieves a pass@1 of 50%.',
     [
         ('P2INNs are parameterized physics-informed neural networks.', True),
         ('Training Aurora on ImageNet 64x64 improves FID.', True),
         ('ERM on this class is NP-hard.', True),
         ('IRM is a total variation model based on the L2 norm (TV-l2).', True),
         ('Code Llama 34B, by contrast, achieves a pass@1 of 50%.', True),
         ('Training Aurora on ImageNet 32x32 improves FID.', False),
         ('IRM is a total variation model based on the L1 norm.', False),
         ('Code Llama 34B achieves a pass@1 50% higher.', False),
     ]),
]


SESSION_31_CASES = [
    # digits inside a name ("3D", "E5-Mistral-7B-Instruct") are no quantity, in the claim as in the abstract: the claim's
    # "three tasks" and "7B model" are checked against the sentences that count them
    ("digits_inside_names_31", 'Teleoperation',
     'The interface uses an intermediate 3D scene representation, enabling real-time view rendering on the operator side. '
     'These design elements enable policies for three complex bimanual tasks. It achieves a top-1 retrieval accuracy of '
     '40.1%, outperforming baselines such as E5-Mistral-7B-Instruct (15.0%) and BM25 (9.8%). Human studies show that '
     'ScholarBot, despite being a 7B model, significantly outperforms ChatGPT.',
     [
         ('The interface uses an intermediate 3D scene representation that allows real-time view rendering for the '
          'operator, and these design elements enable policies for three complex bimanual tasks.', True),
         ('ScholarBot reaches a top-1 retrieval accuracy of 40.1%, ahead of E5-Mistral-7B-Instruct (15.0%) and BM25 '
          '(9.8%), and in human studies this 7B model significantly outperforms ChatGPT.', True),
         ('The interface uses an intermediate 3D scene representation that allows real-time view rendering for the '
          'operator, and these design elements enable policies for four complex bimanual tasks.', False),
     ]),
    # "by" and a gerund is a means, not the size of a change ("by 38.77%, demonstrating" still is one)
    ("by_a_gerund_is_a_means_31", 'SuperBPE',
     'We introduce SuperBPE, a superword tokenizer. In experiments, we pretrain 8B transformer LMs from scratch. '
     'OxyGenerator reduces MAPE by 38.77%, demonstrating its promise.',
     [
         ('SuperBPE is a superword tokenizer, and the authors test it by pretraining 8B transformer LMs from scratch.', True),
         ('OxyGenerator cuts MAPE by 38.77%.', True),
         ('SuperBPE is a superword tokenizer, and the authors test it by pretraining 7B transformer LMs from scratch.', False),
     ]),
    # past a comma, the words after the next number are that number's: "to 89.4%, a 6.2% improvement" gives 89.4 as a
    # level, not a difference; "distinct" is "unique", a word of difference like "different"
    ("a_comma_ends_a_numbers_words_31", 'Speculative Thinking',
     'With the assistance of the 32B reasoning model, the 1.5B model\'s accuracy on MATH500 increases from 83.2% to '
     '89.4%, marking a substantial improvement of 6.2%. Current methods necessitate changes to network training to '
     'address feature collapse, where unique inputs map to identical feature vectors.',
     [
         ('With help from the 32B reasoning model, the 1.5B model\'s accuracy on MATH500 rises from 83.2% to 89.4%, a 6.2% '
          'improvement.', True),
         ('With help from the 32B reasoning model, the 1.5B model\'s accuracy on MATH500 rises from 83.2% to 89.4%, a 7.2% '
          'improvement.', False),
         ('Existing approaches have to modify how the network is trained to deal with feature collapse, in which distinct '
          'inputs are mapped to the same feature vector.', True),
     ]),
]
SESSION_32_CASES = [
    # a bound, power or root is one of the abstract's, whole, however either writes it (LaTeX or Unicode, "ε^-1" or
    # "1/ε", "√" or "sqrt"): "O(d log(d + T))" is not the abstract's "O(d^2 log(d + T))", nor "Õ(1/ε)" its "Õ(1/ε²)"
    ("a_bound_is_the_abstracts_whole_32", 'Bandits and testing',
     r'The generalized algorithm achieves a regret rate of $O ( d^2 \log ( d + T ) )$ for LL-OLQS. We distinguish '
     r'values separated by $\epsilon$ using $\tilde{O}(\frac{1}{\epsilon^2})$ samples. Our method attains the minimax '
     r'regret $\tilde{\mathcal{O}}(\sqrt{dT})$. Initialization from $\tilde O(k/\varepsilon^2)$ samples suffices. The '
     r'iteration complexity is $\mathcal{O}(\epsilon^{-3}\ln\epsilon^{-1})$.',
     [
         ('The generalized algorithm achieves a regret rate of O(d² log(d + T)) for LL-OLQS.', True),
         ('The generalized algorithm achieves a regret rate of O(d log(d + T)) for LL-OLQS.', False),
         ('Values separated by ε can be distinguished with Õ(1/ε²) samples.', True),
         ('Values separated by ε can be distinguished with Õ(1/ε) samples.', False),
         ('The method attains the minimax regret Õ(√(dT)).', True),
         ('The method attains the minimax regret Õ(d√T).', False),
         ('Initialization from roughly k/ε² samples suffices.', True),
         ('Initialization from roughly k²/ε² samples suffices.', False),
         ('The iteration complexity is O(ε^-3 ln(1/ε)).', True),
         ('The iteration complexity is O(ε^-4 ln(1/ε)).', False),
     ]),
    # a paper's own macro for O ("\Ocal"), a display fraction and a root of an accented letter are read, not dropped
    ("a_papers_own_macros_for_a_bound_32", 'Preconditioning and kernels',
     r'Our framework provides an $\Ocal(\kappa^\star \log(1/\varepsilon))$ complexity. The error rate is '
     r'$\mathcal{O}\left(\sqrt{\dfrac{\gamma_T}{T}} + \dfrac{\gamma_T}{T \varepsilon}\right)$. The regret is '
     r'bounded by $O(\sqrt{\bar{d}T}(P_T+1))$.',
     [
         ('The framework provides an O(κ* log(1/ε)) complexity.', True),
         ('The framework provides an O(sqrt(κ*) log(1/ε)) complexity.', False),
         ('The error rate is O(sqrt(γ_T/T) + γ_T/(Tε)).', True),
         ('The regret is bounded by O(sqrt(d_bar T)(P_T+1)).', True),
         ('The regret is bounded by O(d_bar sqrt(T)(P_T+1)).', False),
     ]),
    # outside a bound, a fraction of symbols and the symbols and operators around a power are one formula
    ("a_formula_outside_a_bound_32", 'Attention and sensitivity',
     r'The WS of standard random features is of order $1/\sqrt{n}$, $n$ being the number of words. FlashAttention '
     r'requires $\frac{N^2d^2}{M}$ I/O operations where $M$ is the size of cache.',
     [
         ('The word sensitivity of standard random features is of order 1/√n, where n is the number of words.', True),
         ('The word sensitivity of standard random features is of order 1/n, where n is the number of words.', False),
         ('FlashAttention requires N^2 d^2 / M I/O operations, where M is the cache size.', True),
         ('FlashAttention requires N^2 d / M I/O operations, where M is the cache size.', False),
     ]),
    # a word at the edge of a number's window is read with its neighbour outside it: "100% data usability by
    # augmenting" gives the means, not a difference of 100%; "rather than with a single number" is a contrast
    ("a_window_edge_reads_its_neighbour_32", 'exUMI',
     'We present exUMI, a data collection device that enhances the vanilla UMI with robust proprioception, achieving 100% '
     'data usability. Rather than comparing systems using a single number, they should be compared on a plane. '
     'It improves accuracy by 5% over the baseline.',
     [
         ('exUMI is a data collection device that reaches 100% data usability by augmenting the vanilla UMI with robust '
          'proprioception.', True),
         ('The authors compare systems on a plane rather than with a single number.', True),
         ('exUMI improves data usability by 100% over the vanilla UMI.', False),
     ]),
]
SESSION_33_CASES = [
    # a negation of the abstract stated plainly is read even when the claim negates something else ("no-regret" is a term)
    ("a_dropped_negation_beside_a_term_33", 'Hardness of steering learners',
     'Unless P = NP, no polynomial-time optimizer can compute a near-optimal strategy against a learner using a '
     'standard no-regret algorithm.',
     [
         ('Unless P = NP, no polynomial-time optimizer can compute a near-optimal strategy against a no-regret learner.', True),
         ('A polynomial-time optimizer can compute a near-optimal strategy against a learner using a standard no-regret '
          'algorithm.', False),
     ]),
    # "A rather than B" sets B aside as "not B but rather A" does; "no test can detect" restates "detection is
    # impossible for any test", and the same "impossible" said of the same subject is no new negation
    ("a_negation_said_as_the_abstract_says_it_33", 'Changepoint detection',
     'The agents face time-varying constraints, which are not adversarial but rather endogenous to the system. Bet et '
     'al. conjecture that detection becomes impossible for any test if the change occurs late. In this paper, we '
     'resolve the conjecture, proving that detection is indeed impossible if the change occurs late.',
     [
         ('The agents face constraints that vary over time and are endogenous to the system rather than adversarial.', True),
         ('The agents face constraints that vary over time and are adversarial rather than endogenous to the system.', False),
         ('Bet et al. conjecture that no test can detect the change if it occurs late, and the paper proves that '
          'detection is indeed impossible in that regime.', True),
     ]),
    # "prioritize A over B" is a preference: swapping A and B reverses it
    ("a_preference_stated_with_over_33", 'Concept erasure',
     'Previous concept erasure techniques have prioritized robustly erasing concepts over retaining the utility of '
     'the resultant representations.',
     [
         ('Earlier concept erasure methods favored robust erasure of concepts over keeping the utility of the resulting '
          'representations.', True),
         ('Previous concept erasure techniques have prioritized retaining the utility of the resulting representations '
          'over robustly erasing concepts.', False),
     ]),
    # bounds spelt in ASCII ("tilde-O(", "Theta(") are read as the abstract's formulas, and checked whole
    ("a_bound_spelt_in_ascii_33", 'Delayed feedback',
     r'We answer affirmatively by giving a $\tilde{O}(k/\epsilon)$-query algorithm for relative-error junta testing. In the full-information setting, the minimax regret is '
     r'$\Theta(\sqrt{T(d+1)\log(K)})$ and the optimal capacity is $\Theta(1)$.',
     [
         ('The authors answer affirmatively with a tilde-O(k/epsilon)-query algorithm for relative-error junta testing.', True),
         ('In the full-information setting the minimax regret is Theta(sqrt(T(d+1)log(K))).', True),
         ('In the full-information setting the optimal capacity is Theta(log(K)).', False),
     ]),
    # a number that indexes a symbol ("ℓ2-norm") is no difference after "by"; "by post-training" is a means
    ("an_index_and_a_hyphenated_means_33", 'Sparse autoencoders',
     r'The $\ell_2$-norm of the sparse feature vector can be approximated with the $\ell_2$-norm of the dense vector. '
     'We validate the hypothesis at scale, where we post-train 8B models on preference data.',
     [
         ('The ℓ2-norm of the sparse feature vector can be approximated by the ℓ2-norm of the dense vector.', True),
         ('The hypothesis is validated at scale by post-training 8B models on preference data.', True),
         ('The hypothesis is validated at scale by post-training 70B models on preference data.', False),
     ]),
    # an adjective the sentence only says qualified ("quasi-polynomial", "near-optimal") is not said bare
    ("a_qualifier_dropped_33", 'Learning shallow quantum circuits',
     'Our algorithm achieves quasi-polynomial sample- and time-complexity for learning unknown QAC0 unitaries. The '
     'regret of the second method is near-optimal.',
     [
         ('The algorithm has quasi-polynomial sample and time complexity for learning unknown QAC0 unitaries.', True),
         ('The algorithm achieves polynomial sample and time complexity for learning unknown QAC0 unitaries.', False),
         ('The regret of the second method is optimal.', False),
     ]),
    # every item of a list of examples must be one the abstract gives, not only the first: an invented "contextual
    # bandits" among them is as sure as an unknown name (no model may rescue it); a clause after a comma is no item
    ("each_listed_example_33", 'Self-normalized concentration',
     'Further, we provide applications in prototypical statistical tasks, such as parameter estimation in online '
     'linear regression, autoregressive modeling, and bounded mean estimation via a new empirical Bernstein inequality.',
     [
         ('The authors give applications to tasks such as parameter estimation in online linear regression, '
          'autoregressive modeling, and bounded mean estimation via a new empirical Bernstein inequality.', True),
         ('The authors give applications to tasks such as parameter estimation in online linear regression, '
          'autoregressive modeling, contextual bandits, and bounded mean estimation via a new empirical Bernstein '
          'inequality.', False),
         ('The authors give applications to statistical tasks such as autoregressive modeling, and they derive a new '
          'empirical Bernstein inequality for bounded mean estimation.', True),
     ]),
    # "measures in SR, like tree depth," names examples of the measures, not something the paper is likened to
    ("like_after_a_plural_noun_and_its_modifier_33", 'Symbolic regression',
     'Traditional complexity measures in SR, such as the number of terms or expression tree depth, often fail to '
     'capture the difficulty of specific analytical tasks.',
     [
         ('Conventional complexity measures in SR, like expression tree depth or the number of terms, often do not '
          'capture how difficult specific analytical tasks are.', True),
     ]),
]
RECENT_CASES = (SESSION_26_CASES + SESSION_27_CASES + SESSION_28_CASES + SESSION_29_CASES + SESSION_30_CASES + SESSION_31_CASES
                + SESSION_32_CASES + SESSION_33_CASES)


@pytest.mark.parametrize("what,title,abstract,claims", RECENT_CASES, ids=[c[0] for c in RECENT_CASES])
def test_session_26_to_33_rules(what, title, abstract, claims):
    test_session_18_rules(what, title, abstract, claims)


def test_an_interval_is_no_marker_and_a_lower_case_word_does_not_start_a_claim():
    """"the action space [0,1]" is an interval, not markers 0 and 1; "a stream of N i.i.d. random bits" is one claim
    (a sentence does not start in lower case), so the claim keeps its one marker."""
    from assistant.grounding import verify
    from assistant.types import Source

    source = Source(1, "p1", "Bandits", "We study piecewise constant bandits with one change point across the action "
                                        "space [0,1]. One sees a stream of N i.i.d. random bits drawn from Bernoulli(p).")
    for claim in ("The paper studies piecewise constant bandits with one change point across the action space [0,1] [1].",
                  "One sees a stream of N i.i.d. random bits drawn from Bernoulli(p) [1]."):
        text, citations, removed = verify(claim, [source], "bandits", strict=True)
        assert [c.paper_id for c in citations] == ["p1"] and not removed, (text, removed)
        assert text.count("[1]") == 1 and ("[0,1]" in text) == ("[0,1]" in claim), text


def test_a_parenthesised_abbreviation_does_not_end_a_claim():
    """"(vs. 32.11%)" and "(i.e. Slater parameters)" stay inside their sentence: the claim keeps its marker."""
    from assistant.grounding import verify
    from assistant.types import Source
    from ingest.chunking import sentence_spans

    abstract = ("DeepRetrieval reaches 63.18% recall for trial search (vs. previous SOTA 32.11%) using real-world search "
                "engines. The decision maker must know the value of the parameters of strict feasibility (i.e. Slater "
                "parameters) beforehand.")
    source = Source(1, "p1", "DeepRetrieval", abstract)
    text, citations, removed = verify("DeepRetrieval reaches 63.18% recall for trial search (vs. 32.11%) with real-world "
                                      "search engines [1].", [source], "What recall does DeepRetrieval reach?", strict=True)
    assert [c.paper_id for c in citations] == ["p1"] and not removed, (text, removed)
    assert len(sentence_spans(abstract)) == 2  # at ingest too: the abstract's sentence chunks


def test_a_sentence_that_ends_inside_math_ends_there():
    """"... $n-o(\\sqrt{n}).$ Kaddouri et al. ..." is two sentences, at ingest and for the check; a period inside math
    that does not close it ("$x. Y$") ends nothing."""
    from assistant.claims import Abstract, check
    from ingest.chunking import sentence_spans

    abstract = (r"We prove that the detection threshold is $n-o(\sqrt{n}).$ Kaddouri et al. conjectured this threshold "
                r"for the planted model. The bound $x. Y$ holds for every graph.")
    pieces = [abstract[s.start:s.end] for s in sentence_spans(abstract)]
    assert pieces == [r"We prove that the detection threshold is $n-o(\sqrt{n}).$",
                      "Kaddouri et al. conjectured this threshold for the planted model.",
                      "The bound $x. Y$ holds for every graph."], pieces
    paper = Abstract.of("Thresholds", abstract)
    verdict = check("Kaddouri et al. conjectured this threshold for the planted model.", paper)
    assert verdict.supported and [paper.text[a:b] for a, b in verdict.evidence] == [pieces[1]], verdict


def test_a_marker_at_the_end_of_a_passage_stands_for_its_unmarked_sentences():
    """"S1. S2 [1]": when paper 1 supports S1 too, S1 keeps its sentence with paper 1's marker, even when another
    given paper also supports it (no unique attribution); a sentence no paper supports is still removed."""
    from assistant.grounding import verify
    from assistant.types import Source

    one = Source(1, "p1", "Prompting", "Naive prompting methods significantly undermine truthfulness. We introduce "
                                       "prompting variants that show marked improvements over existing baselines.")
    two = Source(2, "p2", "Truthfulness", "Naive prompting methods significantly undermine truthfulness in small models.")
    text, citations, removed = verify(
        "Naive prompting significantly undermines truthfulness. The authors introduce prompting variants with marked "
        "improvements over existing baselines [1]. It also cures cancer.", [one, two], "prompting", attribute=0.6,
        strict=True)
    assert text.startswith("Naive prompting significantly undermines truthfulness. [1] The authors") and "cancer" not in text, text
    assert [r.reason for r in removed] == ["no citation"], removed
    # not across a line break: there the sentence needs a source of its own, and two papers support it alike
    text, _, removed = verify(
        "Naive prompting significantly undermines truthfulness.\nThe authors introduce prompting variants with marked "
        "improvements over existing baselines [1].", [one, two], "prompting", attribute=0.6, strict=True)
    assert "truthfulness" not in text and [r.reason for r in removed] == ["no citation"], (text, removed)
