"""SIGHUP, SIGTERM and a terminal that hangs up without either end `tether run` cleanly."""

from __future__ import annotations

import os
import signal

import pytest

from supervisor.run.hangup import HUNG_UP, Ended, Hangups, hung_up


@pytest.fixture
def handlers():
    """The process's SIGHUP and SIGTERM handlers, put back after the test."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGHUP, signal.SIGTERM)}
    yield
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def test_a_terminal_whose_far_end_closed_reads_as_hung_up():
    master, slave = os.openpty()
    try:
        assert not hung_up([slave])
        os.close(master)
        master = -1
        assert hung_up([slave])
    finally:
        os.close(slave)
        if master >= 0:
            os.close(master)


def test_no_terminal_is_never_hung_up():
    assert not hung_up([])


@pytest.mark.parametrize(
    ("signum", "reason", "code"),
    [
        (signal.SIGHUP, "terminal closed (SIGHUP)", 129),
        (signal.SIGTERM, "terminated (SIGTERM)", 143),
    ],
)
def test_the_first_signal_raises_an_exit_that_runs_every_finally(handlers, signum, reason, code):
    hangups = Hangups()
    hangups.install()
    cleaned = []
    with pytest.raises(Ended) as ended:
        try:
            os.kill(os.getpid(), signum)  # its handler runs before the next line
            cleaned.append("not reached")
        finally:
            cleaned.append(True)
            os.kill(os.getpid(), signum)  # a second one, during the clean-up, is ignored
            cleaned.append("after")
    assert cleaned == [True, "after"]
    assert (ended.value.code, ended.value.reason, hangups.reason) == (code, reason, reason)


def test_a_sighup_ignored_at_start_stays_ignored_and_sigterm_is_still_caught(handlers):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    hangups = Hangups()
    hangups.install()
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    assert hangups.caught == (signal.SIGTERM,)
    assert hangups.reason is None


def test_a_terminal_gone_without_a_signal_is_told_once():
    master, slave = os.openpty()
    hangups = Hangups()
    hangups._terminals = [slave]
    try:
        assert hangups.terminal_gone() is None
        os.close(master)
        assert hangups.terminal_gone() == (HUNG_UP, 129)
        assert hangups.terminal_gone() is None  # the end is under way
        assert hangups.reason == HUNG_UP
    finally:
        os.close(slave)


def test_on_the_loop_the_first_signal_ends_the_app_once(handlers):
    import asyncio

    hangups = Hangups()
    hangups.install()
    ended: list[tuple[str, int]] = []

    async def main() -> None:
        hangups.on_loop(asyncio.get_running_loop(), lambda *why: ended.append(why))
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGHUP)  # during the clean-up: ignored
        for _ in range(100):  # bounded: a few turns of the loop
            if ended:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert ended == [("terminated (SIGTERM)", 143)]


def test_a_signal_that_came_as_the_app_started_ends_it_once_the_loop_runs(handlers):
    import asyncio

    hangups = Hangups()
    hangups.signum = signal.SIGHUP  # raised while the app started, and swallowed there
    ended: list[tuple[str, int]] = []

    async def main() -> None:
        hangups.on_loop(asyncio.get_running_loop(), lambda *why: ended.append(why))
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    asyncio.run(main())
    assert ended == [("terminal closed (SIGHUP)", 129)]
