"""What the tests of the cards share: the languages with card labels, and their wording."""

from __future__ import annotations

from collections.abc import Mapping

from ankibuild.cards.folders import DEFAULTS, TemplateFolders
from ankibuild.errors import Problems
from ankibuild.kinds import KINDS
from ankibuild.load.render import load_templates

#: Every language with wording of its own.
CARD_LANGUAGES = sorted(path.parent.name for path in DEFAULTS.glob("*/labels.yaml") if path.parent.name != "default")


def wording(lang: str) -> Mapping[str, str]:
    problems = Problems()
    labels = load_templates(TemplateFolders(), KINDS["truefalse"], lang, problems=problems).labels
    assert lang not in CARD_LANGUAGES or not problems.items, lang  # any other language: English, with a warning
    return labels
