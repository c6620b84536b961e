"""Every item-writing check on a varied bank, pinned: the same problems, at the same lines, in the same order.

The bank is written here from a fixed seed, in four languages: options with Markdown, entities,
raw HTML, code, formulas, numbers, acronyms, runs of spaces and case that set them apart or not;
phrases that refer to the other options in each language, and near misses; the options of one
language in another order; long correct options; answers piled on one letter; pins, ``allow``
and ``shuffle`` on single questions; several correct answers, feedback, missing explanations and
translations, and the other kinds; and, in a file of their own, every two ways of writing a word,
lists of numbers and code in several orders, and every phrase in each language.
``tests/data/item-checks.txt`` holds every problem loading it finds, one a line, in the order
found. After an intended change, regenerate it and review the diff:

    ANKIBUILD_REGENERATE=1 python -m pytest tests/kinds/test_itemchecks_pinned.py
"""

from __future__ import annotations

import itertools
import json
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ankibuild.errors import Problem, Problems
from ankibuild.kinds import CHECKS
from ankibuild.load.stage import load_bank

from ..conftest import DATA

FINDINGS = DATA / "item-checks.txt"
LANGS = ("en", "de", "fr", "ru")
#: An option in each language, by what it says.
Option = dict[str, str]

WORDS = (
    ("Red", "Rot", "Rouge", "Красный"),
    ("Green", "Grün", "Vert", "Зелёный"),
    ("Blue", "Blau", "Bleu", "Синий"),
    ("Light blue", "Hellblau", "Bleu clair", "Голубой"),
    ("Yellow", "Gelb", "Jaune", "Жёлтый"),
    ("The Go language", "Die Sprache Go", "Le langage Go", "Язык Go"),
    ("A stack", "Ein Stapel", "Une pile", "Стек"),
    ("A queue", "Eine Warteschlange", "Une file", "Очередь"),
    ("Straße", "Strasse", "Rue", "Улица"),
    ("Σίσυφος", "ΣΊΣΥΦΟΣ", "Sisyphe", "Сизиф"),
    ("Salt & pepper", "Salz & Pfeffer", "Sel & poivre", "Соль & перец"),
    ("Fish and chips", "Fisch und Pommes", "Poisson et frites", "Рыба и картошка"),
    ("Weiß", "Maße", "Fußnote", "Straße"),
)
#: Each written so that it shows the same as the word, or reads the same once case is set aside.
FORMS = (
    "{}",
    "**{}**",
    "__{}__",
    "*{}*",
    "_{}_",
    "`{}`",
    "{}  ",
    " {}",
    "<b>{}</b>",
    "&lt;{}&gt;",
    "{} &amp; co",
    "{} & co",
    "{}\u00a0!",
    "{} !",
    "{} \\!",
    "{}  !",
)
#: Written differently, shown exactly alike.
ALIKE = (("**{}**", "__{}__"), ("*{}*", "_{}_"), ("{}\u00a0!", "{} !"), ("{}  !", "{} !"), ("\\*{}", "*{}"))
#: Read the same in every language (or not quite): numbers, code, formulas, acronyms.
NEUTRAL = (
    "8",
    "16",
    "32",
    "3.14",
    "1,5",
    "1.000.000",
    "`ls -d`",
    "`ls -D`",
    "`GO`",
    "`go`",
    "\\(x^2\\)",
    "$\\sqrt{2}$",
    "\\[a+b\\]",
    "\\(x",
    "TCP",
    "UDP",
    "HTTP/2",
    "IPv6",
    "2 TCP",
    "TCPs",
    "CPUs",
    "IPv4",
    "`a` and `b`",
    "<code>x</code>",
)
#: The words said around a number in each language, or none.
UNITS = (("", "", "", ""), (" bits", " Bit", " bits", " бит"), (" km", " Kilometer", " kilomètres", " км"))
#: Phrases that refer to the other options, and near misses, in each language.
ABOVE = {
    "en": (
        "All of the above",
        "None of the previous",
        "Both of the above",
        "ALL OF THE **ABOVE**",
        "Above all, red",
        "The previous answer",
        "All of the above-mentioned",
    ),
    "de": (
        "Alle oben genannten",
        "Keine der genannten",
        "Keine dieser",
        "ALLE GENANNTEN",
        "Obige Farbe",
        "Die vorherige",
        "Alle obigen",
    ),
    "fr": (
        "Toutes les réponses ci-dessus",
        "Aucune des réponses précédentes",
        "Toutes les précédentes",
        "AUCUNE DES CI-DESSUS",
        "Ci-dessus, rien",
        "La précédente",
        "Tout ce qui précède",
    ),
    "ru": (
        "Все вышеперечисленные",  # noqa: RUF001 (Cyrillic)
        "Ничего из перечисленного",
        "Все перечисленные",  # noqa: RUF001 (Cyrillic)
        "ВСЕ ПЕРЕЧИСЛЕННЫЕ",  # noqa: RUF001 (Cyrillic)
        "Выше всех",
        "Предыдущий",
        "Всё выше",
    ),
}
FILLER = {
    "en": "every detail a careful author adds to the one right option".split(),
    "de": "jede Einzelheit die eine sorgfältige Autorin der richtigen Antwort gibt".split(),
    "fr": "chaque détail qu'une autrice soigneuse ajoute à la bonne réponse".split(),
    "ru": "каждая подробность которую внимательный автор добавляет к верному ответу".split(),
}


