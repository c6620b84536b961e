"""Put whole quiz files into the bank: one new question file, a file per language of the quiz.

The first file is the quiz's first language; every other file is a translation
of it, matched question by question by number (by place when a file numbers
none). A translation that does not match (another answer, another number of
options, the first language's text itself) is refused at its line, and the
question goes in without it. Images are read by their path (a ``?raw=true``
left off), checked as the bank checks images, and copied into ``media/`` beside
the new file, as are the images a Moodle XML question carries inside it
(``@@PLUGINFILE@@/name``), under a name of safe characters. Nothing is written
until the bank with the new file is valid.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from ..atomic import write_inside
from ..buildlock import DEFAULT_WAIT, writing
from ..errors import AnkibuildError, BankError, Problem, Problems
from ..export.multilang import moodle_lang
from ..languages import CODE_HINT, is_language
from ..load.stage import load_bank
from ..model import SLUG, TOPIC, Bank
from ..paths import UnsafePathError, read_inside
from ..text.media import Media, MediaError, MediaFile, checked_image, safe_stem
from ..yamlfiles.reader import BANK_FILE, decode
from ..yamlfiles.writer import STEP, Block, Flow, Noted, Value, item_lines, mapping_lines
from . import langguess
from .aiken import read_aiken_quiz
from .bank import bank_document, question_file_in, valid_bank
from .gift import read_gift_quiz
from .moodlexml import read_moodle_xml
from .pages import same_text
from .qti import read_qti, read_qti_package
from .quiz import LETTERS, MAX_QUIZ_BYTES, Item, Quiz
from .sheet import read_csv_quiz
from .slugs import question_slug, topic_slug, unique
from .tasklist import read_tasklist_quiz

#: The folder, beside the new question file, that imported images go to.
MEDIA = "media"
#: How Moodle's texts link a file it keeps inside the question.
PLUGINFILE = "@@PLUGINFILE@@/"
#: A reader of a quiz file's text.
Reader = Callable[[Path, str, Problems], Quiz]
#: The formats of whole quiz files, by name, with the suffixes that name them.
READERS: dict[str, Reader] = {
    "markdown": read_tasklist_quiz,
    "gift": read_gift_quiz,
    "moodle-xml": read_moodle_xml,
    "aiken": read_aiken_quiz,
    "csv": read_csv_quiz,
    "qti": read_qti,
}
SUFFIXES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".gift": "gift",
    ".xml": "moodle-xml",
    ".aiken": "aiken",
    ".csv": "csv",
    ".tsv": "csv",
    # ankibuild's own GIFT export: Moodle's importer asks for a .txt file.
    ".gift.txt": "gift",
    # ankibuild's own QTI export, and Canvas's: a zip read as a package (a bare .xml is told by its root).
    ".qti.zip": "qti",
    ".zip": "qti",
}


def format_of(path: Path) -> str | None:
    """The format a file's suffix names (its last two suffixes first, as in ``.gift.txt``), or None."""
    both = "".join(path.suffixes[-2:]).lower()
    return SUFFIXES.get(both) or SUFFIXES.get(path.suffix.lower())


def xml_root(text: str) -> str:
    """The local name of an XML text's first element, past its declaration and comments; "" when none."""
    position = 0
    while True:
        start = text.find("<", position)
        if start == -1:
            return ""
        if text.startswith("<?", start) or text.startswith("<!", start):
            # A declaration, a comment or a document type: the parser judges it, here it is only skipped.
            close = "-->" if text.startswith("<!--", start) else ">"
            end = text.find(close, start)
            if end == -1:
                return ""
            position = end + len(close)
            continue
        # A root element's name is short: a bounded look, never a copy of the whole text.
        head = text[start + 1 : start + 256].split(maxsplit=1)
        return head[0].split(">", 1)[0].rstrip("/").rsplit(":", 1)[-1] if head else ""


@dataclass(frozen=True)
class QuizImport:
    """What an import of quiz files did, or (``dry_run``) would do."""

    path: Path
    questions: int
    languages: tuple[str, ...]
    topic: str
    new_topic: bool
    #: Questions and translations left out, each at its file and line with the reason.
    refused: tuple[Problem, ...]
    #: Every file written (or to be written), with its content.
    files: dict[Path, bytes]
    written: tuple[Path, ...] = ()
    warnings: tuple[Problem, ...] = ()


@dataclass
class _Read:
    """One quiz file, read, in its language."""

    quiz: Quiz
    lang: str


