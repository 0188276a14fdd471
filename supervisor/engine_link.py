"""The one adapter from the engine to the UI: engine listeners in, Textual messages out.

The engine (:class:`~supervisor.run.supervision.Supervision`, the agent session)
tells whoever listens through plain callback lists, so it runs headless. The
app attaches one :class:`EngineLink`, which turns each callback into a message
posted to the app; the app's handlers update the widgets (the banner and status bar
from :class:`AttentionChanged`, the attention model's states). Posting to an app
that is closing does nothing, so an engine callback during shutdown meets no
half-removed widget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.fusion import IncidentChange
from supervisor.rehydrate.injector_status import InjectorStatus
from supervisor.run.attention_model import AttentionState
from supervisor.run.supervision import Supervision
from supervisor.terminal.pty_host import ExitStatus


class EngineLink:
    """Subscribes to one supervision's listeners and posts what they hear to ``target``."""

    # Dataclass messages, as Textual's own (Input.Changed): Message.__post_init__ sets them up.
    @dataclass
    class IncidentChanged(Message):
        """A new incident, or more sources or facts for the current one."""

        change: IncidentChange

    @dataclass
    class AgentStateChanged(Message):
        """busy / waiting / exited / unknown, as the agent state decided."""

        state: str

    @dataclass
    class MeterChanged(Message):
        """The context meter, as it was when it changed."""

        meter: ContextMeter

    @dataclass
    class InjectionChanged(Message):
        """The injector's state for the banner: queued, sent, acknowledged..."""

        status: InjectorStatus

    @dataclass
    class AttentionChanged(Message):
        """What the user is told changed (the banner, the status texts): render it.

        Only the newest state matters: one still waiting in the queue is replaced."""

        state: AttentionState

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EngineLink.AttentionChanged)

    @dataclass
    class ProblemReported(Message):
        """Something the user should know went wrong (a file not written...)."""

        text: str

    @dataclass
    class AgentExited(Message):
        """The agent's process ended (after the engine recorded it)."""

        status: ExitStatus

    class ScreenChanged(Message):
        """The session fed output (or redrew the screen itself): time to repaint.

        One per read turn; one still waiting in the queue is replaced by the next,
        so a flood queues no backlog of repaints (the view paces them per frame).
        """

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EngineLink.ScreenChanged)

    def __init__(self, supervision: Supervision, target: MessagePump) -> None:
        self.supervision = supervision
        self.target = target
        self._subscribed: list[tuple[list[Any], Callable[..., object]]] = []

    def attach(self) -> None:
        """Start posting; the session's exit is heard after the supervision recorded it."""
        supervision = self.supervision
        post = self.target.post_message
        self._listen(supervision.on_incident, lambda change: post(self.IncidentChanged(change)))
        self._listen(supervision.on_state, lambda state: post(self.AgentStateChanged(state)))
        self._listen(
            supervision.on_meter,
            lambda meter: post(self.MeterChanged(dataclasses.replace(meter))),
        )
        self._listen(supervision.on_injection, lambda status: post(self.InjectionChanged(status)))
        self._listen(supervision.on_problem, lambda text: post(self.ProblemReported(text)))
        self._listen(
            supervision.attention.listeners, lambda state: post(self.AttentionChanged(state))
        )
        self._listen(
            supervision.session.exit_listeners, lambda status: post(self.AgentExited(status))
        )
        self._listen(supervision.session.screen_listeners, lambda: post(self.ScreenChanged()))

    def _listen(self, listeners: list[Any], callback: Callable[..., object]) -> None:
        listeners.append(callback)
        self._subscribed.append((listeners, callback))

    def detach(self) -> None:
        """Stop posting (the app is going); the engine's own listeners stay."""
        for listeners, callback in self._subscribed:
            if callback in listeners:
                listeners.remove(callback)
        self._subscribed.clear()
