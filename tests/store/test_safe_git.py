"""git in a stranger's clone runs no program: not at the trust check, not at a checkpoint.

The attack: a repository ships a subfolder laid out as a git directory (HEAD,
config, objects/, refs/) whose config sets ``core.worktree = .`` and
``core.fsmonitor`` to a command. Any `git status` or `git ls-files` run in that
subfolder finds it as the repository and runs the command. A checkpoint's git
state and the trust check both run git there when tether starts in it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from supervisor.store import checkpoints, safe_git, trust
from supervisor.store.tether_dir import TetherDir
from tests.locations import REPO
from tests.tether_process import TETHER

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _payload(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A script that leaves a marker file when anything runs it, and the marker's path."""
    marker = tmp_path / f"{name}-ran"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat >/dev/null\n")
    script.chmod(0o755)
    return script, marker


@pytest.fixture
def clone_with_a_planted_repository(tmp_path) -> tuple[Path, list[Path]]:
    """A real `git clone` of a project whose `vendor/` is a git directory with payloads."""
    source = tmp_path / "source"
    planted = source / "vendor"
    (planted / "objects").mkdir(parents=True)
    (planted / "refs").mkdir()
    (planted / "objects" / "keep").write_text("")
    (planted / "refs" / "keep").write_text("")
    (planted / "HEAD").write_text("ref: refs/heads/main\n")
    fsmonitor, fsmonitor_ran = _payload(tmp_path, "fsmonitor")
    hook, hook_ran = _payload(tmp_path, "hook")
    (planted / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"
        f"\tfsmonitor = {fsmonitor}\n\thooksPath = {tmp_path}\n"
        f"\tpager = {hook}\n[credential]\n\thelper = !{hook}\n"
    )
    tether = TetherDir.at(planted)
    tether.root.mkdir()
    tether.notes.write_text("# Notes\n\n## Decisions\n\n- trust me\n")
    subprocess.run([*GIT, "-C", str(source), "init", "-q"], check=True)
    subprocess.run([*GIT, "-C", str(source), "add", "-A", "-f"], check=True)
    subprocess.run([*GIT, "-C", str(source), "commit", "-qm", "a project"], check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
    return clone, [fsmonitor_ran, hook_ran]


def test_the_trust_check_runs_nothing_of_a_planted_repository(clone_with_a_planted_repository):
    clone, markers = clone_with_a_planted_repository
    said = trust.warning(TetherDir.at(clone / "vendor"))
    assert said is not None and "bare repository" in said  # git refuses it: tether asks
    assert trust.TrackedFiles(TetherDir.at(clone)).names() == []  # the clone itself still reads
    assert [m.name for m in markers if m.exists()] == []


def test_a_checkpoint_runs_nothing_of_a_planted_repository(clone_with_a_planted_repository):
    clone, markers = clone_with_a_planted_repository
    assert checkpoints.git_state(clone / "vendor") is None  # refused, not used
    assert checkpoints.git_state(clone)["head"] is not None  # the clone itself still reads
    assert [m.name for m in markers if m.exists()] == []


def test_tether_checkpoint_in_the_planted_folder_runs_nothing(clone_with_a_planted_repository):
    clone, markers = clone_with_a_planted_repository
    done = subprocess.run(
        [*TETHER, "checkpoint", "--dir", str(clone / "vendor"), "-m", "start"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [m.name for m in markers if m.exists()] == []


def test_filters_named_by_the_repositorys_config_are_not_run(tmp_path):
    """A `.git` this tether did not make (a tarball's, a gitfile pointing elsewhere) may
    name clean, smudge and process filters; `git status` would run them on a changed file."""
    work = tmp_path / "work"
    work.mkdir()
    clean, clean_ran = _payload(tmp_path, "clean")
    process, process_ran = _payload(tmp_path, "process")
    textconv, textconv_ran = _payload(tmp_path, "textconv")
    subprocess.run([*GIT, "-C", str(work), "init", "-q"], check=True)
    (work / ".gitattributes").write_text("* filter=evil diff=evil\n*.bin filter=my.dotted\n")
    (work / "file").write_text("one\n")
    (work / "data.bin").write_text("one\n")
    subprocess.run([*GIT, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(work), "commit", "-qm", "x"], check=True)
    for key, value in [
        ("filter.evil.clean", str(clean)),
        ("filter.evil.required", "true"),
        ("filter.my.dotted.process", str(process)),
        ("diff.evil.textconv", str(textconv)),
    ]:
        subprocess.run(["git", "-C", str(work), "config", key, value], check=True)
    (work / "file").write_text("two, with a new size\n")
    (work / "data.bin").write_text("two, with a new size\n")
    state = checkpoints.git_state(work)
    assert state is not None and state["dirty"] is True
    assert [m.name for m in (clean_ran, process_ran, textconv_ran) if m.exists()] == []
    assert sorted(safe_git.named_drivers(work, trusted=False, timeout=5)) == [
        "diff.evil",
        "filter.evil",
        "filter.my.dotted",
    ]


def test_git_runs_in_the_folder_itself_with_no_inherited_repository(tmp_path, monkeypatch):
    """A `GIT_DIR` in tether's environment (a hook of git's that ran it) names another
    repository: git is not pointed at it."""
    other, work = tmp_path / "other", tmp_path / "work"
    for path in (other, work):
        path.mkdir()
        subprocess.run([*GIT, "-C", str(path), "init", "-q"], check=True)
        subprocess.run([*GIT, "-C", str(path), "commit", "-q", "--allow-empty", "-m", "x"])
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(_payload(tmp_path, "env")[0]))
    head = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout.strip()
    assert checkpoints.git_state(work)["head"] == head
    assert not (tmp_path / "env-ran").exists()


def test_the_ledgers_checkout_runs_nothing_of_a_repository_from_an_archive(tmp_path):
    """A zip of a project with its `.git/` inside: its config is the sender's, and the
    ledger asks git for the checkout after every action of the agent."""
    from supervisor.store.checkout import current_checkout

    work = tmp_path / "unzipped"
    work.mkdir()
    subprocess.run([*GIT, "-C", str(work), "init", "-q"], check=True)
    (work / ".gitattributes").write_text("* filter=evil\n")
    (work / "file").write_text("one\n")
    subprocess.run([*GIT, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(work), "commit", "-qm", "x"], check=True)
    fsmonitor, fsmonitor_ran = _payload(tmp_path, "fsmonitor")
    clean, clean_ran = _payload(tmp_path, "clean")
    for key, value in [("core.fsmonitor", str(fsmonitor)), ("filter.evil.clean", str(clean))]:
        subprocess.run(["git", "-C", str(work), "config", key, value], check=True)
    (work / "file").write_text("two, with a new size\n")
    assert current_checkout(work).known
    assert [m.name for m in (fsmonitor_ran, clean_ran) if m.exists()] == []
