"""The exports as a build makes them: chosen by the bank or the command, warned about, reproducible."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from ankibuild import build
from ankibuild.cli import main
from ankibuild.errors import BankError, Problems
from ankibuild.load.schema import bank_schema
from ankibuild.preview.target import write_preview
from ankibuild.yamlfiles.checker import Checker

from ..conftest import DATA, Project, snapshot, use_scenario
from ..exporttools import BANK, PICTURE, SEVERAL_GAPS, exported

#: Every file the bank's exports make, in order of name.
EXPORTS = sorted(
    [f"{BANK}-{lang}.{suffix}" for lang in ("en", "he") for suffix in ("moodle.xml", "gift.txt", "qti.zip")]
    + [f"{BANK}-mul.moodle.xml"]
)

#: The same files, in the order a build makes them: by format, then language.
EXPORTS_AS_BUILT = [
    *(f"{BANK}-{lang}.moodle.xml" for lang in ("en", "he", "mul")),
    *(f"{BANK}-{lang}.{suffix}" for suffix in ("gift.txt", "qti.zip") for lang in ("en", "he")),
]


def _exports(project: Project) -> list[str]:
    return sorted(path.name for path in project.out.iterdir() if path.suffix != ".apkg" and path.name != "CHANGELOG.md")


def test_a_bank_that_asks_for_exports_gets_each_beside_its_packages(project: Project) -> None:
    exported(project)
    assert _exports(project) == EXPORTS


def test_what_a_format_cannot_hold_is_warned_about_at_the_question(project: Project) -> None:
    """Never dropped silently: each question left out of a file, or a part of it lost, is named there."""
    use_scenario(project, "exports")
    result = project.build()
    lost = {(w.question, w.message.split(":")[0]) for w in result.warnings if ".gift.txt" in w.message}
    assert lost == {
        (qid, f"{BANK}-{lang}.gift.txt") for qid in (SEVERAL_GAPS, PICTURE, "cache-line") for lang in ("en", "he")
    }
    cloze = next(w for w in result.warnings if w.question == "bits-per-byte" and "qti" in w.message)
    assert (cloze.file, cloze.line) == ("decks/storage.yaml", 77)


def test_strict_makes_a_loss_an_error_and_nothing_is_written(project: Project) -> None:
    use_scenario(project, "exports")
    before = snapshot(project.root)
    result = CliRunner().invoke(main, ["build", "--strict"])
    assert result.exit_code == 1
    assert "GIFT cannot hold the image it shows" in result.output
    assert snapshot(project.root) == before


def test_the_same_bank_gives_the_same_bytes(project: Project) -> None:
    first = {name: (exported(project) / name).read_bytes() for name in EXPORTS}
    again = build(decks=project.decks, out=project.root / "again")
    assert {name: (project.root / "again" / name).read_bytes() for name in EXPORTS} == first
    assert not any(o.written for o in project.build().exports)
    assert sorted(o.path.name for o in again.exports if o.written) == EXPORTS


def test_the_command_chooses_instead_of_the_bank(project: Project) -> None:
    use_scenario(project, "exports")
    result = CliRunner().invoke(main, ["build", "--export", "gift", "-q"])
    assert result.exit_code == 0, result.output
    assert _exports(project) == [f"{BANK}-en.gift.txt", f"{BANK}-he.gift.txt"]


def test_a_bank_without_exports_writes_none(project: Project) -> None:
    result = project.build()
    assert (_exports(project), result.exports) == ([], [])


def test_the_packages_are_the_build_s_outputs_and_the_exports_apart(project: Project) -> None:
    """Whoever reads a build's packages (a publication, its languages) finds packages alone there."""
    use_scenario(project, "exports")
    result = project.build()
    assert [output.path.suffix for output in result.outputs] == [".apkg", ".apkg"]
    assert sorted(output.path.name for output in result.exports) == EXPORTS


def test_an_export_deleted_since_the_last_build_is_made_again(project: Project) -> None:
    out = exported(project)
    (out / f"{BANK}-en.gift.txt").unlink()
    written = [o.path.name for o in project.build().exports if o.written]
    assert written == [f"{BANK}-en.gift.txt"]


def test_an_unknown_format_is_named_with_the_ones_there_are(project: Project) -> None:
    use_scenario(project, "exports")
    project.edit("bank.yaml", "exports: [moodle-xml, gift, qti]", "exports: [moodle, gift]")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    assert "bank.yaml:8:11:" in result.output
    assert "'moodle' is not allowed in 'exports'" in result.output
    assert "did you mean 'moodle-xml'?" in result.output


def test_an_unknown_format_given_to_the_build_is_named_with_the_ones_there_are(project: Project) -> None:
    """``build(exports=...)`` from Python, where no command line chose among the formats: a problem, not a crash."""
    use_scenario(project, "exports")
    before = snapshot(project.root)
    with pytest.raises(BankError) as raised:
        build(decks=project.decks, out=project.out, exports=["gift", "moodle"])
    (problem,) = raised.value.problems
    assert problem.message == "unknown export format 'moodle'"
    assert problem.hint == "did you mean 'moodle-xml'? The formats: moodle-xml, gift, qti"
    assert snapshot(project.root) == before


