"""What a dead tether left: its unclean exit, and its agent still running, ended on request.

An agent that ignores SIGHUP outlives a tether killed with SIGKILL, orphaned;
the lock names its pid and start time (:mod:`supervisor.store.lock`), so the
next start can say it still runs and end it when the user asks (F5).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from supervisor.recognize.observations import LOCK, UNCLEAN_EXIT, Observation, iso
from supervisor.store import lock as supervisor_lock
from supervisor.store.lock import LockInfo, SupervisorLock, parent_pid
from supervisor.store.tether_dir import TetherDir


def left_over_agent(lock: SupervisorLock | None) -> LockInfo | None:
    """The previous tether, when the agent it ran still runs."""
    previous = lock.previous if lock is not None else None
    return previous if previous is not None and previous.agent_alive else None


async def end_left_over_agent(lock: SupervisorLock | None, tether: TetherDir) -> str:
    """SIGTERM, then SIGKILL, on a worker thread (it waits for the process); say how it went."""
    orphan = left_over_agent(lock)
    if lock is None or orphan is None or orphan.agent_pid is None:
        return "no left-over agent to end"
    pid = orphan.agent_pid
    ended = await asyncio.to_thread(supervisor_lock.end_process, pid, orphan.agent_start)
    kind = "orphan_ended" if ended else "orphan_not_ended"
    await asyncio.to_thread(tether.record_event, kind, "user", pid=pid)  # its fsync: off the loop
    if ended:
        lock.previous = replace(orphan, agent_alive=False)
        return f"the previous tether's agent (pid {pid}) was ended"
    return f"the previous tether's agent (pid {pid}) did not end; try `kill -9 {pid}`"


def unclean_exit_observation(previous: LockInfo, at: float) -> Observation:
    """What a stale lock tells: the dead supervisor's lifetime and whether its agent runs.

    The words go in ``details["message"]``, never in ``summary``: a summary is what
    an agent produced when it compacted, and only that is ever loss-audited.
    """
    pid = "unknown pid" if previous.pid is None else f"pid {previous.pid}"
    message = f"the previous tether ({pid}; {previous.lifetime()}) died without a clean exit"
    details: dict[str, object] = {
        "previous_pid": previous.pid,
        "previous_started_at": previous.started_at,
        "previous_last_alive": iso(previous.last_alive) if previous.last_alive else None,
        "message": message,
        "ran": previous.span(),
    }
    if previous.agent_alive and previous.agent_pid:
        parent = parent_pid(previous.agent_pid)
        orphaned = " (orphaned, parent pid 1)" if parent == 1 else f" (parent pid {parent})"
        details["orphan_pid"] = previous.agent_pid
        details["message"] = f"{message}; its agent (pid {previous.agent_pid}) still runs{orphaned}"
    return Observation(UNCLEAN_EXIT, LOCK, at, details=details)
