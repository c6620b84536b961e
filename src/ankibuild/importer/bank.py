"""Import quiz pages copied from the web into the question bank.

The pages of one call are one question, a page per language (see
:mod:`.pages` for what a page looks like). The question is found in the
bank (by ``--id`` or by its text in one of the pages' languages) and given the
languages it lacks, or added as a new question; its topic is found by its name
in the bank or declared; the titles of further questions the pages list are
kept under ``todo``.

Texts are kept as Markdown that shows them as the page did (a ``*`` or a
leading ``1.`` of the page gets a backslash where Markdown would read it).
Nothing is written until the bank as it would be after the import has been
validated the way a build validates it. Files are added to by inserting lines
(:mod:`ankibuild.yamltext`), so what is already in them stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ..atomic import write_inside
from ..buildlock import DEFAULT_WAIT, writing
from ..errors import AnkibuildError, BankError, Problem, Problems, Severity
from ..kinds import KINDS
from ..languages import CODE_HINT, is_language
from ..load.stage import load_bank
from ..lock.format import LOCK_FILE
from ..model import SLUG, TOPIC, Bank, Question
from ..paths import DECKS
from ..text.richtext import literal
from ..yamlfiles.reader import BANK_FILE, Map, Seq
from ..yamlfiles.writer import (
    STEP,
    Block,
    Document,
    Flow,
    Noted,
    Value,
    item_lines,
    mapping_lines,
    open_document,
    scalar,
)
from .pages import Page, read_page, same_text
from .slugs import question_slug, topic_slug, unique


@dataclass(frozen=True)
class ImportResult:
    """What an import did (or found already done)."""

    question: str
    #: The question file that holds the question.
    path: Path
    #: Languages this import wrote, and those the question had already (left as they were).
    added: tuple[str, ...]
    kept: tuple[str, ...]
    #: The question's topic, and whether this import declared it in bank.yaml.
    topic: str | None
    new_topic: bool
    #: Titles of further questions added under ``todo``, by language.
    todo: dict[str, tuple[str, ...]]
    written: tuple[Path, ...]
    #: What to look at: names to translate, titles that are questions already.
    warnings: tuple[Problem, ...] = ()
    #: Languages this import added to the bank's ``languages``.
    new_languages: tuple[str, ...] = ()


@dataclass
class _Plan:
    """The import worked out, before any text is written."""

    question: str
    path: Path
    pages: dict[str, Page]
    existing: Question | None = None
    topic: str | None = None
    topic_names: dict[str, Value] = field(default_factory=dict)
    todo: dict[str, list[str]] = field(default_factory=dict)
    notes: Problems = field(default_factory=Problems)
    #: Languages of the pages that the bank does not build yet, to add to it.
    new_languages: tuple[str, ...] = ()

    @property
    def added(self) -> dict[str, Page]:
        have = self.existing.translations if self.existing else {}
        return {lang: page for lang, page in self.pages.items() if lang not in have}


def import_pages(
    pages: Sequence[Path],
    *,
    out: Path,
    decks: Path = DECKS,
    question_id: str | None = None,
    languages: Sequence[str] = (),
    topic: str | None = None,
    add_language: bool = False,
    wait: float = DEFAULT_WAIT,
) -> ImportResult:
    """Import ``pages`` (one question, a page per language) into the bank at ``decks``.

    ``out`` is the question file a new question goes to (created if missing).
    ``languages`` gives each page's language in order instead of detecting it;
    ``topic`` the topic slug instead of matching the pages' topic title.
    A page in a language the bank does not build is refused, unless ``add_language``
    adds that language to the bank's ``languages``.
    Raises :class:`BankError` listing every problem, with nothing written. The bank
    is read and written under its lock, waiting up to ``wait`` seconds for a build.
    """
    _check_options(pages, question_id, languages, topic=topic)
    target = question_file_in(decks, out)
    with writing(decks, wait=wait):
        return _import(
            pages, decks, target, question_id=question_id, languages=languages, topic=topic, add_language=add_language
        )


def _import(
    pages: Sequence[Path],
    decks: Path,
    target: Path,
    *,
    question_id: str | None,
    languages: Sequence[str],
    topic: str | None,
    add_language: bool,
) -> ImportResult:
    problems = Problems()
    read = [_as_markdown(page) if page else None for page in (read_page(path, problems) for path in pages)]
    bank, known = valid_bank(decks)
    by_language = _by_language(read, languages, problems)
    _agree(list(by_language.values()), problems)
    new_languages = _not_built(bank, by_language, add_language, problems=problems)
    if problems.errors:
        raise BankError(problems.errors)
    bank = replace(bank, languages=(*bank.languages, *new_languages))
    plan = _plan(bank, by_language, target, question_id=question_id, topic=topic, problems=problems)
    if problems.errors:
        raise BankError(problems.errors)
    plan.new_languages = new_languages
    return _write(decks, plan, bank, known=known)


def _as_markdown(page: Page) -> Page:
    """The page's texts as the bank keeps them: Markdown that shows them as the page did."""
    return replace(
        page,
        question=literal(page.question),
        options=tuple(literal(option) for option in page.options),
        explanation=literal(page.explanation),
        further=tuple(literal(title) for title in page.further),
    )


