"""Claim-level entailment checks: does this abstract say what the claim says?

A claim (a sentence or clause an engine wrote, markers removed) is supported by a paper when a
sentence of its abstract, or two of them together, cover the claim's content and
1. every number or quantity in the claim appears in those sentences (``70.7\\%`` = ``70.7%``,
   "two" = 2, ``2x`` = ``2×``);
2. the polarity agrees: no negation or direction word ("fails", "without", "worse", "under-")
   on one side that the other contradicts;
3. the claim's rare terms (names of methods, data sets, baselines and models, sizes, and words
   that are rare in English) occur in the abstract, allowing inflections, a few common
   paraphrases and the abstract's own acronym definitions; numbered names whole ("ResNet-50")
   and formulas' symbols as the abstract writes them;
4. "Like X, the method does Z" is not what the abstract says of X alone.

Everything here is deterministic and lexical: stems from PyStemmer (the keyword index's
analyser) and word rarity from ``wordfreq``'s English frequency lists, both shipped offline.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator, Literal

from assistant import entailment
from ingest.chunking import sentence_spans
from vectorstore.text import FUNCTION_WORDS

# connectives state how facts relate, which only the entailment model can judge; as words they claim nothing
STOPWORDS = FUNCTION_WORDS | frozenset(
    "whereas although though thereby therefore meanwhile consequently besides likewise because since yet nonetheless "
    "nevertheless still".split())

# ----------------------------------------------------------------------------- words

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][a-z]+)?|\d+(?:[.,]\d+)*")
_COMPOUND = re.compile(r"\b[a-z]+(?:-[a-z]+)+\b")
_NAME_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")

# words an answer uses to talk about a paper rather than about its content
_GENERIC = frozenset(
    "paper papers work works study studies authors author approach approaches method methods methodology technique "
    "techniques framework frameworks propose proposes proposed proposing introduce introduces introduced introducing "
    "present presents presented presenting novel new show shows showed shown demonstrate demonstrates demonstrated "
    "result results find finds found finding findings report reports reported use uses used using based "
    "called named term termed known achieve achieves achieved reach reaches reached obtain obtains obtained "
    "develop develops developed design designs designed provide provides provided offer offers enable enables "
    "allow allows make makes made help helps address addresses tackle tackles leverage leverages leveraging "
    "employ employs utilize utilizes utilizing first key main overall existing prior previous recent "
    "experiment experiments experimental extensive empirical empirically evaluation evaluations evaluate evaluates "
    "evaluated benchmark benchmarks called one".split()
)
# paraphrases an answer commonly uses for an abstract's word (stems are compared, so one form each)
_SYNONYMS: tuple[frozenset[str], ...] = tuple(frozenset(group.split()) for group in (
    "outperform outperforms outperformed surpass surpasses surpassed beat beats exceed exceeds exceeded better superior",
    "improve improves improved improvement improvements boost boosts enhance enhances gain gains increase increases",
    "reduce reduces reduced reduction decrease decreases cut cuts lower lowers lowering shrink",
    "fast faster speed speeds speedup accelerate accelerates quicker",
    "large larger big bigger",
    "small smaller tiny",
    "accurate accuracy precise",
    "need needs require requires required requirement necessary",
    "know knows knowing known knowledge",
    "show shows demonstrate demonstrates prove proves establish establishes",
    "model models network networks",
    "dataset datasets data corpus corpora",
    "task tasks problem problems",
    "efficient efficiency cheap cheaper",
    "robust robustness",
    "optimal optimality",
    "state-of-the-art sota",
    "sota state",
    "substantial significant considerable material notable",
    # verbs and adjectives a paraphrase swaps freely in an abstract's sentence
    "explore explores probe probes probing investigate investigates examine examines analyze analyzes analyse analysis "
    "study studies",
    "relax relaxes relaxed loosen loosens loosened weaken weakens weakened",
    "create creates build builds construct constructs produce produces",
    "reveal reveals uncover uncovers expose exposes",
    "crucial important essential critical vital",
    "goal goals aim aims objective objectives purpose",
    "various diverse multiple several numerous",
    "separate separates separating differentiate differentiates differentiating distinguish distinguishes",
    "revisit revisits reconsider reconsiders reexamine reexamines",
    "usually typically commonly generally often tend tends tended",
    "keep keeps keeping maintain maintains maintaining retain retains retaining",
    "prove proves proved proven provable provably proof proofs",
    "meet meets satisfy satisfies fulfil fulfils fulfill fulfills",
    "limit limits limited limiting restrict restricts restricted restricting constrain constrains constrained",
    "costly costlier expensive demanding",
    "achieve achieves achieved achieving attain attains attained attaining",
    "extra additional",
    "rarely seldom",
    "handle handles handling cope copes coping",
    "abundant abundance plentiful plenty",
    "accommodate accommodates accommodating comply complies complying",
    "appropriate suitable suited adequate",
    "traditional conventional classical classic",
    "problem problems challenge challenges issue issues difficulty difficulties",
    "plateau plateaus plateaued plateauing saturate saturates saturated saturating stall stalls stalled stagnate stagnates",
    "solution solutions remedy remedies fix fixes",
    "reframe reframes reframing recast recasts recasting reformulate reformulates reformulating",
    "leverage leverages leveraging exploit exploits exploiting harness harnesses harnessing utilize utilizes utilizing",
    "devise devises devising design designs designing",
    "derive derives derived deriving establish establishes established",
    "adjust adjusts adjusting reweight reweights reweighting",
    "lead leads led prompt prompted prompting cause causes caused trigger triggers triggered",
))
NEGATIONS = frozenset("not no never none neither nor without cannot cant fail fails failed failing lack lacks lacking unable "
                      "absent absence impossible eliminate eliminates eliminated eliminating avoid avoids avoiding "
                      "obviate obviates obviating remove removes removed removing struggle struggles struggling "
                      "prevent prevents prevented preventing stop stops stopped cease ceases ceased plateau plateaus plateaued "
                      "ignore ignores ignored ignoring disregard disregards disregarded disregarding neglect neglects neglected "
                      "neglecting overlook overlooks overlooked overlooking outside inability incapable omit omits omitted omitting exclude "
                      "excludes excluded excluding saturate saturates saturated saturating stagnate stagnates stagnated "
                      "stagnating stall stalls stalled".split())
_WIDEN, _NARROW = "widen widens widened widening", "narrow narrows narrowed narrowing bridge bridges bridged bridging"
# opposite directions a finding can be reported in; each side lists words that say the same thing
_OPPOSITES: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple((frozenset(a.split()), frozenset(b.split())) for a, b in (
    ("outperform outperforms outperformed outperforming beat beats surpass surpasses exceed exceeds superior superiority "
     "better best outnumber outnumbers outnumbered "
     "improve improves improved improving",  # "improves on X" / "falls short of X"
     "underperform underperforms underperformed underperforming trail trails lag lags inferior worse worst short behind"),
    ("high higher highest more greater large larger largest bigger increase increases increased increasing raise raises "
     "substantial considerable",
     "low lower lowest less lesser fewer little small smaller smallest decrease decreases decreased decreasing reduce reduces reduced reducing "
     "compress compresses compressed compressing"),
    ("improve improves improved improving boost boosts enhance enhances enhanced enhancing gain gains help helps",
     "degrade degrades degraded degrading deteriorate deteriorates deteriorated deteriorating hurt hurts harm harms worsen "
     "worsens drop drops weaken weakens weakened weakening hinder hinders hindered hindering impede impedes impeded impeding"),
    ("fast faster fastest quicker speedup accelerate accelerates", "slow slower slowest slowdown slows"),
    ("stronger strongest robust strengthen strengthens strengthened strengthening",
     "weaker weakest fragile brittle weaken weakens weakened weakening susceptible vulnerable susceptibility vulnerability sensitive "
     "fragility"),
    ("preserve preserves preserving preserved maintain maintains maintaining maintained keep keeps keeping kept retain "
     "retains retaining retained intact remain remains remaining",
     "change changes changing alter alters altering distort distorts distorting lose loses losing sacrifice sacrifices sacrificing "
     "increase increases increased increasing reduce reduces reduced reducing decrease decreases decreased decreasing "
     "degrade degrades degraded degrading"),
    ("consistent consistently stable similar same uniform equivalent equivalence",
     "vary varies varying inconsistent different differently differ differs unstable difference differences distinct"),
    ("simple simpler simplest easy easier easiest cheap cheaper", "complex complicated hard harder hardness difficult difficulty costly expensive challenging"),
    ("succeed succeeds success successful", "fail fails failure unsuccessful"),
    ("above", "below"),
    ("positive positively", "negative negatively"),
    ("dependent depends depend", "independent"),
    ("specific", "agnostic"),
    ("tight tighter tightest sharp sharper", "loose looser loosest"),
    ("support supports supported supporting confirm confirms confirmed agree agrees align aligns aligned",
     "challenge challenges challenged challenging contradict contradicts refute refutes dispute disputes question questions"),
    ("same equal equally identical unchanged comparable", "higher lower more less greater larger smaller increased reduced short behind"),
    ("maximize maximizes maximizing maximise maximises maximising", "minimize minimizes minimizing minimise minimises minimising"),
    ("open", "closed"),
    ("dense denser densely", "sparse sparser sparsely sparsity"),
    ("adaptive adaptively adapts adapt dynamic dynamically", "fixed static"),
    ("linear linearly", "exponential exponentially superlinear quadratic quadratically sublinear sublinearly logarithmic "
     "logarithmically"),
    ("single sole", "multiple several numerous"),
    ("polynomial polynomially", "exponential exponentially superpolynomial"),
    (_WIDEN, _NARROW),
    ("earlier earliest sooner", "later latest"),  # not "early stopping"
    ("rare rarely uncommon", "common commonplace prevalent widespread"),
    ("flat flatter flattest flatness", "sharp sharper sharpest sharpness"),
    ("reassuring encouraging", "worrying alarming discouraging troubling"),
    ("significantly substantially considerably greatly dramatically markedly drastically", "slightly marginally modestly barely"),
    # rates: "logarithmic regret" is not the abstract's "sublinear regret", "linearly" not its "square root of"
    ("logarithmic logarithmically polylogarithmic", "sublinear sublinearly linear linearly polynomial polynomially quadratic "
     "quadratically exponential exponentially superlinear root sqrt"),
    ("root sqrt", "linear linearly quadratic quadratically exponential exponentially logarithmic logarithmically"),
    ("many", "few"),  # "in the many-step regime" for "in the few-step regime"
    ("negligible", "substantial considerable sizable"),
    ("lightweight", "heavyweight"),
    ("suppress suppresses suppressed suppressing dampen dampens dampened attenuate attenuates attenuated",
     "amplify amplifies amplified amplifying magnify magnifies magnified"),
))
_COMPARING = frozenset("than compared versus vs".split())
# a claim may not say of all what the abstract says of most, nor the other way round: (all, most) of things, of times
# "always stems from" for the abstract's "can stem from"; a claim's own "can" needs no "always" in the abstract
_MODALS = frozenset("can may might could".split())
_QUANTIFIERS = ((frozenset("all every".split()), frozenset("most many some several certain few majority".split())),
                (frozenset(["always"]), frozenset("often usually generally typically sometimes frequently mostly".split()) | _MODALS))
_UNIVERSAL = frozenset().union(*(universal for universal, _ in _QUANTIFIERS))
_HEDGED = frozenset().union(*(hedged for _, hedged in _QUANTIFIERS))
# verbs with which one thing ranks above or below another: "A outperforms B"
_RANKING_VERBS = frozenset("outperform outperforms outperformed outperforming beat beats beaten surpass surpasses surpassed "
                           "exceed exceeds exceeded underperform underperforms underperformed trail trails trailed "
                           "outnumber outnumbers outnumbered".split())
# words that rank A above B when "over B" follows
_GAINS = frozenset("improve improves improved improving improvement improvements gain gains advantage advantages edge".split())
# "B generalizes A" (not "generalizes to", "generalizes well"), "subsumes": a ranking by generality, side _GENERAL
_GENERALIZES = frozenset("generalize generalizes generalized generalise generalises generalised subsume subsumes subsumed".split())
_GENERAL = 2
# comparisons read as rankings too ("A yields higher quality than B"), one side per comparative pair and direction from
# _COMPARED on: the pairs better/worse, more/less, faster/slower, stronger/weaker
_COMPARED = 3
_COMPARATIVE_PAIRS = (0, 1, 3, 4)
_GENERALIZES_TO = frozenset("to across beyond from in on over outside with within and or for at well poorly".split())
# the agent of a passive ranking that names nothing ("outperformed by it by a wide margin")
_PRONOUNS = frozenset("it its them they this these that those ours us we".split())
# what a paper compares itself with: "baselines", "prior methods", "state-of-the-art approaches"
_BASELINE_WORDS = frozenset("baseline baselines prior previous existing competing competitor competitors conventional "
                            "traditional classical classic sota state-of-the-art art arts other alternative alternatives".split())
# words that make a sentence a comparison: the pairs better/worse, more/less, faster/slower, stronger/weaker, same/unlike
_COMPARISON_WORDS = frozenset().union(*(side for i in (0, 1, 3, 4, 15) for side in _OPPOSITES[i])) | frozenset(
    "over against beyond unlike whereas relative comparison comparable compare compares contrast".split())
# what a result has more of when it is better, and less of
_BETTER_MORE = frozenset("accuracy accuracies performance quality precision recall fidelity efficiency robustness utility "
                         "reward rewards return returns throughput generalization score scores scalability stability diversity "
                         "interpretability expressiveness expressivity reliability transferability".split())
_BETTER_LESS = frozenset("error errors loss losses cost costs latency regret variance overhead perplexity runtime".split())
_DOMAINS = frozenset("video videos audio speech image images visual text textual language languages graph graphs code "
                     "music robot robots robotic medical clinical molecule molecules molecular protein proteins chemical "
                     "financial finance weather climate tabular biology biological chemistry physics health healthcare "
                     "driving games legal traffic satellite advertising ads e-commerce retail recommendation recommender "
                     "education agriculture astronomy genomics genomic neuroscience radiology pathology seismic "
                     "cybersecurity fraud manufacturing aerial epidemiology ecology drug drugs wildlife ocean navigation maze".split())
# verbs of change, not of comparison: "reduces the sampling time" compares nothing with anything
_CHANGE_VERBS = frozenset("increase increases increased increasing raise raises decrease decreases decreased decreasing reduce "
                          "reduces reduced reducing compress compresses compressed compressing improve improves improved "
                          "improving accelerate accelerates slows".split())
_SUPERLATIVES = frozenset("best worst largest smallest highest lowest greatest strongest weakest fastest slowest".split())
_NAME_SUFFIXES = frozenset("based style like derived driven aware guided specific free level wise type only inspired".split())
_LACKING = frozenset("lack lacks lacking absent absence".split())
# "X has been largely overlooked": in the passive, what is ignored comes first
_PASSIVE_NEGATIONS = frozenset("ignored neglected overlooked disregarded".split())
_PASSIVE_CUES = frozenset("be been is are was were being largely often mostly widely generally usually commonly "
                          "frequently completely entirely typically".split())
_DIRECTION_WORDS = frozenset(w for pair in _OPPOSITES for side in pair for w in side)
# direction words that also name a kind of thing ("sparse regression"): a claim may not bring them in unsaid
_REWORDINGS = _DIRECTION_WORDS - frozenset("dense denser densely sparse sparser sparsely sparsity linear linearly exponential "
                                           "exponentially superlinear quadratic quadratically polynomial polynomially "
                                           "superpolynomial sensitive logarithmic logarithmically polylogarithmic sublinear "
                                           "sublinearly root sqrt".split()) \
    - frozenset(f"{_WIDEN} {_NARROW}".split())  # nor "widens the range of tasks" unsaid
Severity = Literal["fact", "polarity", "wording"]  # how surely a broken rule means the claim is unsupported: see _faults
_NEGATING_PREFIXES = ("non", "un", "in", "im", "ir", "il", "dis", "mis")
_NUMBER_WORDS: dict[str, float] = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
_NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "thousand": 1000, "million": 10**6,
                      "billion": 10**9, "twice": 2, "double": 2, "doubles": 2, "doubled": 2, "doubling": 2,
                      "triple": 3, "triples": 3, "tripled": 3, "tripling": 3, "half": 0.5, "single": 1})
# a count spelled out and followed by a noun ("a single DCA iteration", "two strong baselines") counts things, even after a
# comparison word ("the decrease of a single iteration", "outperforms two baselines"): not a difference unless one of these
# follows it ("two orders of magnitude", "three times faster")
_MAGNITUDES = frozenset("x times fold percent percentage points point pp orders order".split())
_LISTED = re.compile(r"\s*(?:%|\\%|x|×|percent)?\s*(?:,|,?\s+(?:and|or))\s+")  # "18.9% and 32.7%", "3x, 5x"
# "near-100%", "sub-10ms": a number joined to the word that qualifies it is still a number ("GPT-4" is a name)
_QUALIFIED = re.compile(r"\b(near|nearly|almost|approximately|about|around|roughly|over|under|sub|above|below)-(?=\d)",
                        re.IGNORECASE)
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])(?<![A-Za-z]-)(\d+(?:,\d{3})+|\d+(?:\.\d+)?)\s*(%|\\%|percent|x|×|[kKMB](?![A-Za-z])|"
                     r"thousand|million|billion|trillion)?(?![A-Za-z0-9])")
_ATTACHED = re.compile(r"(?<![\w.,-])(\d+(?:,\d{3})*|one|two|three|four|five|six|seven|eight|nine|ten)-([a-z]{3,})\b")
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_OWN_NAME = re.compile(r"\b(?:propose|proposes|introduce|introduces|present|presents|named|dubbed|called|termed)\b"
                       r"[^.;]{0,80}?\b((?=[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z0-9])[A-Z][A-Za-z0-9-]+)")
# acronyms the field uses without defining them: an answer may write either form whatever the abstract writes
_COMMON_ACRONYMS = {
    "ai": "artificial intelligence", "ml": "machine learning", "nlp": "natural language processing",
    "llm": "large language model", "lm": "language model", "vlm": "vision-language model",
    "mllm": "multimodal large language model", "rl": "reinforcement learning",
    "marl": "multi-agent reinforcement learning", "rlhf": "reinforcement learning from human feedback",
    "mdp": "markov decision process", "nn": "neural network", "dnn": "deep neural network",
    "cnn": "convolutional neural network", "rnn": "recurrent neural network", "gnn": "graph neural network",
    "mlp": "multilayer perceptron", "vit": "vision transformer", "gan": "generative adversarial network",
    "vae": "variational autoencoder", "sgd": "stochastic gradient descent", "gp": "gaussian process",
    "bo": "bayesian optimization", "mcmc": "markov chain monte carlo", "pde": "partial differential equation",
    "ode": "ordinary differential equation", "ood": "out-of-distribution", "kl": "kullback-leibler",
    "sota": "state of the art", "rag": "retrieval-augmented generation", "qa": "question answering",
    "lora": "low-rank adaptation", "mos": "mean opinion score",
    "cdf": "cumulative distribution function", "pdf": "probability density function",
    "sde": "stochastic differential equation", "ssl": "self-supervised learning", "ssm": "state space model",
    "moe": "mixture of experts", "icl": "in-context learning", "cot": "chain of thought",
    "mle": "maximum likelihood estimation", "svm": "support vector machine", "kd": "knowledge distillation",
    "nas": "neural architecture search", "fl": "federated learning", "ot": "optimal transport",
    "ntk": "neural tangent kernel", "mse": "mean squared error",
}
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "εϵ", "zeta": "ζ", "eta": "η",
          "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ",
          "sigma": "σ", "tau": "τ", "phi": "φϕ", "chi": "χ", "psi": "ψ", "omega": "ω"}
_ACRONYM = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,8}?)\(([A-Z][A-Za-z0-9-]*?)s?\)")


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_stemmer().stemWord(word.lower()))


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """wordfreq's Zipf frequency of an English word: ~7 for "the", ~3 for one in a million words, 0 if unseen."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word.lower(), "en"))


