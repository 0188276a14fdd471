"""A hook the supervisor answers in its own process reads the supervision's one parse of
notes.md and task.md; a `tether hook` alone parses them once, however often it reads them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from supervisor.agents import hook_client, session_start_answer
from supervisor.agents.hook_command import handle
from supervisor.agents.hook_server import HookServer
from supervisor.rehydrate.live_notes import LiveNotes
from supervisor.store import notes
from supervisor.store.tether_dir import TetherDir, init

DECISION = "Retry budget is 250 ms per call; use `retry_budget_ms`"
COMPACT = {"hook_event_name": "SessionStart", "source": "compact", "session_id": "s1"}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    tether = init(tmp_path, goal="count to 400").tether
    tether.add_note("decision", DECISION)
    tether.add_note("next", "write artifact 12")
    tether.record_incident("compaction", "hook", trigger="auto", sources=["hook"])
    return tmp_path


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every Markdown parse from here on: the length of the text parsed."""
    seen: list[int] = []
    parse = notes.Document.parse.__func__  # type: ignore[attr-defined]

    def counted(cls: type[notes.Document], text: str) -> notes.Document:
        seen.append(len(text))
        return parse(cls, text)  # type: ignore[no-any-return]

    monkeypatch.setattr(notes.Document, "parse", classmethod(counted))
    return seen


def served(server: HookServer, event: str, payload: dict[str, str]) -> str:
    request = hook_client.request(event, server.work_dir, json.dumps(payload).encode(), "")
    reply = server.answer(request)
    head, _, body = reply.partition(b"\n")
    assert head.startswith(b"OK 0 "), reply
    return body.decode()


def test_an_answer_in_process_reads_the_supervision_s_parse_one_per_change(
    work: Path, parses: list[int]
) -> None:
    live = LiveNotes(TetherDir.at(work))  # the supervision's, as its tick has read it
    live.current()
    assert len(parses) == 2  # task.md and notes.md
    server = HookServer(work, preload_after=None)
    server.live = live

    answer = json.loads(served(server, "SessionStart", COMPACT))
    assert DECISION in answer["hookSpecificOutput"]["additionalContext"]
    assert "write artifact 12" in served(server, "PreCompact", {"trigger": "manual"})
    assert len(parses) == 2  # the payload, its checkpoint's phase, the instructions: no parse

    notes_md = work / ".tether" / "notes.md"  # a change: parsed once more
    notes_md.write_text(notes_md.read_text().replace("artifact 12", "artifact 13 now"))
    answer = json.loads(served(server, "SessionStart", COMPACT))
    assert "write artifact 13 now" in answer["hookSpecificOutput"]["additionalContext"]
    assert "write artifact 13 now" in served(server, "PreCompact", {"trigger": "manual"})
    assert len(parses) == 4


def test_a_hook_alone_parses_the_notes_once_however_often_its_payload_is_rebuilt(
    work: Path, parses: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes_md = work / ".tether" / "notes.md"  # over Claude's 9,500 characters
    done = "## Done\n\n" + "".join(f"- step {n} done\n" for n in range(2000))
    notes_md.write_text(notes_md.read_text().replace("## Done\n", done, 1))
    builds: list[int | None] = []
    build = session_start_answer.build_payload

    def counted(*args: object, **kwargs: object) -> object:
        builds.append(kwargs.get("budget"))  # type: ignore[arg-type]
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session_start_answer, "build_payload", counted)
    out = io.StringIO()
    stdin = io.BytesIO(json.dumps(COMPACT).encode())
    assert handle("SessionStart", str(work), stdin, out, io.StringIO(), profile="claude") == 0
    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    assert DECISION in context and len(context) <= 9500
    assert len(builds) > 1  # cut to fit the hook's limit: built again with a smaller budget
    assert len(parses) == 2  # task.md and notes.md, once each


def test_a_tool_hook_in_process_finds_the_rejected_approaches_in_the_supervision_s_parse(
    work: Path, parses: list[int]
) -> None:
    TetherDir.at(work).add_note("rejected", "`pip install ujson`: segfaults on 3.13")
    live = LiveNotes(TetherDir.at(work))
    live.current()
    parsed = len(parses)
    server = HookServer(work, preload_after=None)
    server.live = live
    bash = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pip install ujson"},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
    }
    for _ in range(3):  # every tool call: no parse of its own
        served(server, "PostToolUse", bash)
    assert len(parses) == parsed
    alarms = [
        json.loads(line)
        for line in (work / ".tether" / "events.jsonl").read_text().splitlines()
        if '"drift_alarm"' in line
    ]
    assert alarms and alarms[0]["term"] == "pip install ujson"
