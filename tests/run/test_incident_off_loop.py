"""A loss's incident is numbered off the event loop, and nothing is lost or reordered;
the session recording and the screen dump are written off the loop too.

The number is claimed under the store's lock (a locked, fsynced append to
events.jsonl) on the event recorder's thread; the incident opens on the loop when
the claim is done, and what was observed meanwhile follows it in order. An audit
hook counts the files the loop's thread opens under `.tether/` meanwhile: none.
``os.write`` has no audit event: the recording's writes are watched through the
write function it is given.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import sys
import threading
import time

from supervisor.recognize.observations import COMPACTION, SCREEN, TRANSCRIPT, Observation
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import init
from supervisor.terminal.recorder import RecordingFailed, SessionRecorder
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.store_records import read_jsonl

_WATCHED: list[LoopOpens] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and threading.current_thread() is threading.main_thread():
        path = args[0]
        if isinstance(path, str | bytes | os.PathLike):
            for watch in _WATCHED:
                if os.fsdecode(path).startswith(watch.folder):
                    watch.paths.append(os.fsdecode(path))


sys.addaudithook(_audit)


class LoopOpens:
    """The files under ``folder`` opened on the main thread (the loop's) while entered."""

    def __init__(self, folder: os.PathLike[str]) -> None:
        self.folder = os.fspath(folder)
        self.paths: list[str] = []

    def __enter__(self) -> LoopOpens:
        _WATCHED.append(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        _WATCHED.remove(self)


def test_the_counter_sees_an_open_on_this_thread(tmp_path):
    tether = init(tmp_path, goal="count to 400").tether
    with LoopOpens(tether.root) as opens:
        tether.record_event("test", "test")
    assert opens.paths  # else the test below could not fail


async def test_a_loss_is_numbered_off_the_loop_and_what_came_meanwhile_follows_in_order(
    tmp_path,
):
    tether = init(tmp_path, goal="ship the login endpoint").tether
    config = RunConfig(argv=[sys.executable], workdir=tmp_path, record=False)
    supervision = Supervision(config, AgentSession([sys.executable], cwd=str(tmp_path)))
    supervision.open()
    heard: list[tuple[int, bool, tuple[str, ...]]] = []
    supervision.on_incident.append(
        lambda change: heard.append(
            (change.incident.number, change.new, tuple(change.incident.sources))
        )
    )
    try:
        with LoopOpens(tether.root) as opens:
            supervision.observe(Observation(COMPACTION, TRANSCRIPT, 10.0, "auto"))
            supervision.observe(Observation(COMPACTION, SCREEN, 10.5))  # the same loss
            assert supervision.current_incident is None  # its number is being claimed
            await until(lambda: len(heard) == 2, "the incident, then its second sighting")
        assert opens.paths == []
        assert heard == [(1, True, ("transcript",)), (1, False, ("transcript", "screen"))]
    finally:
        supervision.close()
    records = read_jsonl(tether.events)[0]
    (incident,) = [r for r in records if r["kind"] == "incident"]
    assert incident["number"] == 1 and incident["source"] == "fusion"


async def test_a_loss_the_hook_recorded_first_keeps_the_hooks_number(tmp_path):
    tether = init(tmp_path, goal="ship the login endpoint").tether
    config = RunConfig(argv=[sys.executable], workdir=tmp_path, record=False)
    supervision = Supervision(config, AgentSession([sys.executable], cwd=str(tmp_path)))
    supervision.open()
    try:
        now = time.time()
        # `tether hook` (SessionStart compact, its own process) claimed it a moment before
        event, new = tether.claim_incident("compaction", "hook", at=now, within=10.0)
        assert new and event["number"] == 1
        supervision.observe(Observation(COMPACTION, TRANSCRIPT, now + 0.5, "auto"))
        await until(lambda: supervision.current_incident is not None, "the incident")
        assert supervision.current_incident.number == 1
    finally:
        supervision.close()
    records = read_jsonl(tether.events)[0]
    assert [r["number"] for r in records if r["kind"] == "incident"] == [1]  # one, the hook's
    assert any(r["kind"] == "incident_update" and r["number"] == 1 for r in records)


class Writes:
    """A recording's ``write``: the real ``os.write``, noting the thread of each call;
    ``fail_after`` calls it raises ENOSPC (a full disk)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.threads: list[int] = []
        self.fail_after = fail_after

    def __call__(self, fd: int, data: memoryview) -> int:
        self.threads.append(threading.get_ident())
        if self.fail_after is not None and len(self.threads) > self.fail_after:
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)


async def test_the_recording_is_fed_on_the_loop_and_written_on_its_own_thread(tmp_path):
    tether = init(tmp_path, goal="ship the login endpoint").tether
    writes = Writes()
    loop_thread = threading.get_ident()
    with LoopOpens(tether.root) as opens:
        recorder = SessionRecorder(tether.sessions, "claude", 80, 24, write=writes)
        for n in range(200):  # more than one batch: FLUSH_CHARS, then the tick's flush
            recorder.record(f"line {n} \u2713 ".encode() * 60 + b"\r\n")
            await asyncio.sleep(0)
        recorder.scrolled_off(["scrolled off"])
        recorder.flush()  # what the tick does
        recorder.close(["the final screen"])  # waits for the writer thread: nothing lost
    assert opens.paths == []
    assert writes.threads and loop_thread not in writes.threads
    assert len(set(writes.threads)) == 1  # one writer thread, so the order holds
    header, *events = [json.loads(line) for line in recorder.cast_path.read_text().splitlines()]
    assert header["version"] == 2
    text = "".join(e[2] for e in events if e[1] == "o")
    assert text == "".join(f"line {n} \u2713 " * 60 + "\r\n" for n in range(200))
    assert recorder.txt_path.read_text() == (
        "scrolled off\n--- final screen ---\nthe final screen\n"
    )


async def test_a_full_disk_is_met_on_the_writer_thread_and_told_on_the_loop(tmp_path):
    tether = init(tmp_path, goal="ship the login endpoint").tether
    writes = Writes(fail_after=1)  # the header goes in, the first output does not
    told: list[tuple[RecordingFailed, int]] = []
    recorder = SessionRecorder(
        tether.sessions,
        "claude",
        80,
        24,
        write=writes,
        on_failure=lambda failure: told.append((failure, threading.get_ident())),
    )
    recorder.record(b"x" * 70_000)  # past FLUSH_CHARS: handed over at once
    await until(lambda: recorder.failure is not None, "the writer to meet the full disk")
    assert told == []  # not on the writer's thread: at the loop's next flush
    recorder.flush()
    recorder.record(b"lost")
    recorder.close()
    ((failure, thread),) = told
    assert thread == threading.get_ident() and writes.threads[1] != thread
    assert failure.reason == "No space left on device" and failure.path == recorder.cast_path
    assert recorder.error == failure.message


async def test_the_screen_dump_is_taken_on_the_loop_and_written_by_the_tick_s_read(
    tmp_path, monkeypatch
):
    dump = tmp_path / "dump" / "screen.txt"
    dump.parent.mkdir()
    monkeypatch.setenv("TETHER_SCREEN_DUMP", str(dump))
    init(tmp_path, goal="ship the login endpoint")
    config = RunConfig(argv=[sys.executable], workdir=tmp_path, record=False)
    session = AgentSession([sys.executable], cols=40, rows=5, cwd=str(tmp_path))
    supervision = Supervision(config, session)
    supervision.open()
    try:
        with LoopOpens(dump.parent) as opens:
            session.process_output(b"hello dump\r\n")
            for _ in range(2):  # the first apply takes the text, the next read writes it
                supervision.apply_tick(await asyncio.to_thread(supervision.read_tick))
        assert opens.paths == []
        assert dump.read_text().split("\n")[0].rstrip() == "hello dump"
    finally:
        supervision.close()
