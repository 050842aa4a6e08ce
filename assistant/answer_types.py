"""What kind of answer a question asks for, and whether a paper says one: a near-miss check that words alone miss.

"How many expert raters checked agreement?" asks for a number of raters. A paper that mentions its
expert raters but never counts them is on the topic and does not answer: every word of the question is
in it, so the word-coverage test of ``assistant.selection.unanswered`` passes it. Here the question's
*slot* is read (a count of "raters"; a name of the "GPU"), and the paper's sentences that mention the
slot's words are searched for a value of that kind next to them (a number; a name the question does not
already hold).

The slot kinds are the classic question-answering answer types (Li & Roth, 2002), limited to the two
that an abstract either states or does not: a quantity, and the proper name of a product or artefact
(hardware, robot, licence, software, language model, dataset or benchmark). Descriptive answers ("which module handles
noise?": "prior-guided patch selection") are not judged here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from assistant.claims import _is_name, numbers, stem
from ingest.chunking import sentence_spans

SlotKind = Literal["number", "name"]


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# nouns whose value is a quantity: "what batch size", "which learning rate", "what share of cases". A paper that
# states such a value names the quantity ("a batch size of 256"), except those in BARE_QUANTITIES ("85.3% on ImageNet").
QUANTITY_NOUNS = _set(
    "number count amount size length rate ratio percentage percent fraction proportion share speedup factor "
    "dimension dimensionality coefficient coefficients temperature budget accuracy perplexity")
BARE_QUANTITIES = _set("number count amount ratio percentage percent fraction proportion share speedup factor accuracy "
                       "perplexity")
# nouns whose value is a proper name: "which GPU", "what licence", "which base language model". A paper that names
# such a thing uses the noun ("on an A100 GPU"), except those in BARE_NAMES ("we fine-tune Llama-2", "in MuJoCo").
NAMED_NOUNS = _set(
    "gpu gpus tpu tpus cpu cpus hardware accelerator accelerators chip chips robot robots arm arms hand hands camera "
    "cameras sensor sensors simulator simulators license licence licenses licences library libraries toolkit software "
    "manufacturer manufacturers vendor vendors company companies llm llms lm lms optimizer optimiser "
    "dataset datasets benchmark benchmarks corpus corpora encoder encoders backbone backbones baseline baselines")
BARE_NAMES = _set("simulator simulators library libraries toolkit software hardware llm llms lm lms optimizer optimiser "
                  "model models dataset datasets benchmark benchmarks corpus corpora encoder encoders backbone backbones "
                  "baseline baselines")
_MODEL_CLASSES = _set("language base foundation pretrained pre-trained backbone")  # "which base language model"
# words that qualify the slot without naming what it is about: "how many *different* typefaces"
_QUALIFIERS = _set(
    "different distinct total exact exactly maximum minimum max min overall approximate approximately average mean "
    "typical specific particular precise kind kinds type types sort of")
_DETERMINERS = _set("the a an its their this these those")
# "which paper studies robot grasping", "what method does X propose": the answer is a paper or its own method
_PAPER_WORDS = _set("paper papers work works study studies article articles publication publications method methods "
                    "approach approaches technique techniques framework frameworks algorithm algorithms model models system systems")
_STOP = _set(
    "do does did is are was were has have had can could will would should be been being used use uses in on at for "
    "to from by with during when while that which who whom whose than and or")
_WH = re.compile(r"\b(how\s+(?:many|much|long|large|big|fast|often|far)|what|which)\s+(.*)", re.IGNORECASE)
WINDOW = 6  # a name within this many words of the slot's noun is about it ("on one NVIDIA A100 GPU")
# a number counts the noun it precedes in one noun phrase ("15 commonly used fonts", not "two operations in GNN
# layers"), or sets the quantity it follows closely ("a batch size of 256", "learning rate 0.001")
_PHRASE_ENDS = _set(
    "in on at for to from by with during of over under across between among into per via than and or but that which "
    "who is are was were be been do does did has have had can could will would should while when where")
_SETTING = _set("of is are was were to at set equal equals about around roughly approximately only just up "
                "over under below above than a an the as")


@dataclass(frozen=True)
class Slot:
    """The value a question asks for: its kind and the stems of the words that say what it is about."""

    kind: SlotKind
    about: tuple[str, ...]  # stems; empty for "how much does X accelerate …" (any quantity answers)
    bare: bool = False  # the value can be stated without the noun: a paper that never uses it may still answer
    words: str = ""     # the slot as the question writes it ("expert raters"), for the near-miss answer
    of: Slot | None = None  # what a quantity is of ("size of language model"): filling that fills the slot too

    def describe(self) -> str:
        """What a paper that does not fill the slot lacks: 'no number for “expert raters”'."""
        return f"no {self.kind} for “{self.words}”" if self.words else f"no {self.kind}"


def _wh_phrase(question: str) -> tuple[str, list[str], str] | None:
    """The question's wh-word ("what", "how many"), the noun phrase after it and the text after it, else ``None``."""
    match = _WH.search(question)
    if not match:
        return None
    rest = match.group(2)
    return " ".join(match.group(1).lower().split()), _phrase(re.findall(r"[A-Za-z][\w+-]*", rest)), rest