@dataclass
class _Plan:
    """The import worked out: the questions by language, the images to copy."""

    first: _Read
    #: The title each file gives itself, by language.
    titles: dict[str, str | None] = field(default_factory=dict)
    translations: list[dict[str, Item]] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)


def import_quizzes(
    files: Sequence[Path],
    *,
    out: Path,
    decks: Path = Path("decks"),
    languages: Sequence[str] = (),
    topic: str | None = None,
    dry_run: bool = False,
    form: str | None = None,
    wait: float = DEFAULT_WAIT,
) -> QuizImport:
    """Import quiz files (one quiz, a file per language, the first language first) into a new question file.

    ``form`` names the files' format (a key of :data:`READERS`); by default each file's suffix tells it.
    Questions that cannot be read exactly are refused and reported in the result;
    the others are imported. Raises :class:`BankError` (nothing written) when the
    files cannot make a valid bank, :class:`AnkibuildError` for wrong options. The bank
    is read and written under its lock (but for a dry run), waiting up to ``wait`` seconds for a build.
    """
    # A dry run writes nothing, not even the lock's file: a build meanwhile changes nothing it shows.
    with nullcontext() if dry_run else writing(decks, wait=wait):
        return _import(files, out=out, decks=decks, languages=languages, topic=topic, dry_run=dry_run, form=form)


def _import(
    files: Sequence[Path],
    *,
    out: Path,
    decks: Path,
    languages: Sequence[str],
    topic: str | None,
    dry_run: bool,
    form: str | None,
) -> QuizImport:

    target = _new_file(decks, out, languages, files=files, topic=topic)
    refused = Problems()
    read = [_read(path, refused, form) for path in files]
    # A file in several languages names each of them itself; for --lang, it counts as one file.
    named: list[str | None] = list(languages) or [None] * len(read)
    given = [lang for quiz, lang in zip(read, named, strict=True) for _ in _all(quiz)]
    read = [each for quiz in read for each in _all(quiz)]
    bank, known = valid_bank(decks)
    quizzes = _languages(read, given, bank, problems=refused)
    plan = _Plan(quizzes[0], {read.lang: read.quiz.title for read in quizzes})
    plan.translations = _matched(quizzes, refused)
    _images(plan, quizzes, target.parent, problems=refused)
    if not plan.translations:
        hint = "the reasons are above: fix the file and import it again"
        refused.add(files[0], "no question of the quiz could be imported", hint=hint)
        raise BankError(refused.items)
    slug, names = _topic(bank, quizzes, topic)
    pending = _pending(decks, bank, target, plan=plan, slug=slug, names=names)
    try:
        warnings = _validate(decks, pending, known, images=set(plan.images), target=target)
    except BankError as err:
        raise BankError([*refused.items, *err.problems]) from None
    for name, content in plan.images.items():
        pending[target.parent / MEDIA / name] = content
    written = () if dry_run else tuple(write_inside(decks, pending))
    langs = tuple(read.lang for read in quizzes)
    return QuizImport(
        target, len(plan.translations), langs, slug, bool(names), tuple(refused.items), pending, written, warnings
    )


def _new_file(decks: Path, out: Path, languages: Sequence[str], *, files: Sequence[Path], topic: str | None) -> Path:
    target = question_file_in(decks, out)
    if target.exists():
        raise AnkibuildError(f"{out} exists already: a quiz goes into a new question file; name another with --out")
    for code in languages:
        if not is_language(code):
            raise AnkibuildError(f"--lang '{code}' is not a language code: {CODE_HINT}")
    if languages and len(languages) != len(files):
        raise AnkibuildError(f"--lang is given {len(languages)} time(s) for {len(files)} file(s): once per file")
    if topic is not None and not TOPIC.match(topic):
        raise AnkibuildError(f"--topic '{topic}' is not a valid tag: use letters, digits, - _ . and :: , no spaces")
    return target


def _read(path: Path, problems: Problems, form: str | None) -> Quiz:
    """The questions of one file; an unreadable file is an error of the whole import."""
    try:
        raw = read_inside(path, (path.parent,), MAX_QUIZ_BYTES)
    except UnsafePathError as err:
        raise BankError([Problem(problems.name(path), message=err.message, hint=err.hint)]) from None
    except OSError as err:
        raise AnkibuildError(f"{path}: cannot read the file: {err.strerror}") from None
    named = form or format_of(path) or ""
    if named == "qti" and (path.suffix.lower() == ".zip" or zipfile.is_zipfile(io.BytesIO(raw))):
        return read_qti_package(path, raw, problems)
    errors = Problems()
    text = decode(path, raw, errors)
    if text is None:
        raise BankError(errors.items)
    if not form and named == "moodle-xml" and xml_root(text) == "questestinterop":
        named = "qti"  # both are .xml files: QTI's root element tells it from Moodle's <quiz>
    reader = READERS.get(named)
    if reader is None:
        raise AnkibuildError(f"{path}: which format is it? name it with --format ({', '.join(READERS)})")
    return reader(path, text, problems)


