"""What a tool hook reports, read as an action; what only looked is not an action."""

from __future__ import annotations

import pytest

from supervisor.config.verify_commands import DEFAULT_RULES, VerifyRules
from supervisor.recognize.tool_actions import action_from_hook
from supervisor.recognize.verification import claimed_kinds, closing_line


def test_a_failed_claude_bash_call_has_its_exit_code_and_output() -> None:
    action = action_from_hook(
        "PostToolUseFailure",
        {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "error": "Exit code 2\nboom"},
    )
    assert action is not None
    assert (action.command, action.exit, action.ok) == ("pytest", 2, False)


def test_a_codex_shell_call_reads_its_exit_code_and_wall_time_from_the_output() -> None:
    output = "Chunk ID: 1\nWall time: 0.5 seconds\nProcess exited with code 1\nOutput:\n1 failed\n"
    action = action_from_hook(
        "PostToolUse",
        {
            "tool_name": "Bash",
            "tool_input": {"command": ["bash", "-lc", "pytest"]},
            "tool_response": output,
        },
    )
    assert action is not None
    assert (action.command, action.exit, action.duration_ms) == ("pytest", 1, 500)


def test_a_patch_names_the_files_it_touched() -> None:
    patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n"
    action = action_from_hook(
        "PostToolUse", {"tool_name": "apply_patch", "tool_input": {"command": patch}}
    )
    assert action is not None and action.paths == ["src/a.py", "b.py"]


@pytest.mark.parametrize(
    "payload",
    [
        {"tool_name": "Read", "tool_input": {"file_path": "a.py"}},
        {"tool_name": "Grep", "tool_input": {"pattern": "x"}},
        {"tool_name": "Bash", "tool_input": {"command": 5}},
        {"tool_name": 7},
        {},
    ],
)
def test_what_only_looks_or_is_malformed_is_no_action(payload: dict) -> None:
    assert action_from_hook("PostToolUse", payload) is None


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pytest -q", "tests"),
        ("cd app && .venv/bin/python -m pytest tests/x.py", "tests"),
        ("FOO=1 timeout 60 cargo test", "tests"),
        ("uv run mypy supervisor", "types"),
        ("ruff check .", "lint"),
        ("make", "build"),
        ("make install", None),
        ("git commit -m 'pytest passes'", None),
    ],
)
def test_verification_commands_are_recognised_by_their_words(command: str, kind: str) -> None:
    assert DEFAULT_RULES.kind_of(command) == kind


def test_a_profile_can_add_its_own_verification_command() -> None:
    rules = VerifyRules.of({"tests": ("./run-tests.sh",)})
    assert rules.kind_of("./run-tests.sh --fast") == "tests"


def test_the_closing_line_is_the_result_not_the_last_line() -> None:
    out = "collected 3\n..F\n==== 1782 passed, 2 failed in 3.1s ====\nCoverage XML written\n"
    assert closing_line(out) == "1782 passed, 2 failed in 3.1s"


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("all tests pass", ["tests"]),
        ("the test suite is green", ["tests"]),
        ("lint clean", ["lint"]),
        ("mypy passes", ["types"]),
        ("tests do not pass yet", []),
        ("wrote the parser", []),
    ],
)
def test_claims_of_a_verification_are_recognised(text: str, kinds: list[str]) -> None:
    assert claimed_kinds(text) == kinds


def test_claude_runs_the_tool_hooks_without_waiting_for_them(tmp_path) -> None:
    from supervisor.agents.claude_settings import settings

    hooks = settings(tmp_path, ["tether"])["hooks"]
    for event in ("PostToolUse", "PostToolUseFailure"):
        [handler] = hooks[event][0]["hooks"]
        assert handler["async"] is True and handler["command"].endswith(
            f"hook {event} --dir " + str(tmp_path.absolute())
        )
    assert "async" not in hooks["SessionStart"][0]["hooks"][0]  # its answer is awaited