def asked_slot(question: str) -> Slot | None:
    """The slot of a question asking for a quantity or a proper name, else ``None``."""
    asked = _wh_phrase(question)
    if asked is None:
        return None
    wh, phrase, rest = asked
    if wh.startswith("how ") and wh != "how many":  # "how much does X accelerate …": a quantity of nothing named
        return Slot("number", ())
    if not phrase or phrase[0].lower() in _PAPER_WORDS:
        return None
    if wh == "how many":  # the counted noun: the first plural ("how many *GPU hours* did", "how many *bins* per feature")
        at = next((i for i, w in enumerate(phrase) if _plural(w)), len(phrase) - 1)
        return Slot("number", (stem(phrase[at]),), words=" ".join(phrase[: at + 1]))
    lows = [w.lower() for w in phrase]
    for i, low in enumerate(lows):
        if low in QUANTITY_NOUNS:
            about = phrase[: i + 1][-2:]  # "batch size", "learning rate"
            of = None  # "what size of language model": a number at the model ("a 1.3B LLM") gives it too
            if i + 1 < len(phrase) and re.search(rf"\b{re.escape(phrase[i])}\s+of\b", rest):
                of = Slot("number", (stem(phrase[-1]),), low in BARE_QUANTITIES, " ".join(phrase[i + 1 :]))
            return Slot("number", tuple(stem(w) for w in about), low in BARE_QUANTITIES, " ".join(about), of)
    named = [low for i, low in enumerate(lows) if low in NAMED_NOUNS or (low in ("model", "models") and i and lows[i - 1] in _MODEL_CLASSES)]
    if named:  # the last one: "software *license*", "robot *arm*"; bare only if the others are ("robot hand hardware": no)
        at = len(lows) - 1 - lows[::-1].index(named[-1])
        return Slot("name", (stem(named[-1]),), all(n in BARE_NAMES for n in named), " ".join(phrase[: at + 1]))
    return None


def asked_phrase(question: str) -> frozenset[str]:
    """The stems of the noun phrase a "which" / "what" question asks about ("which *planning algorithms* does it
    propose": {"plan", "algorithm"}); empty for other questions and for "which method / paper"."""
    asked = _wh_phrase(question)
    if asked is None or asked[0] not in ("what", "which") or not asked[1] or asked[1][0].lower() in _PAPER_WORDS:
        return frozenset()
    return frozenset(stem(w) for w in asked[1])


def mentions(phrase: frozenset[str], text: str) -> bool:
    """``text`` has every stem of ``phrase`` (``asked_phrase``)."""
    return bool(phrase) and phrase <= {stem(w) for w in _words(text)}


def abbreviates(word: str, phrase: str) -> bool:
    """``word`` is an acronym for ``phrase``'s last two words, alone or with more in front: "LMs", "LLM" and
    "LCLMs" for "long-context language models" (papers define such acronyms once and use them after)."""
    letters = word[:-1] if word.endswith("s") else word
    parts = [p for p in re.split(r"[\s-]+", phrase) if p]
    if len(parts) < 2 or not (letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 6):
        return False
    return letters.endswith("".join(p[0] for p in parts[-2:]).upper())