def _check_options(
    pages: Sequence[Path], question_id: str | None, languages: Sequence[str], *, topic: str | None
) -> None:
    if question_id is not None and not SLUG.fullmatch(question_id):
        raise AnkibuildError(f"--id '{question_id}' is not a slug: use lowercase letters, digits and - _ .")
    if topic is not None and not TOPIC.fullmatch(topic):
        raise AnkibuildError(f"--topic '{topic}' is not a valid tag: use letters, digits, - _ . and :: , no spaces")
    for code in languages:
        if not is_language(code):
            raise AnkibuildError(f"--lang '{code}' is not a language code: {CODE_HINT}")
    if languages and len(languages) != len(pages):
        raise AnkibuildError(
            f"--lang is given {len(languages)} time(s) for {len(pages)} page(s): give it once per page"
        )


def question_file_in(decks: Path, out: Path) -> Path:
    """``out`` as the bank names its files (below ``decks``), or an error if it is not a question file there."""
    try:
        relative = out.resolve().relative_to(decks.resolve())
    except ValueError:
        raise AnkibuildError(f"{out} is not in the bank folder {decks}: question files live there") from None
    if out.suffix not in (".yaml", ".yml") or relative.as_posix() in (BANK_FILE, LOCK_FILE):
        raise AnkibuildError(f"{out} is not a question file: name one such as {decks / 'imported.yaml'}")
    if any(part.startswith(".") for part in relative.parts):  # as the build skips editors' backups and .git
        raise AnkibuildError(
            f"{out} is hidden (a name starting with '.'), and the build never reads hidden files: "
            f"name one such as {decks / 'imported.yaml'}"
        )
    return decks / relative


def valid_bank(decks: Path) -> tuple[Bank, set[tuple[str, str, str]]]:
    """The bank as it is (it must be valid before anything is added to it), and its warnings without their
    places. Every import starts here."""
    problems = Problems()
    bank = load_bank(decks, problems)
    if bank is None or problems.errors:
        raise BankError(problems.errors)
    return bank, {_said(warning) for warning in problems.warnings}


def _said(problem: Problem) -> tuple[str, str, str]:
    """A problem without its place: lines move when lines are inserted above them."""
    return problem.file, problem.question, problem.message


def _not_built(bank: Bank, pages: dict[str, Page], add: bool, *, problems: Problems) -> tuple[str, ...]:
    """The pages' languages the bank does not build: refused before anything is written, unless ``add``."""
    missing = tuple(lang for lang in pages if lang not in bank.languages)
    if add:
        return missing
    for lang in missing:
        page = pages[lang]
        _report(
            problems,
            page,
            page.question_line,
            message=f"the bank does not build '{lang}' (it builds {', '.join(bank.languages)}): "
            "this page's question would be in no deck",
            hint=f"import it with --add-language to add '{lang}' to the bank, "
            f"or add '{lang}' to 'languages' in {BANK_FILE} first",
        )
    return ()


