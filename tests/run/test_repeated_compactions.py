"""Every compaction is one incident, however alike the lines around its marker are."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys

import pytest

from supervisor.config.profiles import load_profile
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import TetherDir
from supervisor.terminal.session import AgentSession
from tests.locations import CAPTURES
from tests.tether_process import run_tether


async def _until(predicate, what: str, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_ten_compactions_of_the_demo_typed_and_automatic_are_ten_incidents(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("TETHER_DEMO_DELAY", "0.05")
    monkeypatch.setenv("TETHER_DEMO_AUTO_COMPACT", "2")  # every second prompt compacts by itself
    argv = load_profile("demo").argv()
    session = AgentSession(argv, cols=100, rows=40, cwd=str(tmp_path), env=dict(os.environ))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path, profile_name="demo"), session)
    supervision.open()
    session.start()

    def screen() -> str:
        return "\n".join(session.emulator.display())

    def compactions() -> list:
        return [i for i in supervision.fusion.incidents if i.kind == "compaction"]

    expected: list[str] = []
    try:
        await _until(lambda: "? for shortcuts" in screen(), "the prompt")
        turn = 0
        while len(expected) < 10:  # prompt, /compact, prompt (+ auto), /compact, ...
            turn += 1
            session.send_input(f"prompt {turn}\r".encode())
            reply = f"Working on it: prompt {turn}"
            await _until(lambda reply=reply: reply in screen(), reply)
            if turn % 2 == 0:
                expected.append("auto")
            await _until(lambda: len(compactions()) >= len(expected), f"{len(expected)} incidents")
            await _until(lambda: screen().rstrip().endswith("context used"), "the prompt")
            if len(expected) == 10:
                break
            session.send_input(b"/compact\r")
            expected.append("manual")
            await _until(lambda: len(compactions()) >= len(expected), f"{len(expected)} incidents")
            await _until(lambda: screen().rstrip().endswith("context used"), "the prompt")
        await asyncio.sleep(0.3)  # nothing more arrives late
        assert [i.trigger for i in compactions()] == expected
        assert [i.number for i in compactions()] == list(range(1, 11))
    finally:
        supervision.stop_agent()
        supervision.close()


@pytest.mark.parametrize("size", [(40, 21), (160, 45)])
async def test_a_compact_typed_after_a_resize_the_agent_did_not_redraw_is_one_incident(
    tmp_path, monkeypatch, size
):
    """Found by hand in tmux (80x24, F5, /compact): the demo agent draws nothing when the
    window changes, so the reflow and the typed /compact's echo with its compaction-started
    cue came in one look; the cue went with the redraw and the compaction was never
    reported. The reflow is now looked at when it happens."""
    monkeypatch.setenv("TETHER_DEMO_DELAY", "0.05")
    argv = load_profile("demo").argv()
    session = AgentSession(argv, cols=80, rows=21, cwd=str(tmp_path), env=dict(os.environ))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path, profile_name="demo"), session)
    supervision.open()
    seen: list = []  # every observation, in order
    observe = supervision.observe
    monkeypatch.setattr(supervision, "observe", lambda o: (seen.append(o), observe(o))[1])
    session.start()

    def screen() -> str:
        return "\n".join(session.emulator.display())

    def compactions() -> list:
        return [i for i in supervision.fusion.incidents if i.kind == "compaction"]

    try:
        await _until(lambda: "? for shortcuts" in screen(), "the prompt")
        session.resize(*size)  # the side pane shown or hidden: the agent redraws nothing
        session.send_input(b"/compact\r")
        await _until(lambda: "Conversation compacted" in screen(), "the compaction's notice")
        await _until(lambda: screen().rstrip().endswith("context used"), "the prompt")
        await _until(lambda: len(compactions()) == 1, "the compaction's incident")
        assert compactions()[0].trigger == "manual"
        session.resize(80, 21)  # back: the reflow shows the old cue, which starts nothing
        session.send_input(b"hello\r")
        await _until(lambda: "Working on it: hello" in screen(), "the reply")
        await _until(lambda: screen().rstrip().endswith("context used"), "the prompt")
        assert [o.kind for o in seen].count("compaction_started") == 1, seen
        assert len(compactions()) == 1
    finally:
        supervision.stop_agent()
        supervision.close()


def _marker_line(profile: str) -> bytes:
    """The agent's own compaction line, bytes as it drew them in the capture."""
    if profile == "claude":
        raw = (CAPTURES / "cc-compact-manual.raw").read_bytes()
        line = rb"\x1b\[38;5;246m\xe2\x9c\xbb Conversation compacted[^\x1b]*\x1b\[39m"
        found = re.search(line, raw)
        return found.group(0)
    raw = (CAPTURES / "cx-compact-manual.raw").read_bytes()
    found = re.search(rb"\x1b\[2m\xe2\x80\xa2 \x1b\[22mContext(?:\x1b\[\d+;\d+H[^\x1b]+)+", raw)
    # Codex places the words with absolute moves on row 13: the same columns on our row
    return re.sub(rb"\x1b\[\d+;(\d+)H", lambda m: b"\x1b[" + m[1] + b"G", found.group(0))


SPINNERS = {"claude": "✶ Compacting conversation…", "codex": "• Compacting context"}

