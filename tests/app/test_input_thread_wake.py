"""The input thread waits for the terminal without a timeout: Textual's stop wakes it.

Textual stops its driver's input thread by setting ``exit_event`` and joining the
thread; tether's thread waits on the terminal and on that event's pipe, so the set
alone must wake a wait, and a clear must leave nothing behind for the next thread.
"""

from __future__ import annotations

import selectors
import threading

from supervisor.raw_input_driver import WakingEvent


def test_setting_the_event_wakes_a_thread_waiting_on_its_pipe() -> None:
    event = WakingEvent()
    woke = threading.Event()

    def wait() -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(event.fileno(), selectors.EVENT_READ)
            selector.select(None)  # no timeout: only the set can end this
        woke.set()

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    event.set()
    thread.join(timeout=30)
    assert woke.is_set() and event.is_set()
    event.close()


def test_a_cleared_event_leaves_its_pipe_empty_however_often_it_was_set() -> None:
    event = WakingEvent()
    for _ in range(100_000):  # more than a pipe holds: the extra sets do not block
        event.set()
    event.clear()
    with selectors.DefaultSelector() as selector:
        selector.register(event.fileno(), selectors.EVENT_READ)
        assert selector.select(0) == []
    assert not event.is_set()
    event.close()


def test_a_closed_event_still_works_as_a_flag() -> None:
    event = WakingEvent()
    event.close()
    event.set()
    assert event.is_set()
    event.clear()
    assert not event.is_set()