def _all(quiz: Quiz) -> list[Quiz]:
    return [quiz, *quiz.others]


def _languages(read: list[Quiz], given: Sequence[str | None], bank: Bank, *, problems: Problems) -> list[_Read]:
    """Each file with its language (its own, given, else guessed), which the bank must build; one file per
    language."""
    result: list[_Read] = []
    errors = Problems()
    for index, quiz in enumerate(read):
        text = "\n".join(item.question for item in quiz.items)
        lang = _own(quiz.lang, bank) or given[index] or langguess.from_text(text)
        where = errors.name(quiz.path)
        if lang is None:
            errors.add(quiz.path, "cannot tell the file's language", hint="name it with --lang, once per file")
        elif lang not in bank.languages:
            hint = f"add '{lang}' to 'languages' in {BANK_FILE}, or name another language with --lang"
            errors.add(
                quiz.path, f"the bank does not build '{lang}' (it builds {', '.join(bank.languages)})", hint=hint
            )
        elif any(other.lang == lang for other in result):
            errors.add(quiz.path, f"a second file in '{lang}' ({where})", hint="one file per language of the quiz")
        else:
            result.append(_Read(quiz, lang))
    if errors.items or not result:
        # A file whose every question was refused (or refused whole: a damaged package) has no text to guess from:
        # why it is empty comes first, or the student only hears that its language is unknown.
        empty = {problems.name(quiz.path) for quiz in read if not quiz.items}
        why = [problem for problem in problems.items if problem.file in empty]
        reasons = [*why, *errors.items]
        raise BankError(reasons or [Problem(problems.name(read[0].path), message="no question to import")])
    return result


def _own(named: str | None, bank: Bank) -> str | None:
    """The bank's language a file names for itself, Moodle's way (``pt_br`` is ``pt-BR``)."""
    if named is None:
        return None
    return next((code for code in bank.languages if moodle_lang(code) == moodle_lang(named)), named)


def _matched(quizzes: list[_Read], problems: Problems) -> list[dict[str, Item]]:
    """Each question of the first file with its translations in the others, matched by number or place."""
    first = quizzes[0]
    by_key = [_keyed(read.quiz.items) for read in quizzes]
    questions = [{first.lang: item} for item in first.quiz.items]
    place = {id(item): index for index, item in enumerate(first.quiz.items)}
    for read, keyed in zip(quizzes[1:], by_key[1:], strict=True):
        for key, item in keyed.items():
            source = by_key[0].get(key)
            reason = _mismatch(source, item)
            if reason is None and source is not None:
                questions[place[id(source)]][read.lang] = item
            else:
                hint = "translate it from the first file's question of the same number, with the same answer"
                message = f"'{read.lang}' translation refused: {reason}"
                problems.add(read.quiz.path, message, line=item.line, column=1, hint=hint)
    return questions


def _keyed(items: list[Item]) -> dict[str, Item]:
    """Items by their number, or by their place when some have none."""
    numbered = all(item.number for item in items) and len({item.number for item in items}) == len(items)
    return {item.number if numbered else str(place): item for place, item in enumerate(items, 1)}


def _mismatch(source: Item | None, item: Item) -> str | None:
    if source is None:
        return "the first file has no question of this number"
    if item.truth != source.truth:
        return "true or false differs from the first file's question"
    if item.cloze != source.cloze:
        return "a cloze question, where the first file's is not" if item.cloze else "not a cloze, unlike the first's"
    if len(item.options) != len(source.options):
        return f"{len(item.options)} options, but the first file's question has {len(source.options)}"
    if item.answer != source.answer:
        return f"answer {' '.join(item.answer)}, but the first file's question has {' '.join(source.answer)}"
    if same_text(item.question, source.question) and not _code_only(item.question):
        return "its question is the first file's text, untranslated"
    return None


def _code_only(text: str) -> bool:
    """A question that is code alone reads the same in every language."""
    return text.startswith("```") and text.endswith("```")


