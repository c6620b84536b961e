"""The item-writing checks of multiple choice: warnings about questions whose options give the answer away.

A student who learns that the longest option is right, or that the answer is
usually B, stops learning the subject. These checks look at the options as the
card shows them (Markdown rendered, markup removed), in every language built.
Each has a name; a question exempts itself from one with ``allow: [name]``
(see :mod:`..checks`).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple

from ...errors import Problems
from ...model import Place, Question
from ..base import Fact
from ..checks import FileChecks
from .options import LETTERS, several_correct

LONGEST_CORRECT = "longest-correct"
OFTEN_LONGEST = "often-longest"
ANSWER_LETTER = "answer-letter"
IDENTICAL_OPTIONS = "identical-options"
ALL_OF_THE_ABOVE = "all-of-the-above"
OPTION_ORDER = "option-order"
#: Its checks, by name, in the order a summary counts them.
CHECKS = (LONGEST_CORRECT, OFTEN_LONGEST, ANSWER_LETTER, IDENTICAL_OPTIONS, ALL_OF_THE_ABOVE, OPTION_ORDER)

#: The correct option is "clearly" the longest when it is this much longer than every other
#: option, both as a ratio and in characters (so that "Mercury" against "Mars" is no hint).
CLEARLY_LONGER_RATIO = 1.25
CLEARLY_LONGER_BY = 12
#: Questions a deck or bank needs before patterns across them are judged.
MIN_QUESTIONS = 6
#: Share of questions above which a pattern (one letter, the longest option) gives answers away.
MAJORITY = 0.5

#: "All of the above" and "none of the above" in the languages with card labels: such an
#: option means nothing once shuffled into the middle.
_ABOVE = re.compile(
    r"\b(?:all|none|both) of the (?:above|previous)|alle (?:oben )?genannten|keine der (?:oben )?genannten"
    r"|keine (?:dieser|der obigen)|toutes? les (?:réponses )?(?:ci-dessus|précédentes)|aucune des (?:réponses )?"
    r"(?:ci-dessus|précédentes)|todas las anteriores|ninguna de las anteriores|tutte le precedenti"
    r"|nessuna delle precedenti|todas as anteriores|nenhuma das anteriores|alle bovenstaande"
    r"|geen van (?:de )?bovenstaande|wszystkie powyższe|żadn[aey] z powyższych|все (?:выше)?перечисленн"
    r"|ничего из (?:выше)?перечисленного|上記のすべて|上記のいずれ|以上都|以上皆|以上全|위의 모든|위의 어느",
    re.IGNORECASE,
)
#: A word one of those phrases has, looked for first: the phrases are slow to search for
#: case-insensitively, and nearly no option has any of these.
_ABOVE_WORDS = (
    "above",
    "previous",
    "genannt",
    "obig",
    "dessus",
    "précédent",
    "anterior",
    "precedent",
    "bovenstaand",
    "powyż",
    "перечисл",
    "上記",
    "以上",
    "위의",
)
#: A tag; a ``<`` ends the search for its ``>``, so that a text of ``<`` is read once.
_TAG = re.compile(r"<[^<>]*>")
#: What reads the same in every language: numbers, code, formulas, acronyms; code and
#: formulas by their opener, the rest of them up to their closer (see :func:`neutral`).
_NEUTRAL = re.compile(r"\d+(?:[.,]\d+)*|<code>|\\\(|\\\[|\b[A-Z][A-Z0-9]+\b")
_NEUTRAL_CLOSERS = {"<code>": "</code>", "\\(": "\\)", "\\[": "\\]"}
#: Where a part of :data:`_NEUTRAL` can start. A search for one of these characters skips the others in C:
#: the pattern, whose parts start unlike, tries each place in turn, and most options have no part at all.
#: A capital starts an acronym only before a capital or a digit: the capital of a word (every German
#: noun's) is skipped in C too.
_NEUTRAL_START = re.compile(r"[\d<\\]|[A-Z](?=[A-Z0-9])")


#: What each check of a question is given, by language: its options as a student reads them
#: (:func:`visible`), as rendered, and those texts casefolded, joined by line breaks.
Texts = Mapping[str, list[str]]
Rendered = Mapping[str, Sequence[str]]
Folded = Mapping[str, str]


class AnswerFacts(NamedTuple):
    """What the checks across a bank need of one question."""

    #: The letter of its correct option; "" when several are correct, which the patterns leave
    #: out: a student who ticks all that apply guesses no single place or length.
    letter: str
    #: The correct option is the longest in most languages.
    longest: bool
    allow: frozenset[str]


def _refers_to_the_others(text: str) -> bool:
    """True for "All of the above", "Aucune des réponses précédentes" and their kind."""
    folded = text.casefold()
    return any(word in folded for word in _ABOVE_WORDS) and _ABOVE.search(text) is not None


def _shows(option_html: str) -> str:
    """An option as a card lays it out: its HTML, with each run of spaces one space, as a browser shows it."""
    # Most options are so already: no space but " " is printable. split() takes the spaces ``\s``
    # matches, and is several times faster than a pattern.
    if option_html.isprintable() and "  " not in option_html and option_html[:1] != " " != option_html[-1:]:
        return option_html
    return " ".join(option_html.split())


def visible(option_html: str) -> str:
    """An option as a student reads it: tags removed, entities decoded, spaces collapsed."""
    if "<" in option_html or "&" in option_html:  # most options are plain text
        option_html = html.unescape(_TAG.sub("", option_html))
    return _shows(option_html)


def neutral(text: str) -> tuple[str, ...]:
    """The parts of ``text`` that read the same in every language, in order.

    Code and formulas run from their opener to its first closer. An opener
    without one is passed over, and so is every later opener of its kind
    without looking again: no closer comes after it either.
    """
    found: list[str] = []
    unclosed: set[str] = set()
    at = 0
    while (part := _neutral_part(text, at)) is not None:
        closer = _NEUTRAL_CLOSERS.get(part.group())
        end = -1 if closer is None or part.group() in unclosed else text.find(closer, part.end())
        if closer is None:
            found.append(part.group())
            at = part.end()
        elif end == -1:
            unclosed.add(part.group())
            at = part.start() + 1
        else:
            found.append(text[part.start() : end + len(closer)])
            at = end + len(closer)
    return tuple(found)


def _neutral_part(text: str, at: int) -> re.Match[str] | None:
    """``_NEUTRAL.search(text, at)``, tried only where a part can start (``\\b`` still sees the character before)."""
    while (start := _NEUTRAL_START.search(text, at)) is not None:
        part = _NEUTRAL.match(text, start.start())
        if part is not None:
            return part
        at = start.start() + 1
    return None


class ItemChecker(FileChecks):
    """Checks the multiple-choice questions of one question file."""

    def question_facts(self, question: Question, options: Mapping[str, Sequence[str]]) -> Fact:
        """:meth:`question`, its facts as plain data (which the cache keeps).

        ``options`` holds the question's rendered options by language.
        """
        found = self.question(question, options)
        return [found.letter, found.longest, sorted(found.allow)]

    def file_patterns(self, facts: Iterable[Fact]) -> None:
        """The patterns across the file's questions, of the facts :meth:`question_facts` gave of each."""
        self.patterns(facts, self.place, "this file")

    def question(self, question: Question, options: Mapping[str, Sequence[str]]) -> AnswerFacts:
        """Check one question's options in each language (as rendered); its facts for the patterns."""
        texts = {lang: list(map(visible, shown)) for lang, shown in options.items()}
        # Casefolded once for the checks that set case aside, joined by line breaks: no text has one.
        folded = {lang: "\n".join(shown).casefold() for lang, shown in texts.items()}
        checks = (self.longest_correct, self.identical, self.above, self.order)
        for check in checks:
            check(question, texts, options, folded=folded)
        if several_correct(question):
            return AnswerFacts("", False, question.allow)
        index = LETTERS.index(question.answer)
        longest = [lang for lang, shown in texts.items() if _longest(shown) == index]
        return AnswerFacts(question.answer, len(longest) * 2 > len(texts), question.allow)

    def _where(self, question: Question, lang: str, letter: str) -> tuple[int, int]:
        return question.translations[lang].marks.get(letter, (question.place.line, question.place.column))

    def longest_correct(self, question: Question, texts: Texts, options: Rendered, *, folded: Folded) -> None:
        if LONGEST_CORRECT in question.allow or several_correct(question):
            return  # of several correct options, one may well be the longest
        index = LETTERS.index(question.answer)
        ratios = {lang: ratio for lang, shown in texts.items() if (ratio := _clearly_longer(shown, index))}
        if not ratios:
            return
        listed = ", ".join(f"{lang}: {ratio:.1f} times" for lang, ratio in ratios.items())
        self.report(
            LONGEST_CORRECT,
            self._where(question, next(iter(ratios)), question.answer),
            f"the correct option {question.answer} is clearly the longest ({listed} the next longest)",
            hint="students learn to pick the longest option: shorten it, or give the others as much detail",
            question=question.id,
        )

    def identical(self, question: Question, texts: Texts, options: Rendered, *, folded: Folded) -> None:
        forms = {lang: _forms(rendered, texts[lang], folded[lang]) for lang, rendered in options.items()}
        self.alike(question, {lang: shown for lang, (shown, _) in forms.items()})
        if IDENTICAL_OPTIONS in question.allow:
            return
        for lang, (shown, keys) in forms.items():
            if len(set(keys)) == len(keys):
                continue  # nearly always: no two read the same
            seen: dict[str, int] = {}
            for index, key in enumerate(keys):
                first = seen.setdefault(key, index)
                if first != index and shown[index] != shown[first]:
                    self.report(
                        IDENTICAL_OPTIONS,
                        self._where(question, lang, LETTERS[index]),
                        f"in '{lang}', option {LETTERS[index]} reads the same as option {LETTERS[first]} on the card",
                        hint="make them differ in words, not only in formatting or spaces",
                        question=question.id,
                    )

    def alike(self, question: Question, shown: Mapping[str, Sequence[str]]) -> None:
        """Options a card shows exactly alike (``**Blue**`` and ``__Blue__``) are an error, as identical ones are.

        ``shown`` holds each language's options as a card lays them out (see :func:`_shows`).
        No ``allow`` silences it: a student could not tell which one is counted correct.
        """
        for lang, laid_out in shown.items():
            if len(set(laid_out)) == len(laid_out):
                continue  # nearly always: no two alike
            seen: dict[str, int] = {}
            for index, option in enumerate(laid_out):
                first = seen.setdefault(option, index)
                if first != index:
                    line, column = self._where(question, lang, LETTERS[index])
                    self.problems.add(
                        self.path,
                        f"in '{lang}', option {LETTERS[index]} shows exactly as option {LETTERS[first]} on the card",
                        line=line,
                        column=column,
                        hint="make them differ in words: written differently, they render the same",
                        question=question.id,
                    )

    def above(self, question: Question, texts: Texts, options: Rendered, *, folded: Folded) -> None:
        shuffled = self.shuffle if question.shuffle is None else question.shuffle
        if not shuffled or ALL_OF_THE_ABOVE in question.allow:
            return
        # Nearly no option has a word of the phrases: one look at all of them at once. No word
        # holds a line break, so none is found across two options.
        every = "\n".join(folded.values())
        if not any(map(every.__contains__, _ABOVE_WORDS)):
            return
        for lang, shown in texts.items():
            for index, text in enumerate(shown):
                letter = LETTERS[index]
                if letter not in question.pin and _refers_to_the_others(text):
                    self.report(
                        ALL_OF_THE_ABOVE,
                        self._where(question, lang, letter),
                        f"option {letter} ('{text}') refers to the other options, but they are shuffled",
                        hint=f"add 'pin: [{letter}]' to the question to keep it in its place",
                        question=question.id,
                    )
                    return

    def order(self, question: Question, texts: Texts, options: Rendered, *, folded: Folded) -> None:
        """Options that read the same in every language (numbers, code, formulas) must keep their order."""
        if OPTION_ORDER in question.allow:
            return
        usable: dict[str, list[tuple[str, ...]]] = {}
        for done, (lang, shown) in enumerate(options.items()):
            if len(usable) + len(options) - done < 2:
                return  # too few languages left to compare: most options have no neutral part
            keys = _neutral_keys(shown)
            if keys is not None:
                usable[lang] = keys
        if len(usable) < 2:
            return
        first_lang, first = next(iter(usable.items()))
        for lang, found in usable.items():
            if found != first and sorted(found) == sorted(first):
                moved = next(LETTERS[i] for i, (a, b) in enumerate(zip(found, first, strict=True)) if a != b)
                self.report(
                    OPTION_ORDER,
                    self._where(question, lang, moved),
                    f"the options of '{lang}' are in another order than those of '{first_lang}' (from option {moved})",
                    hint="every language lists the same options in the same order: the answer letter is shared",
                    question=question.id,
                )

    def patterns(self, facts: Iterable[Sequence[Any]], where: Place, what: str) -> None:
        """Across questions with one correct option: answers on one letter, or the correct option usually the
        longest.

        ``facts`` are as :meth:`question_facts` gives them, and the cache keeps them (see :func:`holds`): the
        letter, whether it is the longest, the checks allowed. Each is taken apart as it comes, not made into
        :class:`AnswerFacts` first: the patterns across a bank go over every question after each edit.
        """
        single = [fact for fact in facts if fact[0]]
        letters = Counter(letter for letter, _, allow in single if ANSWER_LETTER not in allow)
        total = sum(letters.values())
        if total >= MIN_QUESTIONS and letters.most_common(1)[0][1] > total * MAJORITY:
            letter, count = letters.most_common(1)[0]
            self.report(
                ANSWER_LETTER,
                where,
                f"the correct answer is {letter} in {count} of the {total} questions of {what}",
                hint="students learn the letter, not the subject: spread the correct options over the places "
                "(move each and change its 'answer')",
            )
        counted = [longest for _, longest, allow in single if OFTEN_LONGEST not in allow]
        if len(counted) >= MIN_QUESTIONS and sum(counted) > len(counted) * MAJORITY:
            self.report(
                OFTEN_LONGEST,
                where,
                f"the correct option is the longest in {sum(counted)} of the {len(counted)} questions of {what}",
                hint="students learn to pick the longest option: make a distractor the longest in some questions",
            )