def rarity(word: str) -> float:
    """How much a word names something specific: 0 for everyday words, 1 for rare ones."""
    return max(0.0, min(1.0, (5.5 - zipf(word)) / 2.5))


def _synonym_stems() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _SYNONYMS:
        stems = {stem(w) for w in group}
        for s in stems:
            table.setdefault(s, set()).update(stems)
    return {k: frozenset(v) for k, v in table.items()}


_SYN: dict[str, frozenset[str]] = {}
_COMPARATIVES = frozenset(stem(w) for w in _DIRECTION_WORDS if stem(w).endswith("er"))  # "larger": not an agent noun


def synonyms(word_stem: str) -> frozenset[str]:
    if not _SYN:
        _SYN.update(_synonym_stems())
    return _SYN.get(word_stem, frozenset((word_stem,)))


_EMPHASIS = re.compile(r"\*+(?=\w)|(?<=\w)\*+")
# superscripts as powers, like LaTeX: "ε²" is "ε^2", "ε⁻²" "ε^-2", "10¹⁰" "10^10"
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


def unescape_latex_numbers(text: str) -> str:
    """Claims and abstracts compared as the reader sees them: LaTeX as plain text (``70.7\\%`` = ``70.7%``)."""
    from ingest.cleaning import unescape_latex

    text = _EMPHASIS.sub("", text)  # "**S**pecies-**P**rofile" is "Species-Profile"
    text = unescape_latex(text).replace("\\times", "×").replace("$", "")
    return _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPT_DIGITS), text)


_ENUMERATOR = re.compile(r"(?:(?<=[\s:;,])|^)\(?(?:\d{1,2}|[ivx]{1,4})\)(?=\s)")  # "1) it enables", "(ii) the"


def numbers(text: str, stated: bool = False) -> set[float]:
    """The numeric values a text states, digits or words ("two", "twice"); markers must be removed first.
    List enumerators ("1) … 2) …") are not quantities. ``stated``: an abstract's text, where "the two phases" counts
    them (in a claim it may only point back at two things just named)."""
    text = _QUALIFIED.sub(r"\1 ", _ENUMERATOR.sub(" ", unescape_latex_numbers(text)))
    found: set[float] = set()
    for match in _NUMBER.finditer(text):
        raw, unit = match.group(1).replace(",", ""), (match.group(2) or "")
        value = float(raw)
        if unit in ("k", "K"):
            value *= 1000
        elif unit == "M":
            value *= 10**6
        found.add(round(value, 6))
        if unit in ("%", "\\%", "percent") and value == 50:  # "50%": half
            found.add(0.5)
        if unit == "B":  # "7B" model size: the value, also 7e9 written out
            found.add(value * 10**9)
        if unit in _SCALES:  # "45.3 billion tokens" is "45.3B tokens", not 45.3 and a billion
            found.add(round(value * _SCALES[unit], 6))
    # "zero-shot", "one-shot", "Zero-Knowledge Proofs" count nothing in a claim; "45.3 billion" was read above.
    # An abstract's "one-shot training" is a single run.
    if stated and re.search(r"\bone-shot\b", text.lower()):
        found.add(1.0)
    lowered = re.sub(r"\b(?:zero-[a-z]+|one-shot)\b", "shot", text.lower())
    lowered = re.sub(r"(?<=\d)\s*(?:thousand|million|billion|trillion)\b", " ", lowered)
    words = re.findall(r"[a-z]+", lowered)
    # "one-sided", "two-stage", "single-step": a count inside a compound ("zero-shot" and "one-shot" were set aside above)
    for match in re.finditer(r"\b(one|single|two|three|four|five|six|seven|eight|nine|ten)-[a-z]", lowered):
        found.add(1.0 if match.group(1) == "single" else float(_NUMBER_WORDS[match.group(1)]))
    for match in re.finditer(r"\b(zeroth|first|second|third|fourth)[- ]order\b", lowered):  # "second-order stability"
        found.add(float(("zeroth", "first", "second", "third", "fourth").index(match.group(1))))
    for previous, word, after in zip([""] + words, words, words[1:] + [""]):
        if (word == "single" and after == "out") or (word in ("double", "doubles", "doubled") and after == "as"):
            continue  # "they single out one hypothesis", "it doubles as a detector": verbs
        if word == "one" and previous in ("just", "only", "exactly"):  # "just one task": a count, not "one of"
            found.add(1.0)
        if word in ("hundreds", "thousands", "millions", "billions") and after == "of":  # an order of magnitude
            found.add(float(_NUMBER_WORDS[word[:-1]]))
        if word == "pair" and previous == "a" and after == "of":
            found.add(2.0)
        if word in ("halve", "halves", "halved", "halving") or (word == "half" and (stated or after == "of" or previous in ("by", "in"))):
            found.add(0.5)  # "half of the variables", "cuts it in half" (an abstract's "half" counts wherever it stands)
        if word in _NUMBER_WORDS and (stated or word not in ("one", "half")):  # "one of": an idiom
            if previous in ("the", "these", "those") and word in ("two", "both") and not stated:
                continue  # "the two distributions": the ones just named, not a count
            found.add(float(_NUMBER_WORDS[word]))
    return found


@dataclass
class Terms:
    """A text's content words: stems with their weight, plus names, numbers and negation/direction cues."""

    weights: dict[str, float] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)      # stems of name-like tokens: "imagenet", "gpt-4", "7b"
    numbers: set[float] = field(default_factory=set)
    negated: list[list[str]] = field(default_factory=list)  # the content stems in each negation's scope, in order
    directions: list[tuple[int, int, set[str]]] = field(default_factory=list)  # (pair, side, context stems) per direction word
    contrasted: list[list[str]] = field(default_factory=list)  # what "rather than" / "instead of" set aside
    preferred: list[list[str]] = field(default_factory=list)  # and what they prefer to it: the words just before
    # "A outperforms B": per ranking verb, its side and the words before and after it (swapped in the passive)
    ranked: list[tuple[int, list[str], list[str]]] = field(default_factory=list)
    # "A achieves better X than B": per comparative, its pair and side, the words of its clause before it and after "than"
    compared: list[tuple[int, int, list[str], list[str]]] = field(default_factory=list)
    # relations a claim may assert that its facts do not: "compares" ("more precise than", "compared with"; not "rather
    # than", "other than", "more than two"), "ranks" ("works best for"), "restricts" ("can only be used with"), "already";
    # and "gap": it states a research gap ("remains underexplored")
    asserts: set[str] = field(default_factory=set)
    quantified: list[tuple[str, list[str]]] = field(default_factory=list)  # "all"/"most"... and the words after it
    negated_heads: list[set[str]] = field(default_factory=list)  # the first two words after each negation, any kind
    negated_before: list[list[str]] = field(default_factory=list)  # the content stems just before each negation: its subject
    negated_by: list[str] = field(default_factory=list)  # each negation's word ("impossible"); "" in a term ("label-free")
    # content stems the text says only inside a negation's clause or what "rather than" / "over" sets aside, and those
    # it says anywhere else: "no test can detect the change if it occurs" says "occur" aside, not plainly
    aside: set[str] = field(default_factory=set)
    plain: set[str] = field(default_factory=set)
    denies: bool = False  # a negation of a clause ("does not need"), not only of a compound's part ("no-regret", "label-free")
    # what the text says is hard or falls short without a negation word ("face challenges when processing X", "fall short
    # in X"): a claim may restate it as a negation ("struggle with X", "fail to X")
    troubled: list[list[str]] = field(default_factory=list)
    words: set[str] = field(default_factory=set)           # every lower-cased word, for prefix negations
    surface: dict[str, str] = field(default_factory=dict)  # stem -> the word as written
    number_context: dict[float, set[str]] = field(default_factory=dict)  # value -> content stems next to it
    # each time a value is written: the value, the content stems next to it, and whether it is said there as a difference
    # and as a bound (``relative``, ``bounded``: "by 1/(1-p)" and "into one LM" in one sentence)
    occurrences: list[tuple[float, frozenset[str], bool, bool]] = field(default_factory=list)
    relative: set[float] = field(default_factory=set)  # values said as a difference: "18.3% higher than", "by 2x"
    bounded: set[float] = field(default_factory=set)  # values said as a bound: "more than 27B", "over 27B", "at least 2"
    counted: dict[float, set[str]] = field(default_factory=dict)  # value -> the two stems after it: what it counts
    counted_at: list[frozenset[str]] = field(default_factory=list)  # the same, per entry of ``occurrences``
    attached: dict[float, set[str]] = field(default_factory=dict)  # value -> the word joined to it: "3-uniform", "three-layer"


def _is_name(token: str, position: int) -> bool:
    inner_upper = any(c.isupper() for c in token[1:])
    has_digit = any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    one_letter = len(token) > 3 and token[1] == "-" and token[0].isalpha()  # "k-means", "k-NN", "n-gram": terms of art
    return inner_upper or has_digit or one_letter or (position > 0 and token[:1].isupper() and len(token) > 1)


def _is_content(word: str) -> bool:
    return word not in STOPWORDS and word not in NEGATIONS and word not in _GENERIC and not word[0].isdigit() and len(word) > 1


# words next to a number that make it a difference, not a level: "18.3% higher than", "improves by 2x", "saves 40%"
_BY_PHRASES = frozenset("contrast comparison design default construction definition".split())  # "by contrast": no difference
_RELATIVE_CUES = frozenset(
    "higher lower more less better worse faster slower larger smaller fewer greater than by improvement improvements "
    "improves improved improve gain gains increase increases decrease decreases reduction reduces reduced reduce "
    "speedup speed-up saves saving savings outperforms outperforming surpassing surpasses boost boosts margin".split())


_BOUND_PHRASES = [["more", "than"], ["less", "than"], ["fewer", "than"], ["greater", "than"], ["over"], ["above"],
                  ["under"], ["below"], ["exceeding"], ["at", "least"], ["at", "most"], ["up", "to"]]
_RELATIVE_STEMS = frozenset(stem(w) for w in _RELATIVE_CUES)
# words with which an abstract states that one thing is paid for with another
_TRADE_STEMS = frozenset(stem(w) for w in "trade tradeoff trades trading cost costly expense expensive price sacrifice "
                         "sacrifices compromise compromises exchange overhead penalty".split())