def _by_language(read: list[Page | None], override: Sequence[str], problems: Problems) -> dict[str, Page]:
    """The pages by language: given with ``--lang``, else detected; one page per language."""
    result: dict[str, Page] = {}
    given: Sequence[str | None] = override or [None] * len(read)
    for page, code in zip(read, given, strict=True):
        if page is None:
            continue  # unreadable: reported already
        lang = code or page.language
        if lang is None:
            hint = "name it with --lang, e.g. --lang es (once per page, in order)"
            _report(problems, page, page.question_line, message="cannot tell the page's language", hint=hint)
        elif lang in result:
            _report(
                problems,
                page,
                page.question_line,
                message=f"a second page in '{lang}' (the first is {problems.name(result[lang].path)})",
                hint="one page per language: import other questions in calls of their own, or set --lang",
            )
        else:
            result[lang] = page
    return result


def _agree(pages: list[Page], problems: Problems) -> None:
    """Pages imported together are one question: the same answer and number of options."""
    for page in pages[1:]:
        first = pages[0]
        if (page.answer, len(page.options)) != (first.answer, len(first.options)):
            _report(
                problems,
                page,
                page.answer_line,
                message=f"answer {page.answer} of {len(page.options)} options, but {problems.name(first.path)} "
                f"has answer {first.answer} of {len(first.options)}",
                hint="pages imported together must be the same question in other languages",
            )


def _plan(
    bank: Bank, pages: dict[str, Page], target: Path, *, question_id: str | None, topic: str | None, problems: Problems
) -> _Plan:
    existing = _existing(bank, pages, question_id, problems=problems)
    if existing is not None:
        plan = _Plan(existing.id, existing.place.path, pages, existing)
    else:
        qid = question_id or unique(
            question_slug(next(iter(pages.values())).question), {q.id for q in _questions(bank)}
        )
        plan = _Plan(qid, target, pages)
        _plan_topic(plan, bank, topic, problems=problems)
    return plan


def _questions(bank: Bank) -> Iterable[Question]:
    return (q for deck in bank.decks for q in deck.questions)


def _existing(bank: Bank, pages: dict[str, Page], question_id: str | None, *, problems: Problems) -> Question | None:
    """The bank's question these pages are: by ``--id``, else by the question's text in a page's language."""
    asked = {lang: q for lang, page in pages.items() if (q := _asked(bank, lang, page.question)) is not None}
    by_id = next((q for q in _questions(bank) if q.id == question_id), None)
    found = by_id if question_id else next(iter(asked.values()), None)
    for lang, same in asked.items():
        if same is not found:
            where = f"{problems.name(same.place.path)}:{same.place.line}"
            meant = question_id or (found and found.id)
            _report(
                problems,
                pages[lang],
                pages[lang].question_line,
                message=f"this '{lang}' question is already '{same.id}' ({where}), not '{meant}'",
                hint=f"import it with --id {same.id}, or leave it out",
            )
    if found is not None:
        _same_shape(found, pages, problems)
    return found


def _asked(bank: Bank, lang: str, text: str) -> Question | None:
    """The bank's question that asks ``text`` in ``lang``."""
    return next(
        (q for q in _questions(bank) if lang in q.translations and same_text(q.translations[lang].question, text)), None
    )


def _report(problems: Problems, page: Page, line: int, *, message: str, hint: str) -> None:
    problems.add(page.path, message, line=line, column=1, hint=hint)


def _same_shape(question: Question, pages: dict[str, Page], problems: Problems) -> None:
    """Translations added to a question must have its answer and number of options."""
    options = len(KINDS[question.kind].option_texts(next(iter(question.translations.values()))))
    for page in pages.values():
        if (page.answer, len(page.options)) != (question.answer, options):
            where = f"{problems.name(question.place.path)}:{question.place.line}"
            _report(
                problems,
                page,
                page.answer_line,
                message=f"answer {page.answer} of {len(page.options)} options, but question '{question.id}' ({where}) "
                f"has answer {question.answer} of {options}",
                hint="is this another question? then import it with another --id",
            )