def _forms(rendered: Sequence[str], texts: Sequence[str], folded: str) -> tuple[list[str], list[str]]:
    """Each option as a card lays it out (:func:`_shows`) and as a student tells it from others (:func:`_folded`).

    A plain option, with no tag nor entity, is laid out as it reads (``texts``, see :func:`visible`),
    and casefolding makes no tag, entity or space: its folded form is that text casefolded, as in
    ``folded``, the texts casefolded and joined by line breaks (none has one once its spaces collapse).
    """
    shown, keys = list(texts), folded.split("\n")
    for index, option in enumerate(rendered):
        if "<" in option or "&" in option:
            shown[index], keys[index] = _shows(option), _folded(option)
    return shown, keys


def _folded(option_html: str) -> str:
    """An option as a student tells it from others: case set aside, except in code (``-d`` is not ``-D``)."""
    if "<code" not in option_html:
        return visible(option_html.casefold())
    parts: list[str] = []
    start = 0
    while (opening := option_html.find("<code", start)) != -1:
        closing = option_html.find("</code>", opening)
        if closing == -1:
            break
        parts += [option_html[start:opening].casefold(), option_html[opening:closing]]
        start = closing
    return visible("".join([*parts, option_html[start:].casefold()]))


def _neutral_keys(options: Sequence[str]) -> list[tuple[str, ...]] | None:
    """The neutral parts of each option, if each has some and no two the same; else None, as soon as known."""
    keys = []
    for option in options:
        key = neutral(option)
        if not key:
            return None
        keys.append(key)
    return keys if len(set(keys)) == len(keys) else None


