"""What check accepts, a build writes back so that the next check accepts it, and it means the same there.

Random values go through check, build and check again: in the lock, in the
translations record, as a language code and as a deck's title, which reaches
the published changelog.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest
from click.testing import Result
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ankibuild.changelog import Change, ChangeKind
from ankibuild.lock.clock import MAX_TIME
from ankibuild.lock.format import LOCK_FILE, read_lock
from ankibuild.translations.record import TRANSLATIONS_FILE

from ..conftest import DATA
from ..locktools import lock_bank, run_checked

pytestmark = pytest.mark.slow  # many generated locks and records, each through the command line

ROUND_TRIPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Any text YAML and JSON can hold (a lone surrogate is neither UTF-8 nor YAML).
TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
#: Text close to what is accepted, and what sits just beside it: line breaks, markers, quotes, escapes.
NEAR = st.one_of(
    TEXT,
    st.sampled_from(["de", "fr", "pt-BR", "q1", "0123abcd", "\n", "\r\n", "\u2028", '"', "\\", "<<<<<<< HEAD", " "]),
)


#: A BCP 47 tag of a language, a script and a region (RFC 5646, 2.1), in any case: nothing else in it.
BCP_47 = re.compile(r"[a-zA-Z]{2,3}(?:-[a-zA-Z]{4})?(?:-(?:[a-zA-Z]{2}|[0-9]{3}))?")


def _deck_name(package: Path) -> str:
    """The name of the one deck of ``package`` (beside Anki's Default)."""
    with zipfile.ZipFile(package) as archive:
        collection = package.with_suffix(".anki2")
        collection.write_bytes(archive.read("collection.anki2"))
    with contextlib.closing(sqlite3.connect(collection)) as conn:
        (decks,) = conn.execute("SELECT decks FROM col").fetchone()
    (name,) = [deck["name"] for deck in json.loads(decks).values() if deck["name"] != "Default"]
    return str(name)


def _code_spans(line: str) -> list[str]:
    """The text of each code span of a line of Markdown."""
    (paragraph,) = MarkdownIt("commonmark").parseInline(line)
    return [token.content for token in paragraph.children or [] if token.type == "code_inline"]


def _joined(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(*parts).map("".join)


def _round_trip(decks: Path) -> Result | None:
    """check; when it accepts the bank, build, and check again, which must accept it too. The build, if any."""
    folders = ["--decks", str(decks)]
    if run_checked("check", *folders).exit_code:
        return None
    built = run_checked("build", *folders, "--out", str(decks.parent / "dist"))
    assert built.exit_code == 0, built.output
    again = run_checked("check", *folders)
    assert again.exit_code == 0, again.output
    return built


@ROUND_TRIPS
@given(
    guid=NEAR,
    question=_joined(NEAR, NEAR),
    lang=_joined(NEAR, NEAR),
    digest=NEAR,
    parts=_joined(NEAR, NEAR),
    mtime=st.one_of(st.integers(0, MAX_TIME), st.sampled_from([0, MAX_TIME - 1, MAX_TIME])),
    fields=st.lists(NEAR, max_size=3),
)
@example(guid="g", question='q"1', lang="fr", digest="ab", parts="ab", mtime=1, fields=[])  # a quote JSON escaped
@example(guid="g", question="q1\n", lang="fr", digest="ab", parts="ab", mtime=1, fields=[])
@example(guid="g\n", question="q1", lang="fr", digest="ab", parts="ab", mtime=1, fields=["\u2028"])
def test_a_lock_entry_check_accepts_is_written_back_as_it_was(
    guid: str, question: str, lang: str, digest: str, parts: str, mtime: int, fields: list[str]
) -> None:
    """A note and a note type of a language the bank no longer builds: kept by the build, byte for byte in meaning."""
    note = {"guid": guid, "question": question, "lang": lang, "digest": digest, "parts": parts, "mtime": mtime}
    notetype = {"notetype": lang, "id": 7, "fields": fields, "cards": fields, "digest": digest, "mtime": mtime}
    with lock_bank() as decks:
        run_checked("build", "--decks", str(decks), "--out", str(decks.parent / "dist"))
        lock = decks / LOCK_FILE
        lock.write_text(lock.read_text(encoding="utf-8") + f"{json.dumps(notetype)}\n{json.dumps(note)}\n", "utf-8")
        before = read_lock(lock) if run_checked("check", "--decks", str(decks)).exit_code == 0 else None
        if _round_trip(decks) is not None and before is not None:
            after = read_lock(lock)
            assert after.notes[guid] == before.notes[guid]
            assert after.notetypes[lang] == before.notetypes[lang]


@ROUND_TRIPS
@given(mtime=st.sampled_from([MAX_TIME - 1, MAX_TIME]))
def test_a_note_changed_after_the_latest_time_a_lock_holds_stays_within_it(mtime: int) -> None:
    """A note whose time is the last the lock accepts, then edited: its new time is one the next check accepts."""
    with lock_bank() as decks:
        run_checked("build", "--decks", str(decks), "--out", str(decks.parent / "dist"))
        lock = decks / LOCK_FILE
        lines = [json.loads(line) for line in lock.read_text(encoding="utf-8").splitlines()[1:]]
        notes = [{**entry, "mtime": mtime} if "guid" in entry else entry for entry in lines]
        lock.write_text("\n".join(["#", *map(json.dumps, notes)]) + "\n", encoding="utf-8")
        question = decks / "memory.yaml"
        question.write_text(question.read_text(encoding="utf-8").replace("Nur Text", "Bloß Text"), encoding="utf-8")
        assert _round_trip(decks) is not None
        assert max(note.mtime for note in read_lock(lock).notes.values()) == MAX_TIME


@ROUND_TRIPS
@given(
    lines=st.lists(
        st.lists(NEAR, min_size=1, max_size=6).map(" ".join).map(lambda line: f"  {line}"), min_size=1, max_size=3
    ),
    question=st.one_of(st.just("html-is-text"), _joined(NEAR, NEAR)),
)
def test_a_translations_record_check_accepts_is_written_back_so_that_check_accepts_it(
    lines: list[str], question: str
) -> None:
    """Any block check accepts, for a question of the bank or not: the build's record is accepted, and a fixed point."""
    record = f"\n{question}:\n" + "\n".join(lines) + "\n"
    with lock_bank({TRANSLATIONS_FILE: record}) as decks:
        if _round_trip(decks) is not None:
            written = (decks / TRANSLATIONS_FILE).read_bytes()
            assert run_checked("build", "--decks", str(decks), "--out", str(decks.parent / "dist")).exit_code == 0
            assert (decks / TRANSLATIONS_FILE).read_bytes() == written


@ROUND_TRIPS
@given(code=_joined(st.sampled_from(["fr", "pt", "zh", "xx", "FR", ""]), st.sampled_from(["", "-BR", "-Hant"]), NEAR))
@example(code="fr\n")
def test_a_language_code_check_accepts_names_its_package_exactly(code: str) -> None:
    """A code with anything after it: refused, or a BCP 47 tag that names the package ``<bank>-<code>.apkg``."""
    bank = (DATA / "html-in-text" / "bank.yaml").read_text(encoding="utf-8")
    with lock_bank({"bank.yaml": bank.replace("[de, en]", f"[de, en, {json.dumps(code)}]")}) as decks:
        if _round_trip(decks) is not None:
            assert BCP_47.fullmatch(code), code
            names = {path.name for path in (decks.parent / "dist").glob("*.apkg")}
            assert names == {f"ai-stack-{lang}.apkg" for lang in ("de", "en", code)}


#: How each line of the changelog starts: a line that starts otherwise was forged by a name.
CHANGELOG_LINES = ("# Changelog", "## ", "### ", "- added ", "- moved ", "Anki leaves cards in their deck")


def _renamed_and_reverted(title: str, other: str) -> None:
    """The German deck titled ``title``, then ``other``, then ``title`` again, built each time check accepts it.

    Each move's help names the decks as the package names them, character for
    character when a name has no control character (Markdown as CommonMark reads it).
    """
    names: list[str] = []
    with lock_bank() as decks:
        question = decks / "memory.yaml"
        original = question.read_text(encoding="utf-8")
        for deck in (title, other, title):
            question.write_text(original.replace("de: Speicher,", f"de: {json.dumps(deck)},"), encoding="utf-8")
            if _round_trip(decks) is None:
                return
            names.append(_deck_name(decks.parent / "dist" / "ai-stack-de.apkg"))
        lines = (decks.parent / "dist" / "CHANGELOG.md").read_text(encoding="utf-8").split("\n")
    assert all(not line or line.startswith(CHANGELOG_LINES) for line in lines), lines
    helps = [_code_spans(line) for line in lines if line.startswith("Anki leaves cards")]
    # A title that differs only in spaces around it names the same deck: then nothing moved.
    assert len(helps) == (2 if names[0] != names[1] else 0)
    assert len([line for line in lines if line.startswith("- moved html-is-text from ")]) == len(helps)
    for (before, _, after, again), moved in zip(helps, [names[1:], names[:2]], strict=False):
        assert before == again
        if all(name.isprintable() for name in names):
            assert [before, after] == moved


@ROUND_TRIPS
@given(title=_joined(NEAR, NEAR, NEAR), other=_joined(NEAR, NEAR))
@example(title="Speicher\n<<<<<<< HEAD", other="Speicher")
@example(title="Spei`cher", other="``Speicher `")
def test_a_deck_title_check_accepts_reaches_the_changelog_as_one_line(title: str, other: str) -> None:
    """A title, renamed and then reverted: every build after it works, and each move is one line of the changelog."""
    _renamed_and_reverted(title, other)


@ROUND_TRIPS
@given(before=st.text(min_size=1), after=st.text(min_size=1))
@example(before="[click](https://evil.example)", after="<img src=x onerror=alert(1)> *a* _b_ `c` &amp; \\[d]")
@example(before="Evil\n## Published", after="| x | y |\n|---|---|")
def test_a_moved_deck_is_named_as_text_in_markdown(before: str, after: str) -> None:
    """The names a published package gives its decks are shown as written: no link, image, HTML, emphasis or line."""
    line = Change("en", "q", ChangeKind.MOVED, before=before, after=after).describe()
    tokens = MarkdownIt("commonmark").enable("table").parse(f"- {line}")
    inline = [token for token in tokens if token.type == "inline"]
    assert len(inline) == 1 and [t.type for t in inline[0].children or []] == ["text"]
    text = (inline[0].children or [])[0].content
    shown = re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", lambda m: f"\\u{ord(m.group()):04x}", f"{before} to {after}")
    assert text.rstrip() == f"moved q from {shown}".rstrip()  # Markdown drops the spaces a line ends with


@pytest.mark.parametrize(
    "args",
    [
        ["init", "class", "--lang", "de", "--id", "my-class\n"],
        ["init", "class", "--lang", "de\n"],
        ["add-language", "fr\n"],
    ],
    ids=["init-id", "init-lang", "add-language"],
)
def test_a_code_or_id_with_a_line_break_after_it_is_refused_by_every_command(args: list[str]) -> None:
    """What a command would write into the bank is held to what check accepts: nothing is written."""
    with lock_bank() as decks, contextlib.chdir(decks.parent):
        before = sorted(path.read_bytes() for path in decks.parent.rglob("*") if path.is_file())
        assert run_checked(*args).exit_code == 1
        assert sorted(path.read_bytes() for path in decks.parent.rglob("*") if path.is_file()) == before


def test_a_topic_with_a_line_break_after_it_is_refused() -> None:
    """A topic is a tag on every note: one that ends in a line break is no tag, and check says so at its line."""
    bank = (DATA / "html-in-text" / "bank.yaml").read_text(encoding="utf-8")
    with lock_bank({"bank.yaml": bank.replace("  memory:", '  "memory\\n":\n    de: Speicher\n  memory:')}) as decks:
        checked = run_checked("check", "--decks", str(decks))
        assert checked.exit_code == 1 and "topic 'memory\\n' is not a valid tag" in checked.output, checked.output