def _plan_topic(plan: _Plan, bank: Bank, slug: str | None, *, problems: Problems) -> None:
    """The topic named with ``--topic``, else the bank's topic of the pages' title, else a new one."""
    titles = {lang: page.topic for lang, page in plan.pages.items() if page.topic}
    if slug is None:
        slug = _matching_topic(bank, plan.pages, problems)
    if slug is None and not titles:
        for page in plan.pages.values():
            _report(
                problems,
                page,
                page.question_line,
                message="no topic title above the question",
                hint="pass --topic SLUG",
            )
        return
    if slug in bank.topics:
        plan.topic = slug
        return
    plan.topic = slug or unique(topic_slug(list(titles.values())), set(bank.topics))
    plan.topic_names = _topic_names(bank, titles or {lang: plan.topic for lang in plan.pages}, plan)


def _matching_topic(bank: Bank, pages: dict[str, Page], problems: Problems) -> str | None:
    found = {
        slug
        for lang, page in pages.items()
        for slug, names in bank.topics.items()
        if page.topic and lang in names and same_text(names[lang], page.topic)
    }
    if len(found) > 1:
        page = next(iter(pages.values()))
        listed = ", ".join(sorted(found))
        _report(
            problems,
            page,
            1,
            message=f"the pages' topic titles name different topics of the bank: {listed}",
            hint="pass --topic",
        )
    return found.pop() if len(found) == 1 else None


def _topic_names(bank: Bank, titles: dict[str, str], plan: _Plan) -> dict[str, Value]:
    """A new topic's names: the pages' titles; other languages of the bank get one to translate."""
    first_lang, first = next(iter(titles.items()))
    names: dict[str, Value] = {}
    for lang in bank.languages:
        names[lang] = titles.get(lang) or Noted(first, f"copied from '{first_lang}': translate it")
        if lang not in titles:
            plan.notes.add(
                bank.root / BANK_FILE,
                f"topic '{plan.topic}' has no name in '{lang}' yet: its '{first_lang}' name is copied there",
                hint="translate it",
                severity=Severity.WARNING,
            )
    return {**names, **titles}


# -- writing ----------------------------------------------------------------


def _write(decks: Path, plan: _Plan, bank: Bank, *, known: set[tuple[str, str, str]]) -> ImportResult:
    """Work out the new texts, validate the bank they make, then write them.

    ``known`` are the bank's warnings before the import: only new ones are told.
    """
    document = bank_document(plan.path) if plan.path.is_file() else None
    plan.todo = _todo(plan, bank, document.root.get("todo") if document else None)
    pending: dict[Path, bytes] = {}
    if plan.topic_names or plan.new_languages:
        # bank.yaml goes first: a topic nobody uses yet is valid, a question with an undeclared one is not.
        declared = bank_document(decks / BANK_FILE)
        if plan.new_languages:
            declared.append_items(("languages",), plan.new_languages)
        if plan.topic_names:
            declared.append(("topics",), lambda indent: mapping_lines({plan.topic or "": plan.topic_names}, indent))
        pending[decks / BANK_FILE] = declared.content()
    pending[plan.path] = _add_to(document, plan) if document else _new_file(plan, bank)
    notes = [*plan.notes.items, *_validate(decks, pending, plan.question, known=known)]
    written = tuple(write_inside(decks, pending))
    return ImportResult(
        plan.question,
        plan.path,
        tuple(plan.added),
        tuple(lang for lang in plan.pages if lang not in plan.added),
        plan.topic if plan.existing is None else None,
        bool(plan.topic_names),
        {lang: tuple(titles) for lang, titles in plan.todo.items()},
        written,
        tuple(notes),
        plan.new_languages,
    )


def bank_document(path: Path) -> Document:
    """A file of the valid bank, to insert lines into (:mod:`ankibuild.yamltext`).

    Raises :class:`BankError` for a question file too large to be read whole, which a build reads a question at
    a time.
    """
    return open_document(path, path.parent)


def _validate(
    decks: Path, pending: dict[Path, bytes], question: str, *, known: set[tuple[str, str, str]]
) -> list[Problem]:
    """The bank as it would be; its errors stop the import.

    Its new warnings are returned, but those about other questions: a language
    added to the bank is missing from every one of them, which the import did not do.
    """
    problems = Problems()
    load_bank(decks, problems, pending)
    if problems.errors:
        raise BankError(problems.errors)
    return [p for p in problems.warnings if _said(p) not in known and p.question in ("", question)]


