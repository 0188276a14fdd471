"""`tether run` refuses clearly, before the screen changes, when it cannot start."""

from __future__ import annotations

import pytest

from tests.tether_process import run_tether


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["run", "--", "no-such-agent-xyz"], 127, "command not found: 'no-such-agent-xyz'"),
        (["run", "nosuchprofile"], 2, "no profile named 'nosuchprofile'"),
        (["run"], 2, "nothing to run"),
        (["run", "--dir", "/nonexistent-folder", "--", "bash"], 2, "no such folder"),
        (["nonsense"], 2, "unknown command 'nonsense'"),
    ],
)
def test_run_refuses_with_a_message_and_no_traceback(tmp_path, args, code, message):
    result = run_tether(*args, cwd=tmp_path)
    assert result.returncode == code
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_split_command_tells_profile_extras_from_a_plain_command():
    from supervisor.cli.run import split_command

    assert split_command(["--", "bash", "--norc"]) == (None, ["bash", "--norc"])
    assert split_command(["codex", "--", "--model", "o5"]) == ("codex", ["--model", "o5"])
    assert split_command(["claude"]) == ("claude", [])
