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
