"""The engine side of a run, headless: lock, recording, exit checkpoint, unclean exit."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest

from supervisor.agents import hook_folders
from supervisor.errors import TetherError
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store import checkpoints, fsio
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.store_records import recent_events


async def run_to_exit(session: AgentSession, timeout: float = 15.0) -> None:
    session.start()
    deadline = asyncio.get_running_loop().time() + timeout
    while session.exit_status is None:
        assert asyncio.get_running_loop().time() < deadline, "the child never exited"
        await asyncio.sleep(0.02)


async def test_a_run_is_recorded_and_checkpointed_at_exit(tmp_path):
    argv = [sys.executable, "-c", "print('\\x1b[32mhello\\x1b[0m from the agent'); exit(4)"]
    config = RunConfig(argv=argv, workdir=tmp_path, profile_name="shell")
    session = AgentSession(argv, cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    supervision.start_recording()
    await run_to_exit(session)
    supervision.close()

    tether = TetherDir.at(tmp_path)
    cast = next(tether.sessions.glob("*-shell.cast"))
    lines = cast.read_text().splitlines()
    assert json.loads(lines[0])["version"] == 2
    output = "".join(json.loads(line)[2] for line in lines[1:] if json.loads(line)[1] == "o")
    assert "hello\x1b[0m from the agent" in output
    assert oct(cast.stat().st_mode & 0o777) == "0o600"
    assert "hello from the agent" in cast.with_suffix(".txt").read_text()
    last = checkpoints.load(tether, checkpoints.latest_seq(tether))
    assert "exited with code 4" in last.reason
    events, _ = recent_events(tether, 10)
    assert any(e["kind"] == "agent_exit" and e["code"] == 4 for e in events)


async def test_the_agents_hook_calls_are_answered_by_its_supervisor(tmp_path):
    hook = f"echo '{{\"n\": 7}}' | {sys.executable} -m supervisor.cli hook Stop --dir ."
    argv = ["sh", "-c", f"{hook}; echo hook-exit=$?"]
    config = RunConfig(argv=argv, workdir=tmp_path, profile_name="shell")
    session = AgentSession(argv, cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    socket_path = supervision.hook_server.path
    assert session.base_env["TETHER_HOOK_SOCKET"] == socket_path
    await run_to_exit(session)
    served = supervision.hook_server.served
    supervision.close()

    assert served == 1
    assert "hook-exit=0" in "\n".join(session.emulator.display())
    events, _ = recent_events(TetherDir.at(tmp_path), 10)
    assert [e["payload"] for e in events if e["kind"] == "hook"] == [{"n": 7}]
    assert supervision.hook_server is None and not os.path.exists(socket_path)


def test_a_second_tether_on_the_same_folder_is_refused(tmp_path):
    config = RunConfig(argv=["true"], workdir=tmp_path)
    first = Supervision(config, AgentSession(["true"], cwd=str(tmp_path)))
    first.open()
    try:
        holder = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from supervisor.run.supervision import *;"
                "from supervisor.terminal.session import *;"
                f"Supervision(RunConfig(argv=['true'], workdir={str(tmp_path)!r}),"
                " AgentSession(['true'])).open()",
            ],
            capture_output=True,
            text=True,
            cwd=os.getcwd(),
            check=False,
        )
        assert holder.returncode != 0
        assert f"pid {os.getpid()}" in holder.stderr
        with pytest.raises(TetherError, match="another tether"):
            Supervision(config, AgentSession(["true"])).open()
    finally:
        first.close()


def test_a_dead_supervisor_leaves_an_unclean_exit_incident(tmp_path):
    script = (
        "import os; from supervisor.run.supervision import *;"
        "from supervisor.terminal.session import *;"
        f"Supervision(RunConfig(argv=['true'], workdir={str(tmp_path)!r}),"
        " AgentSession(['true'])).open(); os._exit(9)"
    )
    temp = tmp_path / "tmp"  # where the dead one's hook socket folder is left
    temp.mkdir()
    subprocess.run([sys.executable, "-c", script], env=dict(os.environ, TMPDIR=str(temp)))
    assert hook_folders.sweep(str(temp)) == 1  # what the next start's sweep removes
    config = RunConfig(argv=["true"], workdir=tmp_path)
    supervision = Supervision(config, AgentSession(["true"]))
    supervision.open()
    supervision.close()
    events, _ = recent_events(TetherDir.at(tmp_path), 10)
    incident = next(e for e in events if e.get("kind") == "incident")
    assert incident["type"] == "unclean-exit"
    assert "died without a clean exit" in incident["message"] and incident["summary"] is None


def test_the_timer_checkpoints_only_when_the_state_changed(tmp_path):
    config = RunConfig(argv=["true"], workdir=tmp_path, checkpoint_every=10)
    supervision = Supervision(config, AgentSession(["true"]))
    supervision.open()
    tether = supervision.tether
    start = supervision._last_timer_checkpoint
    supervision.tick(start + 11)
    first = checkpoints.latest_seq(tether)
    assert first is not None
    supervision.tick(start + 22)
    assert checkpoints.latest_seq(tether) == first
    tether.add_note("done", "wrote the parser")
    supervision.tick(start + 33)
    assert checkpoints.latest_seq(tether) == first + 1
    assert checkpoints.load(tether, first + 1).reason.startswith("timer")
    supervision.close()


def opened_over_a_wrong_cursor(tmp_path, written: int, cursor: int):
    """A `.tether/` with artifacts 0..written-1 whose progress claims ``cursor``, opened by a
    supervision: it, the folder and the problems it reported."""
    init(tmp_path)
    tether = TetherDir.at(tmp_path)
    for index in range(written):
        fsio.append_jsonl(tether.artifacts, {"index": index})
    tether.set_progress(cursor=cursor)
    supervision = Supervision(RunConfig(argv=["true"], workdir=tmp_path), AgentSession(["true"]))
    problems: list[str] = []
    supervision.on_problem.append(problems.append)
    supervision.open()
    return supervision, tether, problems


def test_the_supervisor_rolls_a_wrong_cursor_to_the_disk_truth(tmp_path):
    supervision, tether, problems = opened_over_a_wrong_cursor(tmp_path, 380, cursor=381)
    assert tether.read_progress().cursor == 380
    assert "381" in problems[0] and "379" in problems[0]
    # The agent writes an artifact without moving the cursor: the next tick rolls forward.
    fsio.append_jsonl(tether.artifacts, {"index": 380})
    supervision.tick()
    assert tether.read_progress().cursor == 381
    events, _ = recent_events(tether, 20)
    fixes = [e for e in events if e["kind"] == "invariant-fix" and e["source"] == "supervisor"]
    assert [(e["from_cursor"], e["to_cursor"]) for e in fixes] == [(381, 380), (380, 381)]
    supervision.close()


async def test_decisions_the_agent_prints_or_the_user_types_are_pinned(tmp_path):
    from supervisor.store import notes

    script = "print('\\u23fa DECISION: store sessions in PostgreSQL 16, not SQLite'); input()"
    argv = [sys.executable, "-c", script]
    session = AgentSession(argv, cols=100, rows=20, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path), session)
    supervision.open()
    session.start()
    tether = supervision.tether
    await until(lambda: notes.pinned_decisions(tether.read_notes()), "the printed decision", 60)
    session.send_input(b"DECISION: tokens expire after 15 minutes\r")
    await until(
        lambda: len(notes.pinned_decisions(tether.read_notes())) == 2, "the typed decision", 60
    )
    assert notes.pinned_decisions(tether.read_notes()) == [
        "store sessions in PostgreSQL 16, not SQLite",
        "tokens expire after 15 minutes",
    ]
    supervision.stop_agent()
    supervision.close()


def _claude_supervision(tmp_path) -> tuple[AgentSession, Supervision]:
    """An opened supervision with the claude profile's markers; output is fed by hand."""
    config = RunConfig(argv=["claude"], workdir=tmp_path, profile_name="claude")
    session = AgentSession(["claude"], cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    return session, supervision


def _screen_scans(supervision: Supervision) -> list[float]:
    """Record when the screen detector is asked to look (it still looks)."""
    calls: list[float] = []
    scan = supervision.screen.scan

    def counting(*args, **kwargs):
        calls.append(supervision._monotonic())
        return scan(*args, **kwargs)

    supervision.screen.scan = counting
    return calls


async def test_a_burst_of_reads_is_scanned_once_and_its_marker_still_found(tmp_path):
    session, supervision = _claude_supervision(tmp_path)
    now = [100.0]
    supervision._monotonic = lambda: now[0]
    scans = _screen_scans(supervision)
    try:
        session.process_output(b"working on it\r\n")
        assert len(scans) == 1  # the first read of a quiet screen is looked at at once
        session.process_output(b"\xe2\x9c\xbb Conversation compacted (ctrl+o for history)\r\n")
        session.process_output(b"more output\r\n")
        assert len(scans) == 1 and supervision.current_incident is None  # held for 25 ms
        await asyncio.sleep(0.2)  # the deferred look runs on the loop
        assert len(scans) == 2
        assert supervision.current_incident is not None
        assert supervision.current_incident.kind == "compaction"
        now[0] += 1.0  # quiet for a second: the next read is looked at at once
        session.process_output(b"next\r\n")
        assert len(scans) == 3
    finally:
        supervision.close()


def test_without_an_event_loop_every_read_is_scanned(tmp_path):
    session, supervision = _claude_supervision(tmp_path)
    supervision._monotonic = lambda: 100.0
    scans = _screen_scans(supervision)
    try:
        for line in (b"one\r\n", b"two\r\n", b"three\r\n"):
            session.process_output(line)
        assert len(scans) == 3
    finally:
        supervision.close()


async def test_incident_checkpoints_ask_git_off_the_event_loop(tmp_path, monkeypatch):
    import threading

    asked_on: list[threading.Thread] = []
    answer = threading.Event()

    def slow_git(work_dir):
        asked_on.append(threading.current_thread())
        answer.wait(10)  # a big repository: git status takes its time
        return {"head": "abc123", "dirty": False}

    monkeypatch.setattr(checkpoints, "git_state", slow_git)
    session, supervision = _claude_supervision(tmp_path)
    tether = supervision.tether
    before = checkpoints.latest_seq(tether)
    try:
        session.process_output(b"\xe2\x9c\xbb Conversation compacted (ctrl+o for history)\r\n")
        # the incident opens once its number is claimed (off the loop), whatever git does
        await until(lambda: supervision.current_incident is not None, "the incident")
        assert checkpoints.latest_seq(tether) == before
        answer.set()
        await until(lambda: checkpoints.latest_seq(tether) != before, "the checkpoint", 60)
        snapshot = checkpoints.load(tether, checkpoints.latest_seq(tether))
        assert snapshot.reason.startswith("Context compacted (#1")
        assert snapshot.incident == 1 and snapshot.git == {"head": "abc123", "dirty": False}
        assert asked_on and asked_on[0] is not threading.main_thread()
    finally:
        answer.set()
        supervision.close()


async def test_close_writes_the_checkpoints_still_waiting_for_git(tmp_path, monkeypatch):
    import threading

    stuck = threading.Event()
    calls: list[str] = []

    def git(work_dir):
        if threading.current_thread() is not threading.main_thread():
            stuck.wait(10)  # the worker's answer comes too late
        calls.append(threading.current_thread().name)
        return None

    monkeypatch.setattr(checkpoints, "git_state", git)
    session, supervision = _claude_supervision(tmp_path)
    tether = supervision.tether
    before = checkpoints.latest_seq(tether) or 0
    session.process_output(b"\xe2\x9c\xbb Conversation compacted (ctrl+o for history)\r\n")
    supervision.close()
    stuck.set()
    await asyncio.sleep(0.1)  # the late answer must not write it twice
    assert checkpoints.latest_seq(tether) == before + 1
    assert checkpoints.load(tether, before + 1).reason.startswith("Context compacted (#1")


@pytest.fixture
def over_held_git(tmp_path, held_git) -> tuple[str, Supervision]:
    """A supervision of a one-commit repository whose git the test holds: HEAD and it."""
    work = tmp_path / "repo"
    head = held_git.repository(work)
    _session, supervision = _claude_supervision(work)
    return head, supervision


async def test_checkpoints_waiting_for_git_are_numbered_in_the_order_they_were_asked(
    held_git, over_held_git
):
    head, supervision = over_held_git
    tether = supervision.tether
    try:
        supervision.checkpoint("Agent crashed (#1)", incident=1)
        await until(lambda: held_git.calls() == 1, "git for the incident")
        supervision.checkpoint("agent exited with code 3")
        await until(lambda: held_git.calls() == 2, "git for the exit")
        held_git.release(2)  # the exit's git answers first...
        asked = supervision.checkpointer.asking
        await until(
            lambda: checkpoints.list_seqs(tether) or any(future.done() for future in asked),
            "the exit's answer",
        )
        await asyncio.sleep(0.05)
        assert checkpoints.list_seqs(tether) == []  # ...and waits for the incident's
        held_git.release(1)
        await until(lambda: len(checkpoints.list_seqs(tether)) == 2, "both checkpoints")
    finally:
        held_git.release()
        supervision.close()
    first, second = checkpoints.load(tether, 1), checkpoints.load(tether, 2)
    assert first.incident == 1 and second.reason == "agent exited with code 3"
    assert first.git == second.git == {"head": head, "dirty": False}


async def test_the_users_checkpoint_waits_for_git_off_the_loop_and_is_written_at_close(
    held_git, over_held_git
):
    head, supervision = over_held_git
    tether = supervision.tether
    heard: list = []
    supervision.checkpoint("manual (key)", then=heard.append)
    await until(lambda: held_git.calls() == 1, "git")  # the loop runs while git is held
    assert checkpoints.list_seqs(tether) == []
    held_git.release(2)  # close() asks git itself; the worker's call stays held
    supervision.close()
    assert checkpoints.list_seqs(tether) == [1]
    snapshot = checkpoints.load(tether, 1)
    assert snapshot.reason == "manual (key)" and snapshot.git == {"head": head, "dirty": False}
    assert heard == []  # whoever asked is closing too: no notification to give
    held_git.release(1)
    await asyncio.get_running_loop().shutdown_default_executor()  # the worker's late answer...
    await asyncio.sleep(0.05)
    assert checkpoints.list_seqs(tether) == [1] and heard == []  # ...writes nothing


async def test_the_users_checkpoint_tells_what_went_wrong(tmp_path):
    _session, supervision = _claude_supervision(tmp_path)
    heard: list = []
    try:
        supervision.tether.checkpoints.rmdir()
        supervision.tether.checkpoints.write_text("a file where the folder should be\n")
        supervision.checkpoint("manual (key)", then=heard.append)
        await until(lambda: heard, "the answer")
    finally:
        supervision.close()
    assert len(heard) == 1 and isinstance(heard[0], TetherError)
    assert supervision.problems == []  # told to the one who asked, not as a problem


def test_every_repair_and_gap_is_an_event_and_in_the_next_payload(tmp_path):
    supervision, tether, problems = opened_over_a_wrong_cursor(tmp_path, 4, cursor=7)
    try:
        assert tether.read_progress().cursor == 4
        fsio.append_jsonl(tether.artifacts, {"index": 5})  # index 4 never written: line 5
        supervision.tick()
        text = supervision.build_payload().text
    finally:
        supervision.close()
    events, _ = recent_events(tether, 50)
    (first, second) = [e for e in events if e["kind"] == "invariant-fix"]
    assert first["changes"] == ["progress.json: cursor 7 → 4"]
    assert "progress says cursor 7" in first["before"] and "cursor 4 matches" in first["after"]
    (gap,) = [e for e in events if e["kind"] == "artifacts-warning"]
    assert gap["warning"] == f"{tether.artifacts}:5: index 5 follows 3: index 4 is missing"
    assert gap["warning"] in problems
    assert "Repairs tether made on disk since the last recovery (disk won):" in text
    assert "progress.json: cursor 7 → 4 (was: progress says cursor 7" in text
    assert "progress.json: cursor 4 → 6" in text and "index 4 is missing" in text
    assert second["changes"] == ["progress.json: cursor 4 → 6"]


async def test_codexs_osc7501_state_reaches_the_agent_state(tmp_path):
    """A real child reporting its state the way Codex does (OSC 7501, split across writes):
    the supervision reads it from the terminal's pre-filter and reports busy, then waiting."""
    script = (
        "import sys, time\n"
        "w = sys.stdout.write\n"
        "w('\\x1b]7501;state=work'); sys.stdout.flush(); time.sleep(0.2)\n"
        "w('ing:app=codex\\x1b\\\\working...\\r\\n'); sys.stdout.flush(); time.sleep(0.5)\n"
        "w('\\x1b]7501;state=idle:app=codex\\x07> '); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"
    )
    argv = [sys.executable, "-c", script]
    session = AgentSession(argv, cols=80, rows=20, cwd=str(tmp_path))
    supervision = Supervision(RunConfig(argv=argv, workdir=tmp_path, profile_name="codex"), session)
    seen: list[str] = []
    supervision.on_state.append(seen.append)
    supervision.open()
    session.start()
    try:

        def waiting() -> bool:
            supervision.tick()
            return "waiting" in seen

        await until(waiting, "the agent waiting", 60)
        assert [s for s in seen if s != "unknown"][:2] == ["busy", "waiting"], seen
        assert session.emulator.agent_status == "state=idle:app=codex"
    finally:
        supervision.stop_agent()
        supervision.close()


def test_codex_asking_to_review_tethers_hooks_is_said_plainly(tmp_path):
    """Should a Codex version hash hooks differently, its review screen comes back: tether
    says what it is and what each answer does, instead of leaving it unexplained."""
    config = RunConfig(argv=["codex"], workdir=tmp_path, profile_name="codex")
    session = AgentSession(["codex"], cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    problems: list[str] = []
    supervision.on_problem.append(problems.append)
    supervision.open()
    try:
        session.process_output(b"\r\n  Hooks need review\r\n  5 hooks are new or changed.\r\n")
        assert len(problems) == 1 and "passes its own already trusted" in problems[0]
        session.process_output(b"  1. Review hooks\r\n")  # the same screen, redrawn
        assert len(problems) == 1
    finally:
        supervision.close()


def test_a_recording_stopped_by_a_file_size_limit_is_an_event_and_a_problem(tmp_path):
    """A full disk stopped the recording silently (recorder.error was never read). With
    RLIMIT_FSIZE for real, in a process of its own: the run goes on, the user is told,
    and events.jsonl (far from the limit) says when and why."""
    script = f"""
import asyncio, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.RLIM_INFINITY))
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.terminal.session import AgentSession
from tests.run.test_supervision import run_to_exit

async def main():
    argv = [sys.executable, "-c", "import sys; sys.stdout.write('z' * 600_000)"]
    config = RunConfig(argv=argv, workdir={str(tmp_path)!r}, profile_name="shell")
    session = AgentSession(argv, cols=80, rows=24, cwd={str(tmp_path)!r})
    supervision = Supervision(config, session)
    supervision.open()
    supervision.start_recording()
    await run_to_exit(session)
    supervision.close()
    print(supervision.problems)

asyncio.run(main())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "recording stopped: cannot write" in done.stdout and "File too large" in done.stdout
    tether = TetherDir.at(tmp_path)
    (failed,) = [e for e in recent_events(tether)[0] if e["kind"] == "recording_failed"]
    assert failed["file"].endswith(".cast") and failed["errno"] == 27


@pytest.mark.skipif(sys.platform != "linux", reason="the reader process runs on Linux")
async def test_a_stopped_reader_is_noticed_and_nothing_is_injected_while_output_stalls(tmp_path):
    """SIGSTOP on tether-reader froze the agent's output silently, the status said
    "waiting" while the agent was blocked mid-output, and an injection could fire."""
    from supervisor.rehydrate.injector import QUEUED
    from supervisor.run.input_gate import STALLED_REASON
    from supervisor.run.supervision import STALLED

    init(tmp_path, goal="g")
    printer = "import sys\nwhile True:\n    sys.stdout.write('agent output ' * 100 + '\\n')\n"
    argv = [sys.executable, "-c", printer]
    config = RunConfig(argv=argv, workdir=tmp_path, profile_name="shell")
    session = AgentSession(argv, cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    states: list[str] = []
    supervision.on_state.append(states.append)
    session.start()
    try:
        await until(lambda: session.host.reader is not None and session.bytes_read, "output")
        reader = session.host.reader
        os.kill(reader.pid, signal.SIGSTOP)
        try:
            await until(session.output_stalled, "the stall to be noticed")
            assert supervision.wait_reason() == STALLED_REASON
            # the screen has been still since the stop: the agent would look idle
            supervision.injector.is_waiting = lambda: True
            supervision.injector.confirm_into_shell()  # a shell profile: the user said yes
            assert supervision.injector.request("the payload", "test") == QUEUED
            supervision._report_state()
            assert states[-1] == STALLED and STALLED_REASON in supervision.problems
        finally:
            os.kill(reader.pid, signal.SIGCONT)
        await until(lambda: not session.output_stalled(), "the output to flow again")
    finally:
        session.stop()
        supervision.close()


@pytest.mark.parametrize("kind", ["folder", "fifo"])
async def test_a_hook_naming_a_folder_or_fifo_as_its_transcript_neither_ends_nor_blocks_tether(
    tmp_path, kind
):
    """A folder as transcript_path ended tether (and hung up on the agent); a FIFO blocked
    the tick's thread for ever. The tick now reads past it, and says why it is not followed."""
    import threading

    init(tmp_path, goal="g")
    transcript = tmp_path / "transcript.jsonl"
    transcript.mkdir() if kind == "folder" else os.mkfifo(transcript)
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    config = RunConfig(argv=argv, workdir=tmp_path, profile_name="claude", record=False)
    session = AgentSession(argv, cols=80, rows=24, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    session.start()
    try:
        payload = {"session_id": "s", "transcript_path": str(transcript)}
        TetherDir.at(tmp_path).record_event("hook", "hook", event="Stop", payload=payload)
        reads: list = []
        for turn in range(3):  # the hook's event, then the transcript it named, twice
            reader = threading.Thread(target=lambda: reads.append(supervision.read_tick()))
            reader.daemon = True
            reader.start()
            reader.join(30)
            assert not reader.is_alive(), "the tick's reads blocked"
            supervision.apply_tick(reads[turn])
        assert supervision.transcript.path == transcript
        refused = {"folder": "a folder, not a file", "fifo": "a named pipe, not a file"}
        assert supervision.transcript.refused == refused[kind]
        said = f"the agent's transcript file is {refused[kind]}: not followed"
        assert supervision.problems.count(said) == 1
        assert session.running
    finally:
        session.stop()
        supervision.close()
