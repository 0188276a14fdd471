"""What the loop uses of notes.md, the tick reads off it: notes.md can be megabytes.

The loss audit, the re-send of what a recall missed and the instructions of a
compaction all use notes.md; an audit hook counts the opens of notes.md on the
loop's thread while they run: none, yet each sees a pin made since start-up.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading

from supervisor.recognize.observations import COMPACTION, Observation
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.rehydrate.test_injector import Probe
from tests.rehydrate.test_injector_off_loop import HeldStore, big_tether

__all__ = ["big_tether"]  # a fixture, used by name

PINS = [
    "tokens live in Redis with a 15 minute TTL because the mobile client cannot keep them",
    "sessions expire after 30 minutes idle because the kiosks are shared",
]
LATER = "the audit log is append-only in Postgres because auditors replay it"
_WATCHED: list[NotesOpens] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and threading.current_thread() is threading.main_thread():
        path = args[0]
        if isinstance(path, str | bytes | os.PathLike):
            for watch in _WATCHED:
                if os.fsdecode(path) == watch.path:
                    watch.opens += 1


sys.addaudithook(_audit)


class NotesOpens:
    """Counts the opens of ``path`` on the main thread (the event loop's) while entered."""

    def __init__(self, path: os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.opens = 0

    def __enter__(self) -> NotesOpens:
        _WATCHED.append(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        _WATCHED.remove(self)


def test_the_counter_sees_a_read_of_notes_on_this_thread(tmp_path):
    tether = init(tmp_path, goal="count to 400").tether
    with NotesOpens(tether.notes) as opens:
        tether.read_notes()
    assert opens.opens == 1  # else the test below could not fail


async def test_audit_resend_and_compaction_use_the_notes_the_tick_read_off_the_loop(tmp_path):
    tether = init(tmp_path, goal="ship the login endpoint").tether
    tether.add_decisions(PINS, "test")
    config = RunConfig(argv=["claude"], workdir=tmp_path, profile_name="claude")
    supervision = Supervision(config, AgentSession(["claude"], cwd=str(tmp_path)))
    supervision.open()
    try:
        TetherDir.at(tmp_path).add_decisions([LATER], "cli")  # `tether note` from the agent
        reads = await asyncio.to_thread(supervision.read_tick)
        summary = "Tokens are in Redis with a 15 minute TTL; the mobile client cannot keep them."
        with NotesOpens(tether.notes) as opens:
            supervision.apply_tick(reads)
            supervision.observe(Observation(COMPACTION, "transcript", 1.0, "auto", summary))
            await until(lambda: supervision.current_incident is not None, "the incident")
            incident = supervision.current_incident
            assert incident is not None and incident.audit is not None
            lost = [loss.decision for loss in incident.audit.lost]
            assert lost == [PINS[1], LATER]  # the later pin is audited too
            assert supervision.compact_now() == "queued"  # the agent is not waiting
            injector = supervision.injector
            injector.track_external({"kind": "auto_rehydrate", "at": "x"}, incident=1)
            partial = {"incident": 1, "injection_at": "x", "pinned": 3, "restated": [1, 2]}
            partial |= {"missing": [{"decision": 3, "terms": ["Postgres"]}], "result": "partial"}
            assert injector.acknowledge(injector.last, partial)
            assert supervision.rehydrate() == "queued"
            compact, resend = injector.queue
        assert opens.opens == 0
    finally:
        supervision.close()
    assert LATER in compact.text and compact.text.startswith("/compact ")
    assert resend.reason == "resend-missing" and f"3. {LATER}" in resend.text


async def test_a_pin_rewrites_notes_off_the_loop_and_is_heard_on_it(big_tether):
    tether = big_tether
    config = RunConfig(argv=["claude"], workdir=tether.work_dir, profile_name="claude")
    supervision = Supervision(config, AgentSession(["claude"], cwd=str(tether.work_dir)))
    supervision.open()
    heard: list = []
    held = HeldStore(tether)  # as 4 MB of notes being rewritten (1.8 s at 50 MB)
    probe = Probe()
    try:
        supervision.pin([LATER], "pinned from the audit", then=heard.append)
        await until(lambda: supervision.checkpointer.writing == 1, "the pin's write")
        await probe.fires()  # the loop turns while the pin waits for the lock
        assert heard == [] and not held.gave_up
        held.release()
        await until(lambda: heard, "the pin")
    finally:
        held.release()
        probe.stop()
        supervision.close()
    assert heard == [[LATER]] and not held.gave_up
    assert LATER in supervision.notes.pinned and LATER in tether.read_notes()