def _same(text: str) -> Option:
    return dict.fromkeys(LANGS, text)


def _word(rng: random.Random) -> Option:
    return dict(zip(LANGS, rng.choice(WORDS), strict=True))


def _form(rng: random.Random, option: Option) -> Option:
    """``option`` written another way, in one language or all."""
    form = rng.choice(FORMS)
    changed = {lang: form.format(text) for lang, text in option.items()}
    if rng.random() < 0.5:
        return changed
    lang = rng.choice(LANGS)
    return {**option, lang: changed[lang] if rng.random() < 0.5 else option[lang].upper()}


def _neutral(rng: random.Random) -> Option:
    """The same number, code or formula in every language (or, now and then, another one in each)."""
    units = rng.choice(UNITS)
    same = rng.choice(NEUTRAL)
    return {
        lang: (same if rng.random() < 0.97 else rng.choice(NEUTRAL)) + unit
        for lang, unit in zip(LANGS, units, strict=True)
    }


def _above(rng: random.Random) -> Option:
    """A phrase that refers to the other options, or a near miss, chosen in each language on its own."""
    return {lang: rng.choice(ABOVE[lang]) for lang in LANGS}


def _long(rng: random.Random) -> Option:
    return {lang: " ".join(rng.choices(words, k=rng.randint(3, 14))).capitalize() for lang, words in FILLER.items()}


def _options(rng: random.Random, count: int) -> list[Option]:
    """Options of one question: alike in kind (all numbers, or words), or of every kind."""
    if rng.random() < 0.35:
        return [_neutral(rng) for _ in range(count)]
    options: list[Option] = []
    for _ in range(count):
        roll = rng.random()
        if options and roll < 0.04:
            base, pair = rng.choice(options), rng.choice(ALIKE)
            options += [{lang: form.format(text) for lang, text in base.items()} for form in pair]
        elif options and roll < 0.25:
            options.append(_form(rng, rng.choice(options)))
        else:
            make = _word if roll < 0.6 else _neutral if roll < 0.75 else _above if roll < 0.85 else _long
            options.append(make(rng))
    return options[:count]


def _distinct(options: list[Option]) -> list[Option]:
    """Without options that repeat an earlier one's text in some language: the schema refuses those."""
    kept: list[Option] = []
    for option in options:
        if all(option[lang].strip() not in {k[lang].strip() for k in kept} for lang in LANGS):
            kept.append(option)
    return kept