# words with which an abstract states a difficulty, and a word that must stand before or after them for that sense
# ("difficult to generalize", not "difficult tasks"; none: any): an answer may say it as "struggle", "fail" or "cannot"
_TROUBLE: dict[str, frozenset[str]] = {w: frozenset(ctx.split()) for words, ctx in (
    ("difficult hard challenging", "to"),
    ("difficulty difficulties challenge challenges", "face faces facing faced pose poses posed encounter encounters in with"),
    ("restricted", "to"),
    ("limited scarce insufficient missing", ""),  # "limited labeled data": "labeled data is not plentiful"
    ("short", "fall falls fell falling"),
    ("limitation limitations", "of in"),
    ("hinder hinders hindered hindering impede impedes impeded", "the their its this these"),
) for w in words.split()}


def _chunk(text: str, match: re.Match[str]) -> str:
    """The run of text between blanks around a word match, without the brackets and punctuation that enclose it."""
    before = re.search(r"\S*$", text[: match.start()])
    after = re.match(r"\S*", text[match.end() :])
    return ((before.group() if before else "") + match.group() + (after.group() if after else "")).strip("()[]{},;:.!?\"'")


def analyse(text: str, stated: bool = False) -> Terms:
    """Content terms of a claim or sentence (markers must be removed first); ``stated``: an abstract's text."""
    text = _ENUMERATOR.sub(" ", unescape_latex_numbers(text))
    terms = Terms(numbers=numbers(text, stated))
    matches = list(_WORD.finditer(text))
    words = [m.group() for m in matches]
    compound = {i for i, m in enumerate(matches) if text[m.end() : m.end() + 1] == "-"}  # "high-resolution": one word
    lowered = [re.sub(r"'s$", "", w.lower().replace("’", "'")) for w in words]  # "the paper's": "paper"
    terms.words = set(lowered)
    if _GAP.search(text.lower()):
        terms.asserts.add("gap")
    values: dict[int, float] = {}
    for i, token in enumerate(lowered):
        try:
            value = float(token.replace(",", "")) if token[0].isdigit() else _NUMBER_WORDS.get(token)
        except ValueError:  # "3.11.2", "127.0.0.1": not a quantity
            value = None
        if value is not None and token[0].isdigit() and round(value, 6) not in numbers(_chunk(text, matches[i])):
            value = None  # the digits of "3D" or "E5-Mistral-7B-Instruct": part of a name, not a quantity
        if value is not None:
            values[i] = value

    def run_on(i: int, n: int) -> list[str]:
        """The (up to ``n``) words after the one at i, none after a cited year: in "Foster et al. (2023); although their
        bounds …" the year counts no bounds."""
        if re.fullmatch(r"(?:19|20)\d\d", lowered[i]) and text[matches[i].end() : matches[i].end() + 1] == ")":
            return []
        return lowered[i + 1 : i + 1 + n]

    def said_as_difference(i: int) -> bool:
        """The number at i is a difference ("18.3% higher than", "by 2x"), from the words next to it."""
        if re.search(r"[^\W\d]_?$", text[max(matches[i].start() - 2, 0) : matches[i].start()]):
            return False  # an index: "approximated by the ℓ2-norm", "ℓ_2"
        if (lowered[i][0].isalpha() and lowered[i + 1 : i + 2] and lowered[i + 1].isalpha() and lowered[i + 1] not in STOPWORDS
                and lowered[i + 1] not in _MAGNITUDES and lowered[i + 1] not in _RELATIVE_CUES
                and text[matches[i].end() : matches[i].end() + 1] in (" ", "-") and "than" not in lowered[max(i - 3, 0) : i]):
            return False  # "a single DCA iteration", "single-cell data": a count ("more than two players" is a bound)
        following = run_on(i, 3)
        # "to 89.4%, a 6.2% improvement": past a comma, the words after the next number are that number's
        following = following[: next((k for k, w in enumerate(following) if w[0].isdigit() and i + 1 + k < len(matches)
                                      and re.search(r"[,;(]", text[matches[i].end() : matches[i + 1 + k].start()])),
                                     len(following))]
        skipped = 0
        if following[:1] == ["more"] and "than" not in lowered[i + 2 :]:
            following, skipped = following[1:], 1  # "into 25 more languages": a count of added things, not a difference
        # the window's words with their places in the text, to read the word before or after one at its edge
        places = [*range(max(i - 3, 0), i), *range(i + 1 + skipped, i + 1 + skipped + len(following))]
        # not "two inputs rather than one" (a contrast), nor "Code Llama 34B, by contrast, reaches"
        # nor "tested by pretraining 8B LMs": "by" and a gerund is the means, not the size of a change ("by 38.77%,
        # demonstrating": the number stands between them)
        cues = [lowered[k] for k in places if not (lowered[k] == "than" and lowered[k - 1 : k] == ["rather"])
                and not (lowered[k] == "by" and lowered[k + 1 : k + 2] and (lowered[k + 1] in _BY_PHRASES or (
                    k + 1 != i and re.match(r"[\w-]*ing\b", text[matches[k + 1].start():].lower()))))]  # "by post-training"
        return bool(_RELATIVE_CUES & set(cues))

    def listed_with(i: int) -> list[int]:
        """The numbers listed with the one at i ("18.9% and 32.7% relative improvements"): they share its cues."""
        run = [i]
        for step in (1, -1):
            k = i
            while True:
                nxt = k + step if k + step in values else k + 2 * step
                if nxt not in values:
                    break
                lo, hi = sorted((k, nxt))
                if not _LISTED.fullmatch(text[matches[lo].end() : matches[hi].start()]):
                    break
                run.append(nxt)
                k = nxt
        return run

    for i, value in values.items():  # the words around each number: what it is a number of
        near = {stem(w) for w in [w for w in lowered[max(i - 9, 0) : i] if _is_content(w)][-3:]
                + [w for w in lowered[i + 1 : i + 10] if _is_content(w)][:3]}
        relative = any(said_as_difference(k) for k in listed_with(i))
        # "more than 27B observations", "over 27B", "30+ languages": a bound on the value
        bounded = (lowered[max(i - 2, 0) : i] in _BOUND_PHRASES or lowered[i - 1 : i] in _BOUND_PHRASES
                   or text[matches[i].end() : matches[i].end() + 1] == "+")
        for scale in (1, 1000, 10**6, 10**9):
            if round(value * scale, 6) in terms.numbers:
                terms.number_context.setdefault(round(value * scale, 6), set()).update(near)
                terms.occurrences.append((round(value * scale, 6), frozenset(near), relative, bounded))
                counts = frozenset(stem(w) for w in [w for w in run_on(i, 5)  # "485,838 experiments": generic too
                                                      if w not in STOPWORDS and w[0].isalpha() and len(w) > 1][:2])
                terms.counted.setdefault(round(value * scale, 6), set()).update(counts)
                terms.counted_at.append(counts)
                if relative:
                    terms.relative.add(round(value * scale, 6))
                if bounded:
                    terms.bounded.add(round(value * scale, 6))
    for value_text, unit in _ATTACHED.findall(text.lower()):
        value = _NUMBER_WORDS.get(value_text) if value_text[0].isalpha() else float(value_text.replace(",", ""))
        if value is not None:
            terms.attached.setdefault(value, set()).add(stem(unit))
    for position, found in enumerate(_NAME_TOKEN.finditer(text)):
        token = found.group()
        if found.start() >= 2 and text[found.start() - 1] == "," and text[found.start() - 2].isdigit():
            continue  # "000-dimensional" of "10,000-dimensional": part of a number
        if _is_name(token, position) and not token.isdigit() and token.lower() not in STOPWORDS:
            if not re.fullmatch(r"\d+(?:\.\d+)?[kKMBx%]?", token):
                terms.names.add(token.lower())
    def context(lo: int, hi: int) -> list[str]:
        return list(dict.fromkeys(stem(w) for w in lowered[max(lo, 0) : hi] if w not in STOPWORDS and w not in NEGATIONS
                                  and w not in _DIRECTION_WORDS and not w[0].isdigit() and w not in _GENERIC))

    aside_spans: list[tuple[int, int]] = []  # what negations and "rather than" govern, read into ``Terms.aside``
    clauses = [k for k in range(1, len(matches)) if re.search(r"[,;:]", text[matches[k - 1].end() : matches[k].start()])]

    def ranked_side(lo: int, hi: int, ahead: bool, narrow: bool) -> tuple[str, ...]:
        """One side of "A outperforms B": its content stems, plus "baselin" when it names what a paper compares itself
        with ("prior methods"). ``narrow``: within its clause and without adverbs (in "Although X holds, B outperforms A"
        the side ahead is B alone)."""
        if narrow:
            breaks = [k for k in clauses if lo < k < hi]
            lo, hi = (max([lo, *breaks]), hi) if ahead else (lo, min([hi, *breaks]))
        window = lowered[max(lo, 0) : hi]
        adverbs = {stem(w) for w in window if w.endswith("ly")}
        baseline = ["baselin"] if _BASELINE_WORDS & set(window) else []
        return tuple(dict.fromkeys([w for w in context(lo, hi) if w not in adverbs] + baseline))

    def rank(side: int, i: int, j: int, reverse: bool = False) -> None:
        """Read "A outperforms B": the verb at i, its phrase ending at j ("improves over"); ``reverse``: the phrase
        puts what follows it first ("A is a special case of B": B is the more general)."""
        for ahead, behind in dict.fromkeys((ranked_side(i - 6, i, True, narrow), ranked_side(j + 1, j + 7, False, narrow))
                                           for narrow in (False, True)):
            # "A is outperformed by B" (B may be "the proposed approach"): B outperforms A; not "beats it by 5%"
            if reverse or (lowered[j + 1 : j + 2] == ["by"] and lowered[j + 2 : j + 3] not in ([], ["a"], ["an"], ["far"])
                           and not lowered[j + 2][0].isdigit()):
                if lowered[j + 2 : j + 3] and lowered[j + 2] in _PRONOUNS:
                    return  # "baselines are outperformed by it by a wide margin": the side ahead is not in these words
                ahead, behind = behind, ahead
            terms.ranked.append((side, list(ahead), list(behind)))

    def than_at(i: int) -> bool:
        """``lowered[i]`` is the "than" of a comparison: not "rather than", "other than", "than 30" (a bound)."""
        after = lowered[i + 1] if i + 1 < len(lowered) else ""
        return lowered[i] == "than" and i > 0 and lowered[i - 1] not in ("rather", "other") and bool(after) \
            and not (after[0].isdigit() or after in _NUMBER_WORDS)

    negated_until = negated_from = -1  # "do not depend on": a direction word right after a negation points the other way
    # "non-negligible" is one word for the prefix check, as "nonnegligible" ("negligible" in the abstract)
    terms.words |= {a + b for a, b in re.findall(r"\b(non|un|in|im|ir|il|dis)-([a-z]{4,})", text.lower())}
    for i, word in enumerate(lowered):
        named = any(c.isupper() for c in words[i][1:])  # "StoP", "LESS": a name, not a negation or a direction
        previous = lowered[i - 1] if i else ""
        if word == "only" and previous not in ("not", "the") and lowered[i + 1 : i + 3] != ["a", "fraction"]:
            terms.asserts.add("restricts")  # not "not only A but B", "the only", "costs only a fraction"
        if (word in _UNIVERSAL or word in _HEDGED) and not NEGATIONS & set(lowered[max(i - 3, 0) : i]):
            # "outperforms most existing predictors", "all of the recent efforts"; not "does not require every", which
            # claims nothing of all
            terms.quantified.append((word, list(dict.fromkeys(stem(w) for w in lowered[i + 1 : i + 7]
                                                              if w not in STOPWORDS and not w[0].isdigit()))[:4]))
        if word == "already" and i not in compound:  # not "already-explained sequences"
            terms.asserts.add("already")
        if word in _SUPERLATIVES:
            terms.asserts.add("ranks")
        if not named and word == "not" and lowered[i + 1 : i + 2] in (["only"], ["just"], ["merely"]):
            continue  # "not only A but B" states both
        scant = word in ("little", "poorly") and previous not in ("a", "too")  # "(very) little effect", not "a little"
        if word == "nor" and "neither" in lowered[:i]:  # "neither X nor Y": one negation, already read at "neither"
            continue
        if not named and (word.endswith("n't") or word in NEGATIONS or scant):
            # "the guarantees they lack": what is lacking comes first; "scale poorly": what goes badly
            before = context(i - 3, i) if word in _LACKING else context(i - 2, i) if word == "poorly" else []
            if word in _PASSIVE_NEGATIONS and previous in _PASSIVE_CUES:  # "calibration has been largely overlooked"
                # "the varying significance of distinct primitive behaviors during the process has been overlooked by":
                # with its agent named, the subject may be a long phrase
                before = context(i - (12 if lowered[i + 1 : i + 2] == ["by"] else 7), i)
            terms.negated.append(context(i + 1, i + 6) + before)
            terms.negated_before.append(context(i - 4, i))
            terms.negated_by.append("" if i in compound else word)  # "no-regret" is a term
            aside_spans.append((i + 1, min([i + 14, *(c for c in clauses if c > i + 1)])))
            terms.denies |= i not in compound
            negated_until, negated_from = i + 2, i
            terms.negated_heads.append({stem(w) for w in [w for w in lowered[i + 1 : i + 5] if w not in STOPWORDS][:2]})
            # "fail" is also the way down of "succeed"; "remove" also a content word
            if word not in ("remove", "removes", "removed", "removing", "eliminate", "eliminates", "eliminated", "eliminating") \
                    and word not in _DIRECTION_WORDS:
                continue
        after = lowered[i + 1] if i + 1 < len(lowered) else ""
        if word == "far" and after == "from":  # "far from easy": the direction after it points the other way
            negated_until, negated_from = i + 4, i + 1
            # "far from benign", not "far from the boundary" nor "far from easy" (a direction, read above)
            if lowered[i + 2 : i + 3] and lowered[i + 2] not in STOPWORDS and lowered[i + 2] not in _DIRECTION_WORDS:
                terms.negated.append(context(i + 2, i + 7))
                terms.negated_heads.append({stem(lowered[i + 2])})
                terms.negated_before.append(context(i - 4, i))
                terms.negated_by.append("far")
                aside_spans.append((i + 2, i + 7))
                terms.denies = True
        if word == "free" and after in ("of", "from"):  # "free of any hyperparameters": none
            terms.negated.append(context(i + 2, i + 7))
            terms.negated_heads.append(set())
            terms.negated_before.append(context(i - 4, i))
            terms.negated_by.append("free")
            aside_spans.append((i + 2, i + 7))
            terms.denies = True
            negated_until = i + 4
            continue
        if word == "free" and i > 0:  # "training-free": no training
            terms.negated.append(context(i - 1, i))
            terms.negated_heads.append(set())
            terms.negated_before.append(context(i - 5, i - 1))
            terms.negated_by.append("")
            aside_spans.append((i - 1, i))
            continue
        if word in _TROUBLE and (not _TROUBLE[word] or previous in _TROUBLE[word] or after in _TROUBLE[word]):
            terms.troubled.append(context(i + 1, i + 8) + context(i - 4, i))  # "data are scarce": before it too
        # "B generalizes A", "B subsumes A", "A is a special case of B": B is the more general (a ranking of its own)
        if word in ("special", "particular") and lowered[i + 1 : i + 3] in (["case", "of"], ["cases", "of"]):
            rank(_GENERAL, i, i + 2, reverse=True)
        if word in _GENERALIZES and (word.startswith("subsum") or (after and after not in _GENERALIZES_TO
                                                                   and not after.endswith("ly") and after not in _DIRECTION_WORDS)):
            rank(_GENERAL, i, i)
        if word in _GAINS and not named:  # "A improves over B", "gains over B": A outperforms B
            over = next((k for k in range(i + 1, min(i + 4, len(lowered))) if lowered[k] == "over"), None)
            if over is not None:
                rank(int(negated_from < i <= negated_until), i, over)
        if than_at(i):
            comparative = next((k for k in range(i - 1, max(i - 4, -1), -1) if lowered[k] in _DIRECTION_WORDS), None)
            if comparative is not None:  # both sides keep their direction words: "low-rank layers" against "full-rank"
                pair = next(p for p, (up, down) in enumerate(_OPPOSITES) if lowered[comparative] in up | down)
                ahead = range(max([0, comparative - 7, *(c for c in clauses if c <= comparative)]), comparative)  # its clause
                behind = range(i + 1, min([i + 5, len(lowered), *(c for c in clauses if c > i)]))
                side = int(lowered[comparative] not in _OPPOSITES[pair][0]) ^ (negated_from < comparative <= negated_until)
                said = [[stem(lowered[k]) for k in ks if lowered[k] not in STOPWORDS and not lowered[k][0].isdigit()
                         and lowered[k] not in _GENERIC] for ks in (ahead, behind)]
                terms.compared.append((pair, side, said[0], said[1]))
        if word in _COMPARING and i not in compound and previous not in ("rather", "other") \
                and not (word == "than" and (after[:1].isdigit() or after in _NUMBER_WORDS)):
            terms.asserts.add("compares")
        if (word, after) in (("rather", "than"), ("instead", "of")):  # "fingertips rather than the whole hand"
            comma = min((k for k in clauses if k > i + 2), default=0)
            if (word == "instead" and (i == 0 or lowered[i - 1] in ("but", "and"))) and comma and comma - i <= 16:
                # "Instead of estimating X, we learn Y": Y is preferred
                terms.contrasted.append(context(i + 2, min(comma, i + 9)))
                aside_spans.append((i + 2, min(comma, i + 9)))
                terms.preferred.append(context(comma, comma + 9))
            else:
                terms.contrasted.append(context(i + 2, i + 7))
                terms.preferred.append(context(i - 5, i))
                aside_spans.append((i + 2, i + 7))
        if word in _PREFER_VERBS:  # "prioritized robust erasure over utility": erasure preferred, utility set aside
            over = next((k for k in range(i + 2, min(i + 9, len(lowered))) if lowered[k] == "over"), None)
            if over is not None and not any(i < c <= over for c in clauses):
                terms.preferred.append(context(i + 1, over))
                terms.contrasted.append(context(over + 1, over + 8))
                aside_spans.append((over + 1, over + 8))
        if (word in ("give", "gives", "giving", "gave") and after == "up") or (
                word in ("cost", "expense") and lowered[i - 2 : i] == ["at", "the"] and after == "of"):
            word = "sacrifices"  # "gives up its guarantees", "at the cost of stability": sacrifices them
        if (word.startswith("sacrific") and previous not in NEGATIONS) or (word == "exchange" and previous == "in" and after == "for") or (
                word in ("trade", "trades", "trading", "traded") and "for" in lowered[i + 2 : i + 5]):
            terms.asserts.add("trades")  # "improves X at the cost of Y", "trades speed for accuracy"; not "without sacrificing"
        for pair, (up, down) in enumerate(_OPPOSITES):
            if not named and (word in up or word in down) and not (word in ("lower", "upper", "higher") and after in ("bound", "bounds")):
                # "lower bound" is a term, not a direction; otherwise
                # what moves: the nearest content word on each side
                nearest = [w for w in lowered[max(i - 3, 0) : i] if _is_content(w)][-1:] + [w for w in lowered[i + 1 : i + 5] if _is_content(w)][:1]
                # "no need for high-resolution tricks": a negation does not turn a compound's "high" into "low"
                side = (0 if word in up else 1) ^ (negated_from < i <= negated_until and i not in compound)
                side ^= previous == "less" and pair != 1  # "less sensitive to noise": more robust
                terms.directions.append((pair, side, {stem(w) for w in nearest}))
                if word in _RANKING_VERBS:
                    rank(side, i, i)
                if pair == 1 and nearest:  # "lower error" is better, "lower accuracy" worse: also a direction of pair 0
                    if nearest[-1] in _BETTER_MORE | _BETTER_LESS:
                        terms.directions.append((0, side ^ (nearest[-1] in _BETTER_LESS), {stem(w) for w in nearest}))
        if word in STOPWORDS or word[0].isdigit() or len(word) < 2:
            continue
        s = stem(word)
        terms.surface.setdefault(s, word)
        weight = 0.15 if word in _GENERIC else 0.3 + 0.7 * rarity(word)
        terms.weights[s] = max(terms.weights.get(s, 0.0), weight)

    inside = {k for lo, hi in aside_spans for k in range(lo, hi)}
    for k, w in enumerate(lowered):
        if w not in STOPWORDS and not w[0].isdigit():
            (terms.aside if k in inside else terms.plain).add(stem(w))
    terms.aside -= terms.plain

    def comparative_sides(lo: int, hi: int) -> list[int]:
        """Ranking sides of the comparatives in ``lowered[lo:hi]`` ("higher", "better", "faster"), not negated ones."""
        return [_COMPARED + 2 * pair + (lowered[k] in _OPPOSITES[pair][1]) for k in range(max(lo, 0), hi)
                for pair in _COMPARATIVE_PAIRS if lowered[k] in _OPPOSITES[pair][0] | _OPPOSITES[pair][1]
                and not NEGATIONS & set(lowered[max(k - 3, 0) : k]) and lowered[k + 1 : k + 2] not in (["bound"], ["bounds"])
                and lowered[k - 1 : k] not in (["more"], ["less"])]  # "less robust": the direction is "less"

    for i, word in enumerate(lowered):  # "A yields higher quality than B", "Compared to B, A achieves better efficiency"
        j = i + 1 if word in ("compared", "comparison", "relative") and lowered[i + 1 : i + 2] in (["to"], ["with"]) else i
        if j == i and not than_at(i):
            continue
        start = max([0, *(c for c in clauses if c <= i)])  # the clause the comparison is in
        end = min([len(lowered), *(c for c in clauses if c > j)])
        first = next((k for k in range(max(start, i - 6), i) if comparative_sides(k, k + 1)), None)
        if first is not None:  # "A ... higher ... than B"
            front, back, sides = (max(start, first - 10), first), (j + 1, min(end, j + 6)), comparative_sides(first, i)
        elif start == i - (word == "comparison") - (lowered[i - 1 : i] == ["in"]) and end < len(lowered):  # "Compared to B, A ..."
            later = next((k for k in range(end, min(end + 8, len(lowered))) if comparative_sides(k, k + 1)), None)
            if later is None:
                continue
            front, back, sides = (end, later), (j + 1, end), comparative_sides(later, later + 1)
        else:
            continue
        for side in dict.fromkeys(sides):
            terms.ranked.append((side, list(ranked_side(front[0], front[1], True, False)), list(ranked_side(back[0], back[1], False, False))))
    return terms


