"""Item-writing checks: a question whose form gives its answer away is a warning, with file and line.

Each scenario is a small bank written here; ``check`` must name the question
file, the line of the option at fault and the check, count the warnings in a
summary line, and fail with ``--strict``. ``allow`` silences a check for one
question, ``pin`` keeps an option in its place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ankibuild.cli import main
from ankibuild.kinds import CHECKS
from ankibuild.load import deckfiles
from ankibuild.load.schema import schema_text
from ankibuild.load.stage import LoadedBank, load_all
from ankibuild.options import BuildOptions

from ..conftest import ROOT

BANK = """id: items
languages: [en, de]
shuffle: {shuffle}
topics:
  t: {{en: Topic, de: Thema}}
"""

SHORT = ("Red", "Green", "Blue", "Black")


def _question(qid: str, answer: str, en: Sequence[str], de: Sequence[str] | None = None, extra: str = "") -> str:
    def options(texts: Sequence[str]) -> str:
        return "".join(f"        - {json.dumps(text, ensure_ascii=False)}\n" for text in texts)

    return (
        f"  - id: {qid}\n    topics: [t]\n    answer: {answer}\n{extra}"
        f"    en:\n      question: Which one?\n      options:\n{options(en)}      explanation: Because.\n"
        f"    de:\n      question: Welche?\n      options:\n{options(de or en)}      explanation: Darum.\n"
    )


def _bank(root: Path, files: dict[str, Sequence[str]], shuffle: bool = True) -> Path:
    decks = root / "decks"
    decks.mkdir(parents=True)
    (decks / "bank.yaml").write_text(BANK.format(shuffle=str(shuffle).lower()), encoding="utf-8")
    for name, questions in files.items():
        text = "deck: {en: Deck, de: Deck}\nquestions:\n" + "".join(questions)
        (decks / name).write_text(text, encoding="utf-8")
    return decks


def _check(decks: Path, *options: str) -> tuple[Result, list[dict[str, object]]]:
    text = CliRunner().invoke(main, ["check", "--decks", str(decks), *options])
    found = CliRunner().invoke(main, ["check", "--decks", str(decks), "--format", "json"])
    return text, json.loads(found.stdout)


def _line(path: Path, fragment: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if fragment in line)


def _varied(count: int, answer: str = "", prefix: str = "q") -> list[str]:
    """Questions whose options are alike in length, the answers on varied letters (or all on ``answer``)."""
    return [_question(f"{prefix}{i}", answer or "ABCD"[i % 4], SHORT) for i in range(count)]


def test_a_correct_option_clearly_the_longest_is_a_warning_per_question_and_for_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six questions whose correct option is twice as long: six warnings at that option's line, one for the file."""
    long = "The one option written with every detail a careful author adds"
    questions = [
        _question(f"q{i}", "ABCD"[i % 4], [long if j == i % 4 else word for j, word in enumerate(SHORT)])
        for i in range(6)
    ]
    decks = _bank(tmp_path, {"colours.yaml": questions})
    monkeypatch.chdir(tmp_path)
    text, found = _check(Path("decks"))
    longest = [p for p in found if p["check"] == "longest-correct"]
    assert [p["question"] for p in longest] == [f"q{i}" for i in range(6)]
    lines = [n for n, line in enumerate((decks / "colours.yaml").read_text().splitlines(), 1) if long in line]
    assert [p["line"] for p in longest] == lines[::2]  # the English option, the first language built
    assert all(p["severity"] == "warning" and p["file"] == "decks/colours.yaml" for p in found)
    assert "clearly the longest (en: 12.4 times, de: 12.4 times the next longest)" in str(longest[0]["message"])
    assert "allow: [longest-correct]" in str(longest[0]["hint"])
    (often,) = [p for p in found if p["check"] == "often-longest"]
    assert often["message"] == "the correct option is the longest in 6 of the 6 questions of this file"
    assert text.exit_code == 0 and text.stdout.endswith(": no errors, 7 warning(s) (above).\n")
    assert "7 item-writing warning(s): longest-correct 6, often-longest 1." in text.stderr
    strict = CliRunner().invoke(main, ["check", "--decks", "decks", "--strict"])
    assert strict.exit_code == 1 and "decks/colours.yaml:" in strict.stderr


