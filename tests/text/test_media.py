"""Images in question texts: checked, packaged under content-hashed names, shown and updated in Anki."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from ankibuild import BankError
from ankibuild.cli import main
from ankibuild.errors import Problem, Severity
from ankibuild.text.media import MAX_IMAGE_BYTES

from ..ankitools import collection, import_package, package_notes, render
from ..conftest import Project, use_scenario

LANGS = ("de", "fr", "en")


def packaged_media(package: Path) -> dict[str, bytes]:
    """The images of an .apkg, by the name Anki stores them under (not the '_' card script)."""
    with zipfile.ZipFile(package) as archive:
        names: dict[str, str] = json.loads(archive.read("media"))
        return {name: archive.read(index) for index, name in names.items() if not name.startswith("_")}


def roofline_name(project: Project, lang: str = "en") -> str:
    (name,) = packaged_media(project.out / f"ai-stack-{lang}.apkg")
    return name


def line_of(path: Path, text: str) -> int:
    """The line of a bank file that holds ``text``: where a problem about it must point."""
    lines = path.read_text(encoding="utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, start=1) if text in line]
    return number


def test_sample_packages_show_formula_code_and_image_and_anki_finds_no_media_problem(
    project: Project, tmp_path: Path
) -> None:
    """Every language's package carries the diagram; Anki's media check finds nothing missing or unused."""
    project.build()
    svg = (project.decks / "media" / "roofline.svg").read_bytes()
    with collection(tmp_path / "c.anki2") as col:
        for lang in LANGS:
            media = packaged_media(project.out / f"ai-stack-{lang}.apkg")
            assert list(media.values()) == [svg]
            (name,) = media
            assert name.startswith("roofline-") and name.endswith(".svg")
            import_package(col, project.out / f"ai-stack-{lang}.apkg")
        check = col.media.check()
        assert (list(check.missing), list(check.unused), list(check.missing_media_notes)) == ([], [], [])
        assert (Path(col.media.dir()) / roofline_name(project)).read_bytes() == svg
        for lang in LANGS:
            decode = col.find_cards(f'"ID:w4a16-decode" "note:ai-stack ({lang})"')
            _, back = render(col, decode[0])
            assert f'<img src="{roofline_name(project, lang)}" alt="' in back
            assert r"\( I = \frac{\text{FLOPs}}{\text{" in back and r"\( I \approx 4 \)" in back
            conv = col.find_cards(f'"ID:conv-im2col-gemm" "note:ai-stack ({lang})"')
            _, back = render(col, conv[0])
            assert (
                '<pre class="ab-code" data-lang="python"><code><span class="ab-hl-keyword">import</span> torch' in back
            )
            assert '<span class="ab-hl-comment"># N, C, H, W</span>' in back


def test_a_changed_image_arrives_under_a_new_name_and_updates_the_note(project: Project, tmp_path: Path) -> None:
    """The hash in the name changes the field, so the note is newer and Anki's default import updates it."""
    project.build()
    old = roofline_name(project)
    with collection(tmp_path / "c.anki2") as col:
        import_package(col, project.out / "ai-stack-en.apkg")
        svg = project.decks / "media" / "roofline.svg"
        svg.write_text(svg.read_text(encoding="utf-8").replace("#1f5fbf", "#0b7a75"), encoding="utf-8")
        result = project.build()
        new = roofline_name(project)
        assert new != old and new.startswith("roofline-")
        assert packaged_media(project.out / "ai-stack-en.apkg") == {new: svg.read_bytes()}
        changes = {(c.lang, c.question) for c in result.changes.items}
        assert changes == {(lang, "w4a16-decode") for lang in LANGS}

        log = import_package(col, project.out / "ai-stack-en.apkg")
        assert (log.new, log.updated, log.conflicting) == (0, 1, 0)
        (nid,) = col.find_notes('"ID:w4a16-decode"')
        assert f'<img src="{new}"' in col.get_note(nid)["Explanation"]
        assert (Path(col.media.dir()) / new).read_bytes() == svg.read_bytes()
        assert list(col.media.check().missing) == []


def test_same_file_name_in_two_folders_never_collides(project: Project, tmp_path: Path) -> None:
    """Two different diagram.svg get two names; each split package carries only its own image."""
    use_scenario(project, "images-in-two-folders")
    project.build(split=True)
    first = packaged_media(project.out / "two-folders-first-en.apkg")
    second = packaged_media(project.out / "two-folders-more-second-en.apkg")
    assert first.keys() != second.keys()
    assert list(first.values()) == [(project.decks / "media" / "diagram.svg").read_bytes()]
    assert list(second.values()) == [(project.decks / "more" / "media" / "diagram.svg").read_bytes()]
    with collection(tmp_path / "c.anki2") as col:
        for package in sorted(project.out.glob("*-en.apkg")):
            import_package(col, package)
        for qid, media in (("first", first), ("second", second)):
            (nid,) = col.find_notes(f'"ID:{qid}"')
            assert f'<img src="{next(iter(media))}"' in col.get_note(nid)["Explanation"]
        check = col.media.check()
        assert (list(check.missing), list(check.unused)) == ([], [])