@dataclass
class Abstract:
    """A paper's text prepared once for checking claims: its sentences' terms and its vocabulary."""

    text: str
    title: str
    spans: list[tuple[int, int]]
    sentences: list[Terms]
    vocabulary: set[str]
    names: set[str]
    numbers: set[float]
    title_terms: set[str] = field(default_factory=set)
    acronyms: set[str] = field(default_factory=set)
    expansions: dict[str, set[str]] = field(default_factory=dict)  # "iaa" -> the long form's words and stems
    # per sentence: its content stems and names, with the long forms of the acronyms it uses ("MDE": "monocular
    # depth estimation")
    said: list[set[str]] = field(default_factory=list)
    # every name token and every two adjacent ones, without separators: "ResNet 50" and "ResNet-50" are "resnet50";
    # "CIFAR-100" is not "cifar10"
    numbered: set[str] = field(default_factory=set)
    # fractions ("2/3") and values given to one-letter variables ("p": {"1"}) it writes: see ``_exact_values``
    fractions: set[str] = field(default_factory=set)
    assigned: dict[str, set[str]] = field(default_factory=dict)
    # its upper and lower bounds ("a lower bound on the sample complexity") and what its dimensions qualify ("2D
    # diffusion models"): see ``_bounds`` and ``_dimensions``
    bounds: list[tuple[set[str], list[str], bool]] = field(default_factory=list)
    dimensions: dict[str, tuple[str, set[str]]] = field(default_factory=dict)
    # the words written right before each content word ("second term", "non-linear Transformers"), and every word it
    # writes, compounds also by their parts but a negated part with its prefix ("non-linear": "nonlinear", not
    # "linear"): see ``_modifiers``
    modifiers: dict[str, set[str]] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    # the paper's own method as the abstract names it ("we propose DiPmark", "our DySymNet") or the title leads with
    # it: see ``_baselines_ahead``
    own_names: set[str] = field(default_factory=set)
    # title and abstract as one string of formula symbols, and its bounds ("O(d² log T)") the same way: see
    # ``_formula_plain``
    formulas: str = ""
    formula_bounds: set[str] = field(default_factory=set)

    def mentions(self, name: str) -> int:
        """In how many sentences the abstract names ``name`` (a paper's own method recurs; a one-off detail does not)."""
        return sum(name in t.names for t in self.sentences)

    @classmethod
    def of(cls, title: str, abstract: str) -> "Abstract":
        spans = [(s.start, s.end) for s in sentence_spans(abstract)]
        sentences = [analyse(abstract[a:b], stated=True) for a, b in spans]
        whole = analyse(f"{title}. {abstract}", stated=True)
        vocabulary = set(whole.weights) | {s for t in sentences for scope in t.negated for s in scope}
        readable = unescape_latex_numbers(f"{title}. {abstract}")
        vocabulary |= {stem(w.lower()) for w in _WORD.findall(readable)}
        names = {n for n in whole.names} | {n.lower() for n in _NAME_TOKEN.findall(_EMPHASIS.sub("", f"{title} {abstract}"))}
        expansions: dict[str, set[str]] = {}
        # the abstract's own acronym definitions: "large language models (LLMs)" makes both forms known
        for long_form, short in _ACRONYM.findall(_EMPHASIS.sub("", f"{title}. {abstract}")):
            words = long_form.split()
            initials = "".join(w[0] for w in words[-len(short):]).lower() if len(short) <= len(words) else ""
            capitals = "".join(c for c in " ".join(words[-len(short):]) if c.isupper())  # "Low-rank gradiEnt Similarity Search"
            if initials and (short.lower().startswith(initials[:2]) or capitals == short.upper()):
                names.add(short.lower())
                names.add(short.lower() + "s")
                vocabulary.add(stem(short))
                long_words = {w.lower() for w in words[-len(short):]}
                for key in (short.lower(), short.lower() + "s"):
                    expansions.setdefault(key, set()).update(long_words | {stem(w) for w in long_words})
        plain = readable.lower()
        for short, long_form in _COMMON_ACRONYMS.items():
            # "meta-reinforcement-learning" writes "reinforcement learning" too; "processes" is a plural
            written_long = re.search(r"\b" + r"[\s-]+".join(map(re.escape, long_form.split())) + r"(?:e?s)?\b", plain) is not None
            if written_long:
                names |= {short, short + "s"}
                vocabulary |= {stem(short), stem(short + "s")}
            if written_long or short in names:
                long_words = set(re.findall(r"[a-z]+", long_form)) - STOPWORDS
                vocabulary |= {stem(w) for w in long_words}
                for key in (short, short + "s"):
                    expansions.setdefault(key, set()).update(long_words | {stem(w) for w in long_words})
        # a formula's Greek letters may be spelt out ("tau" for $\tau$)
        vocabulary |= {name for name, symbols in _GREEK.items() if f"\\{name}" in abstract or any(c in plain for c in symbols)}
        title_terms = analyse(title)
        acronyms = {n for n in names if n not in whole.names}
        # the paper's own method, named where it is introduced: an answer may put it for "our framework" anywhere
        own = {m.lower() for m in _OWN_NAME.findall(_EMPHASIS.sub("", f"{title}. {abstract}"))}
        said = [(set(t.weights) | _names_as_stems(t)).union(*(expansions.get(n, set()) for n in t.names)) for t in sentences]
        for i, (a, b) in enumerate(spans):  # "sub-tasks" may be written "subtasks", "pre-training" "pretraining"
            joined = {stem(c.replace("-", "")) for c in _COMPOUND.findall(abstract[a:b].lower())}
            said[i] |= joined
            vocabulary |= joined
        # names written in math ("P$^2$INNs", "$\\mathsf{NP}$-hard", "TV-$\\ell_2$", "$64\\times64$") as an answer types
        # them: "P2INNs", "NP-hard", "TV-l2", "64x64"
        flat = _flat_math(readable)
        if flat != readable:
            flat_names = {t.lower() for t in _NAME_TOKEN.findall(flat)}
            names |= flat_names
            vocabulary |= {stem(t) for t in flat_names} | {stem(w.lower()) for w in _WORD.findall(flat)}
        numbered: set[str] = set()
        for form in {readable, flat}:
            tokens = [_compact(t) for t in _NAME_TOKEN.findall(form)]
            numbered |= set(tokens) | {a + b for a, b in zip(tokens, tokens[1:])}
        fractions, assigned = _exact_values(readable)
        own_names = {m.lower() for m in _OWN_INTRODUCED.findall(_EMPHASIS.sub("", f"{title}. {abstract}"))} | {
            t.lower() for t in _NAME_TOKEN.findall(title.split(":")[0]) if any(c.isupper() for c in t[1:])}
        return cls(abstract, title, spans, sentences, vocabulary, names, whole.numbers,
                   title_terms.names | set(title_terms.weights) | own, acronyms, expansions, said, numbered,
                   fractions, assigned, _bounds(f"{title} {abstract}"), _dimensions(f"{title} {abstract}"),
                   *_modifiers(f"{title}. {abstract}"), own_names=own_names,
                   formulas=_formula_plain(readable),
                   formula_bounds={_formula_plain(f) for f, bound in _formulas(readable) if bound})


@dataclass
class Verdict:
    """The check of one claim against one paper."""

    supported: bool
    score: float                     # weighted share of the claim's content the support covers, in [0, 1]
    span: tuple[int, int] = (0, 0)   # the best supporting sentence (its character span in the abstract)
    reason: str = ""                 # why it is not supported
    evidence: tuple[tuple[int, int], ...] = ()  # the one or two sentences checked against, in abstract order


_VOWEL = re.compile("[aeiou]")  # a word's stem, not an acronym's ("llms")
_DERIVATION = re.compile(r"(?:abl|ibl|ment|ness|iti|i|e)$")


