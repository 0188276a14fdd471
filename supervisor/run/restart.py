"""The agent's process ends and starts again: hang-ups, exits, restarts.

A restart after a crash must not trust anything of the dead process: its screen
(the session gives the new process a page of its own), its modes (reset when it
ended, see ``Emulator.process_ended``), its silence, and the state reports its
hooks still had in flight. The supervision gives the new process fresh
detectors; the input gate waits for the new process itself to say that it waits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from supervisor.config.profiles import Profile
from supervisor.recognize.observations import AGENT_STATE, Observation
from supervisor.recognize.process_watch import exit_observation
from supervisor.run.event_recorder import EventRecorder
from supervisor.run.input_gate import needs_cue, not_ready_reason
from supervisor.run.run_config import RunConfig, agent_argv
from supervisor.store.lock import SupervisorLock
from supervisor.store.tether_dir import TetherDir
from supervisor.terminal.pty_host import ExitStatus
from supervisor.terminal.session import AgentSession
from supervisor.times import epoch

__all__ = ["Restarter", "needs_cue", "not_ready_reason", "prompt_before_session"]

# Integrations whose agent draws its prompt before a resumed session is loaded.
_PROMPT_BEFORE_SESSION = ("gemini_hooks",)


def prompt_before_session(profile: Profile) -> bool:
    """Whether the agent draws its prompt before it takes keys when it resumes a session.
    Gemini CLI 0.61.0 draws its prompt at once, hides it while it loads the session it
    resumes (keys then go nowhere: a paste there was lost in 3 of 7 runs) and draws it
    again; its SessionStart hook can fire before or after the loading. Loading appends
    its load mark to the session file its turn hooks named: that line is the sign
    (:mod:`supervisor.agents.gemini_session`, read by the tick).
    """
    return any(name in profile.integrations for name in _PROMPT_BEFORE_SESSION)


class Restarter:
    """Owns the agent's process across restarts: how it was ended, how it starts again."""

    def __init__(
        self,
        *,
        session: AgentSession,
        profile: Profile,
        config: RunConfig,
        tether: TetherDir,
        events: EventRecorder,
        lock: Callable[[], SupervisorLock | None],
    ) -> None:
        """``lock``: the folder's lock once the supervision holds it (it names the agent)."""
        self.session = session
        self.profile = profile
        self.config = config
        self.tether = tether
        self.events = events
        self._lock = lock
        self.restarts = 0  # how many times the agent was started again
        self.restarted_at: float | None = None  # epoch seconds of the last restart
        self.stopping = False  # the user asked it to end (quit, restart): not a crash

    def stop(self) -> ExitStatus | None:
        """Hang up on the agent because the user asked; its exit status when it was running
        until now (its end is then to be recorded as if it had exited by itself)."""
        self.stopping = True
        running = self.session.running
        status = self.session.stop()
        return status if running else None

    def start_again(self) -> list[str]:
        """Start the agent with the profile's resume command (a plain command: the same
        again); the command line it ran."""
        self.stopping = False
        if self.profile.command:
            argv = agent_argv(self.profile, self.config.extra_args, self.tether, resume=True)
        else:  # a plain command (`tether run -- CMD`): run it again
            argv = list(self.config.argv)
        self.restarts += 1
        self.session.start(argv=argv)  # the lock names it: the caller's, off the loop
        event = self.events.record("agent_restart", "supervisor", argv=argv)
        self.restarted_at = epoch(event["at"])
        return argv

    def old_state_report(self, record: dict[str, Any], observation: Observation) -> bool:
        """A state the dead process's hook recorded before the restart, read after it (a
        hook call still in flight when the agent was killed): not the new process's."""
        at = epoch(record.get("at"))
        restarted = self.restarted_at
        return (
            observation.kind == AGENT_STATE
            and at is not None
            and restarted is not None
            and at < restarted
        )

    def exit_observation(self, status: ExitStatus, now: float) -> Observation:
        """What fusion makes a crash of (or not: the user asked it to end)."""
        return exit_observation(status.code, status.signal, now, requested=self.stopping)

    def record_exit(self, status: ExitStatus) -> None:
        self.events.record(
            "agent_exit",
            "process",
            code=status.code,
            signal=status.signal,
            description=status.describe(),
        )

    def note_agent_pid(self) -> None:
        """The lock names the running agent, for the next start if this tether dies."""
        host = self.session.host
        lock = self._lock()
        if lock is not None and host is not None:
            lock.record_agent(host.pid)
