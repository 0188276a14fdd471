"""`tether hook` given whatever a caller connects as stdin: a closed one, `/dev/zero`, a pipe
left open and silent, JSON with numbers or characters that strict JSON cannot carry.

It ends every time (the subprocess timeouts here are hang guards, not timings), exits 0
without a traceback, and what it writes to events.jsonl is strict JSON that `jq` reads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from supervisor.agents import hook_client
from supervisor.agents.hook_server import HookServer
from supervisor.agents.hook_stdin import COUNT_LIMIT
from supervisor.store.tether_dir import init
from tests.tether_process import TETHER

HANG_GUARD_S = 60


@pytest.fixture
def work(tmp_path: Path) -> Path:
    init(tmp_path, goal="g")
    return tmp_path


@pytest.fixture(params=["alone", "served"])
def env(request: pytest.FixtureRequest, work: Path):
    """The hook as the agent runs it: handling itself, or handing its call to a server."""
    environment = {k: v for k, v in os.environ.items() if k != "TETHER_PROFILE"}
    environment.pop(hook_client.SOCKET_ENV, None)
    if request.param == "alone":
        yield environment
        return
    server = HookServer(work, preload_after=None)
    environment[hook_client.SOCKET_ENV] = server.start()
    try:
        yield environment
    finally:
        server.stop()


def hooks(work: Path) -> list[dict]:
    lines = (work / ".tether" / "events.jsonl").read_bytes().splitlines()
    return [e for e in map(strict_json, lines) if e["kind"] == "hook"]


def strict_json(line: bytes):
    """Parse as `jq` would: UTF-8 without lone surrogates, no NaN or Infinity."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in events.jsonl")

    record = json.loads(line.decode("utf-8"), parse_constant=refuse)
    json.dumps(record, ensure_ascii=False).encode("utf-8")  # no lone surrogate inside
    return record


def run_hook(work: Path, env: dict[str, str], **how) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [*TETHER, "hook", "Stop", "--dir", str(work)],
        env=env,
        capture_output=True,
        timeout=HANG_GUARD_S,
        check=False,
        **how,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode()
    return done


def test_a_closed_stdin_is_recorded_as_such(work: Path, env: dict[str, str]) -> None:
    run_hook(work, env, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0))
    assert [h["error"] for h in hooks(work)] == ["no stdin (closed)"]


def test_dev_zero_as_stdin_ends_counted_up_to_a_bound(work: Path, env: dict[str, str]) -> None:
    with open("/dev/zero", "rb") as zero:
        run_hook(work, env, stdin=zero)
    (hook,) = hooks(work)
    assert hook["payload"] is None and hook["error"].startswith("stdin over")
    assert hook["bytes"] >= COUNT_LIMIT


def test_a_pipe_left_open_and_silent_ends_at_the_read_deadline(
    work: Path, env: dict[str, str]
) -> None:
    read_end, write_end = os.pipe()
    try:
        run_hook(work, env, stdin=read_end)
    finally:
        os.close(read_end)
        os.close(write_end)
    (hook,) = hooks(work)
    assert hook["error"].startswith("stdin still open after")


def test_numbers_and_characters_strict_json_cannot_carry_never_reach_events_jsonl(
    work: Path, env: dict[str, str]
) -> None:
    stdin = (
        b'{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e999, '
        b'"e": "x\\ud800y", "\\udc00k": [NaN, {"f": "\\udfff"}]}'
    )
    run_hook(work, env, input=stdin)
    (hook,) = hooks(work)
    assert hook["payload"] == {
        "a": "NaN",
        "b": "Infinity",
        "c": "-Infinity",
        "d": "Infinity",
        "e": "x\ufffdy",
        "\ufffdk": ["NaN", {"f": "\ufffd"}],
    }
    if shutil.which("jq"):
        path = work / ".tether" / "events.jsonl"
        checked = subprocess.run(["jq", "-c", "."], stdin=open(path, "rb"), capture_output=True)
        assert checked.returncode == 0, checked.stderr.decode()


def test_hook_json_nested_deeper_than_any_agent_writes_is_recorded_as_such(
    work: Path, env: dict[str, str]
) -> None:
    run_hook(work, env, input=b"[" * 500 + b"]" * 500)
    (hook,) = hooks(work)
    assert hook["payload"] is None and "nested too deeply" in hook["error"]


def test_closed_stdout_and_stderr_are_no_traceback_and_the_call_is_recorded(
    work: Path, env: dict[str, str]
) -> None:
    def close_outputs() -> None:
        os.close(1)
        os.close(2)

    done = subprocess.run(
        [*TETHER, "hook", "SessionStart", "--dir", str(work)],
        env=env,
        input=b'{"source": "compact"}',
        timeout=HANG_GUARD_S,
        check=False,
        preexec_fn=close_outputs,
    )
    assert done.returncode == 0
    assert [h["event"] for h in hooks(work)] == ["SessionStart"]