def own_acronym(word: str, phrase: str) -> bool:
    """``word`` (punctuation after it aside) is an acronym of ``phrase`` in any case: "sLM" and "LLMs" for "small
    language model", as ``abbreviates`` reads it. It names the slot's kind, not a value of it."""
    letters = _acronym_letters(word)
    return sum(c.isupper() for c in letters) >= 2 and abbreviates(letters.upper(), phrase)


def _acronym_letters(word: str) -> str:
    """The letters before any other character, less a plural "s": "sLM" of "sLM)-based", "STPP" of "STPPs"."""
    letters = re.split(r"[^A-Za-z]", word)[0]
    return letters[:-1] if letters.endswith("s") else letters


def _counts(words: list[str], i: int, asked: set[float]) -> bool:
    """A number (not one the question gives) counts or sets ``words[i]`` (``_PHRASE_ENDS``, ``_SETTING``)."""
    for j in range(i - 1, max(-1, i - WINDOW - 1), -1):
        if _value(words[j], asked):
            return True
        if words[j].lower() in _PHRASE_ENDS or _plural(words[j]):
            break
    for j in range(i + 1, min(len(words), i + 5)):
        if _value(words[j], asked):
            return True
        if words[j].lower() not in _SETTING:
            break
    return False


def _phrase(words: list[str]) -> list[str]:
    """The noun phrase a wh-word opens: up to a verb ("checked"), an auxiliary or a preposition, qualifiers left out."""
    phrase: list[str] = []
    for word in words:
        low = word.lower()
        if low in ("and", "or") and phrase and not _plural(phrase[-1]):  # "which regression and classification datasets"
            continue
        if (phrase or low not in ("is", "are", "was", "were")) and low in _STOP or phrase and (
                low in _DETERMINERS or (low.endswith("ed") and len(low) > 5)):
            break
        if low not in _QUALIFIERS and low not in _STOP and low not in _DETERMINERS:
            phrase.append(word)
        if len(phrase) >= 4:
            break
    return phrase