AGENT = """
import os, sys, time, tty
marker, spinner = bytes.fromhex(sys.argv[1]), sys.argv[2].encode()
out = sys.stdout.buffer
def fold(wait):
    out.write(spinner + b"\\r\\n"); out.flush()
    wait()
    out.write(b"\\x1b[1A\\r\\x1b[K" + marker + b"\\r\\n\\r\\n"); out.flush()
if sys.argv[3] == "auto":  # one long turn: each step waits for a go byte nobody sees
    tty.setcbreak(0)
    out.write(b"ready\\r\\n"); out.flush()
    while os.read(0, 1):
        fold(lambda: os.read(0, 1))
else:  # each /compact typed (and echoed) makes one fold
    out.write(b"ready\\r\\n> "); out.flush()
    for line in sys.stdin:
        fold(lambda: time.sleep(0.1))
        out.write(b"> "); out.flush()
"""


@pytest.mark.parametrize("typed", [True, False], ids=["typed", "auto-in-one-turn"])
@pytest.mark.parametrize("profile", ["claude", "codex"])
async def test_the_same_marker_under_the_same_rows_is_a_new_compaction_each_time(
    tmp_path, profile, typed
):
    """Typed: five /compact, each echoed above its marker. Automatic: five in one long turn,
    no key between them, each under the one before; the spinner tells them apart."""
    marker = _marker_line(profile)
    argv = [
        sys.executable,
        "-c",
        AGENT,
        marker.hex(),
        SPINNERS[profile],
        "typed" if typed else "auto",
    ]
    session = AgentSession(argv, cols=120, rows=40, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path, profile_name=profile), session)
    supervision.open()
    session.start()

    def compactions() -> list:
        return [i for i in supervision.fusion.incidents if i.kind == "compaction"]

    try:
        await _until(lambda: "ready" in "\n".join(session.emulator.display()), "the agent")
        if typed:
            for count in range(1, 6):
                session.send_input(b"/compact\r")  # echoed: the row above each is the same
                await _until(lambda n=count: len(compactions()) >= n, f"compaction {count}")
        else:
            for count in range(1, 6):  # no key of the user's between (or before) them
                session.write(b"g")  # not a key of the user's: no activity, no echo
                await _until(lambda: supervision.screen.visible("compaction_started"), "spinner")
                session.write(b"g")
                await _until(lambda n=count: len(compactions()) >= n, f"compaction {count}")
        await asyncio.sleep(0.3)
        rows = session.emulator.display()
        assert sum(1 for row in rows if "compacted" in row) == 5  # all on the screen at once
        assert [i.number for i in compactions()] == [1, 2, 3, 4, 5]
        assert all(i.sources == ["screen"] for i in compactions())
    finally:
        supervision.stop_agent()
        supervision.close()


def _hook(work, event: str, payload: dict) -> str:
    """`tether hook EVENT` as Claude Code runs it: a process, JSON on stdin."""
    env = {k: v for k, v in os.environ.items() if k != "TETHER_PROFILE"}
    # The test's own config folder (conftest's, with no profiles: the bundled claude one),
    # where the supervisor that made `.tether/` here recorded that the user trusts it.
    env["TETHER_CONFIG_DIR"] = os.environ.get("TETHER_CONFIG_DIR") or str(work / "cfg")
    done = run_tether("hook", event, "--dir", str(work), stdin=json.dumps(payload), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_each_compactions_session_start_payload_names_that_compaction(tmp_path):
    """The hook runs before the supervisor has seen anything: it names the new incident,
    and the supervisor adopts that number instead of opening a second incident."""
    hooks = [json.loads(line) for line in (CAPTURES / "cc-hooks.hooks.jsonl").open()]
    pre_compact, session_start, post_compact = (h["payload"] for h in hooks[1:])
    session = AgentSession(["claude"], cols=120, rows=40, cwd=str(tmp_path))
    config = RunConfig(argv=["claude"], workdir=tmp_path, profile_name="claude")
    supervision = Supervision(config, session)
    supervision.open()
    marker = _marker_line("claude")
    try:
        for number in (1, 2, 3):
            _hook(tmp_path, "PreCompact", pre_compact)
            answer = json.loads(_hook(tmp_path, "SessionStart", session_start))
            context = answer["hookSpecificOutput"]["additionalContext"]
            assert f"Context compacted (#{number}, manual), seen by hook" in context
            _hook(tmp_path, "PostCompact", post_compact)
            supervision.tick()  # the supervisor reads the hook calls...
            supervision.screen.note_input()  # the user typed /compact...
            session.process_output(b"\xe2\x9d\xaf /compact\r\n" + marker + b"\r\n\r\n")
            await asyncio.sleep(0.1)  # ...and the screen shows the marker (a deferred look)
            incidents = supervision.fusion.incidents
            assert [i.number for i in incidents] == list(range(1, number + 1))
            assert set(incidents[-1].sources) == {"hook", "screen"}
            assert incidents[-1].summary  # PostCompact's summary joined the same incident
    finally:
        supervision.close()
    events = [json.loads(line) for line in TetherDir.at(tmp_path).events.read_text().splitlines()]
    assert [e["number"] for e in events if e["kind"] == "incident"] == [1, 2, 3]
    auto = [e["incident"] for e in events if e["kind"] == "auto_rehydrate"]
    assert auto == [1, 2, 3]