def _choice(rng: random.Random, qid: str, letter_bias: str, long_bias: float) -> str:
    options = _distinct(_options(rng, rng.choice((2, 3, 3, 4, 4, 4, 5, 5, 6))))
    while len(options) < 2:
        options.append(_long(rng))
    letters = "ABCDEF"[: len(options)]
    several = rng.random() < 0.12
    answer = sorted(rng.sample(letters, rng.randint(1, len(letters)))) if several else []
    one = letter_bias if letter_bias and letter_bias in letters and rng.random() < 0.8 else rng.choice(letters)
    if not several and rng.random() < long_bias:
        options[letters.index(one)] = _long(rng) | {"en": " ".join(FILLER["en"] * 2)}
    if rng.random() < 0.4 and len(options) > 2:
        lang = rng.choice(LANGS[1:])
        first, second = rng.sample(range(len(options)), 2)
        moved = [option[lang] for option in options]
        moved[first], moved[second] = moved[second], moved[first]
        options = [{**option, lang: text} for option, text in zip(options, moved, strict=True)]
    head = f"  - id: {qid}\n    topics: [t]\n    answer: {json.dumps(answer) if several else one}\n"
    if rng.random() < 0.3:
        head += f"    shuffle: {rng.choice(('true', 'false'))}\n"
    if rng.random() < 0.2:
        head += f"    pin: [{', '.join(sorted(rng.sample(letters, rng.randint(1, 2))))}]\n"
    if rng.random() < 0.15:
        head += f"    allow: [{', '.join(rng.sample(CHECKS, rng.randint(1, 2)))}]\n"
    return head + "".join(_translation(rng, lang, [o[lang] for o in options]) for lang in _languages(rng))


def _languages(rng: random.Random) -> Sequence[str]:
    return LANGS if rng.random() < 0.9 else LANGS[:3]


def _translation(rng: random.Random | None, lang: str, options: Sequence[str]) -> str:
    listed = "".join(f"        - {json.dumps(option, ensure_ascii=False)}\n" for option in options)
    text = f"    {lang}:\n      question: Question {lang}?\n      options:\n{listed}"
    if rng is None:
        return text + f"      explanation: Explained in {lang}.\n"
    if rng.random() < 0.92:
        text += f"      explanation: Explained in {lang}.\n"
    if rng.random() < 0.1:
        text += f"      feedback:\n        B: Feedback {lang}.\n"
    return text


def _other(rng: random.Random, qid: str) -> str:
    """A question of another kind: true or false, a flashcard, a cloze."""
    kind = rng.choice(("truefalse", "flashcard", "cloze"))
    head = f"  - id: {qid}\n    kind: {kind}\n    topics: [t]\n"
    head += "    answer: true\n" if kind == "truefalse" else ""
    texts = ""
    for lang in _languages(rng):
        question = f"Fill {{{{c1::{lang}}}}} in." if kind == "cloze" else f"Statement {lang}."
        texts += f"    {lang}:\n      question: {question}\n"
        texts += f"      answer: Answer {lang}.\n" if kind == "flashcard" else ""
        texts += f"      explanation: Why in {lang}.\n" if rng.random() < 0.7 else ""
    return head + texts


def _listed(qid: str, answer: str, options: Sequence[Option], head: str = "") -> str:
    """A question with every option of ``options`` in every language, and an explanation."""
    return f"  - id: {qid}\n    topics: [t]\n    answer: {answer}\n{head}" + "".join(
        _translation(None, lang, [option[lang] for option in options]) for lang in LANGS
    )


def _every_pair() -> list[str]:
    """Each two ways of writing a word, in one question: both shown alike, read alike, or not."""
    pairs: list[tuple[Callable[[str], str], Callable[[str], str]]] = [
        (a.format, b.format) for a, b in (*itertools.combinations(FORMS, 2), *ALIKE)
    ]
    pairs += [(str.strip, str.upper), (str.casefold, str.upper), (str.strip, str.lower), ("`{}`".format, _upper_code)]
    questions = []
    for i, (first, second) in enumerate(pairs):
        word = dict(zip(LANGS, WORDS[i % len(WORDS)], strict=True))
        other = dict(zip(LANGS, WORDS[(i + 1) % len(WORDS)], strict=True))
        options = _distinct(
            [{lang: first(t) for lang, t in word.items()}, {lang: second(t) for lang, t in word.items()}]
        )
        questions.append(_listed(f"pair-{i}", "ABC"[i % 3], [*options, other, _long_of(i)]))
    return questions