def test_an_unused_media_file_is_a_warning(project: Project) -> None:
    """A file in a media folder that no question shows is reported; --strict makes it fail."""
    (project.decks / "media").mkdir(exist_ok=True)
    (project.decks / "media" / "old-diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result = project.build()
    assert [warning.describe() for warning in result.warnings] == [
        "decks/media/old-diagram.png: warning: media file is not used by any question "
        "(show it with ![text](media/name.png) or delete it)"
    ]
    assert not project.build(languages=["en"]).warnings  # the other languages might use it
    with pytest.raises(BankError) as raised:
        project.build(strict=True)
    assert [p.message for p in raised.value.problems] == ["media file is not used by any question"]


def _image_errors(project: Project) -> list[Problem]:
    use_scenario(project, "image-errors")
    media = project.decks / "media"
    (media / "link.svg").symlink_to(project.root / "secret.svg")
    (project.root / "secret.svg").write_text("<svg/>", encoding="utf-8")
    (media / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(MAX_IMAGE_BYTES))
    with pytest.raises(BankError) as raised:
        project.build()
    return raised.value.problems


def test_every_bad_image_is_an_error_at_the_line_of_its_text(project: Project) -> None:
    """Missing, outside the bank (.., absolute, symlink), on the web, wrong type, not an image, too big."""
    problems = _image_errors(project)
    source = project.decks / "questions.yaml"
    found = {(p.question, p.line, p.message) for p in problems if p.severity is Severity.ERROR}
    assert found == {
        ("missing", line_of(source, "media/nowhere.png"), "image 'media/nowhere.png' not found"),
        ("climbs-out", line_of(source, "../outside.svg"), "image '../outside.svg' is outside the bank folder"),
        ("absolute", line_of(source, "/etc/hosts.svg"), "image '/etc/hosts.svg' is outside the bank folder"),
        ("on-the-web", line_of(source, "example.org"), "image 'https://example.org/x.png' is not a file of the bank"),
        ("bitmap", line_of(source, "picture.bmp"), "image 'media/picture.bmp' is of an unsupported type"),
        ("not-a-png", line_of(source, "pointer.png"), "image 'media/pointer.png' is not a PNG file"),
        ("symlink-out", line_of(source, "link.svg"), "image 'media/link.svg' is outside the bank folder"),
        ("too-big", line_of(source, "huge.png"), "image 'media/huge.png' is larger than 5 MiB"),
    }
    assert {p.file for p in problems} == {"decks/questions.yaml"}
    assert not project.out.exists()  # nothing written


def test_check_reports_image_errors_with_file_and_line(project: Project) -> None:
    """`ankibuild check` renders the texts too, so an editor sees a missing image before a build."""
    use_scenario(project, "image-errors")
    result = CliRunner().invoke(main, ["check", "--format", "json"])
    assert result.exit_code == 1
    problems = json.loads(result.output)
    missing = [p for p in problems if p["question"] == "missing"]
    assert missing == [
        {
            "file": "decks/questions.yaml",
            "line": line_of(project.decks / "questions.yaml", "media/nowhere.png"),
            "column": 7,
            "severity": "error",
            "question": "missing",
            "message": "image 'media/nowhere.png' not found",
            "hint": "no file decks/media/nowhere.png; paths are relative to the YAML file",
            "check": "",
            "detail": "",
        }
    ]


def test_a_hidden_image_is_refused(project: Project) -> None:
    """Hidden files are not part of a bank (nor of what tells whether it changed): say so."""
    shutil.copy(project.decks / "media" / "roofline.svg", project.decks / "media" / ".roofline.svg")
    path = project.decks / "ai-hardware.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("media/roofline.svg", "media/.roofline.svg", 1), "utf-8")
    with pytest.raises(BankError) as caught:
        project.build()
    lines = path.read_text(encoding="utf-8").splitlines()[: line_of(path, "media/.roofline.svg")]
    text = max(n for n, line in enumerate(lines, start=1) if line.strip().startswith("explanation:"))
    hidden = [(p.file, p.line) for p in caught.value.problems if "is a hidden file" in p.message]
    assert hidden == [("decks/ai-hardware.yaml", text)]  # at the text that shows it, in the one language


def test_an_image_link_with_a_query_is_read_by_its_path(project: Project) -> None:
    """`media/roofline.svg?raw=true`, as links into git repositories are written, shows the file itself."""
    project.edit("ai-hardware.yaml", "](media/roofline.svg)", "](media/roofline.svg?raw=true)")  # the German text
    project.build(languages=["de"])
    notes = package_notes(project.out / "ai-stack-de.apkg")
    assert any('<img src="roofline-' in fields for fields in notes.values())