def test_the_preview_page_links_each_export_beside_the_packages(project: Project) -> None:
    out = exported(project)
    result = write_preview(decks=project.decks, out=out / "preview", packages=out)
    links = [link.path.name for link in result.packages]
    assert links == [f"{BANK}-en.apkg", f"{BANK}-he.apkg", *EXPORTS_AS_BUILT]
    page = (out / "preview" / "index.html").read_text(encoding="utf-8")
    assert f'<a href="../{BANK}-mul.moodle.xml" download>' in page


def test_check_says_an_export_would_change_and_writes_nothing(project: Project) -> None:
    out = exported(project)
    assert CliRunner().invoke(main, ["build", "--check"]).exit_code == 0
    (out / f"{BANK}-he.qti.zip").unlink()
    result = CliRunner().invoke(main, ["build", "--check"])
    assert result.exit_code == 1
    assert f"{BANK}-he.qti.zip (would write)" in result.output
    assert not (out / f"{BANK}-he.qti.zip").exists()


def test_the_bank_schema_knows_the_formats_as_check_does() -> None:
    """An editor flags an unknown format while typing, as ``check`` does."""
    validator = jsonschema.Draft202012Validator(bank_schema())
    bank = yaml.safe_load((DATA / "exports" / "bank.yaml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(bank)) == []
    assert not validator.is_valid({**bank, "exports": ["moodle"]})


#: A line of each kind of text in the bank with every kind: titles, a deck, a topic, the parts of each question kind.
TEXTS = [
    ("bank.yaml", "  en: Exports"),
    ("bank.yaml", "    en: Storage"),
    ("storage.yaml", "  en: Storage / memory"),
    ("storage.yaml", "      question: How many bytes"),
    ("storage.yaml", "      options: [DRAM"),
    ("storage.yaml", "      explanation: Intel and AMD"),
    ("storage.yaml", "        A: That was the line size"),
    ("storage.yaml", "      question: A flash cell"),
    ("storage.yaml", '      answer: "$2^{12} = 4096$ bytes"'),
    ("storage.yaml", "      question: A byte holds"),
    ("syntax.yaml", '      question: "Which shows as typed'),
]


def _with(line: str, char: str) -> str:
    """``line`` with ``char`` put into its text, written as a YAML escape (as only an escape can write it)."""
    key, value = line.split(": ", 1)
    text = yaml.safe_load(value)
    texts = text if isinstance(text, list) else [text]
    changed = [texts[0][:4] + char + texts[0][4:], *texts[1:]]
    return f"{key}: {json.dumps(changed if isinstance(text, list) else changed[0])}"


def _parse_every_export(out: Path) -> None:
    """Read every XML file of the exports with an XML parser: Moodle's files, and each file in a QTI package."""
    for path in sorted(out.glob("*.moodle.xml")):
        ET.parse(path)
    for path in sorted(out.glob("*.qti.zip")):
        with zipfile.ZipFile(path) as archive:
            for name in (n for n in archive.namelist() if n.endswith(".xml")):
                ET.fromstring(archive.read(name))


@pytest.mark.parametrize("char", ["\ufffe", "\uffff", "\x0b", "\x1f", "\x85"], ids=ascii)
@pytest.mark.parametrize(("file", "start"), TEXTS, ids=[start.strip()[:24] for _, start in TEXTS])
def test_a_character_xml_cannot_hold_is_refused_in_every_text(
    project: Project, file: str, start: str, char: str
) -> None:
    """XML 1.0 holds no control character but tab and line breaks, and neither U+FFFE nor U+FFFF: Moodle XML and
    QTI would be files no platform reads. Check refuses each at its line, and nothing is built."""
    use_scenario(project, "exports")
    path = project.decks / file
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(start))
    lines[at] = _with(lines[at], char)
    path.write_text("\n".join(lines), encoding="utf-8")
    built = CliRunner().invoke(main, ["build"])
    if built.exit_code == 0:
        _parse_every_export(project.out)
    assert built.exit_code == 1 and f"U+{ord(char):04X}" in built.output, built.output
    checked = json.loads(CliRunner().invoke(main, ["check", "--format", "json"]).stdout)
    assert [(p["file"], p["line"]) for p in checked if p["severity"] == "error"] == [(f"decks/{file}", at + 1)]


def test_half_a_surrogate_pair_is_refused_as_a_text() -> None:
    """YAML's reader refuses one written as an escape already; a text from anywhere else is held to the same."""
    problems = Problems()
    assert Checker(Path("decks/x.yaml"), problems).text_value("ab\ud800c", (3, 7), "'question'") is None
    (problem,) = problems.items
    assert problem.message == "'question' contains U+D800, half of a surrogate pair, which is no character on its own"


def test_the_exports_of_the_bank_with_every_kind_are_well_formed_xml(project: Project) -> None:
    """The bank's hostile text (markup, ]]>, entities, right-to-left marks) gives XML every parser reads."""
    _parse_every_export(exported(project))