@lru_cache(maxsize=65536)
def _root(word_stem: str) -> str:
    """A stem without its derivational ending, spelt one way: "trainabl" -> "train", "analyz"/"analysi" -> "analys"."""
    root = _DERIVATION.sub("", word_stem.replace("yz", "ys").replace("iz", "is"))
    return root if len(root) >= 5 else word_stem


def _covered(s: str, available: set[str]) -> bool:
    """Same stem, a listed paraphrase, an inflection the stemmer split ("classifi"/"classif"), or the same root
    ("trainable"/"training", "analyzes"/"analysis")."""
    if s in available or synonyms(s) & available:
        return True
    # the stemmer's slips: "debias" -> "debia" but "debiasing" -> "debias", "embeds" -> "emb" but "embedded" -> "embed"
    if _VOWEL.search(s) and any((len(s) >= 3 and s + end in available) or (
            s.endswith(end) and len(s) >= len(end) + 3 and s[: -len(end)] in available) for end in ("s", "ed")):
        return True
    if len(s) >= 6 and any(len(a) >= 6 and (a.startswith(s[:6]) and abs(len(a) - len(s)) <= 2) for a in available):
        return True
    if s.endswith("er") and len(s) >= 6 and s not in _COMPARATIVES and zipf(s[:-2] + "est") < 1.0 and (
            s[:-2] in available or (s[-3] == s[-4] and s[:-3] in available)):
        return True  # the one who does it ("sampler" / "sampling", "planner" / "planning"), not more of it ("deeper")
    root = _root(s)
    return len(root) >= 5 and any(_root(a) == root for a in available if a[:3] == root[:3])


def _compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _name_known(name: str, paper: Abstract) -> bool:
    if name in paper.names or (name.endswith("s") and name[:-1] in paper.names):  # "SNNs" where the abstract says "SNN"
        return True
    parts = [p for p in re.split(r"[-_.]", name) if p]
    if len(parts) > 1 and parts[-1] in _NAME_SUFFIXES and stem(parts[-1]) in paper.vocabulary and _name_known(
            "-".join(parts[:-1]), paper):  # "GSM8K-based" where the abstract says "based on GSM8K"
        return True
    singular = name[:-1] if name.endswith("s") and len(name) > 3 else name
    if len(parts) == 1 and any(singular in re.split(r"[-_.]", n) for n in paper.names if "-" in n):
        return True  # "RNNs" where the abstract says "RNN-based"
    if len(parts) > 1 and any(c.isdigit() for c in name):  # "ResNet-50" is not "ResNet-18": the numbered whole must occur
        return _compact(name) in paper.numbered
    if _with_suffix(name, paper) or _initials_of(singular, paper.text):
        return True
    if len(parts) > 1 and all(p in paper.names or stem(p) in paper.vocabulary or p.isdigit() for p in parts):
        return True
    if len(parts) > 1 and any(p in paper.names for p in parts) and all(  # "SSL-derived", "CLIP-based": the name is known
            p in paper.names or p in _NAME_SUFFIXES for p in parts):
        return True
    return stem(name) in paper.vocabulary


def _initials_of(name: str, text: str) -> bool:
    """``name`` spells the initials of capitalised words in ``text``: "BNN" for "Bayesian Neural Networks"."""
    if not (name.isalpha() and 3 <= len(name) <= 6):
        return False
    words = re.findall(r"[A-Za-z][\w'’]*", text)
    return any(all(w[0].isupper() for w in words[i : i + len(name)]) and
               "".join(w[0] for w in words[i : i + len(name)]).lower() == name for i in range(len(words) - len(name) + 1))


def _with_suffix(name: str, paper: Abstract) -> bool:
    """The abstract writes the name with a suffix: "Long-CoT-based" for "Long-CoT"."""
    return any(n.startswith(name + "-") and n[len(name) + 1 :] in _NAME_SUFFIXES for n in paper.names)


def coverage(claim: Terms, support: set[str]) -> float:
    total = sum(claim.weights.values())
    if not total:
        return 0.0
    return sum(w for s, w in claim.weights.items() if _covered(s, support)) / total


_UNSUPPORTED_MASS = 1.75  # about two uncommon content words the abstract never uses: an added claim, not a paraphrase
_TERM_OF_ART = 2.5  # Zipf frequency (wordfreq) at or below which a lower-case word is a term of art, not a paraphrase


def check(claim_text: str, paper: Abstract, min_coverage: float = 0.5, learned: bool = False, probe: bool = False) -> Verdict:
    """Is ``claim_text`` entailed by one or two sentences of ``paper``? Returns the verdict with its reason.
    ``learned=True``: a claim the rules keep must also pass the entailment model (``assistant/entailment.py``), and one
    they drop for its wording alone is kept when the model vouches for it; ``probe=True``: the model's reading is joined
    by the local LLM's (``assistant/probe.py``), when that model is installed."""
    claim_text = _ascii_bounds(claim_text)
    claim = analyse(claim_text)
    if not claim.weights:
        return Verdict(False, 0.0, reason="claims nothing")
    verbatim = _verbatim(claim_text, paper)
    if verbatim is not None:
        return Verdict(True, 1.0, verbatim, evidence=(verbatim,))
    # the best sentence, then the best second sentence for a claim that condenses two
    said = paper.said
    scored = sorted(((coverage(claim, said[i]), i) for i in range(len(said))), reverse=True)
    if not scored:
        return Verdict(False, 0.0, reason="empty abstract")
    best_score, best = scored[0]
    chosen = [best]
    support = said[best]
    for _, other in scored[1:4]:
        terms = paper.sentences[other]
        joined = support | said[other]
        gain = coverage(claim, joined) - coverage(claim, support)
        needed = bool(claim.numbers - _numbers_of(paper, chosen)) and bool(claim.numbers & terms.numbers)
        if gain >= 0.15 or (needed and gain >= 0.08):
            chosen.append(other)
            support = joined
            break
    if len(chosen) == 1 and claim.numbers - _numbers_of(paper, chosen):
        # a claim that condenses two sentences may take its number from one outside the best four ("7 models")
        for i, terms in enumerate(paper.sentences):
            joined = support | said[i]
            if i != best and claim.numbers & terms.numbers and coverage(claim, joined) - coverage(claim, support) >= 0.08:
                chosen.append(i)
                support = joined
                break
    missing = claim.numbers - _numbers_of(paper, chosen)
    for i, terms in enumerate(paper.sentences):  # a number said of the same thing in a sentence the words did not pick
        if missing and i not in chosen:
            found = {v for v in missing & terms.numbers if _same_thing(claim.counted.get(v, set()), terms.counted.get(v, set()))}
            if found:
                chosen.append(i)
                support = support | said[i]
                missing -= found
    score = coverage(claim, support)
    span = paper.spans[best]
    evidence = tuple(paper.spans[i] for i in sorted(chosen))
    if score < min_coverage:
        return Verdict(False, score, span, "no sentence of the abstract says this")
    faults = _faults(claim_text, claim, paper, chosen, support)
    fault = next(faults, None)
    if fault is None:
        if learned and entailment.contradicted(claim_text, " ".join(paper.text[a:b] for a, b in evidence), probe):
            return Verdict(False, score, span, "the abstract says otherwise (entailment model)", evidence)
        return Verdict(True, score, span, evidence=evidence)
    severity, reason = fault
    if learned and severity != "fact" and not any(later == "fact" for later, _ in faults):
        # a soft fault (words the abstract lacks, a negation said another way): the model may vouch for the claim, more
        # surely for a negation or a direction the rules read as reversed than for words the abstract lacks
        rescue = premise(claim, paper)
        if entailment.affirmed(claim_text, " ".join(paper.text[a:b] for a, b in rescue), probe, polarity=severity == "polarity"):
            return Verdict(True, score, span, evidence=rescue)
    return Verdict(False, score, span, reason)


def _faults(claim_text: str, claim: Terms, paper: Abstract, chosen: list[int], support: set[str]) -> Iterator[tuple[Severity, str]]:
    """The rules a claim breaks, in the order they are reported: ``(severity, reason)``. A "fact" (a formula symbol, a
    number or a name the sentences lack) no model may overrule; a "polarity" fault (a negation or a direction read as
    reversed) and a "wording" fault (words the abstract lacks, a relation it does not state) it may."""
    said = paper.said
    math = _MATH.findall(claim_text)
    unknown_math = _unknown_math_atoms(math, paper)
    if unknown_math:
        yield "fact", f"'{unknown_math[0]}' is not in the abstract's formulas"
    formula = _formula_missing(claim_text, paper)
    if formula:
        yield "fact", f"the abstract gives no {formula}"
    in_math = numbers(" ".join(math))  # in formulas the words around a number are LaTeX: the sentence must have it
    supporting = [paper.sentences[i] for i in chosen]
    missing_numbers = {n for n in claim.numbers if n not in _numbers_of(paper, chosen)} & in_math
    missing_numbers |= {n for n in claim.numbers - in_math if not _number_supported(n, claim, supporting, paper.sentences)}
    if missing_numbers and len(chosen) >= 2:
        # a summary of three sentences may take its number from one more, which also says part of it ("boosting
        # security by roughly 30%" from "It is able to drastically improve security (by about 30%)")
        missing_numbers = {n for n in missing_numbers if n in in_math or not any(
            i not in chosen and _number_supported(n, claim, [paper.sentences[i]], paper.sentences)
            and coverage(claim, support | said[i]) - coverage(claim, support) >= 0.08 for i in range(len(paper.sentences)))}
    if missing_numbers:
        shown = ", ".join(f"{n:g}" for n in sorted(missing_numbers))
        yield "fact", f"number not in the abstract ({shown})"
    wrong_values = _wrong_exact_values(claim_text, paper)
    if wrong_values:
        yield "fact", f"number not in the abstract ({wrong_values[0]})"
    ordinal = _wrong_ordinal(claim_text, paper)
    if ordinal:
        yield "fact", ordinal
    chosen_text = [paper.text[a:b] for a, b in (paper.spans[i] for i in chosen)]
    qualifier = _qualifier_dropped(claim_text, " ".join(chosen_text))
    if qualifier:
        yield "fact", qualifier
    quantifier = _quantifier_changed(claim, supporting) or _uniqueness_changed(claim_text, chosen_text)
    if quantifier:
        yield "fact", quantifier
    polarity = _polarity_conflict(claim, supporting, [t for i, t in enumerate(paper.sentences) if i not in chosen]) or \
        _beaten_by_its_baseline(claim_text, chosen_text) or _baselines_ahead(claim_text, paper)
    if polarity:
        # as sure as a number: sides swapped, or a sentence of the abstract with one word turned into its opposite
        exact = polarity == _SWAPPED or _one_word_reversed(claim_text, chosen_text) or _pair_negated(claim_text, chosen_text)
        yield "fact" if exact else "polarity", polarity
    bound = _bound_swapped(claim_text, paper)
    if bound:
        yield "polarity", bound
    flipped = _modifier_negated(claim_text, paper)
    if flipped:
        yield "polarity", flipped
    unsaid = _relation_unsaid(claim, supporting)
    if unsaid:
        yield "wording", unsaid
    if "trades" in claim.asserts and not paper.vocabulary & _TRADE_STEMS:
        yield "wording", "the abstract states no such trade-off"
    unknown_names = sorted(n for n in claim.names if not _name_known(n, paper))
    # a name of capitalised parts ("Meta-World") is one name: its parts elsewhere in the abstract do not make it known
    unknown_names += sorted(n for n in claim.names if "-" in n and n not in unknown_names and _compact(n) not in paper.numbered
                            and not (n.endswith("s") and _compact(n[:-1]) in paper.numbered)  # "BRF-RSNNs"
                            and _capitalised_parts(n, claim_text) and not _with_suffix(n, paper))
    if unknown_names:
        yield "fact", f"'{unknown_names[0]}' is not in the abstract"
    nearby = set().union(*(paper.sentences[i].names | set(paper.sentences[i].weights) for i in chosen)) | paper.title_terms
    nearby |= set().union(*(paper.expansions.get(n, set()) for n in set(nearby)))  # "IAA" there: "image aesthetics assessment"
    if len(chosen) <= 2:  # a summary may take a name from one more sentence that also says part of it
        for i in range(len(paper.sentences)):
            extra = [n for n in claim.names if n in paper.sentences[i].names and n not in nearby]
            if i not in chosen and extra and coverage(claim, support | said[i]) - coverage(claim, support) >= 0.08:
                nearby |= paper.sentences[i].names | set(paper.sentences[i].weights)
                break
    elsewhere = sorted(n for n in claim.names if paper.mentions(n) == 1 and n not in nearby and stem(n) not in nearby
                       and not any(part in nearby or stem(part) in nearby for part in re.split(r"[-_.]", n) if len(part) > 2))
    if elsewhere:
        yield "wording", f"'{elsewhere[0]}' is not in the sentences that say this"
    example = _example_unsaid(claim_text, paper)
    if example:  # as a name the abstract lacks: no model may overrule it
        yield "fact", example
    likened = _likened_to(claim_text, claim, supporting + [
        paper.sentences[i] for i in range(len(said)) if i not in chosen and coverage(claim, said[i]) >= 0.2])
    if likened:
        yield "wording", f"the abstract says this of {likened}, not of the paper"
    unknown = [s for s in claim.weights if claim.weights[s] > 0.15 and zipf(claim.surface.get(s, s)) <= _TERM_OF_ART
               and not _covered(s, paper.vocabulary) and not _name_known(s, paper)
               and claim.surface.get(s, s) not in _REWORDINGS and synonyms(s) == {s}]
    if unknown:
        # a capitalised term of art is a name, wherever it stands ("Nester reports ..." opens the sentence)
        capitalised = {w.lower() for w in _WORD.findall(claim_text) if w[:1].isupper()}
        named = any(claim.surface.get(s, s) in capitalised for s in unknown)
        yield "fact" if named else "wording", f"'{unknown[0]}' is not in the abstract"
    # a kind of data or a field the abstract never names ("also transfers to video-text retrieval"): everyday words,
    # but what a result is about
    domains = sorted(claim.surface.get(s, s) for s in claim.weights if claim.surface.get(s, s) in _DOMAINS
                     and not _covered(s, paper.vocabulary))
    if domains:
        yield "wording", f"'{domains[0]}' is not in the abstract"
    # content the abstract never mentions: everyday words (Zipf >= 5) and paraphrase verbs weigh little
    new = {claim.surface.get(s, s): 0.3 + 0.7 * rarity(claim.surface.get(s, s)) for s, w in claim.weights.items()
           if w > 0.15 and not _covered(s, paper.vocabulary) and not _name_known(s, paper) and zipf(claim.surface.get(s, s)) < 5.0
           and claim.surface.get(s, s) not in _REWORDINGS}
    if sum(new.values()) >= _UNSUPPORTED_MASS:
        yield "wording", f"'{max(new, key=new.__getitem__)}' is not in the abstract"


# "an upper bound on the sample complexity", "matching upper and lower bounds for X", "lower-bounds the error"
_BOUNDS = re.compile(r"\b(matching\s+)?(upper|lower)(?:\s+and\s+(?:matching\s+)?(upper|lower))?[- ]?bound(?:s|ed|ing)?\b"
                     r"(?:\s+(?:on|of|for|to|the)\s+([^.;,()]{1,60}?)(?=\s+(?:and|or|but|while|which|that|with|in|under)\b|[.;,()]|$))?",
                     re.IGNORECASE)


