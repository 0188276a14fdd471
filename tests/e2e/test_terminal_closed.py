"""The user closes the terminal, or `kill`s tether: it ends as cleanly as a quit.

A real `tether run -- bash` in a real tmux: ``tmux kill-server`` hangs its terminal up
(SIGHUP, as a closed window or an ssh drop does), and a plain ``kill`` sends SIGTERM.
Either way the agent is hung up on, the recording is flushed, the lock is emptied, the
hook socket's folder is gone, events.jsonl says how the run ended, and the next start
in that folder reports no unclean exit.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from supervisor.agents import hook_folders
from tests.e2e.tmux import TmuxSession, wait_until
from tests.tether_process import run_tether

VENV_BIN = Path(sys.executable).parent
PROMPT = r"bash-[0-9.]+[#$] "


def env_for(tmp_path: Path) -> dict[str, str]:
    temp = tmp_path / "tmp"  # the hook socket's folder goes here, to be looked at
    temp.mkdir(exist_ok=True)
    return {
        "PATH": os.pathsep.join([str(VENV_BIN), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "TMPDIR": str(temp),
        "TETHER_CONFIG_DIR": str(tmp_path / "tether-config"),
        "LANG": "C.UTF-8",
    }


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def events(project: Path) -> list[dict]:
    lines = (project / ".tether" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


TETHER_BASH = ["tether", "run", "--", "bash", "--norc", "--noprofile"]


def start_tether(
    tm: TmuxSession, tmp_path: Path, project: Path, command: list[str] = TETHER_BASH
) -> tuple[int, int]:
    """`tether run -- bash` up and waiting; (tether's pid, the agent's pid), from its lock."""
    tm.start(command, env_for(tmp_path), project)
    tm.wait_for(PROMPT, timeout=60)
    lock = project / ".tether" / "lock"

    def named() -> dict | None:
        text = lock.read_text() if lock.exists() else ""
        record = json.loads(text) if text.strip() else {}
        return record if record.get("agent_pid") else None

    record = wait_until(named, timeout=60, what="the lock names the agent")
    return record["pid"], record["agent_pid"]


def assert_ended_cleanly(tmp_path: Path, project: Path, tether: int, agent: int, reason: str):
    wait_until(lambda: gone(tether), timeout=60, what="tether ends")
    wait_until(lambda: gone(agent), timeout=60, what="the agent is hung up on")
    assert (project / ".tether" / "lock").read_text() == ""  # a clean exit empties it
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == []  # the hook folder is gone
    last = events(project)[-1]
    assert (last["kind"], last["reason"]) == ("tether_ended", reason)
    assert last["agent"] in ("killed by SIGHUP", "killed by SIGTERM", "killed by SIGKILL")
    recordings = sorted((project / ".tether" / "sessions").glob("*.txt"))
    assert recordings and "MARK-42" in recordings[-1].read_text()  # flushed, final screen
    status = run_tether("status", "--dir", str(project))
    said = [line for line in status.stdout.splitlines() if line.startswith("supervisor:")]
    assert len(said) == 1 and said[0].startswith("supervisor: not running; the last one ended ")
    assert said[0].endswith(f": {reason}"), status.stdout
    assert "died without a clean exit" not in status.stdout


def assert_next_start_is_clean(tmp_path: Path, project: Path) -> None:
    before = len(events(project))
    with TmuxSession(width=120, height=40) as tm:
        start_tether(tm, tmp_path, project)
        tm.wait_for("no loss seen yet", timeout=60)
        assert "without a clean exit" not in tm.capture()
    new = events(project)[before:]
    assert not [e for e in new if e.get("type") == "unclean-exit"], new


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def test_closing_the_terminal_ends_tether_as_a_quit_does(tmp_path, project):
    with TmuxSession(width=120, height=40) as tm:
        tether, agent = start_tether(tm, tmp_path, project)
        folders = [p.name for p in (tmp_path / "tmp").iterdir()]
        assert [hook_folders.owner_pid(name) for name in folders] == [tether]
        tm.type_line("echo MARK-$((6*7))", enter_delay=0.2)
        tm.wait_for("MARK-42", timeout=20)
        tm.tmux("kill-server", check=False)  # the window closes: SIGHUP
        assert_ended_cleanly(tmp_path, project, tether, agent, "terminal closed (SIGHUP)")
    assert_next_start_is_clean(tmp_path, project)


def test_a_terminal_gone_without_a_sighup_ends_tether_all_the_same(tmp_path, project):
    """Under nohup the SIGHUP stays ignored; the terminal's reads end and its writes fail."""
    nohup = ["sh", "-c", f"trap '' HUP; exec {' '.join(TETHER_BASH)}"]
    with TmuxSession(width=120, height=40) as tm:
        tether, agent = start_tether(tm, tmp_path, project, nohup)
        tm.type_line("echo MARK-$((6*7))", enter_delay=0.2)
        tm.wait_for("MARK-42", timeout=20)
        tm.tmux("kill-server", check=False)
        reason = "terminal closed (its input and output ended)"
        assert_ended_cleanly(tmp_path, project, tether, agent, reason)
    assert_next_start_is_clean(tmp_path, project)


def test_a_sigterm_ends_tether_as_a_quit_does(tmp_path, project):
    with TmuxSession(width=120, height=40) as tm:
        tether, agent = start_tether(tm, tmp_path, project)
        tm.type_line("echo MARK-$((6*7))", enter_delay=0.2)
        tm.wait_for("MARK-42", timeout=20)
        os.kill(tether, signal.SIGTERM)  # `kill PID`, a shutdown
        assert_ended_cleanly(tmp_path, project, tether, agent, "terminated (SIGTERM)")
        assert tm.wait_exit(timeout=60) == 128 + signal.SIGTERM
    assert_next_start_is_clean(tmp_path, project)


def test_a_sigkill_still_leaves_an_unclean_exit_and_the_next_start_sweeps_its_folder(
    tmp_path, project
):
    temp = tmp_path / "tmp"
    with TmuxSession(width=120, height=40) as tm:
        tether, agent = start_tether(tm, tmp_path, project)
        os.kill(tether, signal.SIGKILL)  # nothing can be cleaned up: that report is true
        wait_until(lambda: gone(tether), timeout=60, what="tether dies")
        wait_until(lambda: gone(agent), timeout=60, what="its PTY's hangup ends the agent")
    assert (project / ".tether" / "lock").read_text().strip()  # its content stays
    left = [p.name for p in temp.iterdir()]
    assert [hook_folders.owner_pid(name) for name in left] == [tether]
    with TmuxSession(width=120, height=40) as tm:
        again, _ = start_tether(tm, tmp_path, project)
        tm.wait_for("uncleanly", timeout=60)
        wait_until(lambda: not (temp / left[0]).exists(), timeout=60, what="the sweep")
        assert [hook_folders.owner_pid(p.name) for p in temp.iterdir()] == [again]
    assert [e for e in events(project) if e.get("type") == "unclean-exit"]
