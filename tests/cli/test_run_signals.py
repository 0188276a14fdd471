"""A signal that reaches `tether run` before its UI is up still ends it cleanly.

A real `tether run -- CMD` in a real PTY; a spy in its process sends the process the
signal as soon as the agent is spawned and the early painter paints it (at the start of
``build_config``, before the engine has loaded), or once the engine has the agent
(after ``start_early``, while the UI loads): deterministic points, no race. The run
must then hang up on the agent, empty the lock, remove the hook socket's folder and say
in events.jsonl why it ended, and exit as a signalled command does (128 + N).
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
import os, signal, sys
import supervisor.cli.run as run

build_config, spawn_ahead = run.build_config, run._spawn_ahead


def spawned(*args):
    ahead = spawn_ahead(*args)
    with open(os.environ["SPY_AGENT"], "w") as f:
        f.write(str(ahead.session.host.pid))
    return ahead


def signalled(*args):
    os.kill(os.getpid(), int(os.environ["SPY_SIGNAL"]))
    return build_config(*args)


def started(*args):
    early = start_early(*args)
    os.kill(os.getpid(), int(os.environ["SPY_SIGNAL"]))
    return early


if os.environ["SPY_WHEN"] == "before the engine":
    run.build_config = signalled
else:  # the engine is up, the UI loads
    import supervisor.run.launch as launch

    start_early, launch.start_early = launch.start_early, started
run._spawn_ahead = spawned
from supervisor.cli import main

sys.exit(main(["run", "--", "sh", "-c", "printf ready; sleep 60"]))
"""


def run_signalled(work: Path, tmp_path: Path, signum: int, when: str) -> tuple[int, int]:
    """(its exit code, the agent's pid)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "SPY_AGENT": str(tmp_path / "agent-pid"),
        "SPY_SIGNAL": str(int(signum)),
        "SPY_WHEN": when,
        "TETHER_CONFIG_DIR": str(tmp_path / "config"),
        "TMPDIR": str(temp),
        "COLUMNS": "120",
        "LINES": "40",
        "PYTHONPATH": str(REPO),
    }
    env.pop("TETHER_EARLY_START", None)
    code, _shown = run_in_a_terminal(SPY, work, env)
    return code, int((tmp_path / "agent-pid").read_text())


def agent_gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.parametrize(
    ("signum", "reason"),
    [(signal.SIGHUP, "terminal closed (SIGHUP)"), (signal.SIGTERM, "terminated (SIGTERM)")],
)
@pytest.mark.parametrize("when", ["before the engine", "while the UI loads"])
def test_a_signal_before_the_ui_is_up_ends_the_run_cleanly(tmp_path, signum, reason, when):
    work = tmp_path / "work"
    work.mkdir()
    code, agent = run_signalled(work, tmp_path, signum, when)
    assert code == 128 + signum
    assert agent_gone(agent)
    assert (work / ".tether" / "lock").read_text() == ""
    assert list((tmp_path / "tmp").iterdir()) == []
    events = [json.loads(x) for x in (work / ".tether" / "events.jsonl").read_text().splitlines()]
    assert (events[-1]["kind"], events[-1]["reason"]) == ("tether_ended", reason)