def _bounds(text: str) -> list[tuple[set[str], list[str], bool]]:
    """Each bound a text states: its sides ("upper", "lower"), the first content stems of what it bounds, and whether
    it is said to match another."""
    found = []
    for matching, one, other, bounded in _BOUNDS.findall(text):
        words = [stem(w) for w in _WORD.findall(bounded.lower()) if w not in STOPWORDS and w not in _GENERIC]
        found.append(({one.lower(), other.lower()} - {""}, words[:3], bool(matching)))
    return found


def _bound_swapped(claim_text: str, paper: Abstract) -> str:
    """Why the claim's bound is not the abstract's, or "": a lower bound where it only gives an upper one (or the
    reverse), or the sides swapped between the things bounded ("an upper bound on the sample complexity and a lower
    bound on the iteration complexity" for the abstract's lower and upper)."""
    theirs = paper.bounds
    sides = set().union(*(s for s, _, _ in theirs)) if theirs else set()
    for mine, bounded, matching in _bounds(claim_text):
        if sides and mine - sides and (bounded or matching):  # not "its upper bound", which the abstract may state otherwise
            return f"the abstract gives no {min(mine - sides)} bound"
        if len(mine) == 1 and bounded:  # how much of what it bounds the abstract bounds on the same side, and the other
            same, other = (max((len(set(bounded) & set(b)) for s, b, _ in theirs if (mine <= s) == side), default=0)
                           for side in (True, False))
            if other >= 2 and other > same:
                return "swaps the upper and lower bounds the abstract gives"
    return ""


def premise(claim: Terms, paper: Abstract) -> tuple[tuple[int, int], ...]:
    """The sentences the entailment model reads for a claim the rules do not keep: the best covering sentence and the
    second best when it covers 0.3 of the claim (what ``benchmarks.train_entailment`` shows it for such claims)."""
    ranked = sorted(((coverage(claim, said), i) for i, said in enumerate(paper.said)), reverse=True)[:2]
    chosen = [ranked[0][1]] + [i for share, i in ranked[1:] if share >= 0.3]
    return tuple(paper.spans[i] for i in sorted(chosen))


_LIKE = re.compile(r"\b(?:like|unlike|just as|as in|as with|as do|as does|similar to|similarly to|in line with)\s+([^,;]{3,80}?),",
                   re.IGNORECASE)
_ACTS_LIKE = frozenset("acts behaves looks works functions performs operates seems sounds feels reads does".split())
_SIMILARITY_CUES = frozenset("like similar similarly same following follows follow share shares inherit inherits".split())


def _likened_to(claim_text: str, claim: Terms, support: list[Terms]) -> str:
    """"Like X, the method does Z" where a sentence of the abstract says that X does Z and likens nothing: the claim
    gives the paper what the abstract says of X. Returns X, or "" when the claim likens nothing or no such sentence."""
    text = unescape_latex_numbers(claim_text)
    match = _LIKE.search(text)
    if not match or match.group(0).lower().startswith("unlike"):
        return ""
    before = text[: match.start()].split()[-4:]
    if before and before[-1].endswith(","):  # "measures in SR, like tree depth,": the noun before its modifier
        before[-1] = before[-1][:-1]
        while len(before) > 1 and (before[-1][:1].isupper() or before[-1].lower() in ("in", "of", "for", "on")):
            before.pop()
    previous = (before or [""])[-1].lower()
    if match.group(0).lower().startswith("like") and previous.isalpha() and previous.endswith("s") and not previous.endswith("ss") \
            and previous not in _ACTS_LIKE:
        return ""  # "strong assumptions like bounded variance": such as, not a likeness
    compared = analyse(match.group(1))
    words = [w for w in compared.weights if compared.weights[w] > 0.15] or list(compared.weights)
    rest = Terms(weights={w: v for w, v in claim.weights.items() if w not in compared.weights})
    for terms in support:
        said = set(terms.weights) | _names_as_stems(terms)
        if terms.words & _SIMILARITY_CUES or not words:
            continue
        if sum(_covered(w, said) for w in words) >= max(1, 0.6 * len(words)) and coverage(rest, said) >= 0.3:
            return match.group(1).strip()
    return ""


# an example or an application the claim names: "such as medical diagnosis", "motivated by applications in autonomous
# driving", "in the context of clinical triage", "with applications to first-price auctions"
# ("for example" and "for instance" mostly open a clause: "for example by taking the maximum")
_EXAMPLE = re.compile(r"\b(?:such as|e\.g\.,?|including|in the context of|in domains? (?:like|such as)|"
                      r"motivated by(?! the fact)(?: applications? (?:in|to|of|like|such as))?|with applications? (?:in|to)|"
                      r"applications? (?:in|to))\s+([^,;.()]{3,80})", re.IGNORECASE)
_EXAMPLE_HEADS = frozenset("one ones kind kinds type types case cases form forms way ways".split())
_AUXILIARIES = frozenset("is are was were be been being can could may might must will would should shall do does did has have "
                         "had".split())


def _example_unsaid(claim_text: str, paper: Abstract) -> str:
    """An example or application domain the claim names that the abstract never mentions (its first content words), or
    a later item of the list it opens ("such as A, B, contextual bandits, and C")."""
    items = []
    for match in _EXAMPLE.finditer(claim_text):
        items.append(match.group(1))
        items += _listed_after(re.split(r"[.;:()]", claim_text[match.start(1):])[0])
    for item in items:
        words = [w.lower() for w in _WORD.findall(item)][:4]
        # the example ends where the sentence goes on: "such as IWAE cannot handle streaming data" names IWAE
        words = words[: next((k for k, w in enumerate(words) if w in NEGATIONS or w in _AUXILIARIES or w.endswith("n't")), len(words))]
        content = [w for w in words if w not in STOPWORDS and w not in _GENERIC and w not in _EXAMPLE_HEADS and w[0].isalpha()
                   and len(w) > 2]
        missing = [w for w in content if not _covered(stem(w), paper.vocabulary) and not _name_known(w, paper)]
        if missing and 2 * len(missing) >= len(content):  # half its words: not a paraphrase of one the abstract gives
            return f"the abstract gives no example '{missing[0]}'"
    return ""


def _listed_after(text: str) -> list[str]:
    """The items after the first of a list "A, B, C, and D" that ``text`` opens, each of at most four words (in a list
    of three or more the last may run on into the sentence); none when what follows the first comma is no such list (a
    clause: "such as RNNs, the paper argues ...", "such as A and B, and argues ...")."""
    items: list[str] = []
    for part in text.split(",")[1:]:
        words = part.split()
        last = words[:1] in (["and"], ["or"])
        if last:
            words = words[1:]
        if not words or (len(words) > 4 and not (last and items)):
            return []
        items.append(" ".join(words[:4]))
        if last:
            return items
    return []


