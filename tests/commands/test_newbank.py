"""`ankibuild init` and `ankibuild templates export`: a new bank builds at once, with nothing copied by hand."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from ankibuild import newbank
from ankibuild.cards.folders import DEFAULTS, default_files
from ankibuild.cli import main
from ankibuild.newbank import UNSET, Origin, init, starter_workflow

from ..ankitools import imported_cards
from ..conftest import ROOT, snapshot
from ..workflow import run_step, step_index, workflow


def _run(folder: Path, *args: str) -> Result:
    with pytest.MonkeyPatch.context() as env:
        env.chdir(folder)
        return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_new_bank_checks_builds_and_imports_with_no_templates_folder(tmp_path: Path) -> None:
    """init in a new folder: check --strict passes, build writes a package per language, Anki renders every card."""
    made = _run(tmp_path, "init", "Physik LK", "--lang", "de", "--lang", "en")
    assert made.exit_code == 0, made.output
    bank = tmp_path / "Physik LK"
    assert not (bank / "templates").exists()
    checked = _run(bank, "check", "--strict")
    assert checked.exit_code == 0, checked.output
    assert "default templates" in checked.output
    built = _run(bank, "build")
    assert built.exit_code == 0, built.output
    packages = sorted((bank / "dist").glob("*.apkg"))
    assert [p.name for p in packages] == ["physik-lk-de.apkg", "physik-lk-en.apkg"]
    logs, cards = imported_cards(tmp_path / "c.anki2", packages)
    assert [log.new for log in logs] == [1, 1] and len(cards) == 2
    fronts = "".join(front for front, _ in cards.values())
    assert "Wo nennt eine Fragensammlung" in fronts and "Where does a bank list" in fronts


def test_init_writes_a_shared_repository(tmp_path: Path) -> None:
    """Ignore rules, CI, the pre-commit hook, editor schemas and a README that states the import options."""
    made = init(tmp_path, languages=["fr", "en"], bank_id="chem-101", origin=Origin("https://git.example.org/x", "v9"))
    written = {p.relative_to(tmp_path).as_posix() for p in made.files}
    assert made.git == "made" and (tmp_path / ".git").is_dir()
    assert written == {
        "decks/bank.yaml",
        "decks/getting-started.yaml",
        "schema/bank.json",
        "schema/questions.json",
        ".gitignore",
        ".github/workflows/decks.yml",
        ".pre-commit-config.yaml",
        "README.md",
    }
    bank = yaml.safe_load((tmp_path / "decks" / "bank.yaml").read_text(encoding="utf-8"))
    assert (bank["id"], bank["languages"]) == ("chem-101", ["fr", "en"])
    assert (
        (tmp_path / "decks" / "bank.yaml")
        .read_text(encoding="utf-8")
        .startswith("# yaml-language-server: $schema=../schema/bank.json\n")
    )
    ignored = set((tmp_path / ".gitignore").read_text(encoding="utf-8").split())
    assert {"dist/", ".ankibuild.build-lock", ".*.tmp"} <= ignored
    hook = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert hook["repos"][0] | {"hooks": None} == {"repo": "https://git.example.org/x", "rev": "v9", "hooks": None}
    assert hook["repos"][0]["hooks"][0]["id"] == "ankibuild-check"
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "decks.yml").read_text(encoding="utf-8"))
    assert workflow["env"] == {"ANKIBUILD_GIT": "https://git.example.org/x", "ANKIBUILD_REF": "v9"}
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    for option in ("Update notes", "Update note types", "Merge note types", "Import any learning progress"):
        assert option in readme
    # A contributor is told what to install, and to install the hook.
    assert 'pipx install "git+https://git.example.org/x@v9"' in readme and "`pre-commit install`" in readme
    assert "`chem-101-fr.apkg`, `chem-101-en.apkg`" in readme


def test_the_example_workflow_is_the_one_init_writes() -> None:
    """examples/ shows what init writes with no origin known: it publishes the newest commit of the default branch,
    whatever its name, and reviews pull requests with nothing but read access; no step lets a warning stop it."""
    example = (ROOT / "examples" / "github-actions-build.yml").read_text(encoding="utf-8")
    assert example == starter_workflow(UNSET)
    workflow = yaml.safe_load(example)
    assert workflow["permissions"] == {"contents": "read"} and "--strict" not in example
    assert set(workflow[True]) == {"push", "pull_request", "workflow_dispatch"}  # YAML reads the key "on" as True
    assert workflow[True]["push"] is None  # every branch: the job itself asks which one is the default
    publish, review = workflow["jobs"]["publish"], workflow["jobs"]["review"]
    assert "github.ref_name == github.event.repository.default_branch" in publish["if"]
    assert publish["permissions"] == {"contents": "write"} and "permissions" not in review
    assert review["if"] == "github.event_name == 'pull_request'"
    runs = [step.get("run", "") for step in publish["steps"]]
    assert 'pip install "ankibuild @ git+${ANKIBUILD_GIT}@${ANKIBUILD_REF}"' in runs
    assert "ankibuild publish --last last --out publication" in runs
    assert "ankibuild publish --review --last last --out review" in [step.get("run") for step in review["steps"]]
    # A run re-run later checks out the branch as it is then: an older commit is never published over a newer one.
    checkouts = [[s for s in job["steps"] if s.get("uses") == "actions/checkout@v4"] for job in (publish, review)]
    assert checkouts == [
        [{"uses": "actions/checkout@v4", "with": {"ref": "${{ github.event.repository.default_branch }}"}}],
        [{"uses": "actions/checkout@v4"}],
    ]
    assert [step.get("name") for step in (publish["steps"][0], review["steps"][0])] == [
        "Where ankibuild comes from"
    ] * 2


def test_init_from_a_wheel_writes_a_workflow_that_stops_at_once_saying_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No origin known (a wheel): none is made up; CI's first step fails with one line naming the fields."""
    wheel = {"url": "file:///wheels/ankibuild-0.1.0-py3-none-any.whl", "archive_info": {}}
    monkeypatch.setattr("importlib.metadata.distribution", lambda name: _Installed(wheel))
    made = _run(tmp_path, "init", "bank", "--lang", "en")
    assert made.exit_code == 0, made.output
    assert "Set ANKIBUILD_GIT and ANKIBUILD_REF under env: in .github/workflows/decks.yml" in made.output
    bank = tmp_path / "bank"
    first = run_step(bank, "publish", 0)
    assert first.returncode == 1
    (line,) = first.stdout.splitlines()
    assert line.startswith("::error::Set ANKIBUILD_GIT and ANKIBUILD_REF under env: in .github/workflows/decks.yml")
    hook = yaml.safe_load((bank / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert hook["repos"][0]["repo"] == "local" and hook["repos"][0]["hooks"][0]["entry"] == "ankibuild check"
    assert "git.example.org" not in "".join(
        p.read_text(encoding="utf-8") for p in bank.rglob("*") if p.is_file() and ".git" not in p.parts
    )


def test_init_from_an_origin_writes_a_workflow_that_installs_from_it(tmp_path: Path) -> None:
    """--from URL@REF: the first step passes, the install step installs exactly that, the hook pins the same."""
    made = _run(tmp_path, "init", "bank", "--from", "https://github.com/teacher/ankibuild.git@v0.2.0")
    assert made.exit_code == 0 and "ANKIBUILD_GIT" not in made.output, made.output
    bank = tmp_path / "bank"
    assert run_step(bank, "publish", 0).returncode == 0
    steps = workflow(bank)["jobs"]["publish"]["steps"]
    (install,) = [i for i, step in enumerate(steps) if step.get("run", "").startswith("pip ")]
    shown = run_step(bank, "publish", install, before='pip() { printf "%s|" "$@"; }; ')
    assert shown.stdout == "install|ankibuild @ git+https://github.com/teacher/ankibuild.git@v0.2.0|"
    hook = yaml.safe_load((bank / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert hook["repos"][0] | {"hooks": None} == {
        "repo": "https://github.com/teacher/ankibuild.git",
        "rev": "v0.2.0",
        "hooks": None,
    }


@pytest.mark.parametrize(
    "given",
    [
        "/home/me/ankibuild@v1",
        "file:///home/me/ankibuild@v1",
        "https://x.org/a.git",
        "git@github.com:OWNER/ankibuild.git@v0.1.0",
        "ssh://git@github.com/OWNER/ankibuild.git@v0.1.0",
        "git://github.com/OWNER/ankibuild.git@v0.1.0",
        "http://github.com/OWNER/ankibuild.git@v0.1.0",
        "https://me:secret@github.com/OWNER/ankibuild.git@v0.1.0",
        'https://github.com/O/a.git@v1"x',
        "https://github.com/O/a.git@v1 x",
        "https://github.com/O/a.git@v1\n",
        'https://github.com/O/a"b.git@v1',
        "https://github.com/O/a.git@",
    ],
)
def test_init_refuses_an_origin_ci_cannot_install_from(tmp_path: Path, given: str) -> None:
    """A path on this computer, ssh, a URL with a user in it, a character YAML or the shell would read, or no ref:
    a usage error naming the option and saying what to give, and nothing written."""
    refused = _run(tmp_path, "init", "bank", "--from", given)
    assert refused.exit_code == 2 and "--from" in refused.output and "not a git URL others can reach" in refused.output
    assert "https://github.com/OWNER/ankibuild.git@v0.1.0" in refused.output and "Traceback" not in refused.output
    assert not (tmp_path / "bank").exists()


@pytest.mark.parametrize("url", ["git@github.com:OWNER/ankibuild.git", "https://me:secret@github.com/O/a.git"])
def test_an_installed_origin_ci_cannot_install_from_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    """Installed over ssh, or with a password in the URL: init names it and writes no origin, so CI says what to set."""
    monkeypatch.setattr(newbank, "installed_origin", lambda: Origin(url, "ab12"))
    made = _run(tmp_path, "init", "bank")
    assert made.exit_code == 0 and f"ankibuild was installed from {url}" in made.output
    written = (tmp_path / "bank" / ".github" / "workflows" / "decks.yml").read_text(encoding="utf-8")
    assert url not in written + (tmp_path / "bank" / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert run_step(tmp_path / "bank", "publish", 0).returncode == 1


def test_init_says_what_to_run_when_it_cannot_run_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without git on the PATH, the files are written and the next step says to install git and run git init."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    made = _run(tmp_path, "init", "bank")
    assert made.exit_code == 0 and "git is not installed: install it. Next: cd bank && git init && " in made.output
    assert (tmp_path / "bank" / "decks" / "bank.yaml").is_file() and not (tmp_path / "bank" / ".git").exists()


def test_a_language_without_labels_gets_them_to_translate(tmp_path: Path) -> None:
    """Swedish has no card labels in ankibuild: init writes the English ones in the bank's templates to translate."""
    init(tmp_path, languages=["sv", "de"])
    labels = tmp_path / "templates" / "sv" / "labels.yaml"
    assert "translate" in labels.read_text(encoding="utf-8").splitlines()[0]
    assert not (tmp_path / "templates" / "de").exists()
    checked = _run(tmp_path, "check", "--strict")
    assert checked.exit_code == 0, checked.output
    questions = (tmp_path / "decks" / "getting-started.yaml").read_text(encoding="utf-8")
    assert "    sv:  # translate it\n" in questions


def test_init_never_overwrites_and_writes_nothing_when_refused(tmp_path: Path) -> None:
    """A folder that holds any file init would write is left exactly as it was, with every such file named."""
    init(tmp_path, languages=["en"])
    (tmp_path / "README.md").write_text("our own readme\n", encoding="utf-8")
    (tmp_path / "decks" / "bank.yaml").unlink()
    before = snapshot(tmp_path)
    refused = _run(tmp_path, "init", "--lang", "de")
    assert refused.exit_code == 1
    assert "init never overwrites" in refused.output and "README.md" in refused.output
    assert "decks/bank.yaml" not in refused.output.split("exist already")[0]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lang", "german"], "'german' is not a language code"),
        (["--id", "Our Bank"], "'Our Bank' is not a slug"),
        (["--id", "our__bank"], "'our__bank' has two underscores in a row"),
    ],
)
def test_a_bad_language_or_id_is_reported_and_nothing_is_written(tmp_path: Path, args: list[str], message: str) -> None:
    refused = _run(tmp_path, "init", "new", *args)
    assert refused.exit_code == 1 and message in refused.output
    assert not (tmp_path / "new").exists()


def test_the_origin_is_the_git_commit_pip_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed with pip from git, init names that repository and the exact commit; otherwise it says to set them."""
    recorded = {"url": "git+https://git.example.org/ankibuild.git", "vcs_info": {"vcs": "git", "commit_id": "ab12"}}
    monkeypatch.setattr("importlib.metadata.distribution", lambda name: _Installed(recorded))
    assert newbank.installed_origin() == Origin("https://git.example.org/ankibuild.git", "ab12")
    wheel = {"url": "file:///wheels/ankibuild-0.1.0-py3-none-any.whl", "archive_info": {}}
    monkeypatch.setattr("importlib.metadata.distribution", lambda name: _Installed(wheel))
    assert not newbank.installed_origin().is_set


class _Installed:
    """What pip recorded of an install, as importlib.metadata gives it."""

    def __init__(self, recorded: Mapping[str, object]) -> None:
        self.recorded = recorded

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.recorded) if name == "direct_url.json" else None


def test_an_origin_github_cannot_reach_is_named_and_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed with pip from git+file://: init says GitHub cannot reach that path and writes no origin at all."""
    local = Origin("file:///home/me/ankibuild", "ab12")
    monkeypatch.setattr(newbank, "installed_origin", lambda: local)
    made = _run(tmp_path, "init", "bank")
    assert "ankibuild was installed from file:///home/me/ankibuild, which GitHub cannot reach." in made.output
    written = (tmp_path / "bank" / ".github" / "workflows" / "decks.yml").read_text(encoding="utf-8")
    assert "/home/me" not in written + (tmp_path / "bank" / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert run_step(tmp_path / "bank", "publish", 0).returncode == 1


def test_exported_templates_make_the_same_packages_as_the_defaults(tmp_path: Path) -> None:
    """A bank's full copy of the defaults builds byte-identical packages; export keeps a bank's own files."""
    init(tmp_path / "bank", languages=["de", "en"])
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SOURCE_DATE_EPOCH", "1700000000")
        assert _run(tmp_path / "bank", "build").exit_code == 0
        defaults = {p.name: p.read_bytes() for p in (tmp_path / "bank" / "dist").glob("*.apkg")}
        shutil.rmtree(tmp_path / "bank" / "dist")
        (tmp_path / "bank" / "decks" / "ankibuild.lock").unlink()
        exported = _run(tmp_path / "bank", "templates", "export")
        assert exported.exit_code == 0, exported.output
        own = tmp_path / "bank" / "templates"
        assert sorted(p.relative_to(own) for p in own.rglob("*") if p.is_file()) == list(default_files())
        built = _run(tmp_path / "bank", "build")
    assert "own templates in templates/ over the defaults" in built.output
    assert {p.name: p.read_bytes() for p in (tmp_path / "bank" / "dist").glob("*.apkg")} == defaults
    (own / "style.css").write_text("/* ours */\n", encoding="utf-8")
    assert _run(tmp_path / "bank", "templates", "export").output.startswith("Wrote 0 file(s)")
    assert (own / "style.css").read_text(encoding="utf-8") == "/* ours */\n"
    _run(tmp_path / "bank", "templates", "export", "--force")
    assert (own / "style.css").read_bytes() == (DEFAULTS / "style.css").read_bytes()


def test_a_folder_that_cannot_be_written_is_one_clear_error_and_leaves_nothing(tmp_path: Path) -> None:
    """A file where init needs a folder: exit 1 with the path and the reason, and what it wrote before is gone."""
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / ".github").write_text("a file, not a folder\n", encoding="utf-8")
    before = snapshot(tmp_path)
    refused = _run(tmp_path, "init", "new")
    assert refused.exit_code == 1
    assert "new/.github" in refused.output and "cannot write here: Not a directory" in refused.output
    assert "Traceback" not in refused.output
    assert snapshot(tmp_path) == before and sorted(p.name for p in (tmp_path / "new").iterdir()) == [".github"]
    exported = _run(tmp_path, "templates", "export", "new/.github/templates")
    assert exported.exit_code == 1 and "cannot write here: Not a directory" in exported.output


#: Fake ``gh`` commands: each prints what GitHub's would, and exits as it would.
GH_ANSWERS = {
    "server-error": (
        "echo 'HTTP 502: Bad Gateway (https://api.github.com/repos/o/b/releases/tags/latest-decks)' >&2",
        1,
    ),
    "rate-limit": ("echo 'HTTP 403: API rate limit exceeded for installation ID 1.' >&2", 1),
    "no-release": ("echo 'release not found' >&2", 1),
    "downloaded": ("touch last/physics-en.apkg last/CHANGELOG.md", 0),
}


@pytest.mark.parametrize(("job", "answer"), [(j, a) for j in ("publish", "review") for a in GH_ANSWERS])
def test_the_last_publication_is_taken_as_none_only_when_there_is_no_release(
    tmp_path: Path, job: str, answer: str
) -> None:
    """The fetch step with ``gh`` on PATH answering as GitHub can: a server error or a rate limit fails the step (else
    every question would be published as new); only a release that does not exist yet means nothing was published."""
    made = _run(tmp_path, "init", "bank", "--from", "https://github.com/teacher/ankibuild.git@v0.2.0")
    assert made.exit_code == 0, made.output
    bank, fake = tmp_path / "bank", tmp_path / "bin"
    fake.mkdir()
    said, code = GH_ANSWERS[answer]
    (fake / "gh").write_text(f"#!/bin/sh\n{said}\nexit {code}\n", encoding="utf-8")
    (fake / "gh").chmod(0o755)
    ran = run_step(bank, job, step_index(bank, job, "Fetch the last publication"), before=f'PATH="{fake}:$PATH"\n')
    assert ran.returncode == (1 if answer in ("server-error", "rate-limit") else 0), ran
    if ran.returncode:
        assert "::error::Could not fetch the release Latest decks" in ran.stdout
    assert sorted(p.name for p in (bank / "last").iterdir()) == (
        ["CHANGELOG.md", "physics-en.apkg"] if answer == "downloaded" else []
    )
