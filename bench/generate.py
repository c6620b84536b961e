"""Synthetic question banks in ankibuild's format, of any size, for benchmarks.

A bank has three languages, about fifty topics with one question file each, and
questions of realistic length: ~150-character questions, 3 to 5 options (of
about one length within a question) and ~400-character explanations, with the
accents and ligatures of German and French.

Generation must stay cheap at 50,000 questions, so every text is a slice of a
per-language corpus built once from a seeded ``random.Random``, and the YAML is
written as text (the shape is fixed, so nothing needs quoting) instead of
through ``yaml.dump``. The same seed always gives the same bytes.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

LANGUAGES = ("de", "fr", "en")
BANK_ID = "bench"
TOPICS = 50

#: Words to build text from. Only letters, accents, apostrophes and hyphens:
#: with commas and full stops added, every text is a valid plain YAML scalar.
WORDS = {
    "de": """Speicher Bandbreite größer Übertragung für Größe Schlüssel Maßnahme äußere gemäß Rechenwerk
        Tensor Gewichte Aktivierungen Genauigkeit Präzision Zugriff Zwischenspeicher Kachel Schleife
        wird werden kann können muss über unter während nach bevor außerdem deshalb jedoch weil dass
        die der das den dem des ein eine einer einem nicht nur auch noch sehr viel wenig schnell
        langsam groß klein Daten Modell Schicht Kern Prozessor Grafikkarte Leistung Durchsatz Latenz
        Verzögerung Berechnung Multiplikation Addition Matrix Vektor Quantisierung Faltung Übersetzer
        Laufzeit Ausführung Ausführungseinheit Lösung Prüfung Schätzung Größenordnung Rückwärtsdurchlauf
        Vorwärtsdurchlauf Gradient Optimierung Fehler Rundung Bitbreite häufig gleichzeitig zusätzlich
        verfügbar nötig möglich üblich ähnlich natürlich Überlauf Maß Fuß Straße Grüße""".split(),
    "fr": """mémoire bande passante élément très à où cœur œuvre ça français règle déjà être leçon
        garçon après problème calcul matériel logiciel modèle couche noyau processeur carte graphique
        débit latence délai multiplication addition matrice vecteur quantification convolution
        compilateur exécution unité solution vérification estimation ordre grandeur rétropropagation
        propagation gradient optimisation erreur arrondi largeur fréquent simultané supplémentaire
        disponible nécessaire possible habituel semblable naturellement dépassement mesure précision
        poids activations accès cache tuile boucle est sont peut peuvent doit sur sous pendant avant
        donc cependant parce que le la les un une des du de ne pas seulement aussi encore beaucoup
        peu rapide lent grand petit données l'intensité d'accès l'unité qu'il s'exécute aperçu
        Noël naïf maïs élève fenêtre système""".split(),
    "en": """memory bandwidth larger transfer for size key measure outer according compute unit tensor
        weights activations accuracy precision access cache tile loop is are can must over under
        during after before also therefore however because that the a an of not only still very
        much little fast slow big small data model layer kernel processor graphics card performance
        throughput latency delay computation multiplication addition matrix vector quantization
        convolution compiler runtime execution solution check estimate magnitude backward pass
        forward gradient optimization error rounding width frequent simultaneous additional
        available necessary possible usual similar naturally overflow naïve café résumé façade
        rôle déjà coöperate""".split(),
}
QUESTION_END = {"de": "?", "fr": " ?", "en": "?"}
DECK_WORD = {"de": "Thema", "fr": "Thème", "en": "Topic"}
CORPUS_CHARS = 200_000


@dataclass(frozen=True)
class GeneratedBank:
    """Where a generated bank is and what it holds."""

    decks: Path
    questions: int
    languages: tuple[str, ...]
    files: tuple[Path, ...]


class _Texts:
    """Slices of a seeded corpus per language: cheap, varied, word-aligned text."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.corpus = {lang: _corpus(rng, WORDS[lang]) for lang in LANGUAGES}

    def text(self, lang: str, length: int) -> str:
        """About ``length`` characters, starting and ending on a word boundary."""
        corpus = self.corpus[lang]
        start = corpus.index(" ", int(self.rng.random() * (len(corpus) - 2 * length))) + 1
        end = corpus.index(" ", start + length)
        text = corpus[start:end].rstrip(".,…")
        return text[0].upper() + text[1:]


