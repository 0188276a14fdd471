"""The agent's process ends and starts again: exits, restarts, and when a new one may be fed.

A restart after a crash must not trust anything of the dead process: its screen
(the session gives the new process a page of its own), its modes (reset when it
ended, see ``Emulator.process_ended``), its silence. The payload therefore waits
for the new process itself to say that it waits for input: for a profile with
cues (a prompt marker, OSC 7501), that cue drawn or sent by the new process;
for one without, its output going quiet, but never before its first frame (see
:mod:`supervisor.recognize.agent_state`). The banner says which of these it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from supervisor.config.profiles import Profile
from supervisor.errors import TetherError
from supervisor.recognize.agent_state import AgentState, StatusReports
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.observations import AGENT_STATE, Observation
from supervisor.recognize.process_watch import exit_observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.run.run_config import agent_argv
from supervisor.terminal.pty_host import ExitStatus
from supervisor.times import epoch

OSC_STATE = "osc7501"


def needs_cue(profile: Profile) -> bool:
    """Whether the profile's agent says when it waits (a prompt marker on screen, OSC 7501),
    so that silence alone never means it waits before it has said so once.

    Claude Code's hooks are not such a sign: they report "waiting" only after a turn,
    and a freshly started Claude has had none.
    """
    return bool(profile.markers.prompt_ready) or OSC_STATE in profile.integrations


def not_ready_reason(state: AgentState, profile: Profile, now: float, *, restarted: bool) -> str:
    """Why the agent cannot take a paste now, in the banner's words."""
    who = "the restarted agent" if restarted else "the agent"
    waits_for = state.waits_for()
    if waits_for == "first frame":
        return f"{who} has not drawn its screen yet; it is sent once it shows that it waits"
    if waits_for == "cue":
        signs = ["its prompt on screen"] if profile.markers.prompt_ready else []
        if OSC_STATE in profile.integrations:
            signs.append("its OSC 7501 state")
        return f"waiting for {who} to show that it waits for input ({' or '.join(signs)})"
    doing = state.state(now)
    if doing == "unknown" and not needs_cue(profile):
        return (
            f"waiting for {who}'s output to pause for {state.idle_after:g} s (this profile has "
            "no prompt marker or state report)"
        )
    if doing == "waiting":  # it said so, and its output has not settled yet
        return f"{who} is still drawing; it is sent once its screen settles"
    doing = "busy" if doing in ("busy", "unknown") else doing
    return f"the agent is {doing}; it is sent when the agent waits for input"


class Restarts:
    """The process half of :class:`~supervisor.run.supervision.Supervision` (a mixin):
    it uses the supervision's session, config, tether, lock and transcript, and its
    observe, checkpoint and rehydrate."""

    profile: Profile
    state: AgentState
    fusion: Fusion
    screen: ScreenDetector
    status_reports: StatusReports
    clock: Callable[[], float]
    _stopping: bool
    restarts = 0  # how many times the agent was started again
    _restarted_at: float | None = None  # epoch seconds of the last restart
    end_reason: str | None = None  # why tether ends: a signal (run/hangup.py), else a quit

    def stop_agent(self) -> None:
        """Hang up on the agent because the user asked (quit, restart): not a crash. Its
        end is recorded, with a checkpoint, as when it exits on its own."""
        self._stopping = True
        running = self.session.running
        status = self.session.stop()
        if running and status is not None:
            self._on_exit(status)

    def restart(self, *, payload: Any = None) -> None:
        """Start the agent again with the profile's resume command; rehydrate once the new
        process shows that it waits.

        ``payload``: one already built (the app builds it on a worker thread).
        """
        self._stopping = False
        if self.profile.command:
            argv = agent_argv(self.profile, self.config.extra_args, self.tether, resume=True)
        else:  # a plain command (`tether run -- CMD`): run it again
            argv = list(self.config.argv)
        self.screen = ScreenDetector(self.profile.markers, replaying=True)
        self.status_reports = StatusReports()  # the dead one's last report ended with it
        self.state.restart(needs_cue=needs_cue(self.profile))
        self.restarts += 1
        self.transcript.forget()
        self.fusion.agent_started(self.clock())  # what its session file replays is history
        self.session.start(argv=argv)
        self._note_agent_pid()
        event = self.tether.record_event("agent_restart", "supervisor", argv=argv)
        self._restarted_at = epoch(event["at"])
        self.rehydrate(reason="restart after crash", payload=payload)

    def old_state_report(self, record: dict, observation: Observation) -> bool:
        """A state the dead process's hook recorded before the restart, read after it (a
        hook call still in flight when the agent was killed): not the new process's."""
        at = epoch(record.get("at"))
        restarted = self._restarted_at
        return observation.kind == AGENT_STATE and None not in (at, restarted) and at < restarted

    def not_ready_reason(self, now: float) -> str:
        return not_ready_reason(self.state, self.profile, now, restarted=self.restarts > 0)

    def _record_end(self) -> None:
        """events.jsonl says how this run of tether ended; emptying the lock, next, says
        that the end was clean."""
        reason = self.end_reason or "quit"
        status = self.session.exit_status  # how the agent took its hangup
        agent = status.describe() if status is not None else "not started"
        try:
            self.tether.record_event("tether_ended", "supervisor", reason=reason, agent=agent)
        except (TetherError, OSError) as error:
            self._problem(f"the end of this run is not recorded: {error}")

    def _note_agent_pid(self) -> None:
        """The lock names the running agent, for the next start if this tether dies."""
        host = self.session.host
        if self.lock is not None and host is not None:
            self.lock.record_agent(host.pid)

    def _on_exit(self, status: ExitStatus) -> None:
        now = self.clock()
        self.observe(exit_observation(status.code, status.signal, now, requested=self._stopping))
        try:
            self.tether.record_event(
                "agent_exit",
                "process",
                code=status.code,
                signal=status.signal,
                description=status.describe(),
            )
        except TetherError as error:
            self._problem(str(error))
        self.checkpoint(f"agent {status.describe()}")
        self._report_state()
