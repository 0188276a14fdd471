"""The agent a dead tether left running: found through the lock, ended on request.

An agent that ignores SIGHUP outlives a tether killed with SIGKILL, orphaned;
the lock names its pid and start time (:mod:`supervisor.store.lock`), so the
next start can say it still runs and end it when the user asks (F5).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from supervisor.store import lock as supervisor_lock
from supervisor.store.lock import LockInfo, SupervisorLock
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
    tether.record_event("orphan_ended" if ended else "orphan_not_ended", "user", pid=pid)
    if ended:
        lock.previous = replace(orphan, agent_alive=False)
        return f"the previous tether's agent (pid {pid}) was ended"
    return f"the previous tether's agent (pid {pid}) did not end; try `kill -9 {pid}`"