def _corpus(rng: random.Random, words: Sequence[str]) -> str:
    """Sentences of random words; ends with enough text to slice from anywhere."""
    out: list[str] = []
    size = 0
    while size < CORPUS_CHARS:
        sentence = rng.choices(words, k=rng.randint(6, 16))
        sentence[0] = sentence[0][0].upper() + sentence[0][1:]
        if rng.random() < 0.4:
            sentence[len(sentence) // 2] += ","
        text = " ".join(sentence) + rng.choice((".", ".", ".", "…"))
        out.append(text)
        size += len(text) + 1
    return " ".join(out) + " "


def generate_bank(
    decks: Path, *, questions: int, seed: int = 0, topics: int = TOPICS, one_file: bool = False
) -> GeneratedBank:
    """Write ``bank.yaml`` and one question file per topic into ``decks``.

    Questions are spread evenly over the topics; with fewer questions than
    topics there are as many files as questions. With ``one_file``, the same
    questions, byte for byte, all go into one file (``all.yaml``), one deck:
    what a build must then hold at once is the whole bank.
    """
    rng = random.Random(seed)
    texts = _Texts(rng)
    slugs = [f"topic-{index:02d}" for index in range(1, min(topics, questions) + 1)]
    decks.mkdir(parents=True, exist_ok=True)
    _write(decks / "bank.yaml", _bank_yaml(slugs, texts))
    files: list[Path] = []
    for index, slug in enumerate(slugs):
        first = questions * index // len(slugs)
        last = questions * (index + 1) // len(slugs)
        path = decks / ("all.yaml" if one_file else f"{slug}.yaml")
        with path.open("a" if path in files else "w", encoding="utf-8", newline="\n") as file:
            if path not in files:
                file.write(_deck_yaml(index + 1))
                files.append(path)
            file.write(_questions_yaml(index + 1, slugs, range(first, last), texts))
    return GeneratedBank(decks, questions, LANGUAGES, tuple(files))


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as file:
        file.write(text)


def _bank_yaml(slugs: Sequence[str], texts: _Texts) -> str:
    lines = [f"id: {BANK_ID}", f"languages: [{', '.join(LANGUAGES)}]", "title:"]
    lines += [f"  {lang}: {texts.text(lang, 12).replace(',', '')}" for lang in LANGUAGES]
    lines.append("topics:")
    for slug in slugs:
        lines.append(f"  {slug}:")
        lines += [f"    {lang}: {texts.text(lang, 30).replace(',', '')}" for lang in LANGUAGES]
    return "\n".join(lines) + "\n"


def _deck_yaml(topic: int) -> str:
    lines = ["deck:", *(f"  {lang}: {DECK_WORD[lang]} {topic}" for lang in LANGUAGES), "questions:"]
    return "\n".join(lines) + "\n"


def _questions_yaml(topic: int, slugs: Sequence[str], numbers: range, texts: _Texts) -> str:
    slug = slugs[topic - 1]
    lines: list[str] = []
    rng = texts.rng
    for number in numbers:
        options = 3 + int(rng.random() * 3)
        # One question in five also belongs to a second topic, as in real banks.
        extra = rng.choice(slugs) if rng.random() < 0.2 else slug
        lines += [
            f"  - id: q{number:06d}",
            f"    topics: [{slug}]" if extra == slug else f"    topics: [{slug}, {extra}]",
            f"    answer: {'ABCDE'[int(rng.random() * options)]}",
        ]
        for lang in LANGUAGES:
            lines += _translation(lang, options, texts)
    return "\n".join(lines) + "\n"


def _translation(lang: str, options: int, texts: _Texts) -> list[str]:
    rng = texts.rng
    question = texts.text(lang, 110 + int(rng.random() * 80)) + QUESTION_END[lang]
    choices: list[str] = []
    # Options of one question are about as long as each other, as in a well-written one:
    # a correct option clearly the longest would be a warning.
    size = 30 + int(rng.random() * 90)
    while len(choices) < options:
        choice = texts.text(lang, size + int(rng.random() * 8))
        if choice not in choices:
            choices.append(choice)
    explanation = texts.text(lang, 320 + int(rng.random() * 160)) + "."
    return [
        f"    {lang}:",
        f"      question: {question}",
        "      options:",
        *(f"        - {choice}" for choice in choices),
        "      explanation: >-",
        f"        {explanation}",
    ]


@dataclass(frozen=True)
class Edit:
    """The one explanation that :func:`edit_question` rewrote."""

    path: Path
    question: str
    lang: str


def edit_question(bank: GeneratedBank, *, seed: int) -> Edit:
    """Rewrite one explanation in one language of one file, chosen by ``seed``.

    The new text names the seed, so successive edits with different seeds
    always change the bank.
    """
    rng = random.Random(seed)
    path = bank.files[int(rng.random() * len(bank.files))]
    lines = path.read_text(encoding="utf-8").split("\n")
    marks = [index for index, line in enumerate(lines) if line == "      explanation: >-"]
    which = int(rng.random() * len(marks))
    text = lines[marks[which] + 1]
    lines[marks[which] + 1] = f"{text[: len(text) // 2].rstrip(' ,')}, überarbeitet in Fassung {seed}."
    _write(path, "\n".join(lines))
    question = next(line for line in reversed(lines[: marks[which]]) if line.startswith("  - id: "))
    return Edit(path, question.removeprefix("  - id: "), LANGUAGES[which % len(LANGUAGES)])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write a synthetic question bank.")
    parser.add_argument("decks", type=Path, help="the bank folder to write")
    parser.add_argument("--questions", type=int, default=1000, help="how many questions (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--one-file", action="store_true", help="every question in one file instead of one per topic")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    bank = generate_bank(args.decks, questions=args.questions, seed=args.seed, one_file=args.one_file)
    size = sum(path.stat().st_size for path in bank.files)
    print(
        f"{bank.questions} questions in {len(bank.files)} files, {size / 1e6:.1f} MB, "
        f"in {time.perf_counter() - start:.2f} s -> {bank.decks}"
    )


if __name__ == "__main__":
    main()
