"""The `tether hook` fast path: a real hook process handing its call to a real server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from supervisor.agents import hook_client
from supervisor.agents.hook_command import STDIN_LIMIT
from supervisor.agents.hook_server import HookServer
from supervisor.store.tether_dir import init
from tests.tether_process import run_tether

COMPACT = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "session_id": "s1"})


def run_hook(event: str, work: Path, stdin: bytes, socket_path: str | None, **env: str):
    environment = {k: v for k, v in os.environ.items() if k not in ("TETHER_PROFILE",)}
    environment.pop(hook_client.SOCKET_ENV, None)
    if socket_path is not None:
        environment[hook_client.SOCKET_ENV] = socket_path
    environment.update(env)
    return run_tether("hook", event, "--dir", str(work), stdin=stdin, env=environment)


def events(work: Path) -> list[dict]:
    lines = (work / ".tether" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    init(tmp_path, goal="keep the hook fast")
    return tmp_path


@pytest.fixture
def server(work: Path) -> Iterator[HookServer]:
    server = HookServer(work, preload_after=None)
    server.start()
    yield server
    server.stop()


def test_the_supervisor_answers_a_compaction_with_the_payload_and_records_it_once(
    work: Path, server: HookServer
) -> None:
    result = run_hook("SessionStart", work, COMPACT.encode(), server.path)
    assert result.returncode == 0 and result.stderr == b""
    answer = json.loads(result.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert "keep the hook fast" in answer["additionalContext"]
    assert server.served == 1
    kinds = [e["kind"] for e in events(work)]
    assert kinds.count("hook") == 1 and kinds.count("auto_rehydrate") == 1
    (rehydrated,) = [e for e in events(work) if e["kind"] == "auto_rehydrate"]
    assert rehydrated["exact"] is True  # counted with the tokenizer, not estimated


def test_the_answer_is_the_one_the_hook_process_gives_alone(work: Path, server: HookServer) -> None:
    served = json.loads(run_hook("SessionStart", work, COMPACT.encode(), server.path).stdout)
    alone = json.loads(run_hook("SessionStart", work, COMPACT.encode(), None).stdout)
    assert server.served == 1

    def without_checkpoint(answer: dict) -> str:  # each call takes a checkpoint of its own
        text = answer["hookSpecificOutput"]["additionalContext"]
        text = re.sub(r"checkpoint #\d+ \([^)]*\)\)?", "checkpoint #N", text)
        # ...and each SessionStart(compact) is a compaction of its own: #1, then #2
        text = re.sub(r"compacted \(#\d+\), seen by hook, at [\d:.TZ-]+", "compacted (#N)", text)
        return re.sub(r"checkpoints/\d+\.json", "checkpoints/N.json", text)

    assert without_checkpoint(served) == without_checkpoint(alone)


def test_no_supervisor_listening_means_the_hook_handles_itself(work: Path) -> None:
    result = run_hook("Stop", work, b"{}", str(work / "no-such-socket"))
    assert result.returncode == 0 and result.stderr == b""
    assert [e["event"] for e in events(work) if e["kind"] == "hook"] == ["Stop"]


def test_another_folder_is_declined_and_handled_by_the_hook_itself(
    tmp_path: Path, server: HookServer
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    init(other, goal="another agent")
    result = run_hook("Stop", other, b'{"n": 1}', server.path)
    assert result.returncode == 0 and server.served == 0
    assert [e["payload"] for e in events(other) if e["kind"] == "hook"] == [{"n": 1}]


def test_a_codex_hook_is_served_with_codex_s_answer_whatever_the_server_s_environment(
    work: Path, server: HookServer
) -> None:
    """The server once compared the hook's profile with its own environment's, where
    `tether run` never sets one: every profile but claude was declined."""
    compact = json.dumps({"hook_event_name": "SessionStart", "source": "compact"}).encode()
    served = run_hook("SessionStart", work, compact, server.path, TETHER_PROFILE="codex")
    assert served.returncode == 0 and server.served == 1
    alone = run_hook("SessionStart", work, compact, None, TETHER_PROFILE="codex")
    assert [e["event"] for e in events(work) if e["kind"] == "hook"] == ["SessionStart"] * 2
    rehydrated = [e for e in events(work) if e["kind"] == "auto_rehydrate"]
    assert [e["profile"] for e in rehydrated] == ["codex", "codex"]
    assert bool(served.stdout) == bool(alone.stdout)


def test_stdin_over_the_limit_is_handled_by_the_hook_itself_with_every_byte_counted(
    work: Path, server: HookServer
) -> None:
    huge = b'{"x": "' + b"a" * (STDIN_LIMIT + 10) + b'"}'
    result = run_hook("PostCompact", work, huge, server.path)
    assert result.returncode == 0 and server.served == 0
    (event,) = [e for e in events(work) if e["kind"] == "hook"]
    assert event["error"] == f"stdin over {STDIN_LIMIT} bytes" and event["bytes"] == len(huge)


def test_a_garbled_request_is_declined(server: HookServer) -> None:
    assert server.answer(b"GET / HTTP/1.0\r\n\r\n") == b"DECLINE\n"
    assert server.answer(hook_client.MAGIC + b"\nStop\n") == b"DECLINE\n"


def test_a_garbled_or_short_answer_is_an_error_not_a_decline() -> None:
    assert hook_client.parse_answer(b"DECLINE\n") is None
    answer = hook_client.parse_answer(b"OK 0 2 1\nhie")
    assert (answer.code, answer.stdout, answer.stderr) == (0, b"hi", b"e")
    for reply in (b"", b"OK 0 5 0\nhi", b"HTTP/1.1 200 OK\n"):
        with pytest.raises(OSError):
            hook_client.parse_answer(reply)


def test_stop_wakes_the_server_and_removes_its_socket(work: Path) -> None:
    server = HookServer(work, preload_after=None)
    path = Path(server.start())
    assert path.exists()
    server.stop()
    assert not path.exists() and not path.parent.exists()
    assert hook_client.ask("Stop", str(work), b"{}", str(path)) is None


def test_the_client_caps_stdin_as_the_handler_does() -> None:
    assert hook_client.STDIN_LIMIT == STDIN_LIMIT


def test_the_fast_path_imports_neither_argparse_nor_typing_nor_json(
    work: Path, server: HookServer
) -> None:
    code = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}'))\n"
        "from supervisor.cli import main\n"
        f"code = main(['hook', 'Stop', '--dir', {str(work)!r}])\n"
        "print([m for m in ('argparse', 'typing', 'json', 'socket') if m in sys.modules], code)\n"
    )
    env = {**os.environ, hook_client.SOCKET_ENV: str(server.path)}
    env.pop("TETHER_PROFILE", None)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.stdout.strip() == "[] 0", result.stderr
    assert server.served == 1


def test_the_fast_path_loads_no_module_beyond_its_own_and_a_socket(
    work: Path, server: HookServer
) -> None:
    """Every module the fast path loads costs each hook call its import: beyond what a bare
    interpreter has, only tether's own small modules and the socket's C parts. (environment.py
    once took a dataclass, and with it inspect, re and enum: ~13 ms of every hook.)"""
    bare = "import sys\nprint(' '.join(sorted(sys.modules)))\n"
    code = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}'))\n"
        "from supervisor.cli import main\n"
        f"code = main(['hook', 'Stop', '--dir', {str(work)!r}])\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, hook_client.SOCKET_ENV: str(server.path)}
    env.pop("TETHER_PROFILE", None)
    loaded = []
    for program in (bare, code):
        result = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60
        )
        assert result.returncode == 0, result.stderr
        loaded.append(set(result.stdout.split()))
    extra = {m for m in loaded[1] - loaded[0] if not m.startswith("supervisor")}
    assert extra <= {"__future__", "_socket", "select"}
    assert server.served == 1


class Trickle:
    """A peer that connects and sends its request a byte at a time, for ever."""

    def __init__(self, path: str) -> None:
        import socket
        import threading

        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(30)  # a hang guard for the test's own reads
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._send, daemon=True)
        self._thread.start()

    def _send(self) -> None:
        while not self._stop.wait(0.2):
            try:
                self.sock.send(b"x")
            except OSError:
                return

    def reply(self) -> bytes:
        chunks = []
        while chunk := self.sock.recv(4096):
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def test_a_slow_connection_never_holds_up_the_agent_s_real_hook(
    work: Path, server: HookServer
) -> None:
    slow = Trickle(str(server.path))
    try:
        result = run_hook("SessionStart", work, COMPACT.encode(), server.path)
        assert result.returncode == 0 and result.stderr == b""
        assert "additionalContext" in json.loads(result.stdout)["hookSpecificOutput"]
        assert server.served == 1
    finally:
        slow.close()


def test_a_request_that_does_not_arrive_whole_by_the_deadline_is_declined(
    server: HookServer,
) -> None:
    slow = Trickle(str(server.path))
    try:
        assert slow.reply() == b"DECLINE\n"
    finally:
        slow.close()
    assert server.served == 0


def test_beyond_the_bound_a_connection_is_declined_at_once_and_the_hook_answers_itself(
    work: Path, server: HookServer
) -> None:
    from supervisor.agents.hook_server import MAX_CONNECTIONS

    silent = [Trickle(str(server.path)) for _ in range(MAX_CONNECTIONS)]
    try:
        result = run_hook("Stop", work, b'{"n": 1}', server.path)
        assert result.returncode == 0 and result.stderr == b""
        assert [e["payload"] for e in events(work) if e["kind"] == "hook"] == [{"n": 1}]
    finally:
        for peer in silent:
            peer.close()
    assert server.served == 0
