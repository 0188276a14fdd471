"""After a crash and a restart, the payload goes to the new process only once it waits.

The dead agent drew its prompt on the alternate screen with bracketed paste and mouse
tracking on, and was SIGKILLed. The restarted one is a slow starter, as a resumed
Claude Code is on a loaded machine: output that draws nothing, then partial frames
with pauses longer than the idle threshold, then its prompt. Both are real children
in a real PTY; the new one logs every byte it reads, with the phase it was in.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from supervisor.config.profiles import load_profile, parse_profile
from supervisor.recognize.agent_state import AgentState, StatusReports
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.run.restart import needs_cue
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.terminal.avt_emulator import AvtEmulator
from supervisor.terminal.session import AgentSession
from supervisor.times import iso
from tests.conftest import until
from tests.locations import CAPTURES
from tests.store_records import recent_events

IDLE = 0.6  # the test's idle threshold; the slow starter pauses longer than it

AGENT = r'''
import os, select, sys, time, tty

log, role = open(sys.argv[1], "a", buffering=1), sys.argv[2]
pause = float(sys.argv[3])
tty.setraw(0)
phase = "start"


def say(text):
    os.write(1, text.encode())


def pump(seconds):
    """Read (and log) the input for ``seconds``, then whatever is left of it."""
    end = time.monotonic() + seconds
    while True:
        left = max(0.0, end - time.monotonic())
        ready, _, _ = select.select([0], [], [], left)
        if ready:
            log.write(f"{phase}\t{os.read(0, 65536)!r}\n")
        elif left == 0:
            return


if role == "crasher":
    say("\x1b[?1049h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[2J\x1b[Hthe dead agent\r\n")
    say("READY> ")
    log.write("crasher\tdrew\n")
    pump(60)
elif role == "resumer":  # a resumed Gemini CLI: its prompt, hidden while it loads, again
    session_file = sys.argv[1] + ".session"
    with open(session_file, "a") as session:  # a fresh start's metadata (same file name)
        session.write('{"sessionId":"s1","startTime":"2026-12-02T01:33:35Z"}\n')
    phase = "first prompt"
    say("READY> ")
    pump(pause * 2)
    phase = "loading"
    say("\x1b[2J\x1b[HResuming session...\r\n")
    pump(pause * 2)
    with open(session_file, "a") as session:  # loading the resumed session appends this
        session.write('{"$set":{"sessionId":"s1"}}\n')
    pump(pause)
    phase = "prompt"
    say("\x1b[2J\x1b[Hthe resumed session\r\nREADY> ")
    pump(8)
else:
    pump(0.2)
    say("\x1b]0;slow starter\x07")  # output that draws nothing
    pump(pause * 2)
    for n in (1, 2):
        phase = f"frame {n}"
        say(f"loading {n}\r\n")
        pump(pause * 2)
    if role == "starter-bracketed":
        say("\x1b[?2004h")
    phase = "prompt"
    say("READY> ")
    pump(8)
'''

PROFILE = """
description = "a test agent"
command = {command}
resume_command = {resume}
submit_key = "\\r"
preamble = "Context check from the test."
integrations = {integrations}
[markers]
prompt_ready = {prompt}
"""


def make_supervision(
    tmp_path: Path, role: str, *, prompt: bool, integrations: str = "[]"
) -> Supervision:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    log = tmp_path / "agent.log"
    first = [sys.executable, str(script), str(log), "crasher", str(IDLE)]
    resume = [sys.executable, str(script), str(log), role, str(IDLE)]
    toml = PROFILE.format(
        command=str(first).replace("'", '"'),
        resume=str(resume).replace("'", '"'),
        prompt="['READY> ']" if prompt else "[]",
        integrations=integrations,
    )
    profile = parse_profile(toml, tmp_path / "test.toml")
    work = tmp_path / "work"
    work.mkdir()
    config = RunConfig(argv=first, workdir=work, profile_name="test", record=False)
    session = AgentSession(first, cols=60, rows=10, cwd=str(work))
    supervision = Supervision(config, session, profile=profile, state=AgentState(idle_after=IDLE))
    supervision.open()
    return supervision


def reads(tmp_path: Path) -> list[tuple[str, bytes]]:
    """What the restarted agent read, with the phase it was in."""
    lines = (tmp_path / "agent.log").read_text().splitlines()
    pairs = [line.split("\t", 1) for line in lines if not line.startswith("crasher")]
    return [(phase, ast.literal_eval(data)) for phase, data in pairs]


async def crash_and_restart(
    tmp_path: Path,
    supervision: Supervision,
    *,
    late_hook: bool = False,
) -> list[str]:
    """Kill the first agent, restart it, tick as the app does until the payload and its
    submit key arrive; return what the banner said meanwhile."""
    session = supervision.session
    session.start()
    await until(lambda: "READY>" in "\n".join(session.emulator.display()), "the first agent")
    os.kill(session.host.pid, signal.SIGKILL)
    await until(lambda: session.exit_status is not None, "the crash")
    supervision.restart()
    lock_file = supervision.tether.lock  # names the new agent, written off the loop

    def lock_names_it() -> bool:  # rewritten in place: a look mid-write finds it empty
        text = lock_file.read_text()
        return bool(text) and json.loads(text).get("agent_pid") == session.host.pid

    await until(lock_names_it, "the lock to name the restarted agent")
    if late_hook:  # the dead agent's Stop hook, recorded before the restart, read after it
        before = iso(time.time() - 1)
        line = {"at": before, "kind": "hook", "source": "hook", "event": "Stop", "payload": {}}
        fsio.append_jsonl(supervision.tether.events, line)
    said: list[str] = []

    def arrived() -> bool:
        supervision.tick()
        status = supervision.injector.status().describe()
        if not said or said[-1] != status:
            said.append(status)
        return any(data.endswith(b"\r") for _, data in reads(tmp_path))

    try:
        await until(arrived, "the payload in the restarted agent", timeout=20, pause=_tick)
    finally:
        supervision.stop_agent()
        supervision.close()
    return said


async def _tick(seconds: float) -> None:
    await asyncio.sleep(0.1)


@pytest.mark.parametrize(
    ("role", "late_hook"),
    [("starter", False), ("starter-bracketed", False), ("starter", True)],
)
async def test_the_payload_waits_for_the_restarted_agents_own_prompt_and_paste_mode(
    tmp_path, role, late_hook
):
    supervision = make_supervision(tmp_path, role, prompt=True)
    said = await crash_and_restart(tmp_path, supervision, late_hook=late_hook)

    got = reads(tmp_path)
    assert {phase for phase, _ in got} == {"prompt"}, got  # nothing before its prompt
    pasted = b"".join(data for _, data in got)
    assert b"Context check from the test." in pasted
    if role == "starter-bracketed":  # the new process asked for bracketed paste itself
        assert pasted.startswith(b"\x1b[200~") and b"\x1b[201~" in pasted
    else:  # the dead one had it on; the new one never asked
        assert b"\x1b[200~" not in pasted
    injection = next(
        e
        for e in recent_events(TetherDir.at(tmp_path / "work"), 50)[0][::-1]
        if e["kind"] == "injection"
    )
    assert injection["bracketed"] is (role == "starter-bracketed")
    # The banner said truly what the payload waited for, in order.
    queued = [text for text in said if text.startswith("Payload queued")]
    assert queued[0].endswith(
        "the restarted agent has not drawn its screen yet; it is sent once it shows that it waits"
    )
    cue = "waiting for the restarted agent to show that it waits for input (its prompt on screen)"
    assert any(text.endswith(cue) for text in queued), said


async def test_without_cues_the_payload_waits_for_the_first_frame_and_then_silence(tmp_path):
    supervision = make_supervision(tmp_path, "starter", prompt=False)
    said = await crash_and_restart(tmp_path, supervision)

    got = reads(tmp_path)
    assert got and got[0][0] == "frame 1", got  # not in the silence before the first frame
    assert b"Context check from the test." in b"".join(data for _, data in got)
    queued = [text for text in said if text.startswith("Payload queued")]
    assert queued[0].endswith(
        "the restarted agent has not drawn its screen yet; it is sent once it shows that it waits"
    )
    assert any("output to pause for 0.6 s" in text for text in queued), said


async def test_a_prompt_drawn_before_the_resumed_session_loads_takes_no_paste(tmp_path):
    """Gemini CLI's shape: the resumed process draws its prompt, hides it while it loads the
    session (keys then go nowhere), and draws it again. Its fresh start writes metadata
    to the session file its turn hooks named (the same name in the same minute), loading
    appends the load mark. Nothing is typed before that mark and the prompt after it."""
    supervision = make_supervision(
        tmp_path, "resumer", prompt=True, integrations='["gemini_hooks"]'
    )
    session_file = tmp_path / "agent.log.session"
    session_file.write_text('{"sessionId":"s1"}\n{"id":"m1","type":"user"}\n')
    payload = {"transcript_path": str(session_file), "hook_event_name": "AfterAgent"}
    turn = {"at": iso(time.time()), "kind": "hook", "source": "hook", "event": "AfterAgent"}
    supervision.inbox.heard({**turn, "payload": payload})
    supervision.inbox.drain()

    said = await crash_and_restart(tmp_path, supervision)

    got = reads(tmp_path)
    assert {phase for phase, _ in got} == {"prompt"}, got  # not on the first prompt
    assert b"Context check from the test." in b"".join(data for _, data in got)
    loading = "waiting for the restarted agent to load the session it resumes"
    assert any(loading in text for text in said), said


def _reads(name: str) -> list[tuple[float, bytes]]:
    meta = json.loads((CAPTURES / f"{name}.events.json").read_text())
    raw = (CAPTURES / f"{name}.raw").read_bytes()
    return [(t, raw[at : at + n]) for t, at, n in meta["read_chunks"]["list"]]


@pytest.mark.parametrize(
    ("crash", "resume", "profile_name"),
    [("cc332-crash", "cc332-resume", "claude"), ("cx171-crash", "cx171-resume", "codex")],
)
def test_the_real_resumed_agents_are_ready_only_after_drawing_their_own_prompt(
    crash, resume, profile_name
):
    """The captured crash (killed on the alternate screen, mid-turn) and resume of Claude
    Code 2.1.332 and Codex 0.171.0, composed as the supervisor composes them: waiting for
    the new process's own cue never hangs on a real agent; each draws its prompt and is
    ready within a second of it, never before."""
    profile = load_profile(profile_name)
    emulator = AvtEmulator(120, 40)
    for _, data in _reads(crash):
        emulator.feed(data)
    emulator.process_ended()
    emulator.new_page()
    emulator.take_dirty()
    screen, reports = ScreenDetector(profile.markers, replaying=True), StatusReports()
    state = AgentState()
    state.restart(needs_cue=needs_cue(profile))
    assert state.needs_cue
    prompt_at = ready_at = None
    chunks = _reads(resume)
    ends = [t for t, _ in chunks[1:]] + [chunks[-1][0] + 5]  # each read's silence ends
    for (t, data), later in zip(chunks, ends, strict=True):
        emulator.feed(data)
        dirty = emulator.take_dirty()
        state.note_output(t, drew=bool(dirty))
        for observation in screen.scan(emulator, t, dirty) + reports.read(emulator.agent_status, t):
            state.observe(observation)
        if prompt_at is None and screen.visible("prompt_ready"):
            prompt_at = t
        look = min(t + 0.45, later - 0.001)  # past the quiet window, or before the next read
        if ready_at is None and state.ready_for_input(look):
            ready_at = look
    assert prompt_at is not None and ready_at is not None
    assert prompt_at <= ready_at <= prompt_at + 1.0, (prompt_at, ready_at)