def test_short_options_of_different_length_are_no_hint(tmp_path: Path) -> None:
    """'Mercury' against 'Mars' is longer, not clearly so: a few characters are no hint."""
    decks = _bank(tmp_path, {"planets.yaml": [_question("q", "A", ["Mercury", "Mars", "Venus"])]})
    assert _check(decks)[1] == []


def test_answers_on_one_letter_are_a_warning_for_the_file_and_for_the_bank(tmp_path: Path) -> None:
    """All six answers are A in each of two files: one warning per file, and one at bank.yaml."""
    decks = _bank(tmp_path, {"one.yaml": _varied(6, "A"), "two.yaml": _varied(6, "A", "r")})
    found = _check(decks)[1]
    assert [(Path(str(p["file"])).name, p["line"], p["check"], p["message"]) for p in found] == [
        ("bank.yaml", 1, "answer-letter", "the correct answer is A in 12 of the 12 questions of the bank"),
        ("one.yaml", 1, "answer-letter", "the correct answer is A in 6 of the 6 questions of this file"),
        ("two.yaml", 1, "answer-letter", "the correct answer is A in 6 of the 6 questions of this file"),
    ]


def test_the_bank_s_patterns_hold_for_files_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second load finds every file's result in the cache: the facts it kept by kind give the bank's warning
    again, without a file being read anew."""
    decks = _bank(tmp_path, {"one.yaml": _varied(6, "A"), "two.yaml": _varied(6, "A", "r")})
    options = BuildOptions(decks=decks)

    def across(loaded: LoadedBank) -> list[str]:
        return [p.message for p in loaded.problems.items if Path(p.file).name == "bank.yaml"]

    first = across(load_all(options))
    monkeypatch.setattr(deckfiles, "process", None)  # any file processed again would fail
    assert across(load_all(options)) == first == ["the correct answer is A in 12 of the 12 questions of the bank"]


def test_answers_spread_over_the_letters_pass(tmp_path: Path) -> None:
    decks = _bank(tmp_path, {"one.yaml": _varied(8), "two.yaml": _varied(4, "B", "r")})
    assert _check(decks)[1] == []


def test_allow_silences_a_check_for_one_question(tmp_path: Path) -> None:
    """Questions that allow a pattern are not counted in it; others still are."""
    allowed = [_question(f"a{i}", "A", SHORT, extra="    allow: [answer-letter]\n") for i in range(5)]
    decks = _bank(tmp_path, {"one.yaml": [*allowed, *_varied(4, "A")]})
    assert _check(decks)[1] == []
    long = [_question("q", "A", ["Every detail a careful author adds to the right one", "No", "Yes"])]
    decks = _bank(
        tmp_path / "long", {"one.yaml": [long[0].replace("    en:", "    allow: [longest-correct]\n    en:")]}
    )
    assert _check(decks)[1] == []


def test_options_identical_once_rendered_are_a_warning(tmp_path: Path) -> None:
    """'**Blue**' and 'blue ' read the same on the card, though the YAML differs."""
    decks = _bank(tmp_path, {"one.yaml": [_question("q", "A", ["Red", "**Blue**", "blue  "], ["Rot", "Blau", "Grün"])]})
    found = _check(decks)[1]
    path = decks / "one.yaml"
    assert [(p["line"], p["check"], p["message"]) for p in found] == [
        (_line(path, '"blue  "'), "identical-options", "in 'en', option C reads the same as option B on the card"),
    ]


@pytest.mark.parametrize(
    ("second", "third"),
    [("**Blue**", "__Blue__"), ("Light blue", "Light  blue"), ("Light blue", "Light\u00a0blue"), ("\\*x", "*x")],
)
def test_options_the_card_shows_exactly_alike_are_an_error(tmp_path: Path, second: str, third: str) -> None:
    """Written differently, rendered the same: check and build refuse them at the second one's line, allow or not."""
    question = _question("q", "A", ["Red", second, third], ["Rot", "Blau", "Grün"], "    allow: [identical-options]\n")
    decks = _bank(tmp_path, {"one.yaml": [question]})
    text, found = _check(decks)
    assert text.exit_code == 1, text.output
    line = _line(decks / "one.yaml", json.dumps(third, ensure_ascii=False))
    assert [(p["severity"], p["line"], p["message"]) for p in found] == [
        ("error", line, "in 'en', option C shows exactly as option B on the card")
    ]
    built = CliRunner().invoke(main, ["build", "--decks", str(decks), "--out", str(tmp_path / "dist")])
    assert built.exit_code == 1 and "option C shows exactly as option B" in built.output
    assert not (tmp_path / "dist").exists()