# -- images -----------------------------------------------------------------------


def _images(plan: _Plan, quizzes: list[_Read], folder: Path, *, problems: Problems) -> None:
    """Every image the questions show, checked and renamed into ``media/``; a question with a web image or
    an unusable file is refused (with all its translations)."""
    kept: list[dict[str, Item]] = []
    for question in plan.translations:
        moved = {
            lang: _moved(item, _source(quizzes, lang), plan, media=folder / MEDIA, problems=problems)
            for lang, item in question.items()
        }
        if all(item is not None for item in moved.values()):
            kept.append({lang: item for lang, item in moved.items() if item is not None})
    plan.translations = kept


def _source(quizzes: list[_Read], lang: str) -> Path:
    return next(read.quiz.path for read in quizzes if read.lang == lang)


def _moved(item: Item, path: Path, plan: _Plan, *, media: Path, problems: Problems) -> Item | None:
    texts = [item.question, *item.options, item.explanation]
    renamed: list[str] = []
    for text in texts:
        result = _rewrite(text, path.parent, plan.images, media=media, carried=item.files)
        if isinstance(result, tuple):
            message, hint = result
            problems.add(path, f"question refused: {message}", line=item.line, column=1, hint=hint)
            return None
        renamed.append(result)
    question, *options, explanation = renamed
    return replace(item, question=question, options=tuple(options), explanation=explanation)


def _rewrite(
    text: str, folder: Path, images: dict[str, bytes], *, media: Path, carried: Mapping[str, bytes]
) -> str | tuple[str, str]:
    """``text`` with each image's link pointing into ``media/``; or why an image cannot come along."""
    parts: list[str] = []
    start = 0
    for begin, end, target in image_links(text):
        reference = target.split("?", 1)[0].split("#", 1)[0]  # "diagram.png?raw=true" is diagram.png
        if "://" in reference or reference.startswith("//"):
            return f"the image '{target}' is on the web", "download it next to the quiz file and link it by its path"
        # Moodle links its own files by @@PLUGINFILE@@, a QTI package by their path in it (media/x.png).
        inside = reference[len(PLUGINFILE) :] if reference.startswith(PLUGINFILE) else reference
        try:
            own, image = (
                _carried(inside, carried)
                if reference.startswith(PLUGINFILE) or unquote(inside) in carried
                else (Path(reference).name, Media(folder).image(reference, folder))
            )
        except MediaError as err:
            return err.message, err.hint
        name = _free_name(own, image.name, image.content, images=images, media=media)
        images[name] = image.content
        parts += [text[start:begin], f"{MEDIA}/{name}"]
        start = end
    return "".join([*parts, text[start:]])


def _carried(link: str, carried: Mapping[str, bytes]) -> tuple[str, MediaFile]:
    """An image the quiz carries inside itself (Moodle's own files, a QTI package's), checked as a file of the bank is,
    with a name of safe characters only: it is written nowhere but ``media/``."""
    name = unquote(link)
    content = carried.get(name)
    if content is None:
        hint = "import Moodle's XML export, which carries each question's images"
        raise MediaError(f"the image '{name}' is not among the question's files", hint)
    path = PurePosixPath(name)
    image = checked_image(content, path.stem, path.suffix.lower(), reference=name)
    stem = safe_stem(path.stem)
    # A name ankibuild's export wrote ends with the image's digest, which every build adds: it goes.
    digest = image.name[len(image.name) - len(path.suffix) - 12 : len(image.name) - len(path.suffix)]
    stem = stem.removesuffix(f"-{digest}") or stem
    return f"{stem}{path.suffix.lower()}", image


def _free_name(name: str, digested: str, content: bytes, *, images: dict[str, bytes], media: Path) -> str:
    """The image's own name in ``media/``, unless another image has it there: then its name with a digest."""
    taken = images.get(name)
    if taken is None and (media / name).is_file():
        taken = (media / name).read_bytes()
    return name if taken is None or taken == content else digested


def image_links(text: str) -> list[tuple[int, int, str]]:
    """(start, end, target) of the target of each ``![alt](target)`` in ``text``, found in one pass."""
    found: list[tuple[int, int, str]] = []
    position = text.find("![")
    while position != -1:
        close = text.find("](", position + 2)
        end = text.find(")", close + 2) if close != -1 else -1
        if end == -1:
            break
        target = text[close + 2 : end].strip()
        if target and " " not in target:
            found.append((close + 2, end, target))
        position = text.find("![", end)
    return found


