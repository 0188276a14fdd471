"""Whether tether may type into the agent now, and if not, why, in the banner's words.

A paste while the user types would interleave with their keys, and one into a
half-typed line would be glued to it and submitted with it: a line the user
started holds the payload until it is sent or cleared, however long that takes,
unless the user presses the rehydrate key again (send anyway). After a restart
nothing of the dead process is trusted: the payload waits for the new process
itself to say that it waits (see :mod:`supervisor.recognize.agent_state`).
"""

from __future__ import annotations

from collections.abc import Callable

from supervisor.config.keymap import Keymap
from supervisor.config.profiles import Profile
from supervisor.recognize.agent_state import AgentState
from supervisor.recognize.decision_capture import DecisionCapture

USER_QUIET = 1.0  # seconds without a key from the user before tether injects
STALLED_REASON = (
    "the agent's output has stopped reaching tether (its reader process is stopped or "
    "stuck): the agent is blocked mid-output, and nothing is sent to it until it flows"
)
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
    if waits_for == "session start":
        return (
            f"waiting for {who} to load the session it resumes (it draws its prompt before, "
            "and takes keys only after)"
        )
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


class InputGate:
    """Holds the user's typing and the agent's readiness against every injection."""

    def __init__(
        self,
        *,
        profile: Profile,
        keymap: Keymap,
        state: AgentState,
        decisions: DecisionCapture,
        clock: Callable[[], float],
        restarted: Callable[[], bool],
        output_stalled: Callable[[], bool] = lambda: False,
    ) -> None:
        """``restarted``: whether the agent is a restarted one (the banner names it so);
        ``output_stalled``: whether the agent's output is held up before tether
        (:meth:`supervisor.terminal.session.AgentSession.output_stalled`)."""
        self.profile = profile
        self.keymap = keymap
        self.state = state
        self.decisions = decisions
        self.clock = clock
        self._restarted = restarted
        self._output_stalled = output_stalled
        self.send_anyway = False  # the user pressed the rehydrate key again on a typed line
        self.last_input = 0.0

    def ready(self) -> bool:
        """The agent waits for input and the person is not typing to it."""
        return self.wait_reason() is None

    def wait_reason(self) -> str | None:
        """Why a payload must wait now, in words for the banner; None when it may go."""
        now = self.clock()
        if self._output_stalled():  # blocked mid-output, whatever its screen last said
            return STALLED_REASON
        if self.decisions.typed and not self.send_anyway:  # first: an echo is not "busy"
            key = self.keymap.rehydrate.upper()
            return (
                "you have started typing on the agent's input line; it is sent once the line "
                f"is empty (sent or cleared) · {key} again: send anyway"
            )
        if not self.state.ready_for_input(now):
            return self.not_ready_reason(now)
        if now - self.last_input < USER_QUIET:
            return "you are typing to the agent; it is sent after a pause"
        return None

    def not_ready_reason(self, now: float) -> str:
        return not_ready_reason(self.state, self.profile, now, restarted=self._restarted())

    def keys(self, data: bytes) -> None:
        """Keys the user sent the agent (typed DECISION: lines wait for the screen to show
        them: :mod:`supervisor.recognize.decision_capture`)."""
        self.last_input = self.clock()
        self.decisions.keys(data, self.last_input)
        if not self.decisions.typed:
            self.send_anyway = False

    def pressed_again(self, queued: bool) -> None:
        """The rehydrate key, pressed while a payload is ``queued``: on a typed line it
        means send anyway."""
        if self.decisions.typed and queued:
            self.send_anyway = True

    def sent(self) -> None:
        """A payload went: the next one waits for an empty line again."""
        self.send_anyway = False
