"""Fuzzing the door: `tether hook` with every event name, arbitrary stdin and every kind of
`transcript_path`, handled alone and through the supervisor's hook server; and the
transcript and rollout parsers with lines of arbitrary shape.

What must hold, every time: the hook exits 0 with no traceback, within the agent's hook
timeout (the subprocess timeout is the hang guard, not a timing); events.jsonl stays
strict JSON; following the transcript a hook named never raises nor blocks; a parser
never raises. Example counts are small so the file runs in well under a minute.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supervisor.agents import hook_client
from supervisor.agents.claude_settings import HOOK_EVENTS as CLAUDE_EVENTS
from supervisor.agents.claude_settings import HOOK_TIMEOUT_S
from supervisor.agents.codex_hooks import HOOK_EVENTS as CODEX_EVENTS
from supervisor.agents.hook_server import HookServer
from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import init
from tests.tether_process import TETHER

EVENTS = sorted({*CLAUDE_EVENTS, *CODEX_EVENTS, "Unknown", "", "a/b", "Stop\x1b[2J"})
SOURCES = ["compact", "clear", "startup", "resume", None, 7, ["compact"]]
PATH_KINDS = ["folder", "fifo", "device", "garbage", "missing", "nul", "number", "huge"]

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)
KEYS = st.sampled_from(
    [
        "type",
        "subtype",
        "payload",
        "message",
        "usage",
        "content",
        "text",
        "turn_attribution",
        "turn_trigger",
        "info",
        "last_token_usage",
        "input_tokens",
        "model_context_window",
        "compactMetadata",
        "trigger",
        "isCompactSummary",
        "isSidechain",
        "isMeta",
        "sessionId",
        "session_id",
        "id",
        "source",
        "thread_source",
        "timestamp",
        "uuid",
        "turn_id",
        "role",
    ]
)
VALUES = st.one_of(
    JSON,
    st.sampled_from(
        [
            "assistant",
            "user",
            "system",
            "compact_boundary",
            "event_msg",
            "response_item",
            "compacted",
            "session_meta",
            "task_started",
            "token_count",
            "context_compacted",
            "message",
            "tool_result",
            "2026-01-01T00:00:00Z",
            "0001-01-01T00:00:00+14:00",
        ]
    ),
)
ENTRY = st.recursive(
    st.dictionaries(KEYS, VALUES, max_size=6),
    lambda inner: st.dictionaries(KEYS, st.one_of(VALUES, inner, st.lists(inner, max_size=3))),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ENTRY, min_size=1, max_size=6), st.booleans())
def test_transcript_and_rollout_entries_of_any_shape_never_raise(
    entries: list[dict[str, Any]], history: bool
) -> None:
    for parser in (ClaudeTranscript(), CodexRollout()):
        for entry in entries:
            assert isinstance(parser.feed(entry, 0.0, history=history), list)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_transcript_lines_of_any_bytes_never_raise(data: bytes) -> None:
    buffer = JsonlBuffer()
    for parser in (ClaudeTranscript(), CodexRollout()):
        for record in buffer.feed(data + b"\n"):
            parser.feed(record, 0.0)


def transcript_path(kind: str, folder: Path) -> Any:
    """A `transcript_path` of the given kind, made in ``folder``."""
    path = folder / f"transcript-{kind}"
    if kind == "folder":
        path.mkdir(exist_ok=True)
    elif kind == "fifo":
        if not path.exists():
            os.mkfifo(path)
    elif kind == "device":
        return "/dev/zero"
    elif kind == "garbage":
        path.write_bytes(b'{"type": "event_msg", "payload": {"turn_attribution": "x"}}\n\xff[\n')
    elif kind == "nul":
        return str(path) + "\0x"
    elif kind == "number":
        return 12
    elif kind == "huge":
        return "x" * 5000
    return str(path)


HOOK_STDIN = st.one_of(
    st.binary(max_size=300),
    st.builds(
        lambda source, kind, extra: (source, kind, extra),
        st.sampled_from(SOURCES),
        st.sampled_from(PATH_KINDS),
        st.dictionaries(st.text(max_size=8), JSON, max_size=3),
    ),
)


def stdin_bytes(drawn: Any, folder: Path) -> tuple[bytes, Any]:
    """The bytes to send, and the transcript_path in them (None for raw bytes)."""
    if isinstance(drawn, bytes):
        return drawn, None
    source, kind, extra = drawn
    path = transcript_path(kind, folder)
    payload = {**extra, "source": source, "transcript_path": path, "session_id": "s"}
    text = json.dumps(payload, allow_nan=True, ensure_ascii=True)
    return text.encode(), path


def strict_lines(path: Path) -> None:
    for line in path.read_bytes().splitlines():
        json.loads(line.decode("utf-8"), parse_constant=lambda name: 1 / 0)


def follow_without_blocking(path: Any, claude: bool) -> None:
    """As the supervisor follows a hook's transcript_path: never raises, never blocks."""
    follower = TranscriptFollower(claude=claude, started_at=0.0)
    problems: list[BaseException] = []

    def poll() -> None:
        try:
            follower.follow(path)
            follower.poll(0.0)
        except BaseException as problem:  # reported below
            problems.append(problem)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    thread.join(HOOK_TIMEOUT_S)
    assert not thread.is_alive(), f"following {path!r} blocked"
    assert not problems, problems


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from(EVENTS), HOOK_STDIN, st.booleans(), st.sampled_from(["claude", "codex"]))
def test_tether_hook_with_anything_exits_0_in_time_and_keeps_events_strict(
    event: str, drawn: Any, served: bool, profile: str
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        init(work, goal="g")
        data, path = stdin_bytes(drawn, work)
        env = {k: v for k, v in os.environ.items() if k != hook_client.SOCKET_ENV}
        env["TETHER_PROFILE"] = profile
        server = HookServer(work, preload_after=None) if served else None
        if server is not None:
            env[hook_client.SOCKET_ENV] = server.start()
        try:
            done = subprocess.run(
                [*TETHER, "hook", event, "--dir", str(work)],
                input=data,
                env=env,
                capture_output=True,
                timeout=HOOK_TIMEOUT_S,  # the agent's own limit, as a hang guard
                check=False,
            )
        finally:
            if server is not None:
                server.stop()
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        assert b"Traceback" not in done.stderr
        strict_lines(work / ".tether" / "events.jsonl")
        follow_without_blocking(path, claude=profile == "claude")
