"""A profile's `[verify]`: the user's verification commands, added to the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from supervisor.config.profiles import parse_profile
from supervisor.errors import TetherError

BASE = 'command = ["x"]\npreamble = "p"\n[markers]\n'


def test_verify_adds_to_the_default_commands(tmp_path: Path) -> None:
    profile = parse_profile(BASE + '[verify]\ntests = ["./ci/check.sh"]\n', tmp_path / "p.toml")
    assert profile.verify.kind_of("./ci/check.sh --quick") == "tests"
    assert profile.verify.kind_of("pytest") == "tests"


def test_replace_defaults_keeps_only_the_profiles_own(tmp_path: Path) -> None:
    text = BASE + '[verify]\nreplace_defaults = true\nlint = ["just lint"]\n'
    profile = parse_profile(text, tmp_path / "p.toml")
    assert profile.verify.kind_of("just lint") == "lint"
    assert profile.verify.kind_of("pytest") is None


def test_an_unknown_kind_names_the_file_line_and_key(tmp_path: Path) -> None:
    with pytest.raises(TetherError, match=r"p\.toml:5: profile key `verify\.smoke`"):
        parse_profile(BASE + '[verify]\nsmoke = ["x"]\n', tmp_path / "p.toml")


def test_the_hook_reads_only_the_verify_table_of_the_users_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from supervisor.config.verify_commands import rules_for_profile

    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path))
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "claude.toml").write_text(BASE + '[verify]\ntests = ["just t"]\n')
    assert rules_for_profile("claude").kind_of("just t") == "tests"
    assert rules_for_profile("codex").kind_of("pytest") == "tests"  # the bundled one
    (tmp_path / "profiles" / "claude.toml").write_text("not = [toml")
    assert rules_for_profile("claude").kind_of("pytest") == "tests"  # broken: the defaults