def _plural(word: str) -> bool:
    low = word.lower()
    return low in ("people", "data", "children") or (len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")))


def _words(text: str) -> list[str]:
    """Blank-separated tokens without their punctuation; math stays one token ("n^(-1/(t+5))")."""
    return [w for w in (t.strip(".,;:!?\"'“”()[]*") for t in text.split()) if w]


_MATH = re.compile(r"\^|^(?:O|Θ|Ω|𝒪|Õ)\(|sqrt\(|√")


_PROPORTIONS = _set("half third thirds quarter quarters majority")  # "around half of prompts": a share in words


def _value(word: str, asked: set[float]) -> bool:
    """``word`` is a number the question does not give, a proportion in words, or a formula ("n^(-1/(t+5))", "O(1/T)")."""
    return bool(numbers(word) - asked) or word.lower() in _PROPORTIONS or bool(_MATH.search(word))


def slot_filled(slot: Slot, question: str, title: str, abstract: str, quoted: list[str] | None = None) -> bool | None:
    """Whether the paper states the slot's value: ``True`` when a sentence names the slot and has a value of its
    kind within ``WINDOW`` words, ``False`` when the paper never does, ``None`` when it cannot tell: a bare slot
    whose noun the paper never uses ("which optimizer" answered by "we train with Adam"). A quantity of nothing
    named ("how much does X accelerate …") has no noun to find: it is filled (``None``: some number, about what is
    not known) when the sentences the answer would quote (``quoted``; default: all) hold a number. A slot with
    ``of`` is also filled when that is ("a 1.3B LLM" gives "what size of language model")."""
    filled = _slot_filled(slot, question, title, abstract, quoted)
    if filled is not True and slot.of is not None and _slot_filled(slot.of, question, title, abstract, quoted):
        return True
    return filled


def _slot_filled(slot: Slot, question: str, title: str, abstract: str, quoted: list[str] | None) -> bool | None:
    asked_numbers = numbers(question)
    asked_words = {w.lower() for w in _words(question)} | {w.lower() for w in _words(title)}
    initials = " ".join("".join(p[0] for p in re.split(r"[\s-]+", part) if p).lower()
                        for part in re.split(r"[^\w\s-]", f"{question} {title}"))
    sentences = [abstract[s.start:s.end] for s in sentence_spans(abstract)]
    if not slot.about:
        return None if any(numbers(q) - asked_numbers for q in (sentences if quoted is None else quoted)) else False
    seen_about = False
    for sentence in sentences:
        words = _words(sentence)
        stems = [stem(w) for w in words] if slot.kind == "number" else _noun_stems(words, slot)
        short = [i for i, w in enumerate(words) if abbreviates(w, slot.words)]  # "LCLMs" for "long-context language models"
        if not all(a in stems for a in slot.about) and not short:
            continue
        seen_about = True
        for i in sorted({i for i, s in enumerate(stems) if s == slot.about[-1]} | set(short)):
            if slot.kind == "number" and _counts(words, i, asked_numbers):
                return True
            lo, hi = max(0, i - WINDOW), min(len(words), i + WINDOW + 1)
            if slot.kind == "name" and any(_names(words, j, slot, asked_words, initials) for j in range(lo, hi)):
                return True
    if seen_about or not slot.bare:
        return False
    # the paper never writes the slot's noun, and a bare value needs none ("we fine-tune Llama-2"): it may answer
    # if it has a value of the kind at all
    for sentence in sentences:
        words = _words(sentence)
        if any(_value(w, asked_numbers) if slot.kind == "number" else _names(words, j, slot, asked_words, initials)
               for j, w in enumerate(words)):
            return None
    return False


_MEASURE = re.compile(r"\d+(?:\.\d+)?[A-Za-z]{0,2}\b")  # "3D", "7B", "10x": a number with its unit, not a name
_ADDRESS = re.compile(r"://|www\.|\.(?:io|com|org|net|ai)\b|github", re.IGNORECASE)  # a link is no name of a thing


def _noun_stems(words: list[str], slot: Slot) -> list[str]:
    """The words' stems, less those that share the name slot's stem without being its noun, plural aside
    ("simulation" and "simulated" share "simul" with "simulator", "optimal" shares "optim" with "optimizer": neither
    names the thing asked for)."""
    noun = _singular(slot.words.split()[-1]) if slot.words else ""
    about = slot.about[-1] if slot.about else ""
    return ["" if noun and own == about and _singular(word) != noun else own for word, own in ((w, stem(w)) for w in words)]


def _singular(word: str) -> str:
    low = word.lower()
    if low.endswith("ies"):
        return low[:-3] + "y"  # "libraries"
    return low[:-1] if low.endswith("s") and not low.endswith("ss") else low


def _spelled_out(words: list[str], j: int) -> bool:
    """``words[j]`` is a capitalised word of a term written out before its acronym ("Large Language Models LLMs",
    "Contrastive Language-Image Pre-Training CLIP": the acronym's capitals follow the initials of the capitalised run
    it ends, from the first): part of the term, not a name."""
    word = words[j]
    if not (word[:1].isupper() and not any(c.isupper() or c.isdigit() for c in word[1:])):
        return False
    end = j
    while end + 1 < len(words) and words[end + 1][:1].isupper() and not _acronym_like(words[end + 1]):
        end += 1
    if end + 1 >= len(words) or not _acronym_like(words[end + 1]):
        return False
    start = j
    while start > 0 and words[start - 1][:1].isupper() and not _acronym_like(words[start - 1]):
        start -= 1
    letters = "".join(c for c in words[end + 1] if c.isupper())
    initials = [part[0].upper() for w in words[start:end + 1] for part in w.split("-") if part]
    return bool(letters) and letters[0] == initials[0] and _subsequence(letters, initials)


def _acronym_like(word: str) -> bool:
    return sum(c.isupper() for c in word) >= 2


def _subsequence(letters: str, initials: list[str]) -> bool:
    it = iter(initials)
    return all(c in it for c in letters)


def _names(words: list[str], j: int, slot: Slot, asked_words: set[str], initials: str = "") -> bool:
    """``words[j]`` is a name that the question and title do not hold, and not an acronym of theirs (``initials``,
    three letters or more: "STPPs" for the title's "spatio-temporal point processes") or of the slot's."""
    word = words[j]
    if (not _is_name(word, j) or word.lower() in asked_words or own_acronym(word, slot.words) or _MEASURE.match(word)
            or _ADDRESS.search(word) or _spelled_out(words, j)):
        return False
    letters = _acronym_letters(word)
    return not (len(letters) >= 3 and sum(c.isupper() for c in letters) >= 2 and letters.lower() in initials)
