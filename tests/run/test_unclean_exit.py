"""A tether killed with SIGKILL: the next start says when it ran, finds its orphaned agent,
and audits no summary that nobody gave."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from supervisor.agents import hook_folders
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.lock import process_start
from supervisor.store.tether_dir import TetherDir, init
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.locations import REPO
from tests.tether_process import run_tether

# An agent that ignores SIGHUP: it outlives the PTY its supervisor held.
STUBBORN = "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); time.sleep(120)"

DOOMED = """
import os, sys, time
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.terminal.session import AgentSession
argv = [sys.executable, "-c", {stubborn!r}]
supervision = Supervision(RunConfig(argv=argv, workdir={work!r}), AgentSession(argv))
supervision.open()
supervision.session.spawn()
supervision.start_recording()
print(supervision.session.host.pid, flush=True)
time.sleep(0.3)
os.kill(os.getpid(), 9)
"""


@pytest.fixture
def dead_tether(tmp_path):
    """A folder whose tether was killed with SIGKILL, and the pid of its surviving agent."""
    init(tmp_path, goal="serve the API")
    TetherDir.at(tmp_path).add_decisions(["the API listens on 8443, admin on 7443"], "test")
    script = DOOMED.format(stubborn=STUBBORN, work=str(tmp_path))
    temp = tmp_path / "tmp"  # where its hook socket's folder is left
    temp.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, TMPDIR=str(temp)),
        timeout=30,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    # Killed outright, it could not remove its hook folder; a next start sweeps it.
    assert len(hook_folders.stale_folders(str(temp))) == 1
    assert hook_folders.sweep(str(temp)) == 1
    agent = int(done.stdout.split()[0])
    start = process_start(agent)
    yield tmp_path, agent
    if process_start(agent) == start:
        os.kill(agent, signal.SIGKILL)


async def test_the_next_start_says_when_the_dead_tether_ran_and_that_its_agent_still_runs(
    dead_tether,
):
    work, agent = dead_tether
    assert process_start(agent) is not None  # it ignored the hang-up
    before = time.time()
    supervision = Supervision(RunConfig(argv=["true"], workdir=work), AgentSession(["true"]))
    supervision.open()
    try:
        await until(lambda: supervision.fusion.incidents, "the incident, numbered off the loop")
        (incident,) = supervision.fusion.incidents
        message = incident.details["message"]
        assert incident.kind == "unclean-exit" and incident.summary is None
        assert message.startswith("the previous tether (pid ")
        assert "; started 20" in message and " UTC, last alive 20" in message
        assert " UTC) died without a clean exit" in message
        assert f"its agent (pid {agent}) still runs" in message
        assert incident.details["orphan_pid"] == agent
        assert supervision.orphan is not None
        said = await supervision.end_orphan()
        assert said == f"the previous tether's agent (pid {agent}) was ended"
        assert process_start(agent) is None or _is_zombie(agent)
        assert supervision.orphan is None
    finally:
        supervision.close()
    lock_said = json.loads(
        [line for line in TetherDir.at(work).events.read_text().splitlines() if "orphan" in line][
            -1
        ]
    )
    assert lock_said["kind"] == "orphan_ended" and lock_said["pid"] == agent
    assert time.time() >= before


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def test_payload_after_an_unclean_exit_audits_no_summary(dead_tether):
    work, _agent = dead_tether
    supervision = Supervision(RunConfig(argv=["true"], workdir=work), AgentSession(["true"]))
    supervision.open()
    supervision.close()
    done = run_tether("payload", "--dir", str(work), "--budget", "none")
    assert done.returncode == 0, done.stderr
    assert "tether was stopped uncleanly (#1)" in done.stdout
    assert "The previous tether (pid " in done.stdout and " UTC, last alive 20" in done.stdout
    assert "LOST" not in done.stdout and "Loss audit" not in done.stdout


def test_status_names_the_agent_a_dead_tether_left_running(dead_tether):
    work, agent = dead_tether
    done = run_tether("status", "--dir", str(work))
    assert "supervisor: died without a clean exit" in done.stdout
    assert f"agent:      pid {agent} still runs" in done.stdout