def _flat_math(readable: str) -> str:
    """Readable abstract text with math flattened to what a plain-text answer writes: compatibility characters as
    letters (NFKC: "𝖭𝖯" is "NP", "ℓ" is "l"), no superscript or subscript marks, "64 ×64" as "64x64"."""
    text = unicodedata.normalize("NFKC", readable)
    text = re.sub(r"(?<=\w)[\^_]\{?(\w+)\}?", r"\1", text)
    return re.sub(r"(\d)\s*[×x]\s*(\d)", r"\1x\2", text)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[*_`]", "", unescape_latex_numbers(text)).lower().split()).strip(" .;:,")


def _verbatim(claim_text: str, paper: Abstract) -> tuple[int, int] | None:
    """The span of the abstract sentence a claim copies word for word (a quote needs no inference)."""
    plain = _plain(claim_text)
    if len(plain) < 20:
        return None
    for start, end in paper.spans:
        if plain in _plain(paper.text[start:end]):
            return (start, end)
    return None


_MATH = re.compile(r"\$[^$]+\$")
_MATH_ATOM = re.compile(r"[^\W_]+")


def _math_plain(text: str) -> str:
    """A formula or text as the reader sees it, one spelling per symbol ("$^2$" and "²" are "2", "𝒪" is "o")."""
    return unicodedata.normalize("NFKC", unescape_latex_numbers(text)).lower()


_FRACTION = re.compile(r"(?<![\w.])(\d+)\s*/\s*(\d+)(?!\w|\.\d)")
_ASSIGNED = re.compile(r"(?<![\w\\])([A-Za-z])\s*=\s*(\d+(?:\.\d+)?)(?!\w|\.\d)")


def _exact_values(plain: str) -> tuple[set[str], dict[str, set[str]]]:
    """Fractions ("1/3", also written ``\\frac{1}{3}``) and values given to a variable ("p=2") in a text, its LaTeX
    unescaped (``unescape_latex_numbers``)."""
    assigned: dict[str, set[str]] = {}
    for name, value in _ASSIGNED.findall(plain):
        assigned.setdefault(name, set()).add(value)
    return {f"{a}/{b}" for a, b in _FRACTION.findall(plain)}, assigned


# "2D", "3D diffusion models", "2D and 3D data", "Text-to-3D": dimensions, with the word they qualify
_DIMENSIONS = re.compile(r"(?<![A-Za-z0-9.])((?:\d[Dd](?:\s*(?:,|/|-|and|or)\s*(?=\d[Dd]))?)+)(?![A-Za-z0-9])(?:[\s-]+([A-Za-z]{3,}))?")


def _dimensions(plain: str) -> dict[str, tuple[str, set[str]]]:
    """The stem of each word a text qualifies by dimensions, with the word and those dimensions: "2D and 3D data" ->
    {"data": ("data", {"2", "3"})}."""
    found: dict[str, tuple[str, set[str]]] = {}
    for dims, word in _DIMENSIONS.findall(plain):
        if word and word.lower() not in STOPWORDS:
            found.setdefault(stem(word.lower()), (word, set()))[1].update(re.findall(r"(\d)[Dd]", dims))
    return found


# "the second term", "(non-linear) Transformers": a word and the content word right after it, nothing between them
_MODIFIED = re.compile(r"([a-z0-9]+(?:-[a-z0-9]+)*)\s+(?=([a-z]{3,})\b)")
_ORDINALS = frozenset("first second third fourth fifth sixth 1st 2nd 3rd 4th 5th".split())


def _modifiers(text: str) -> tuple[dict[str, set[str]], set[str]]:
    """The stem of each content word of a text with the words written right before it, hyphens dropped, and the words
    it writes (see ``Abstract.written``): "the second term of (non-linear) Transformers" -> {"term": {"second"},
    "transform": {"nonlinear"}}, {"the", "second", "term", "of", "nonlinear", "transformers"}."""
    plain = re.sub(r"[()]", "", text.lower())
    found: dict[str, set[str]] = {}
    for word, following in _MODIFIED.findall(plain):
        if following not in STOPWORDS:
            found.setdefault(stem(following), set()).add(word.replace("-", ""))
    written: set[str] = set()
    for token in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", plain):
        parts = token.split("-")
        written.add("".join(parts))
        written |= {p if i == 0 or parts[i - 1] not in _NEGATING_PREFIXES else parts[i - 1] + p for i, p in enumerate(parts)}
    return found, written


def _wrong_ordinal(claim_text: str, paper: Abstract) -> str:
    """An ordinal the abstract gives something else: "the first term" where it only writes "the second term"."""
    for key, words in _modifiers(claim_text)[0].items():
        theirs = paper.modifiers.get(key, set()) & _ORDINALS
        for word in sorted(words & _ORDINALS):
            if theirs and word not in theirs:
                return f"the abstract says '{sorted(theirs)[0]}', not '{word}'"
    return ""


# prefixes that qualify what they are part of: "quasi-polynomial" time is not polynomial, "near-optimal" not optimal
_QUALIFIER_PREFIX = r"\b(quasi|sub|super|semi|pseudo|near)-?"


def _qualifier_dropped(claim_text: str, sentences: str) -> str:
    """An adjective the claim says bare that the abstract only says qualified: "polynomial" for "quasi-polynomial",
    "optimal" for "near-optimal", "linear" for "sublinear", in the sentences that say the claim; or ""."""
    text = unescape_latex_numbers(sentences).lower()
    claim = unescape_latex_numbers(claim_text).lower()
    for word in dict.fromkeys(re.findall(r"(?<![\w-])[a-z]{3,}(?:al|ar|ic|ve|ex)\b", re.sub(_QUALIFIER_PREFIX + r"[a-z]+", " ", claim))):
        qualified = re.search(_QUALIFIER_PREFIX + word + r"\b", text)
        if qualified and not re.search(r"(?<![\w-])" + word + r"\b", re.sub(_QUALIFIER_PREFIX + word + r"\b", " ", text)):
            return f"the abstract says {qualified.group(0).strip()}, not {word}"
    return ""


def _modifier_negated(claim_text: str, paper: Abstract) -> str:
    """A word the abstract writes with a negating prefix before the same thing, or the other way round: "linear
    Transformers" where it says "(non-linear) Transformers", "unsupervised loss" where it says "supervised loss"."""
    for key, words in _modifiers(claim_text)[0].items():
        theirs = paper.modifiers.get(key, set())
        for word in sorted(words - theirs - paper.written):  # "non-smooth functions" for "functions are non-smooth"
            for prefix in _NEGATING_PREFIXES:
                flipped = word[len(prefix):] if word.startswith(prefix) else prefix + word
                if len(flipped) >= 4 and len(word) >= 4 and flipped in theirs and zipf(flipped) >= 2.0:
                    return f"the abstract says '{flipped}', not '{word}'"
    return ""


def _wrong_exact_values(claim_text: str, paper: Abstract) -> list[str]:
    """A fraction the abstract never writes ("T^{1/3}" for "T^{2/3}"), a value it gives no variable of that name
    ("p=2" where it has "p=1"), or a dimension it gives nothing of that name ("3D diffusion models" where it has "2D
    diffusion models"): the digits may be elsewhere in the abstract, the quantity is not."""
    fractions, assigned = _exact_values(unescape_latex_numbers(claim_text))
    wrong = sorted(fractions - paper.fractions)
    wrong += sorted(f"{name}={v}" for name, values in assigned.items() if name in paper.assigned
                    for v in values - paper.assigned[name])
    wrong += sorted(f"{d}D {word}" for key, (word, dims) in _dimensions(claim_text).items() if key in paper.dimensions
                    for d in dims - paper.dimensions[key][1])
    return wrong


_SPELT_GREEK = re.compile(r"\\?\b(" + "|".join(_GREEK) + r"|varepsilon|varphi)\b", re.IGNORECASE)
# a bound ("O(d log T)", "Õ(√(dT))", "Ω(1)", "o(1)") opens here; its argument runs to the matching parenthesis
_BOUND_OPEN = re.compile(r"(?<![^\W\d_])[OΩΘoω]\u0303?\s*\(")
# a power, a root or a fraction of symbols outside a bound ("k²/ε²", "T^(2/3)", "d√T", "1/n"), and what may continue
# it: an operator or a symbol ("N^2 d / M", not "a")
_POWER = re.compile(r"\S*(?:\^|√|sqrt\()\S*|[(\[]*(?:\d+|[^\W\d_]\d*)/(?:\d+|[^\W\d_]\d*)[)\]]*[.,;:]?")
_OPERATOR = re.compile(r"[/+\-·×*=<>≤≥]")
_SYMBOL = re.compile(r"[(\[]*(?:[^\W\d_]|[^\W\d_]?\d+|[^\W\d_]_\w+|log|ln|exp)[)\]]*[.,;:]?")


# bounds an answer spells in ASCII: "tilde-O(k/epsilon)", "Theta(log K)", "Omega(1)"
_ASCII_BOUND = re.compile(r"\b(?:(?:tilde|widetilde)[- ]?O|O[- ]?tilde|(Theta|Omega))\s*(?=\()")


def _ascii_bounds(text: str) -> str:
    """The claim with its ASCII-spelt bounds written as the abstract's formulas read: "Õ(", "Θ(", "Ω("."""
    return _ASCII_BOUND.sub(lambda m: {"Theta": "Θ", "Omega": "Ω"}.get(m.group(1) or "", "Õ"), text)


def _formula_plain(text: str) -> str:
    """A formula (or a whole abstract) as one string of its symbols, one spelling each, for substring tests: no
    spaces, brackets, stars or multiplication dots, accents dropped ("Õ" is "o", "d_bar" is "d"), Greek spelt out or
    not ("epsilon", "ϵ", "ε"), "√" and "sqrt" alike, "ε^-1" and "1/ε" alike: "Õ(√(d·T))" and
    "$\\tilde{O}(\\sqrt{dT})$" are both "osqrtdt"."""
    text = unicodedata.normalize("NFD", unescape_latex_numbers(text))
    text = unicodedata.normalize("NFKC", "".join(c for c in text if not unicodedata.combining(c)))
    text = _SPELT_GREEK.sub(lambda m: _GREEK.get(m.group(1).lower().removeprefix("var"), m.group(1))[0], text)
    text = re.sub(r"_?(?:bar|hat|tilde)\b", "", text)  # "d_bar" for "d̄", whose accent is dropped
    text = text.replace("√", "sqrt").replace("\\cdot", "").replace("−", "-").replace("–", "-")
    plain = re.sub(r"[\s(){}\[\]·⋅*⋆∗]|\^(?=[*⋆∗])", "", text).lower()  # stars as in "v^*" or emphasis say nothing
    plain = re.sub(r"([^\W\d_])\^-(\d+)", r"1/\1^\2", plain)  # "ε^-3" is "1/ε^3"
    return re.sub(r"\^1(?![\d./])", "", plain)  # "ε^1" is "ε"


def _formulas(text: str) -> list[tuple[str, bool]]:
    """The bounds, powers and roots a text writes ("O(d log(d + T))", "k²/ε²"), as it writes them, each with whether it
    is a bound."""
    text = unicodedata.normalize("NFD", unescape_latex_numbers(text))  # "Õ" as "O" and a combining tilde
    found, covered = [], []
    for m in _BOUND_OPEN.finditer(text):
        depth, end = 0, None
        for i in range(m.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        if end is not None:
            found.append((unicodedata.normalize("NFC", text[m.start():end]), True))
            covered.append((m.start(), end))
    tokens = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\S+", text)]
    joined = -1  # the last token already in a formula
    for i, (start, end, token) in enumerate(tokens):
        if i <= joined or not _POWER.fullmatch(token) or not re.search(r"[^\W\d_]", token) \
                or any(a <= start and end <= b for a, b in covered):
            continue
        first = last = i
        while first > 0 and not re.search(r"[.,;:]$", tokens[first - 1][2]) and _continues(tokens[first - 1][2]):
            first -= 1
        while last + 1 < len(tokens) and not re.search(r"[.,;:]$", tokens[last][2]) and _continues(tokens[last + 1][2]):
            last += 1
        while first < i and _OPERATOR.fullmatch(tokens[first][2]):
            first += 1
        while last > i and _OPERATOR.fullmatch(tokens[last][2].rstrip(".,;:")):
            last -= 1
        joined = last
        formula = text[tokens[first][0]:tokens[last][1]].rstrip(".,;:")
        found.append((unicodedata.normalize("NFC", formula), False))
    return found


def _continues(token: str) -> bool:
    """A token that may carry a formula on: an operator, a symbol ("d", "M", "ε_0", "log") or another power."""
    return token not in ("a", "A", "I") and bool(
        _OPERATOR.fullmatch(token) or _SYMBOL.fullmatch(token) or _POWER.fullmatch(token))


def _formula_missing(claim_text: str, paper: Abstract) -> str:
    """A bound, power or root of the claim that the abstract never writes: "O(d log T)" where it has "O(d² log T)",
    "Õ(1/ε)" where it has "Õ(1/ε²)" (a bound must be one of the abstract's whole, not the start of one)."""
    for formula, is_bound in _formulas(claim_text):
        plain = _formula_plain(formula)
        if plain in paper.formula_bounds:
            continue
        if plain not in paper.formulas or is_bound and any(b.startswith(plain) for b in paper.formula_bounds):
            return formula
    return ""


def _unknown_math_atoms(math: list[str], paper: Abstract) -> list[str]:
    """Letters, numbers and function names of the claim's formulas that the abstract never writes: "sqrt" in
    "O(sqrt(d))" where the abstract only has "O(d)"."""
    if not math:
        return []
    known = _math_plain(f"{paper.title} {paper.text}")
    return sorted(a for m in math for a in _MATH_ATOM.findall(_math_plain(m)) if a not in known)


def _number_supported(value: float, claim: Terms, support: list[Terms], everywhere: list[Terms]) -> bool:
    """The value appears in a support sentence, said of the same thing (a shared word next to it, or the same word after it), and each other
    time the claim writes it, some sentence of ``everywhere`` (the abstract) says it of that; a value the claim gives
    as a difference ("70.7% higher than") must be one there too (not "achieving 70.7%")."""
    # each time the claim writes the value ("a 100x gain ... with 100 clients"), it must be said of the same thing
    contexts = [(near, after, relative, bounded) for (v, near, relative, bounded), after in zip(claim.occurrences, claim.counted_at)
                if v == value] or [(frozenset(claim.number_context.get(value, set())), frozenset(claim.counted.get(value, set())),
                                    value in claim.relative, value in claim.bounded)]

    def said(context: tuple[frozenset[str], frozenset[str], bool, bool], sentences: list[Terms] = support) -> bool:
        mine, counts, relative, bounded = context
        for terms in sentences:
            if value in claim.attached and value in terms.attached and not claim.attached[value] & terms.attached[value]:
                continue  # "a three-layer network" is not "3-uniform hypergraphs"
            if value in terms.numbers and (not relative or value in terms.relative or (bounded and value in terms.bounded)):
                theirs = terms.number_context.get(value, set())
                if not mine or not theirs or any(_covered(s, theirs) for s in mine):
                    return True
                if _same_thing(set(counts), terms.counted.get(value, set())):
                    return True
        return False

    return any(said(context) for context in contexts) and all(said(context, everywhere) for context in contexts)


def _same_thing(mine: set[str], theirs: set[str]) -> bool:
    """Two mentions of a value count the same thing: a word right after both ("485,838 pruning experiments", "485,838
    experiments"; "14 LLMs", "14 different LLMs") that is not a comparison word ("28.3% higher")."""
    return any(_covered(s, theirs) for s in mine if s not in _RELATIVE_STEMS and not synonyms(s) & _RELATIVE_STEMS)


def _names_as_stems(terms: Terms) -> set[str]:
    return {stem(n) for n in terms.names}


def _numbers_of(paper: Abstract, chosen: list[int]) -> set[float]:
    return set().union(*(paper.sentences[i].numbers for i in chosen)) if chosen else set()


def _prefix_negated(words: set[str], other: set[str], negated: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """A word of ``words`` that negates a word of ``other`` by its prefix ("independent" / "dependent"), unless ``other``
    negates it itself (``negated``: the stems its negations govern, "not appropriate" for "inappropriate")."""
    for word in words:
        for prefix in _NEGATING_PREFIXES:
            base = word[len(prefix):]
            if word.startswith(prefix) and len(base) >= 5 and base in other and word not in other and stem(base) not in negated:
                return word
    return ""


# verbs of a preference stated with "over": "prioritize A over B", "favours A over B"
_PREFER_VERBS = frozenset("prioritize prioritizes prioritized prioritizing prioritise prioritises prioritised prioritising "
                          "favor favors favored favoring favour favours favoured favouring prefer prefers preferred "
                          "preferring privilege privileges privileged privileging".split())
# words with which an abstract sets its method against another: a claim's "instead of X" may restate them
_CONTRAST_CUES = frozenset("unlike instead rather replace replaces replacing replaced depart departs departing than versus vs "
                           "existing current conventional traditional previous prior standard classical".split())


_KEEPING = _OPPOSITES[5][0]  # preserve, maintain, keep, retain, intact
_HARMS = frozenset(stem(w) for w in "compromise sacrifice lose hurt harm hamper degrade impair damage affect reduce "
                   "decrease".split())  # "without compromising X": X is kept
# a research gap, said in many ways: "remains underexplored", "has received little attention", "is not well understood"
_GAP = re.compile(r"\b(?:under-?(?:explored|studied|investigated|examined|researched|addressed|appreciated)|unexplored|"
                  r"unstudied|overlooked|neglected|(?:little|limited|scant|less) (?:attention|study|research|work|investigation|"
                  r"exploration|understanding)|(?:not|poorly|yet to be|rarely|seldom) (?:(?:well|fully|been|yet|systematically|"
                  r"thoroughly) )*(?:understood|explored|studied|investigated|examined|addressed|characterized|known))\b")
_GAP_HEADS = frozenset(stem(w) for w in "attention study studied research investigation exploration understanding "
                       "understood explored investigated examined addressed characterized known well fully".split())
# the harms of ``_HARMS`` that only a kept quality undoes ("without sacrificing X"; not "does not cut memory"), with their
# -ing forms, which the stemmer cuts differently ("sacrif" for "sacrificing", "sacrific" for "sacrifice")
_SACRIFICES = frozenset(stem(w) for w in "compromise compromising sacrifice sacrificing hurt hurting harm harming degrade "
                        "degrading impair impairing damage damaging".split())
# "B outperforms A" for the abstract's "A outperforms B": read from the sides of a ranking, as exact as a number, so no
# model overrules it (no supported case claim of any case file is read this way)
_SWAPPED = "swaps what the abstract compares"
_RESTRICTING = frozenset("only solely exclusively just mere merely alone limited restricted specific single sole unless except "
                         "requires require required need needs needed necessary".split())
_RANKING_WORDS = _SUPERLATIVES | frozenset("state sota first leading top optimal most least".split())


def _capitalised_parts(name: str, text: str) -> bool:
    """``text`` writes ``name`` with every part capitalised: "Meta-World", "ViT-Base" (one name), not "Transformer-based"."""
    pattern = r"(?<![\w-])" + "-".join(map(re.escape, name.split("-"))) + r"(?![\w-])"
    return any(all(part[:1].isupper() for part in m.group().split("-")) for m in re.finditer(pattern, text, re.IGNORECASE))


def _relation_unsaid(claim: Terms, support: list[Terms]) -> str:
    """Why the claim asserts a relation its sentences do not, or "": a comparison ("more precise than", "works best for
    audio") where they compare or rank nothing, a restriction ("can only be used with closed-source models") where they
    restrict nothing, an "already" ("is already well understood" for "remains elusive") they do not say."""
    said = set().union(*(t.words for t in support)) if support else set()
    if ("compares" in claim.asserts and not said & (_COMPARING | (_COMPARISON_WORDS - _CHANGE_VERBS))) or (
            "ranks" in claim.asserts and not said & (_COMPARING | _RANKING_WORDS | _OPPOSITES[0][0] | _OPPOSITES[0][1])):
        return "the abstract makes no such comparison"
    if "restricts" in claim.asserts and not said & _RESTRICTING:
        return "the abstract states no such restriction"
    if "already" in claim.asserts and "already" not in said:
        return "the abstract does not say this is already so"
    return ""


REVERSED_COPY = 0.7  # share of a claim's words that must follow a sentence's, in order, for a word turned opposite to be sure


def _one_word_reversed(claim_text: str, sentences: list[str]) -> bool:
    """The claim copies a sentence (``REVERSED_COPY`` of its words, in order) with a word or two replaced by their
    opposite ("pruning will degrade robustness" for "pruning will improve robustness"). On every case file but the fresh
    sets 43-46, no supported claim the rules read as reversing its abstract is such a copy; 106 unsupported ones are."""
    mine = [w.lower() for w in _WORD.findall(claim_text)]
    for sentence in sentences:
        theirs = [w.lower() for w in _WORD.findall(sentence)]
        matcher = difflib.SequenceMatcher(a=mine, b=theirs, autojunk=False)
        if sum(block.size for block in matcher.get_matching_blocks()) < REVERSED_COPY * len(mine):
            continue
        if any(op == "replace" and i2 - i1 <= 2 and j2 - j1 <= 2 and any(_opposite(x, y) for x in mine[i1:i2] for y in theirs[j1:j2])
               for op, i1, i2, j1, j2 in matcher.get_opcodes()):
            return True
    return False


def _pair_negated(claim_text: str, sentences: list[str]) -> bool:
    """Two words of the claim that a sentence writes with the second negated by its prefix, or the other way round:
    "statistically tractable" for "statistically intractable", "computationally infeasible" for "computationally
    feasible"."""
    mine = [w.lower() for w in _WORD.findall(claim_text)]
    theirs = {(a, b) for sentence in sentences for a, b in itertools.pairwise(w.lower() for w in _WORD.findall(sentence))}
    for a, b in itertools.pairwise(mine):
        if a in STOPWORDS or (a, b) in theirs:
            continue
        for prefix in _NEGATING_PREFIXES:  # the word without its prefix must be one ("terpretable" is not)
            base = b[len(prefix):] if b.startswith(prefix) else ""
            if ((a, prefix + b) in theirs and zipf(b) >= 2.0) or (base and (a, base) in theirs and zipf(base) >= 2.0):
                return True
    return False


def _opposite(word: str, other: str) -> bool:
    """Words of a pair's two sides, or a word and its negation by prefix ("possible", "impossible")."""
    short, long = sorted((word, other), key=len)
    return any((word in up and other in down) or (word in down and other in up) for up, down in _OPPOSITES) or \
        (len(short) >= 4 and any(long == p + short for p in _NEGATING_PREFIXES))


def _quantifier_changed(claim: Terms, support: list[Terms]) -> str:
    """The claim says "all" of what its sentences say "most" of ("every existing algorithm" for "most algorithms"), or
    the other way round, or "always" for "sometimes": a changed quantity, as a changed number is."""
    said = set().union(*(t.words for t in support)) if support else set()
    for word, after in claim.quantified:
        if word in _MODALS:
            continue
        other = next(hedged if word in universal else universal for universal, hedged in _QUANTIFIERS
                     if word in universal | hedged)
        if word not in said and not any(q in other and _shares(after, a, 1, strict=True) for q, a in claim.quantified) and any(
                theirs in other and _shares(after, their_after, 1, strict=True) for t in support for theirs, their_after in t.quantified):
            return f"the abstract does not say '{word}'"
    return ""


# "single-subject approaches still beat it" for the abstract's "state-of-the-art ... compared to single-subject approaches"
_BEATS_IT = re.compile(r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})\s+(?:still\s+|also\s+|even\s+|consistently\s+|clearly\s+)?"
                       r"(?:beat|beats|outperform|outperforms|outperformed|surpass|surpasses|surpassed|exceed|exceeds|exceeded|"
                       r"outdo|outdoes)\s+(?:it|them|this method|the method|the approach|the model|this approach|ours)\b")
_AGAINST = re.compile(r"\b(?:compared (?:to|with)|than|over|relative to|against|versus|vs\.?)\s+([^.;,:()]{1,60})", re.IGNORECASE)


def _beaten_by_its_baseline(claim_text: str, sentences: list[str]) -> str:
    """The claim has what the abstract compares its method against beating it ("single-subject approaches still beat
    it") where the abstract has the method ahead ("... compared to single-subject approaches")."""
    match = _BEATS_IT.search(claim_text)
    if not match:
        return ""
    winner = [stem(w) for w in _WORD.findall(match.group(1).lower()) if w not in STOPWORDS and not w.endswith("ly")
              and w not in ("still", "also", "even")]
    for sentence in sentences:
        for against in _AGAINST.findall(sentence):
            theirs = [stem(w) for w in _WORD.findall(against.lower()) if w not in STOPWORDS]
            if _shares(winner, theirs, min(2, len(winner)), strict=True) and not _BEATS_IT.search(sentence):
                return _SWAPPED
    return ""


# "existing baselines outperform SF-Gen", "other approaches hold an advantage over the proposed method": the paper's
# own method put behind what it is compared with
_AHEAD_OF = re.compile(r"\b(?:outperform(?:s|ed)?|beat(?:s|en)?|surpass(?:es|ed)?|exceed(?:s|ed)?|outdo(?:es)?|"
                       r"(?:advantage|advantages|edge|superiority|lead)\s+over|superior\s+to|ahead\s+of|"
                       r"(?:better|stronger|faster|more\s+(?:accurate|effective|efficient|robust|expressive|powerful|"
                       r"scalable|stable|reliable))\s+than)\b", re.IGNORECASE)
# the same with the sides the other way round: "ours lags behind the baselines"
_BEHIND = re.compile(r"\b(?:lag(?:s|ged)?|trail(?:s|ed)?|fall(?:s)?|fell)\s+(?:\w+\s+)?(?:behind|short\s+of)|"
                     r"\bunderperform(?:s|ed)?|\b(?:worse|weaker|slower|less\s+(?:accurate|effective|efficient|robust))\s+than|"
                     r"\binferior\s+to\b", re.IGNORECASE)
_OWN_REFERENCE = re.compile(r"\b(?:the\s+proposed|our|ours|the\s+new|the\s+authors['’]\s+\w+|this\s+(?:method|approach|model|"
                            r"framework|algorithm|technique|work))\b", re.IGNORECASE)
_OWN_INTRODUCED = re.compile(r"\b(?:propose|proposes|proposed|introduce|introduces|introduced|present|presents|our|named|"
                             r"dubbed|called|termed)\b\s+(?:[a-z-]+\s+){0,3}?((?=[A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z0-9])"
                             r"[A-Z][A-Za-z0-9-]+)")
_SIDE_ENDS = r"[,;:(]|\b(?:and|while|whereas|but|which)\b"  # where one side of such a ranking stops
_OTHERS = frozenset("baseline baselines prior previous existing competing competitor competitors conventional traditional "
                    "classical sota state-of-the-art other alternative alternatives representative current standard "
                    "earlier".split())


def _own_behind(text: str, own: set[str]) -> bool:
    """``text`` puts what the paper compares itself with ahead of the paper's own method: "baselines outperform
    ours", "other approaches hold an advantage over SF-Gen"."""
    text = re.sub(r"\bstate of the art\b", "state-of-the-art", text, flags=re.IGNORECASE)
    matches = [(m, False) for m in _AHEAD_OF.finditer(text)] + [(m, True) for m in _BEHIND.finditer(text)]
    for match, behind_first in matches:
        before, after = text[: match.start()].split()[-20:], text[match.end() :].split()[:12]
        if behind_first:  # "ours lags behind the baselines": read as "the baselines outperform ours"
            before, after = after[:8], before[-8:]
        by = next((k for k, w in enumerate(after[:4]) if w.lower() == "by"), None)
        if match.group(0).lower().endswith(("ed", "en")) and by is not None:  # "baselines are outperformed by ours"
            ahead_text, behind = " ".join(after[by + 1 :]), re.split(_SIDE_ENDS, " ".join(before[-8:]))[-1]
        else:
            ahead_text = " ".join(before)
            behind = re.split(_SIDE_ENDS, " ".join(after))[-1] if behind_first else re.split(_SIDE_ENDS, " ".join(after[:8]))[0]
        names_behind = {t.lower() for t in _NAME_TOKEN.findall(behind)}
        own_behind = bool(_OWN_REFERENCE.search(behind) or names_behind & own)
        own_ahead = bool(_OWN_REFERENCE.search(ahead_text) or {t.lower() for t in _NAME_TOKEN.findall(ahead_text)} & own)
        if own_behind and not own_ahead and {w.lower().strip(",.;:()") for w in ahead_text.split()} & _OTHERS:
            return True
    return False


def _baselines_ahead(claim_text: str, paper: Abstract) -> str:
    """The claim ranks what the paper compares itself with ahead of its own method, which the abstract never does
    while it does compare them."""
    if not _own_behind(claim_text, paper.own_names):
        return ""
    sentences = [paper.text[a:b] for a, b in paper.spans]
    if any(_own_behind(s, paper.own_names) for s in sentences):
        return ""
    compares = any(_AHEAD_OF.search(s) or re.search(r"\b(?:compared (?:to|with)|relative to|against|over|state[- ]of[- ]the[- ]art|"
                                                    r"sota|superior|superiority)\b", s, re.IGNORECASE)
                   for s in sentences)
    return _SWAPPED if compares else ""


_ONLY_ONE = re.compile(r"\bthe (?:only|sole|single|unique)\b", re.IGNORECASE)
_ONE_OF = re.compile(r"\bone of (?:the|several|many|multiple|various|a few|few|numerous|its|their)\b", re.IGNORECASE)


def _uniqueness_changed(claim_text: str, sentences: list[str]) -> str:
    """"one of several single-cell PLMs" for the abstract's "the only single-cell PLM", or the other way round: how
    many there are is a quantity."""
    mine_one, mine_of = bool(_ONLY_ONE.search(claim_text)), bool(_ONE_OF.search(claim_text))
    theirs_one = any(_ONLY_ONE.search(s) for s in sentences)
    theirs_of = any(_ONE_OF.search(s) for s in sentences)
    if mine_of and not mine_one and theirs_one and not theirs_of:
        return "the abstract says it is the only one"
    if mine_one and not mine_of and theirs_of and not theirs_one:
        return "the abstract says it is one of several"
    return ""


def _shares(words: list[str], other: list[str], least: int, strict: bool = False) -> bool:
    """At least ``least`` of ``words`` (all of them, if fewer, unless ``strict``) said in ``other``: same stem,
    paraphrase or root."""
    available = set(other)
    return sum(_covered(w, available) for w in words) >= (least if strict else min(least, len(words)))


def _apart(words: list[str], other: list[str]) -> list[str]:
    """The ``words`` not said in ``other``."""
    available = set(other)
    return [w for w in words if not _covered(w, available)]


def _polarity_conflict(claim: Terms, support: list[Terms], others: list[Terms] | None = None) -> str:
    """Why the claim's polarity contradicts the supporting sentences, or "". ``others``: the abstract's other sentences,
    where a summary may have found a negation."""
    claim_words = set(claim.weights)
    support_negated = [scope for t in support for scope in t.negated]
    support_words = set().union(*(t.words for t in support)) if support else set()
    # "grows without bound" restates "becomes unbounded": a word negated by its prefix counts as a negation
    # (not a term the claim itself uses: "unlabeled data" is a thing, not a negation)
    prefixed = {stem(w[len(p):]) for w in support_words - claim.words for p in _NEGATING_PREFIXES
                if w.startswith(p) and len(w) - len(p) >= 4}
    support_troubled = [scope for t in support for scope in t.troubled]
    for scope, heads, before, word in zip(claim.negated, claim.negated_heads, claim.negated_before, claim.negated_by):
        if heads & _SACRIFICES and support_words & _KEEPING:
            continue  # "without sacrificing accuracy" restates "while preserving accuracy"
        if heads & _GAP_HEADS and "gap" in claim.asserts and any("gap" in t.asserts for t in support):
            continue  # "has received little study" restates "remains underexplored"
        if any(set(scope) & set(other) or not scope for other in support_negated) or \
                any(_covered(w, prefixed) or (len(w) >= 5 and any(w[:5] == b[:5] for b in prefixed))
                    for w in set(scope[:2]) | heads):  # "needs no parameters": "non-parametric"; "cannot perceive": "imperceptible"
            continue
        # a negation by a word such as "impossible" that the abstract also uses of the same subject ("detection is indeed
        # impossible in that regime"), or of what the claim negates ("no test can detect the change" for "detection
        # becomes impossible for any test")
        if any(their_word.startswith(_NEGATING_PREFIXES) and their_word.endswith(("ible", "able")) and (
                (word == their_word and set(before) & set(their_before))
                or (scope and all(_covered(w, set(their_scope) | set(their_before)) for w in scope[:2])))
               for t in support for their_word, their_scope, their_before in zip(t.negated_by, t.negated, t.negated_before)):
            continue
        # "struggle with resolutions outside their domain" for "face challenges when processing resolutions outside";
        # "images are not plentiful" for "images are limited" (what is scarce may come before the word)
        if any(_shares(scope, other, 1) and _shares(list(dict.fromkeys(scope + before)), other, 2, strict=True)
               for other in support_troubled):
            continue
        # a claim that condenses several sentences may take its negation from one the words did not pick, said of the
        # same subject: a name both use, or the words before the negation ("SPT ... with limited or no side effects"
        # from "SPT introduces limited or even no side effects")
        if len(scope) >= 2 and any(
                _shares(scope, other, 2) and (claim.names & t.names or _shares(before, list(t.weights), (len(before) + 1) // 2))
                for t in others or [] for other in t.negated + t.troubled):
            continue
        return "negates what the abstract states"
    for side, before, after in claim.ranked:  # "B outperforms A" for the abstract's "A outperforms B"
        for their_side, their_before, their_after in (r for t in support for r in t.ranked):
            # words both winners share are context, not a side ("torque adapters into the encoder outperform ... the
            # decoder" for "torque adapters into the decoder outperform ... the encoder"; "up to 2x faster")
            mine, yours = _apart(before, their_before), _apart(their_before, before)
            if side == their_side and _shares(mine, _apart(their_after, after), 1, strict=True) \
                    and _shares(_apart(after, their_after), yours, 1, strict=True):
                return _SWAPPED
            # "baselines outperform it" for the abstract's "it outperforms baselines": the baselines changed sides
            if side == their_side and "baselin" in before and "baselin" in their_after and "baselin" not in after + their_before:
                return _SWAPPED
    for pair, side, before, after in claim.compared:  # "full-rank better than low-rank" for "low-rank better than full-rank"
        for their_pair, their_side, their_before, their_after in (c for t in support for c in t.compared):
            mine, yours = [w for w in after if w not in their_after], [w for w in their_after if w not in after]
            if (pair, side) == (their_pair, their_side) and mine and yours and len(mine) < len(after) \
                    and all(w in their_before and w not in before for w in mine) \
                    and all(w in before and w not in their_before for w in yours):
                return _SWAPPED
    for mine, aside in zip(claim.preferred, claim.contrasted):  # "A rather than B" for the abstract's "B rather than A"
        for their_choice, their_aside in ((p, a) for t in support for p, a in zip(t.preferred, t.contrasted)):
            if _shares(aside, their_choice, 2) and _shares(mine, their_aside, 2) and not _shares(aside, their_aside, 2):
                return "swaps what the abstract prefers and sets aside"
    if claim.contrasted and not support_negated and not any(t.contrasted for t in support) and not support_words & _CONTRAST_CUES:
        # "only fingertip perception rather than whole-hand" where the abstract states whole-hand perception
        stated = set().union(*(set(t.weights) | _names_as_stems(t) for t in support))
        if any(scope and _covered(scope[0], stated) for scope in claim.contrasted):
            return "sets aside what the abstract states"
    if not claim.denies:
        # a negation of the abstract the claim states plainly ("a polynomial-time optimizer can compute" for "no
        # polynomial-time optimizer can compute"), though it may negate a term of its own ("no-regret", "label-free");
        # what the claim sets aside itself ("rather than adversarial") does not restate it, nor do the claim words the
        # support states outside a negation: "Nester enhances LMs" is the main clause of "… enhances LMs … without
        # increasing model size", not the negated part
        negated_words = {s for scope in support_negated for s in scope}
        stated = set().union(*(set(t.weights) for t in support)) - negated_words if support else set()
        restating = {w for w in claim_words if not _covered(w, stated) and w in claim.plain}
        surface = {k: v for t in support for k, v in t.surface.items()}
        def weight(stems: list[str]) -> float:  # rarity of the word as written ("possible"), not of its stem ("possibl")
            return sum(0.3 + 0.7 * rarity(surface.get(s, s)) for s in stems)

        keeps = bool(claim.words & _KEEPING)
        for scope, by in ((scope, by) for t in support for scope, by in zip(t.negated, t.negated_by)):
            if set(scope[:2]) & claim.aside or (claim.negated and not by):
                continue  # the claim keeps this negation; or one in a term ("reward-free") the claim's own negations may restate
            if keeps and scope and scope[0] in _HARMS and not _covered(scope[0], restating):
                continue  # "keeps the guarantees" restates "without compromising the guarantees"
            head = scope[:4]  # what the abstract negates: "fail to make [material progress on the benchmark]"
            covered = [s for s in head if _covered(s, restating)]
            # half its weight, and two of its words unless it has one ("model" alone does not restate "model size")
            if head and weight(covered) >= 0.5 * weight(head) and len(covered) >= min(2, len(head)):
                return "drops a negation of the abstract"
    claim_negated = {s for scope in claim.negated for s in scope[:2]}
    if _prefix_negated(claim.words, support_words, {s for scope in support_negated for s in scope[:2]}) or \
            _prefix_negated(support_words, claim.words, claim_negated):
        return "negates what the abstract states"
    theirs = [d for t in support for d in t.directions]
    for pair, side, ctx in claim.directions:
        opposite = any(p == pair and sd != side and ctx & c for p, sd, c in theirs)
        same = any(p == pair and sd == side and ctx & c for p, sd, c in theirs)
        # one word of the pair on each side, opposite ways ("trails" / "superior performance over"): a reversal even
        # when the words next to them differ
        alone = [sd for p, sd, _ in theirs if p == pair]
        single = set(alone) == {1 - side} and sum(p == pair for p, _, _ in claim.directions) == 1
        if (opposite and not same) or single:
            return "reverses the direction the abstract reports"
    return ""
