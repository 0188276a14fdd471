"""A loss's incident is numbered off the event loop, and nothing is lost or reordered.

The number is claimed under the store's lock (a locked, fsynced append to
events.jsonl) on the event recorder's thread; the incident opens on the loop when
the claim is done, and what was observed meanwhile follows it in order. An audit
hook counts the files the loop's thread opens under `.tether/` meanwhile: none.
"""

from __future__ import annotations

import os
import sys
import threading

from supervisor.recognize.observations import COMPACTION, SCREEN, TRANSCRIPT, Observation
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import init
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