def _upper_code(text: str) -> str:
    return f"`{text.upper()}`"


def _long_of(i: int) -> Option:
    return {lang: " ".join(words[: 2 + i % 9]) for lang, words in FILLER.items()}


def _every_order() -> list[str]:
    """Numbers, code and formulas, in another order in some languages."""
    questions = []
    for i in range(len(NEUTRAL)):
        a, b, c = (NEUTRAL[(i + k) % len(NEUTRAL)] for k in range(3))
        orders = {"en": (a, b, c), "de": (b, a, c), "fr": (a, c, b), "ru": (a, b, c) if i % 2 else (c, b, a)}
        options = [
            {lang: order[k] + UNITS[i % 3][j] for j, (lang, order) in enumerate(orders.items())} for k in range(3)
        ]
        questions.append(_listed(f"order-{i}", "ABC"[i % 3], options))
    return questions


def _every_phrase() -> list[str]:
    """Each phrase that refers to the others, or almost, in each language, shuffled or not, pinned or not."""
    questions = []
    for i, (lang, phrase) in enumerate((lang, phrase) for lang, phrases in ABOVE.items() for phrase in phrases):
        words = [dict(zip(LANGS, WORDS[(i + k) % len(WORDS)], strict=True)) for k in range(3)]
        head = ("", "    shuffle: false\n", "    shuffle: true\n", "    pin: [C]\n")[i % 4]
        questions.append(_listed(f"phrase-{i}", "AB"[i % 2], [words[0], words[1], {**words[2], lang: phrase}], head))
    return questions


#: Each file: its number of questions, the letter most answers are on, how often the correct option is long.
FILES = {
    "answers-on-b.yaml": (40, "B", 0.1),
    "long-answers.yaml": (30, "", 0.7),
    "mixed.yaml": (120, "", 0.2),
    "few.yaml": (5, "A", 0.9),
    "more.yaml": (60, "C", 0.3),
}


def _write_bank(root: Path) -> Path:
    rng = random.Random(20261201)
    decks = root / "decks"
    decks.mkdir()
    names = ", ".join(f"{lang}: Topic {lang}" for lang in LANGS)
    (decks / "bank.yaml").write_text(
        f"id: pinned\nlanguages: [{', '.join(LANGS)}]\nshuffle: true\ntopics:\n  t: {{{names}}}\n", encoding="utf-8"
    )
    for name, (count, letter, long_bias) in FILES.items():
        questions = [
            _other(rng, f"{name[:-5]}-{i}")
            if rng.random() < 0.1
            else _choice(rng, f"{name[:-5]}-{i}", letter, long_bias)
            for i in range(count)
        ]
        deck = ", ".join(f"{lang}: Deck {lang}" for lang in LANGS)
        (decks / name).write_text(f"deck: {{{deck}}}\nquestions:\n" + "".join(questions), encoding="utf-8")
    deck = ", ".join(f"{lang}: Every {lang}" for lang in LANGS)
    every = [*_every_pair(), *_every_order(), *_every_phrase()]
    (decks / "every.yaml").write_text(f"deck: {{{deck}}}\nquestions:\n" + "".join(every), encoding="utf-8")
    return decks


def _line(problem: Problem) -> str:
    return f"{problem.describe()} {{{problem.check}}}"


def test_every_check_finds_what_it_found_on_a_varied_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    decks = _write_bank(tmp_path)
    monkeypatch.chdir(tmp_path)
    problems = Problems()
    load_bank(decks, problems)
    found = "".join(f"{_line(problem)}\n" for problem in problems.items)
    if os.environ.get("ANKIBUILD_REGENERATE"):
        FINDINGS.write_text(found, encoding="utf-8")
    assert found == FINDINGS.read_text(encoding="utf-8")
    assert {problem.check for problem in problems.items} >= set(CHECKS)