# -- the bank's files -------------------------------------------------------------


def _topic(bank: Bank, quizzes: list[_Read], given: str | None) -> tuple[str, dict[str, Value]]:
    """The questions' topic (given, else the bank's topic named like the quiz's title, else a new one from
    it) and, for a new one, its names to declare."""
    titles = {read.lang: read.quiz.title for read in quizzes if read.quiz.title}
    if given is not None and given in bank.topics:
        return given, {}
    for slug, names in bank.topics.items():
        if any(lang in names and same_text(names[lang], title) for lang, title in titles.items()):
            return slug, {}
    if given is None and not titles:
        raise AnkibuildError(
            "the quiz has no title (a first heading such as '## Git') to name its topic: pass --topic SLUG"
        )
    slug = given or unique(topic_slug(list(titles.values())), set(bank.topics))
    first = next(iter(titles.values()), slug)
    return slug, {lang: titles.get(lang) or Noted(first, "translate it") for lang in bank.languages}


def _pending(
    decks: Path, bank: Bank, target: Path, *, plan: _Plan, slug: str, names: dict[str, Value]
) -> dict[Path, bytes]:
    pending: dict[Path, bytes] = {}
    if names:
        declared = bank_document(decks / BANK_FILE)
        declared.append(("topics",), lambda indent: mapping_lines({slug: names}, indent))
        pending[decks / BANK_FILE] = declared.content()
    pending[target] = _question_file(bank, plan, slug).encode()
    return pending


def _question_file(bank: Bank, plan: _Plan, slug: str) -> str:
    titles = {lang: title for lang, title in plan.titles.items() if title}
    taken = {q.id for deck in bank.decks for q in deck.questions}
    lines = mapping_lines({"deck": titles}, 0) if titles else []
    # The quiz is in its files' languages only: the bank's others are not missing from it.
    languages = tuple(lang for lang in bank.languages if lang in plan.titles)
    lines += mapping_lines({"languages": Flow(languages)}, 0) if languages != bank.languages else []
    lines.append("questions:")
    for question in plan.translations:
        first = question[plan.first.lang]
        # The ID number a bank exported the question with is its id again, so a round trip keeps it.
        kept = first.ident if SLUG.fullmatch(first.ident) and first.ident not in taken else ""
        qid = kept or unique(question_slug(first.question), taken)
        taken.add(qid)
        lines += item_lines(_question(qid, slug, question), STEP)
    return "".join(f"{line}\n" for line in lines)


def _question(qid: str, slug: str, question: dict[str, Item]) -> dict[str, Value]:
    first = next(iter(question.values()))
    answer: Value = Flow(first.answer) if len(first.answer) > 1 else first.answer[0] if first.answer else ""
    head: dict[str, Value] = {"id": qid, "topics": Flow((slug,)), "answer": answer}
    if not first.shuffled:
        head["shuffle"] = False
    if first.truth is not None:
        head = {"id": qid, "kind": "truefalse", "topics": Flow((slug,)), "answer": first.truth}
    if first.cloze:
        # A cloze's answers are in its text.
        head = {"id": qid, "kind": "cloze", "topics": Flow((slug,))}
    return {**head, **{lang: _translation(item) for lang, item in question.items()}}


def _translation(item: Item) -> dict[str, Value]:
    text: dict[str, Value] = {"question": _text(item.question)}
    if item.truth is None and not item.cloze:
        text["options"] = [_text(option) for option in item.options]
    if item.explanation:
        text["explanation"] = Block(item.explanation)
    feedback = {LETTERS[i]: _text(note) for i, note in enumerate(item.feedback) if note}
    return {**text, "feedback": feedback} if feedback else text


def _text(text: str) -> str | Block:
    return Block(text) if "\n" in text else text


def _validate(
    decks: Path, pending: dict[Path, bytes], known: set[tuple[str, str, str]], *, images: set[str], target: Path
) -> tuple[Problem, ...]:
    """The bank as it would be: its errors stop the import; its new warnings about the new file are returned.

    The images about to be copied are not there yet: they were checked where they
    are, by the same rules.
    """
    problems = Problems()
    load_bank(decks, problems, pending)
    coming = {f"image '{MEDIA}/{name}' not found" for name in images}
    errors = [p for p in problems.errors if p.message not in coming]
    if errors:
        raise BankError(errors)
    ours = {problems.name(target), problems.name(decks / BANK_FILE)}
    return tuple(p for p in problems.warnings if p.file in ours and (p.file, p.question, p.message) not in known)
