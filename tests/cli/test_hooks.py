"""`tether hook` as the agent runs it: a real subprocess that never fails the agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor.agents.claude_settings import HOOK_EVENTS, write_settings
from supervisor.agents.hook_command import STDIN_LIMIT
from supervisor.recognize.hook_events import observations_from_event
from tests.replay import captures_dir
from tests.tether_process import run_tether

HOOK_LOG = captures_dir() / "cc-hooks.hooks.jsonl"
# hook logs of Claude Code 2.1.197 and 2.1.332 (compaction, /clear, auto compaction)
REAL_LOGS = ["cc-hooks", "cc332-compact-manual", "cc332-clear", "cc332-compact-auto"]


def run_hook(event: str, work: Path, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return run_tether("hook", event, "--dir", str(work), stdin=stdin)


def events(work: Path) -> list[dict]:
    path = work / ".tether" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / ".tether").mkdir()
    from supervisor.store import trust
    from supervisor.store.tether_dir import TetherDir

    trust.trust(TetherDir.at(tmp_path))  # the user's own (no git to ask: it would be asked)
    return tmp_path


@pytest.mark.parametrize("capture", REAL_LOGS)
def test_real_claude_hook_payloads_are_recorded_verbatim(work: Path, capture: str) -> None:
    log = captures_dir() / f"{capture}.hooks.jsonl"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    for call in calls:
        result = run_hook(call["event"], work, json.dumps(call["payload"]).encode())
        assert result.returncode == 0
        assert b"Traceback" not in result.stderr
        if call["event"] == "SessionStart" and call["payload"]["source"] in ("compact", "clear"):
            answer = json.loads(result.stdout)  # the payload builder's answer: JSON only
            assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        else:
            assert result.stdout == b""
    recorded = [e for e in events(work) if e["kind"] == "hook"]
    assert [e["event"] for e in recorded] == [c["event"] for c in calls]
    for event, call in zip(recorded, calls, strict=True):
        assert event["kind"] == "hook" and event["source"] == "hook"
        assert event["payload"] == call["payload"]
        assert "error" not in event and event["at"].endswith("Z")


def test_recorded_hooks_become_one_compaction_with_trigger_and_summary(work: Path) -> None:
    for line in HOOK_LOG.read_text().splitlines():
        call = json.loads(line)
        run_hook(call["event"], work, json.dumps(call["payload"]).encode())
    found = [o for e in events(work) for o in observations_from_event(e, 0.0)]
    found = [o for o in found if o.kind != "session"]
    kinds = [(o.kind, o.details.get("channel"), o.trigger) for o in found]
    assert kinds == [
        ("compaction_started", "PreCompact", "manual"),
        ("compaction", "SessionStart", None),
        ("compaction", "PostCompact", "manual"),
    ]
    assert found[-1].summary.startswith("FAKE-COMPACT-SUMMARY:")


@pytest.mark.parametrize(
    ("stdin", "error"),
    [
        (b"garbage{", "invalid JSON"),
        (b"\xff\xfe\x00not utf8", "invalid JSON"),
        (b"", "empty stdin"),
        (b"[1, 2, 3]", "not a JSON object"),
    ],
)
def test_bad_stdin_is_recorded_as_such_and_exits_zero(work: Path, stdin: bytes, error: str) -> None:
    result = run_hook("Stop", work, stdin)
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    (event,) = events(work)
    assert event["event"] == "Stop"
    assert event["error"].startswith(error)


def test_huge_stdin_is_drained_capped_and_not_stored(work: Path) -> None:
    huge = b'{"x": "' + b"a" * (STDIN_LIMIT + 10) + b'"}'
    result = run_hook("PostCompact", work, huge)
    assert result.returncode == 0
    (event,) = events(work)
    assert event["payload"] is None
    assert event["error"] == f"stdin over {STDIN_LIMIT} bytes"
    assert event["bytes"] == len(huge)
    assert (work / ".tether" / "events.jsonl").stat().st_size < 1000


def test_missing_tether_folder_is_not_an_error_and_creates_nothing(tmp_path: Path) -> None:
    result = run_hook("SessionStart", tmp_path, b'{"source": "startup"}')
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    assert not (tmp_path / ".tether").exists()


def test_unwritable_events_file_still_exits_zero(work: Path) -> None:
    (work / ".tether" / "events.jsonl").mkdir()  # a folder where the file should be
    result = run_hook("Stop", work, b"{}")
    assert result.returncode == 0
    assert b"not recorded" in result.stderr and b"Traceback" not in result.stderr


def test_odd_event_names_are_cleaned(work: Path) -> None:
    run_hook("Pre Compact;rm -rf /", work, b"{}")
    assert events(work)[0]["event"] == "PreCompactrm-rf"


def test_hook_process_imports_nothing_heavy(work: Path) -> None:
    code = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}'))\n"
        "from supervisor.cli import main\n"
        f"main(['hook', 'Stop', '--dir', {str(work)!r}])\n"
        "heavy = [m for m in ('textual', 'watchdog', 'tiktoken', 'avt', 'rich', 'ptyprocess')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "[]"


def test_claude_settings_wire_every_event_to_tether_hook_with_the_folder(tmp_path: Path) -> None:
    path = write_settings(tmp_path / ".tether", argv=["/opt/tether bin/tether"])
    assert path == tmp_path / ".tether" / "agent" / "claude-settings.json"
    hooks = json.loads(path.read_text())["hooks"]
    assert set(hooks) == set(HOOK_EVENTS) >= {"SessionStart", "PreCompact", "PostCompact"}
    for event, entries in hooks.items():
        (entry,) = entries
        assert entry["matcher"] == ""
        command = entry["hooks"][0]["command"]
        assert command == f"'/opt/tether bin/tether' hook {event} --dir {tmp_path}"


def test_precompact_tells_the_summarizer_to_keep_the_pins_verbatim(tmp_path: Path) -> None:
    from supervisor.store.tether_dir import TetherDir, init

    init(tmp_path, goal="g")
    tether = TetherDir.at(tmp_path)
    redis = "refresh tokens in Redis, 15 minute TTL, rotate on use"
    tether.add_decisions([redis, "DECISION: a line that would pin itself again"], "test")
    tether.add_note("rejected", "JWT in localStorage (XSS)")
    tether.add_note("next", "write the token rotation test")
    calls = [json.loads(line) for line in HOOK_LOG.read_text().splitlines()]
    pre = next(call for call in calls if call["event"] == "PreCompact")
    result = run_hook("PreCompact", tmp_path, json.dumps(pre["payload"]).encode())
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    text = result.stdout.decode()
    assert f"1. {redis}\n" in text
    assert "Rejected approaches (say they were rejected): JWT in localStorage (XSS)" in text
    assert text.rstrip().endswith("Next step: write the token rotation test")
    lines = text.splitlines()
    assert len(lines) <= 8 and not any(line.lstrip().startswith("DECISION") for line in lines)
    assert "DECISION:" not in text.upper()
    from supervisor.recognize.decision_capture import decision_lines

    assert decision_lines(lines) == []  # tether would not pin its own echo


def test_precompact_prints_nothing_without_notes(work: Path) -> None:
    result = run_hook("PreCompact", work, b'{"trigger": "auto", "custom_instructions": null}')
    assert result.returncode == 0 and result.stdout == b""
