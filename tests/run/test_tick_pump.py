"""The tick's reads: off the loop, one at a time, applied on the loop, failures told."""

from __future__ import annotations

import asyncio
import threading

from supervisor.run.tick_pump import TickPump
from tests.conftest import until


async def test_a_read_runs_off_the_loop_and_its_result_is_applied_on_it():
    loop_thread = threading.current_thread()
    read_on, applied = [], []

    def read():
        read_on.append(threading.current_thread())
        return len(read_on)

    def apply(value):
        applied.append((value, threading.current_thread()))

    pump = TickPump(read, apply, lambda error: None)
    try:
        assert pump.request()
        await until(lambda: applied, "the result")
        assert read_on[0] is not loop_thread and read_on[0].name.startswith("tether-tick")
        assert applied == [(1, loop_thread)] and not pump.busy
        assert pump.request()  # the next tick reads again, on the same thread
        await until(lambda: len(applied) == 2, "the second result")
        assert read_on[1] is read_on[0]
    finally:
        pump.close()


async def test_a_request_while_a_read_is_under_way_is_dropped():
    release = threading.Event()
    reads, applied = [], []

    def read():
        reads.append(1)
        release.wait(10)
        return "done"

    pump = TickPump(read, applied.append, lambda error: None)
    try:
        assert pump.request()
        await until(lambda: reads, "the read to start")
        assert not pump.request() and pump.busy  # never two reads at once
        release.set()
        await until(lambda: applied, "the result")
        assert reads == [1] and applied == ["done"]
    finally:
        pump.close()


async def test_a_failed_read_is_told_on_the_loop_not_lost():
    told = []

    def read():
        raise OSError(5, "Input/output error")

    pump = TickPump(read, lambda value: None, told.append)
    try:
        pump.request()
        await until(lambda: told, "the failure")
        assert isinstance(told[0], OSError) and not pump.busy
    finally:
        pump.close()


async def test_after_close_nothing_is_read_or_applied():
    release = threading.Event()
    applied = []

    def read():
        release.wait(10)
        return "late"

    pump = TickPump(read, applied.append, lambda error: None)
    pump.request()
    closing = asyncio.get_running_loop().run_in_executor(None, pump.close)  # waits for the read
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.wait_for(closing, 10)
    await asyncio.sleep(0.05)  # a callback already queued would run now
    assert applied == [] and pump.closed
    assert not pump.request()


async def test_the_result_is_applied_in_the_requesters_context():
    """Textual keeps the active app in a context variable: a timer set while applying
    (the injector's) must find it, as it did under a Textual worker."""
    import contextvars

    app = contextvars.ContextVar("app")
    seen = []

    async def requester():
        app.set("the app")
        pump.request()

    pump = TickPump(lambda: None, lambda value: seen.append(app.get(None)), lambda error: None)
    try:
        await asyncio.create_task(requester())
        await until(lambda: seen, "the result")
        assert seen == ["the app"]
    finally:
        pump.close()