def _add_to(document: Document, plan: _Plan) -> bytes:
    """The new question, or the languages it lacks, and the new titles under ``todo``."""
    if plan.existing is None:
        gap = [""] if document.spaced(("questions",)) else []  # a blank line before it, as before the others
        document.append(("questions",), lambda indent: [*gap, *item_lines(_question(plan), indent)])
    elif plan.added:
        index = next(i for i, item in enumerate(document.root["questions"]) if item.get("id") == plan.question)
        added = {lang: _translation(page) for lang, page in plan.added.items()}
        document.append(("questions", index), lambda indent: mapping_lines(added, indent))
    _append_todo(document, plan.todo)
    return document.content()


def _new_file(plan: _Plan, bank: Bank) -> bytes:
    names = bank.topics.get(plan.topic or "") or plan.topic_names
    deck = {lang: name for lang, name in names.items() if isinstance(name, str)}
    lines = [*mapping_lines({"deck": deck}, 0), "questions:", *item_lines(_question(plan), STEP)]
    if plan.todo:
        lines += mapping_lines({"todo": plan.todo}, 0)
    return "".join(f"{line}\n" for line in lines).encode()


def _question(plan: _Plan) -> dict[str, Value]:
    page = next(iter(plan.pages.values()))
    letters = page.answer.split()
    answer: Value = Flow(tuple(letters)) if len(letters) > 1 else page.answer
    head: dict[str, Value] = {"id": plan.question, "topics": Flow((plan.topic or "",)), "answer": answer}
    return {**head, **{lang: _translation(p) for lang, p in plan.pages.items()}}


def _translation(page: Page) -> dict[str, Value]:
    question: Value = Block(page.question) if "\n" in page.question else page.question
    return {"question": question, "options": list(page.options), "explanation": Block(page.explanation)}


def _todo(plan: _Plan, bank: Bank, current: object) -> dict[str, list[str]]:
    """The pages' further titles that are neither under ``todo`` yet nor asked by a question of the bank."""
    existing = _todo_titles(current, plan.path)
    result: dict[str, list[str]] = {}
    for lang, page in plan.pages.items():
        if any(same_text(page.question, title) for title in existing.get(lang, [])):
            plan.notes.add(
                plan.path,
                f"the '{lang}' question is also under 'todo'",
                hint="remove it there",
                severity=Severity.WARNING,
            )
        known = [*existing.get(lang, []), page.question]
        known += [q.translations[lang].question for q in _questions(bank) if lang in q.translations]
        for title in page.further:
            if not any(same_text(title, other) for other in known):
                result.setdefault(lang, []).append(title)
                known.append(title)
    return result


def _todo_titles(current: object, path: Path) -> dict[str, list[str]]:
    if current is None:
        return {}
    if not isinstance(current, Map) or not all(isinstance(v, Seq) or v is None for v in current.values()):
        line = current.line if isinstance(current, (Map, Seq)) else 0
        raise AnkibuildError(f"{path}:{line}: 'todo' must be a mapping of languages to lists of titles")
    return {lang: [str(title) for title in titles or ()] for lang, titles in current.items()}


def _append_todo(document: Document, todo: dict[str, list[str]]) -> None:
    """Titles go below their language in ``todo``; languages and ``todo`` itself are added where missing."""
    if not todo:
        return
    if "todo" not in document.root:
        document.append((), lambda indent: mapping_lines({"todo": todo}, indent))
        return
    current = document.root["todo"] or {}
    for lang, titles in todo.items():
        if lang in current:
            document.append(("todo", lang), partial(_items, titles))
    new = {lang: titles for lang, titles in todo.items() if lang not in current}
    if new:
        document.append(("todo",), lambda indent: mapping_lines(new, indent))


def _items(titles: list[str], dash: int) -> list[str]:
    return [f"{' ' * dash}- {scalar(title)}" for title in titles]
