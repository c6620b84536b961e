"""Language codes: BCP 47 tags of an ISO 639-1 language, optionally with a region or script (``pt-BR``, ``zh-Hant``).

A code names files (``<bank>-<code>.apkg``), lines of the records and headings
of the changelog: it is the whole text or nothing, never a code followed by a
line break.
"""

from __future__ import annotations

import re

ISO_639_1 = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr
    cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha
    he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko
    kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne
    ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si
    sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur
    uz ve vi vo wa wo xh yi yo za zh zu""".split()
)

#: What to write instead of a code that is none, wherever one is refused.
CODE_HINT = "use an ISO 639-1 code such as de, fr, en, or a regional one such as pt-BR"

#: Written right to left: cards get ``dir="rtl"``.
RTL = frozenset({"ar", "dv", "fa", "he", "ks", "ps", "sd", "ug", "ur", "yi"})

#: What may follow a code after a hyphen: a region (``BR``) or a script (``Hant``).
REGION = r"[A-Z]{2}|[A-Z][a-z]{3}"
_CODE = re.compile(rf"([a-z]{{2}})(?:-({REGION}))?")


def is_language(code: object) -> bool:
    """True for ``de``, ``pt-BR``, ``zh-Hant``; False for ``german`` or ``xx``."""
    if not isinstance(code, str):
        return False
    if code in ISO_639_1:
        return True  # the code alone, as nearly every one is written: no need to match the pattern
    match = _CODE.fullmatch(code)
    return match is not None and match.group(1) in ISO_639_1


def base(code: str) -> str:
    """The language without region or script: ``pt-BR`` -> ``pt``."""
    return code.split("-", 1)[0]


def is_rtl(code: str) -> bool:
    return base(code) in RTL


#: Regions whose Chinese is written in traditional characters.
TRADITIONAL_CHINESE = frozenset({"TW", "HK", "MO"})


def lineage(code: str) -> tuple[str, ...]:
    """Where a language's wording may come from, most specific first.

    ``pt-BR`` -> ``pt-BR, pt``; ``zh-TW`` -> ``zh-TW, zh-Hant, zh`` (Taiwan writes
    traditional characters, which ``zh`` alone does not).
    """
    region = code.partition("-")[2]
    chinese = ("zh-Hant",) if base(code) == "zh" and region in TRADITIONAL_CHINESE else ()
    return tuple(dict.fromkeys((code, *chinese, base(code))))
