"""Preview stage: one static page with every card, front and back, as Anki shows it.

Cards are rendered from the same templates as the packages, with a renderer
of Anki's template syntax (:mod:`ankibuild.ankitemplate`), and each is shown in
a frame of its own with the card's stylesheet and script, so choosing an
option and flipping the card work as in Anki. The page links the packages with
their question counts and loads nothing from anywhere else: it can be opened
from disk or published as it is (e.g. on GitHub Pages, beside the packages).
"""

from __future__ import annotations

import html
import json
import os
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from ..anki.rows import card_id
from ..atomic import Waiting, ready_if_changed
from ..cards.assets import Asset
from ..cards.template import SPECIAL_FIELDS, Template
from ..errors import Problems
from ..export.target import ExportTarget
from ..kinds import KINDS
from ..load.render import CardTemplates, RenderedNote
from ..load.stage import LoadedBank, load_all
from ..model import Bank
from ..options import BuildOptions
from ..packagenames import check_names, package_groups
from ..paths import DECKS, DIST
from ..target import Target
from ..text.mathml import formulas_to_mathml

PAGE = "index.html"


@dataclass(frozen=True)
class CardSides:
    """One card as Anki renders it: the HTML inside the card's page, each side."""

    lang: str
    question_id: str
    deck: str
    front: str
    back: str
    #: Its place among the note's card types: a note may have several cards (a reversed flashcard).
    ord: int = 0


@dataclass(frozen=True)
class PackageLink:
    """A package the page offers for download."""

    path: Path
    lang: str
    questions: int

    @property
    def exists(self) -> bool:
        return self.path.is_file()


@dataclass
class PreviewResult:
    """The preview page (written, or found as it was): the cards it shows, the packages it links to, its warnings."""

    path: Path
    written: bool
    cards: list[CardSides] = field(default_factory=list)
    packages: list[PackageLink] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class CardRenderer:
    """Renders the notes of one note type as Anki does: each card's front, then its back with ``{{FrontSide}}``."""

    def __init__(self, bank: Bank, templates: CardTemplates) -> None:
        self.bank, self.kind = bank, templates.kind
        self._decks = {d.key: bank.deck_name(d, templates.lang) for d in bank.decks}
        fields = (*self.kind.fields, *SPECIAL_FIELDS)
        self._sides = [
            (
                side.name,
                Template(side.front, f"the front template of '{templates.key}'", fields, cloze=self.kind.cloze),
                Template(side.back, f"the back template of '{templates.key}'", fields, cloze=self.kind.cloze),
            )
            for side in templates.sides
        ]

    def sides(self, note: RenderedNote) -> list[CardSides]:
        """The note's cards, in the order of their card types."""
        return [self._card(note, ord_) for ord_ in note.cards]

    def _card(self, note: RenderedNote, ord_: int) -> CardSides:
        deck = self._decks[note.deck_key]
        # A cloze note type's one card type makes a card for each cloze number (ord = number - 1).
        name, front_template, back_template = self._sides[0 if self.kind.cloze else ord_]
        fields = {
            **dict(zip(self.kind.fields, note.fields, strict=True)),
            "Tags": " ".join(note.tags),
            "Type": self.kind.notetype_name(self.bank.id, note.lang),
            "Deck": deck,
            "Subdeck": deck.split("::")[-1],
            "Card": name,
            "CardFlag": "flag0",
            "CardID": str(card_id(note.guid, ord_)),
        }
        front = front_template.render(fields, card_ord=ord_)
        back = back_template.render({**fields, "FrontSide": front}, card_ord=ord_, question=False)
        return CardSides(note.lang, note.question_id, deck, front, back, ord_)


def card_document(css: str, body: str) -> str:
    """A card's page as Anki builds it: the stylesheet, and the card in a body of class ``card``."""
    before, after = document_shell(css)
    return before + body + after


def document_shell(css: str) -> tuple[str, str]:
    """What comes before and after a card's HTML in its page."""
    # "</" would end the style element early; "<\\/" means the same in CSS.
    style = css.replace("</", "<\\/")
    before = (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<style>\n{style}\n</style>\n</head>\n<body class="card card1">\n<div id="qa">\n'
    )
    return before, "\n</div>\n</body>\n</html>\n"


@dataclass(frozen=True)
class RenderedCards:
    """A bank's cards as Anki renders them, with what rendered them."""

    bank: Bank
    templates: dict[str, CardTemplates]
    notes: list[RenderedNote]
    cards: list[CardSides]
    problems: Problems
    questions: int
    #: The images the cards show, by packaged name.
    images: dict[str, bytes] = field(default_factory=dict)


def render_cards(
    *,
    decks: Path = DECKS,
    templates: Path | None = None,
    languages: Sequence[str] = (),
    strict: bool = False,
) -> RenderedCards:
    """Every card of the bank, front and back, from the same templates as the packages.

    Raises :class:`BankError` when the bank or the templates have errors (or warnings, if ``strict``).
    """
    return _render(BuildOptions(decks=decks, templates=templates, languages=tuple(languages), strict=strict))


