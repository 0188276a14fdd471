"""A shutdown that does not end by itself is ended: the engine's clean-up, then the process
with the exit code of the first reason to end; one that ends in time is left alone."""

from __future__ import annotations

import threading

from supervisor.run.hangup import ShutdownDeadline


def test_an_expired_deadline_cleans_up_then_ends_with_the_first_code():
    ended = threading.Event()
    said: list[object] = []
    deadline = ShutdownDeadline(
        lambda: said.append("finished"),
        grace=0.0,
        end_process=lambda code: (said.append(code), ended.set()),
    )
    deadline.arm(143)
    deadline.arm(0)  # a quit after the signal: the signal's code stands
    assert ended.wait(30)
    assert said == ["finished", 143]


def test_a_failing_clean_up_still_ends_the_process():
    ended = threading.Event()
    codes: list[int] = []

    def broken() -> None:
        raise RuntimeError("stuck")

    deadline = ShutdownDeadline(
        broken, grace=0.0, end_process=lambda code: (codes.append(code), ended.set())
    )
    deadline.arm(129)
    assert ended.wait(30) and codes == [129]


def test_a_disarmed_deadline_does_nothing():
    fired = threading.Event()
    deadline = ShutdownDeadline(fired.set, grace=3600.0, end_process=lambda code: fired.set())
    deadline.arm(0)
    assert deadline.armed
    deadline.disarm()
    assert not deadline.armed and not fired.is_set()