def _longest(texts: Sequence[str]) -> int:
    """The index of the longest option; -1 when two share the greatest length."""
    lengths = [len(text) for text in texts]
    top = max(lengths)
    return lengths.index(top) if lengths.count(top) == 1 else -1


def _clearly_longer(texts: Sequence[str], index: int) -> float:
    """How many times longer option ``index`` is than the next longest, if clearly; else 0."""
    others = [len(text) for i, text in enumerate(texts) if i != index]
    length, next_longest = len(texts[index]), max(others, default=0)
    if next_longest and length >= next_longest * CLEARLY_LONGER_RATIO and length - next_longest >= CLEARLY_LONGER_BY:
        return length / next_longest
    return 0.0


def check_bank(bank_file: Path, facts: Sequence[Fact], files: int, *, problems: Problems) -> None:
    """The patterns across all files of a bank of several files (one file is checked on its own)."""
    if files > 1:
        place = Place(bank_file, 1, 1)
        ItemChecker(place, problems, shuffle=False).patterns(facts, place, "the bank")


def holds(facts: Sequence[object]) -> bool:
    """Whether each of ``facts``, plain data as JSON gives it back, has the shape :meth:`ItemChecker.check` gives.

    Tested a column at a time, by the set of its values' types: a build restores the facts of every
    question of the bank, and a test per value costs several times more.
    """
    if not _only(facts, list) or not set(map(len, facts)) <= {len(AnswerFacts._fields)}:  # type: ignore[arg-type]
        return False
    letters, longest, allow = zip(*facts, strict=True) if facts else ((), (), ())
    return _only(letters, str) and _only(longest, bool) and _only(allow, list) and _only(chain(*allow), str)


def _only(values: Iterable[object], kind: type) -> bool:
    """Whether every value is of type ``kind`` exactly (JSON gives back no other)."""
    return set(map(type, values)) <= {kind}