def test_options_that_differ_in_the_case_of_their_code_are_not_identical(tmp_path: Path) -> None:
    """`-d` and `-D` are two commands; 'Go' and 'go' in prose read the same."""
    code = ["`git branch -d x`", "`git branch -D x`", "`Go`", "`go`"]
    prose = ["The Go language", "the go language", "Rust"]
    decks = _bank(tmp_path, {"one.yaml": [_question("c", "A", code), _question("p", "C", prose)]})
    found = _check(decks)[1]
    assert [(p["question"], p["check"], p["message"]) for p in found] == [
        ("p", "identical-options", "in 'en', option B reads the same as option A on the card"),
        ("p", "identical-options", "in 'de', option B reads the same as option A on the card"),
    ]


def test_all_of_the_above_in_a_shuffled_question_must_be_pinned(tmp_path: Path) -> None:
    """Shuffled into the middle, 'All of the above' means nothing: a warning until it is pinned."""
    options = ["Red", "Green", "All of the above"]
    german = ["Rot", "Grün", "Alle genannten"]
    decks = _bank(tmp_path, {"one.yaml": [_question("q", "C", options, german)]})
    found = _check(decks)[1]
    assert [(p["check"], p["line"]) for p in found] == [
        ("all-of-the-above", _line(decks / "one.yaml", "All of the above"))
    ]
    assert "'pin: [C]'" in str(found[0]["hint"])
    pinned = _bank(tmp_path / "pinned", {"one.yaml": [_question("q", "C", options, german, "    pin: [C]\n")]})
    assert _check(pinned)[1] == []
    ordered = _bank(tmp_path / "ordered", {"one.yaml": [_question("q", "C", options, german)]}, shuffle=False)
    assert _check(ordered)[1] == []


def test_a_language_with_its_options_in_another_order_is_a_warning(tmp_path: Path) -> None:
    """Numbers read alike in every language: German listing 16 before 8 contradicts the shared answer letter."""
    decks = _bank(
        tmp_path, {"one.yaml": [_question("q", "A", ["8 bits", "16 bits", "32 bits"], ["16 Bit", "8 Bit", "32 Bit"])]}
    )
    found = _check(decks)[1]
    assert [(p["check"], p["line"], p["message"]) for p in found] == [
        (
            "option-order",
            _line(decks / "one.yaml", "16 Bit"),
            "the options of 'de' are in another order than those of 'en' (from option A)",
        )
    ]


def test_pin_and_allow_name_letters_and_checks_or_are_errors(tmp_path: Path) -> None:
    """A letter beyond the options, or a misspelt check, is an error with a suggestion."""
    extra = "    pin: [D]\n    allow: [longest-corect]\n"
    decks = _bank(tmp_path, {"one.yaml": [_question("q", "A", ["Red", "Green", "Blue"], extra=extra)]})
    result = CliRunner().invoke(main, ["check", "--decks", str(decks)])
    assert result.exit_code == 1
    assert "error [q]: 'D' is not allowed in 'pin'" in result.stderr
    assert "'longest-corect' is not allowed in 'allow'" in result.stderr
    assert "did you mean 'longest-correct'?" in result.stderr


def test_the_schema_offers_every_check_and_pin() -> None:
    question = json.loads(schema_text())["$defs"]["choice"]["properties"]
    assert tuple(question["allow"]["items"]["anyOf"][0]["enum"]) == CHECKS
    assert "pin" in question


def test_the_sample_bank_passes_its_own_checks_strictly() -> None:
    result = CliRunner().invoke(main, ["check", "--decks", str(ROOT / "decks"), "--strict"])
    assert result.exit_code == 0, result.output
    assert "item-writing" not in result.output
