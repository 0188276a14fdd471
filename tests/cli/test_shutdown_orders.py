"""However `tether run` is told to end, and in whatever order, it ends: a quit, a closed
terminal (SIGHUP, the terminal's writes failing) and a `kill` (SIGTERM), one after the
other as they come in real life, and a shutdown that Textual itself cannot finish.

A real `tether run -- sh` in a real PTY; a spy in its process makes the moves on the
app's loop once the agent has drawn, back to back. Each way, the process ends, the agent
is hung up on, the lock is emptied, the hook socket's folder is gone, and events.jsonl's
last word is `tether_ended` with the first reason to end.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.locations import REPO
from tests.tether_process import run_in_a_terminal

SPY = r"""
import os, signal, sys, threading

import supervisor.run.hangup as hangup
from supervisor.app import TetherApp

hangup.SHUTDOWN_GRACE_SECONDS = 2.0  # the stuck shutdown's countdown, shortened for the test
MOVES = os.environ["SPY_MOVES"].split(",")
mounted = TetherApp.on_mount


def lose_the_terminal():
    # As a closed window does to its writes: every write to the terminal now fails.
    read, write = os.pipe()
    os.close(read)
    for fd in (1, 2):
        os.dup2(write, fd)


def stick_the_shutdown(app):
    # As Textual's shutdown hung on a lost terminal (its writer's queue.put): for ever.
    driver_class = app.driver_class
    def stuck(*args, **kwargs):
        threading.Event().wait()
    for name in ("stop_application_mode", "disable_input"):
        if hasattr(driver_class, name):
            setattr(driver_class, name, stuck)
    import textual.drivers.linux_driver as linux
    linux.LinuxDriver.stop_application_mode = stuck


def move(app, what):
    if what == "quit":
        app.exit(0)
    elif what == "lost":
        lose_the_terminal()
    elif what == "stuck":
        stick_the_shutdown(app)
    else:
        os.kill(os.getpid(), getattr(signal, what))


def watch(app):
    if "ready" in "\n".join(app.session.emulator.display()):
        for what in MOVES:
            move(app, what)
    else:
        app.set_timer(0.05, lambda: watch(app))


def on_mount(self):
    mounted(self)
    with open(os.environ["SPY_AGENT"], "w") as f:
        f.write(str(self.session.host.pid))
    self.call_after_refresh(lambda: watch(self))


TetherApp.on_mount = on_mount
from supervisor.cli import main

sys.exit(main(["run", "--", "sh", "-c", "printf ready; sleep 60"]))
"""

SIGHUP_REASON = "terminal closed (SIGHUP)"
SIGTERM_REASON = "terminated (SIGTERM)"


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.parametrize(
    ("moves", "reason", "code"),
    [
        (["SIGHUP"], SIGHUP_REASON, 128 + signal.SIGHUP),
        (["lost", "SIGHUP"], SIGHUP_REASON, 128 + signal.SIGHUP),
        (["quit", "SIGHUP"], "quit", 0),
        (["quit", "lost", "SIGHUP"], "quit", 0),
        (["SIGTERM", "SIGHUP"], SIGTERM_REASON, 128 + signal.SIGTERM),
        (["SIGHUP", "SIGTERM"], SIGHUP_REASON, 128 + signal.SIGHUP),
        (["quit", "SIGTERM"], "quit", 0),
        (["stuck", "SIGTERM"], SIGTERM_REASON, 128 + signal.SIGTERM),
        (["stuck", "lost", "SIGHUP"], SIGHUP_REASON, 128 + signal.SIGHUP),
    ],
    ids=lambda value: "-".join(value) if isinstance(value, list) else None,
)
def test_every_order_of_quit_hangup_and_signal_ends_the_run_cleanly(tmp_path, moves, reason, code):
    work = tmp_path / "work"
    work.mkdir()
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "SPY_AGENT": str(tmp_path / "agent-pid"),
        "SPY_MOVES": ",".join(moves),
        "TETHER_CONFIG_DIR": str(tmp_path / "config"),
        "TMPDIR": str(temp),
        "COLUMNS": "120",
        "LINES": "40",
        "PYTHONPATH": str(REPO),
    }
    ended, shown = run_in_a_terminal(SPY, work, env)  # it returns: the process ended
    agent = int((tmp_path / "agent-pid").read_text())
    assert ended == code, shown[-3000:]
    assert gone(agent)
    assert (work / ".tether" / "lock").read_text() == ""
    assert list(temp.iterdir()) == []
    lines = (work / ".tether" / "events.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    assert (last["kind"], last["reason"]) == ("tether_ended", reason)