def _render(options: BuildOptions) -> RenderedCards:
    return _rendered(load_all(options))


def _rendered(loaded: LoadedBank) -> RenderedCards:
    renderers = {key: CardRenderer(loaded.bank, t) for key, t in loaded.templates.items()}
    notes = [note for lang in _languages(loaded.templates) for note in loaded.rendered(lang)]
    cards = [card for n in notes for card in renderers[KINDS[n.kind].notetype_key(n.lang)].sides(n)]
    return RenderedCards(loaded.bank, loaded.templates, notes, cards, loaded.problems, loaded.questions, loaded.media)


def write_preview(
    *,
    decks: Path = DECKS,
    templates: Path | None = None,
    out: Path = DIST / "preview",
    packages: Path | None = DIST,
    languages: Sequence[str] = (),
    split: bool = False,
    strict: bool = False,
    show_ids: bool = False,
    only: Collection[tuple[str, str]] | None = None,
) -> PreviewResult:
    """Write ``out/index.html``: every card of the bank, and links to its packages in ``packages`` (None: no links).

    ``split`` links the packages of ``ankibuild build --split``; ``show_ids``
    puts each question's id above its card, for authors; ``only`` keeps the
    cards of these questions alone, each as (language, question id). Formulas
    are shown as MathML. Nothing is written when the bank or the templates have errors.
    """
    # The packages are those a build with the same options writes.
    options = BuildOptions(
        decks=decks, templates=templates, out=packages or out, languages=tuple(languages), split=split, strict=strict
    )
    chosen = None if only is None else set(only)
    target: Target[PreviewResult] = PreviewTarget(options, out / PAGE, show_ids, chosen, linked=packages is not None)
    with Waiting() as waiting:
        written = target.plan(load_all(options, checks=[target.check])).write(waiting)
        waiting.put()
    return written


@dataclass(frozen=True)
class PreviewTarget:
    """The preview page as a target: one page for the bank, linking the packages a build with ``options`` makes."""

    options: BuildOptions
    path: Path
    show_ids: bool
    #: Only the cards of these questions, each as (language, question id); None for every card.
    only: Collection[tuple[str, str]] | None = None
    #: Whether the page links the packages and exports: not when they are not beside it, as in a review.
    linked: bool = True

    def check(self, bank: Bank, problems: Problems) -> None:
        """The packages' own: the page links them."""
        check_names(bank, self.options, problems)

    def plan(self, loaded: LoadedBank) -> PreviewPlan:
        rendered = _rendered(loaded)
        if self.only is not None:
            rendered = replace(rendered, cards=[c for c in rendered.cards if (c.lang, c.question_id) in self.only])
        links = _package_links(rendered, self.options) + _export_links(loaded, self.options) if self.linked else []
        page = _page(rendered, links, self.path.parent, show_ids=self.show_ids)
        warnings = [p.describe() for p in rendered.problems.warnings] + [
            f"{link.path} is not built yet: run 'ankibuild build' before publishing the preview"
            for link in links
            if not link.exists
        ]
        return PreviewPlan(self.path, page, rendered.cards, links, warnings)


@dataclass(frozen=True)
class PreviewPlan:
    """The page, made; written only if its bytes change."""

    path: Path
    page: str
    cards: list[CardSides]
    links: list[PackageLink]
    warnings: list[str]

    def write(self, waiting: Waiting) -> PreviewResult:
        written = waiting.add(ready_if_changed(self.path, self.page.encode()))
        return PreviewResult(self.path, written, self.cards, self.links, self.warnings)


def _languages(templates: Mapping[str, CardTemplates]) -> dict[str, CardTemplates]:
    """The languages built, each with the templates of its first note type: its labels and stylesheet."""
    first: dict[str, CardTemplates] = {}
    for each in templates.values():
        first.setdefault(each.lang, each)
    return first


def _package_links(rendered: RenderedCards, options: BuildOptions) -> list[PackageLink]:
    """The packages 'ankibuild build' writes for these languages, with the questions each holds."""
    counts = Counter((note.lang, note.deck_key) for note in rendered.notes)
    return [
        PackageLink(path, lang, sum(counts[lang, deck.key] for deck in held))
        for lang in _languages(rendered.templates)
        for path, held in package_groups(rendered.bank, lang, options.out, split=options.split)
    ]


def _export_links(loaded: LoadedBank, options: BuildOptions) -> list[PackageLink]:
    """The exports 'ankibuild build' writes beside the packages (those the bank asks for), with their questions."""
    planned = ExportTarget(replace(options, strict=False)).plan(loaded)  # what they lose, the build warns about
    return [PackageLink(options.out / file.name, file.lang, file.questions) for file in planned.files]


