"""Readable ids for what an import adds: a question's from its text, a topic's from its titles."""

from __future__ import annotations

import hashlib
import re
import unicodedata

#: A derived question id stops before the word that would make it longer than this.
ID_LENGTH = 40
#: Elided articles and pronouns (French, Italian, Catalan): "l'objectif" names the objectif.
_ELISION = re.compile("(?i)\\b(?:[cdjlmnst]|qu)['\u2019\u02bc](?=\\w)")
_APOSTROPHE = re.compile("['\u2019\u02bc]")  # typed, typographic, modifier letter
#: Words an id does not end on: it would read as cut short.
_DANGLING = frozenset(
    """a an and as at by for from in into is of on or the to with de del des du el en et la las le les los un une y
    am an auf aus bei das dem den der des die ein eine im mit und von zu zum zur il di e o da per che""".split()
)
#: Letters NFKD does not take apart into ASCII.
_ASCII = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L"})


def _ascii_slug(text: str) -> str:
    """The first whole words of ``text`` in ASCII, joined by ``-``; empty if it has no Latin letters or digits."""
    # An elided article goes (l'objectif -> objectif), an apostrophe keeps its word whole (GPU's -> gpus).
    text = _APOSTROPHE.sub("", _ELISION.sub("", text))
    # Accents come off (é -> e); other letters separate words, as "BF16がFP16" holds two.
    decomposed = unicodedata.normalize("NFKD", text.translate(_ASCII))
    folded = "".join(ch if ch.isascii() else "" if unicodedata.combining(ch) else " " for ch in decomposed)
    words: list[str] = []
    for token in folded.lower().split():
        word = "-".join(re.findall(r"[a-z0-9]+", token))  # "post-entraînement" is one word, kept whole
        if not word:
            continue
        if words and len("-".join([*words, word])) > ID_LENGTH:
            break
        words.append(word[:ID_LENGTH].rstrip("-"))  # only a first word longer than an id is cut
    while len(words) > 1 and words[-1] in _DANGLING:
        words.pop()  # "...-advantage-of" reads as cut short
    return "-".join(words)


def question_slug(text: str) -> str:
    """The question's first words, or a digest of its text when it has no Latin words."""
    return _ascii_slug(text) or "q-" + hashlib.sha256(text.encode()).hexdigest()[:8]


def topic_slug(titles: list[str]) -> str:
    """The first title that has Latin words, as ASCII; else the first title's own words (a valid tag too)."""
    ascii_slug = next((slug for title in titles if (slug := _ascii_slug(title))), "")
    return ascii_slug or "-".join(re.findall(r"\w+", titles[0].casefold())) or "topic"


def unique(slug: str, taken: set[str]) -> str:
    if slug not in taken:
        return slug
    return next(f"{slug}-{n}" for n in range(2, len(taken) + 3) if f"{slug}-{n}" not in taken)
