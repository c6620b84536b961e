"""Tell the language of an imported page: its own name in a header line, else its text.

Two sources, in this order:

1. A line that names a language in that language (``Deutsch``, ``Français``,
   ``日本語``): quiz sites put the current language in their menu. :data:`ENDONYMS`
   is data about languages, not about any site.
2. The text itself: the script its letters are written in settles most
   languages (Hangul is Korean, kana is Japanese, Thai script is Thai). Within a
   script shared by several languages, a few letters only one of them uses
   decide (``ї`` is Ukrainian, ``پ`` Persian), and for the Latin script the
   most common short words of a dozen languages are counted.

Anything else is not guessed: the caller asks for ``--lang``. The guess is a
heuristic for whole quiz pages (a question, its options and an explanation);
languages outside these tables are recognised from a header line or given with
``--lang``.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

#: A language's name in that language, casefolded, and its code.
ENDONYMS: dict[str, str] = {
    "afrikaans": "af",
    "العربية": "ar",
    "български": "bg",
    "বাংলা": "bn",
    "català": "ca",
    "čeština": "cs",
    "dansk": "da",
    "deutsch": "de",
    "ελληνικά": "el",
    "english": "en",
    "español": "es",
    "eesti": "et",
    "euskara": "eu",
    "فارسی": "fa",
    "suomi": "fi",
    "français": "fr",
    "galego": "gl",
    "עברית": "he",
    "हिन्दी": "hi",
    "hrvatski": "hr",
    "magyar": "hu",
    "bahasa indonesia": "id",
    "italiano": "it",
    "日本語": "ja",
    "한국어": "ko",
    "lietuvių": "lt",
    "latviešu": "lv",
    "bahasa melayu": "ms",
    "nederlands": "nl",
    "norsk": "no",
    "norsk bokmål": "nb",
    "polski": "pl",
    "português": "pt",
    "português (brasil)": "pt-BR",
    "română": "ro",
    "русский": "ru",
    "slovenčina": "sk",
    "slovenščina": "sl",
    "српски": "sr",
    "svenska": "sv",
    "தமிழ்": "ta",
    "ไทย": "th",
    "türkçe": "tr",
    "українська": "uk",
    "اردو": "ur",
    "tiếng việt": "vi",
    "中文": "zh",
    "简体中文": "zh-Hans",
    "繁體中文": "zh-Hant",
}

#: Scripts that (among the languages a quiz is likely written in) one language uses.
_SCRIPT_LANGUAGE: dict[str, str] = {
    "HANGUL": "ko",
    "THAI": "th",
    "GREEK": "el",
    "HEBREW": "he",
    "GEORGIAN": "ka",
    "ARMENIAN": "hy",
    "DEVANAGARI": "hi",
    "BENGALI": "bn",
    "TAMIL": "ta",
    "TELUGU": "te",
    "KANNADA": "kn",
    "MALAYALAM": "ml",
    "GUJARATI": "gu",
    "GURMUKHI": "pa",
    "KHMER": "km",
    "LAO": "lo",
    "MYANMAR": "my",
    "SINHALA": "si",
    "ETHIOPIC": "am",
}

#: Letters that, within a shared script, only some languages use; first match wins.
_DISTINCT_LETTERS: dict[str, tuple[tuple[str, str], ...]] = {
    "CYRILLIC": (("іїєґ", "uk"), ("ђћџљњј", "sr"), ("ыэ", "ru"), ("ъ", "bg")),
    "ARABIC": (("ٹڈڑںے", "ur"), ("پچژگکی", "fa")),
}
#: What a shared script is when no distinct letter shows up.
_SCRIPT_DEFAULT = {"CYRILLIC": "ru", "ARABIC": "ar"}

#: The most frequent short words of Latin-script languages.
COMMON_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the of and to in is that for it as with are be this by on not or which from",
        "de": "der die das und ist nicht zu den von mit sich des auf für im dem ein eine wird werden",
        "fr": "le la les des et est une un du en que qui pour pas dans sur au par ne",
        "es": "el la los las del que y en un una es por para con no se lo como más",
        "pt": "o os as do da dos das que e em um uma para com não por é ao mais",
        "it": "il di che e un una per non sono del della è con si le gli nel",
        "nl": "de het een van en is dat niet op te voor met zijn die wordt",
        "pl": "i w z na się nie do to że jest jak po są przez od",
        "tr": "ve bir bu için ile da olarak daha çok gibi olan",
        "sv": "och att det som en är på av för med till den inte har",
        "id": "yang dan di dengan untuk ini dari dalam tidak adalah pada akan",
        "vi": "của và là các có được trong cho những một không với",
    }.items()
}
#: Below this many common words, or without a clear lead, the text is not guessed.
MIN_WORDS = 3
LEAD = 1.25
#: A non-Latin script this share of the letters decides, even beside Latin terms (GPU, ReLU).
SCRIPT_SHARE = 0.2
#: Japanese mixes kana into its Han characters; Chinese has none.
KANA_SHARE = 0.1


def from_header(lines: Iterable[str]) -> str | None:
    """The language a header line names in its own name, if exactly one is named."""
    found = {ENDONYMS[key] for line in lines if (key := _key(line)) in ENDONYMS}
    return found.pop() if len(found) == 1 else None


def _key(line: str) -> str:
    return " ".join(unicodedata.normalize("NFC", line).casefold().split())


def from_text(text: str) -> str | None:
    """The language ``text`` is most likely written in, or None when it cannot be told."""
    scripts = Counter(_script(ch) for ch in text if ch.isalpha())
    letters = sum(scripts.values())
    others = [(count, script) for script, count in scripts.items() if script not in ("LATIN", "")]
    if others:
        count, script = max(others)
        if count >= SCRIPT_SHARE * letters:
            return _by_script(script, text, scripts)
    return _by_words(text) if scripts["LATIN"] else None


def _script(ch: str) -> str:
    """The script of a letter, from its Unicode name (``CJK`` for Han ideographs)."""
    name = unicodedata.name(ch, "")
    if name.startswith(("HIRAGANA", "KATAKANA")):
        return "CJK"  # counted with Han: the kana share decides Japanese below
    return name.split(" ", 1)[0]


def _by_script(script: str, text: str, scripts: Counter[str]) -> str | None:
    if script == "CJK":
        kana = sum(unicodedata.name(ch, "").startswith(("HIRAGANA", "KATAKANA")) for ch in text)
        return "ja" if kana >= KANA_SHARE * scripts["CJK"] else "zh"
    for letters, lang in _DISTINCT_LETTERS.get(script, ()):
        if any(ch in letters for ch in text):
            return lang
    return _SCRIPT_DEFAULT.get(script) or _SCRIPT_LANGUAGE.get(script)


def _by_words(text: str) -> str | None:
    words = re.findall(r"\w+", text.casefold())
    scores = sorted(((sum(w in common for w in words), lang) for lang, common in COMMON_WORDS.items()), reverse=True)
    (best, lang), (second, _) = scores[0], scores[1]
    return lang if best >= MIN_WORDS and best >= LEAD * second else None