def _page(rendered: RenderedCards, links: list[PackageLink], out: Path, *, show_ids: bool) -> str:
    bank, card_templates, cards = rendered.bank, _languages(rendered.templates), rendered.cards
    assets = (a for t in rendered.templates.values() for a in t.media)
    files = [*assets, *(Asset(n, c) for n, c in rendered.images.items())]
    media = {a.name: a.data_url() for a in files}
    data = {
        "media": dict(sorted(media.items())),
        "shells": {lang: document_shell(t.css) for lang, t in card_templates.items()},
        # Anki's MathJax is no part of a card: the page shows formulas as MathML.
        "cards": [[card.lang, formulas_to_mathml(card.front), formulas_to_mathml(card.back)] for card in cards],
    }
    # Inside <script>, "<" could close the element or open a comment: JSON can escape it.
    payload = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    title = " · ".join(dict.fromkeys(bank.titles.values())) or bank.id
    numbered = list(enumerate(cards))
    sections = "\n".join(
        _language_section(t, [(i, c) for i, c in numbered if c.lang == t.lang], show_ids)
        for t in card_templates.values()
    )
    return _asset("page.html").format(
        title=html.escape(title),
        summary=html.escape(_summary(rendered)),
        nav="\n".join(_nav_item(t) for t in card_templates.values()),
        downloads="\n".join(_download_row(link, card_templates, out) for link in links),
        hidden="" if links else " hidden",  # nothing to download: no heading that says otherwise
        sections=sections,
        style=_asset("page.css"),
        data=payload,
        script=_asset("page.js"),
    )


def _asset(name: str) -> str:
    return resources.files("ankibuild.preview").joinpath("page", name).read_text(encoding="utf-8")


def _summary(rendered: RenderedCards) -> str:
    languages, cards = len(_languages(rendered.templates)), len(rendered.cards)
    return f"{rendered.questions} question(s) in {languages} language(s), {cards} card(s)."


def _language_name(templates: CardTemplates) -> str:
    name = templates.labels.get("language", "")
    return f"{name} ({templates.lang})" if name else templates.lang


def _nav_item(templates: CardTemplates) -> str:
    lang = html.escape(templates.lang)
    return f'<li><a href="#lang-{lang}" lang="{lang}">{html.escape(_language_name(templates))}</a></li>'


def _download_row(link: PackageLink, languages: Mapping[str, CardTemplates], out: Path) -> str:
    """A file to download, named with its language; a file of every language (an export) with each."""
    href = Path(os.path.relpath(link.path, out)).as_posix()
    missing = "" if link.exists else ' <span class="pv-missing">(not built yet)</span>'
    held = [languages[link.lang]] if link.lang in languages else list(languages.values())
    return (
        f'<tr><td lang="{html.escape(link.lang)}">{html.escape(" · ".join(map(_language_name, held)))}</td>'
        f'<td><a href="{html.escape(href)}" download>{html.escape(link.path.name)}</a>{missing}</td>'
        f'<td class="pv-count">{link.questions}</td></tr>'
    )


def _language_section(templates: CardTemplates, cards: list[tuple[int, CardSides]], show_ids: bool) -> str:
    """A language's cards under their decks; ``dir`` makes a right-to-left language read as one."""
    lang = html.escape(templates.lang)
    parts = [
        f'<section class="pv-lang" id="lang-{lang}" lang="{lang}" dir="{html.escape(templates.labels["dir"])}">',
        f"<h2>{html.escape(_language_name(templates))}</h2>",
    ]
    deck = None
    for index, card in cards:
        if card.deck != deck:
            deck = card.deck
            parts.append(f'<h3 class="pv-deck">{html.escape(deck)}</h3>')
        parts.append(_card_article(card, index, templates.labels, show_ids=show_ids))
    parts.append("</section>")
    return "\n".join(parts)


def _card_article(card: CardSides, index: int, labels: Mapping[str, str], *, show_ids: bool) -> str:
    """A card's place: a frame the page's script fills, and the buttons that flip it."""
    qid = html.escape(card.question_id)
    # A note's first card keeps the id it always had; ":" never occurs in a question id.
    anchor = html.escape(f"{card.lang}-{card.question_id}" + (f":{card.ord + 1}" if card.ord else ""))
    flip = html.escape(labels.get("show_answer", "Show answer"))
    again = html.escape(labels.get("again", "Again"))
    shown_id = f'<p class="pv-id"><code>{qid}</code></p>\n' if show_ids else ""
    return (
        f'<article class="pv-card" id="{anchor}" data-card="{index}" data-question="{qid}">\n'
        f'{shown_id}<div class="pv-frame"></div>\n'
        f'<p class="pv-buttons"><button type="button" class="pv-flip">{flip}</button>'
        f'<button type="button" class="pv-again" hidden>{again}</button></p>\n'
        "</article>"
    )
