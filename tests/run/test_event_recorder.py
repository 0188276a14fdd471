"""The supervisor's events are written off the event loop, in order, and all of them
before the run ends."""

from __future__ import annotations

import asyncio
import threading

from supervisor.run.event_recorder import EventRecorder
from supervisor.store.tether_dir import init
from tests.store_records import read_jsonl


async def test_events_are_appended_on_a_thread_of_their_own_in_the_order_recorded(tmp_path):
    tether = init(tmp_path).tether
    problems: list[str] = []
    recorder = EventRecorder(tether, problems.append)
    writers: set[str] = set()
    real = recorder._write

    def spy(*args: object) -> None:
        writers.add(threading.current_thread().name)
        real(*args)  # type: ignore[arg-type]

    recorder._write = spy  # type: ignore[method-assign]
    events = [recorder.record("agent_exit", "process", n=n) for n in range(20)]
    assert all(event["at"] for event in events)  # stamped when recorded
    recorder.close()
    on_disk = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "agent_exit"]
    assert [e["n"] for e in on_disk] == list(range(20))
    assert writers and threading.current_thread().name not in writers
    assert problems == []


def test_without_a_loop_an_event_is_on_disk_when_recorded(tmp_path):
    tether = init(tmp_path).tether
    recorder = EventRecorder(tether, lambda _problem: None)
    recorder.record("tether_ended", "supervisor", reason="quit")
    assert read_jsonl(tether.events)[0][-1]["reason"] == "quit"


async def test_a_write_that_fails_is_told_on_the_loop(tmp_path):
    tether = init(tmp_path).tether
    tether.events.unlink()
    tether.events.mkdir()  # no file can be appended there
    told: list[tuple[str, str]] = []
    recorder = EventRecorder(
        tether, lambda said: told.append((said, threading.current_thread().name))
    )
    recorder.record("agent_exit", "process", failure="agent exit not recorded")
    recorder.flush()
    for _ in range(100):
        if told:
            break
        await asyncio.sleep(0)
    recorder.close()
    assert told and told[0][0].startswith("agent exit not recorded: ")
    assert told[0][1] == threading.current_thread().name
