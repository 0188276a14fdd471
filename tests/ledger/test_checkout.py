"""The checkout fingerprint: it moves with every change git sees, and git runs hardened."""

from __future__ import annotations

import os
from pathlib import Path

from supervisor.store.checkout import UNKNOWN, current_checkout
from tests.ledger.conftest import git


def test_the_fingerprint_changes_with_each_edit_even_of_an_already_modified_file(
    repo: Path,
) -> None:
    clean = current_checkout(repo)
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    edited = current_checkout(repo)
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    os.utime(repo / "calc.py", ns=(1, 1))
    edited_again = current_checkout(repo)
    assert len({clean.tree, edited.tree, edited_again.tree}) == 3
    assert clean.head == edited.head and clean.head is not None
    assert current_checkout(repo) == edited_again  # stable while nothing changes


def test_a_commit_changes_head_and_tethers_own_files_do_not_count(repo: Path) -> None:
    before = current_checkout(repo)
    (repo / ".tether" / "notes.md").write_text("# notes\n## Done\n- all tests pass\n")
    assert current_checkout(repo) == before
    (repo / "new.py").write_text("x = 1\n")
    git(repo, "add", "new.py")
    git(repo, "commit", "-qm", "more")
    after = current_checkout(repo)
    assert after.head != before.head


def test_outside_git_the_checkout_is_unknown(tmp_path: Path) -> None:
    assert current_checkout(tmp_path) == UNKNOWN


def test_a_hostile_repository_config_runs_no_command(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with open(repo / ".git" / "config", "a") as config:
        config.write(f"[core]\n\tfsmonitor = touch {marker}\n\tpager = touch {marker}\n")
        config.write(f'[filter "evil"]\n\tclean = touch {marker}\n\trequired = true\n')
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    os.utime(repo / "calc.py", ns=(1, 1))  # racily clean: git would run the clean filter
    (repo / "calc.py").write_text("changed\n")
    assert current_checkout(repo).known
    assert not marker.exists()
