"""Injection: putting a payload into the live agent as if a person pasted it.

The order is the contract (DESIGN.md, "Rehydrate"): sanitize; wait until the
agent waits for input (a paste into a busy agent is lost or mixed with its
work), queueing meanwhile; checkpoint ("before injection"); write the paste;
after a short pause, the profile's submit key; record an ``injection`` event.
The pause matters: agents built on Ink or ratatui read a paste and a CR that
arrive in one read as "a paste ending in a newline", not as "submit".

The checkpoint needs `git status` and a copy of the notes (seconds in a big
repository, 1 s at 50 MB of notes), which the supervisor takes off the event
loop (``take_checkpoint``): a send is "checkpoint; then, on the loop, paste".
Meanwhile the request counts as being sent, so later ones queue behind it, and
keys still reach the agent; if by then the agent no longer waits (the user
started typing), it goes back to the head of the queue, and its next send takes
a checkpoint of its own (the one taken stays, named by no injection).

The paste is bracketed (``ESC[200~ ... ESC[201~``) when the agent enabled
bracketed paste; newlines inside it go as CR, as a terminal sends them. When
the agent did not enable it, a newline would submit each line alone, so the
text is sent with ``newline`` in place of each line break: by default the
lines are joined into one line with " / "; a caller may pass the key that
inserts a newline in that agent instead (ESC CR for Claude Code and Codex).

Acknowledgement belongs to one injection: its own recall check, the one
`tether ack` records for it, read from disk by
:mod:`supervisor.rehydrate.acknowledgement`; after the profile's
``recall_timeout`` without one, the injector records the check as ``none``.
The injector records the acknowledgement and tells the banner.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from supervisor.config.profiles import Profile
from supervisor.errors import TetherError
from supervisor.rehydrate import recall_check
from supervisor.rehydrate.acknowledgement import BY_ACK
from supervisor.rehydrate.injector_status import (
    ACKNOWLEDGED,
    IDLE,
    QUEUED,
    SENT,
    UNACKNOWLEDGED,
    InjectorStatus,
)
from supervisor.rehydrate.recall_check import RecallCheck, Recovery
from supervisor.rehydrate.sanitize import sanitize
from supervisor.rehydrate.tokens import TokenCount
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir
from supervisor.terminal.keys import encode_paste
from supervisor.times import utc_now

EMPTY = "empty"
REFUSED = "refused"  # into a shell, unconfirmed: see shell_refusal

SUBMIT_DELAY = 0.05  # seconds between the paste and the submit key
SETTLE_SECONDS = 2.0  # after a send, wait this long (or for a new "waiting") before the next
ACK_WARN_SECONDS = 30.0  # after this, the banner says "not acknowledged after N s"
FLATTEN = " / "

Scheduler = Callable[[float, Callable[[], None]], Any]
Taken = Callable[[checkpoints.Checkpoint | TetherError], None]  # hears a checkpoint, or why not


class TakeCheckpoint(Protocol):
    """Takes a checkpoint, then calls ``then`` with it or the error (as the supervision does)."""

    def __call__(self, reason: str, *, incident: int | str | None, then: Taken) -> None: ...


class _Modes(Protocol):
    bracketed_paste: bool


class _Emulator(Protocol):
    @property
    def modes(self) -> _Modes: ...


class Writer(Protocol):
    """What the injector needs of :class:`supervisor.terminal.session.AgentSession`."""

    @property
    def emulator(self) -> _Emulator: ...

    def write(self, data: bytes) -> None: ...

    def hold_input(self) -> None: ...

    def release_input(self) -> None: ...


@dataclass(slots=True)
class _Request:
    text: str
    reason: str
    incident: int | str | None
    expect_ack: bool
    tokens: TokenCount | None
    queued_at: float
    details: dict[str, Any] = field(default_factory=dict)  # more fields for its event
    typed: bool = False  # one line sent as keys, not a paste (a slash command)


@dataclass(slots=True)
class _Sent:
    request: _Request
    at_iso: str
    at: float
    acknowledged_after: float | None = None
    event: dict[str, Any] = field(default_factory=dict)  # the injection's own event
    recall: RecallCheck | None = None
    stage: str = ""  # made elsewhere: "held" until the agent's next prompt, "prompted" by us


def shell_refusal(profile: str) -> str:
    """Why nothing is pasted into a shell (profile kind "shell") unless the user confirms."""
    return (
        f"Profile {profile} runs a shell or a program tether does not know: the payload's "
        "lines (notes a cloned repository may have written) would run there as commands, "
        "so it is pasted only when you confirm (rehydrate by hand)."
    )


class Injector:
    """Sends payloads into one agent session, queueing while it is busy."""

    def __init__(
        self,
        session: Writer,
        profile: Profile,
        tether: TetherDir,
        is_waiting: Callable[[], bool],
        *,
        call_later: Scheduler | None = None,
        clock: Callable[[], float] = time.monotonic,
        submit_delay: float = SUBMIT_DELAY,
        newline: str | None = None,
        settle_seconds: float = SETTLE_SECONDS,
        ack_warn_seconds: float = ACK_WARN_SECONDS,
        recall_timeout: float | None = None,
        source: str = "supervisor",
        take_checkpoint: TakeCheckpoint | None = None,
        why_waiting: Callable[[], str | None] | None = None,
        record_event: Callable[..., dict[str, Any]] | None = None,
        output_stalled: Callable[[], bool] | None = None,
    ) -> None:
        """``take_checkpoint``: how to take the checkpoint before each send
        (:meth:`Supervision.checkpoint` takes it off the event loop); by default, at once."""
        self.session = session
        self.profile = profile
        self.tether = tether
        self.is_waiting = is_waiting
        self._call_later = call_later
        self.clock = clock
        self.submit_delay = submit_delay
        self.newline = newline
        self.settle_seconds = settle_seconds
        self.ack_warn_seconds = ack_warn_seconds
        self.recall_timeout = float(
            profile.recall_timeout if recall_timeout is None else recall_timeout
        )
        self.source = source
        self.take_checkpoint = take_checkpoint or self._checkpoint_at_once
        self.why_waiting = why_waiting  # the banner says truly why a payload is queued
        # How events are recorded: the supervisor's recorder writes them off the loop.
        self.record_event = record_event if record_event is not None else tether.record_event
        # Whether the agent's output is held up before tether (a stopped reader): the
        # agent is blocked mid-output then, whatever its last screen said.
        self.output_stalled = output_stalled or (lambda: False)
        self.queue: list[_Request] = []
        self.sending: _Request | None = None  # between asking its checkpoint and the paste
        self.last: _Sent | None = None
        self.problems: list[str] = []
        self.listeners: list[Callable[[InjectorStatus], None]] = []
        self.sent_listeners: list[Callable[[str], None]] = []  # each text as it is written
        self._fresh_waiting = True  # the agent has not been sent anything since it last waited
        self._last_write: float | None = None  # self.clock() of the last paste
        self._into_shell_confirmed = False  # the user said yes to the next paste into a shell

    # -- requests ------------------------------------------------------------------------

    def request(
        self,
        text: str,
        reason: str,
        *,
        incident: int | str | None = None,
        expect_ack: bool = True,
        tokens: TokenCount | None = None,
        details: dict[str, Any] | None = None,
        typed: bool = False,
    ) -> str:
        """Send ``text`` now if the agent waits for input, else queue it; returns sent/queued.

        A newer request for the same ``reason`` replaces a queued one: a payload
        is the state on disk, and only the newest state is worth sending.
        ``details`` go into its ``injection`` event (a recovery's ``restate``);
        ``typed`` sends one line as keys rather than a paste, as an agent's slash
        command must come (newlines become spaces).
        """
        clean = sanitize(text).strip("\n")
        if not clean.strip():
            return EMPTY
        if self.profile.kind == "shell" and not self._into_shell_confirmed:
            self.problems.append(shell_refusal(self.profile.name))
            return REFUSED
        self._into_shell_confirmed = False
        if typed:
            clean = " ".join(clean.split())
        item = _Request(
            clean, reason, incident, expect_ack, tokens, self.clock(), dict(details or {}), typed
        )
        if self.queue or not self._can_send():
            self.queue = [queued for queued in self.queue if queued.reason != reason]
            self.queue.append(item)
            self._notify()
            return QUEUED
        self._send(item)
        return SENT

    def confirm_into_shell(self) -> None:
        """The user said yes: the next request may be pasted into a shell profile's program."""
        self._into_shell_confirmed = True

    def withdraw(self, which: Callable[[_Request], bool]) -> list[_Request]:
        """Take the queued requests ``which`` picks (their payload went another way)."""
        taken = [queued for queued in self.queue if which(queued)]
        if taken:
            self.queue = [queued for queued in self.queue if not which(queued)]
            self._notify()
        return taken

    def agent_became_waiting(self) -> str | None:
        """The agent now waits for input: send the oldest queued request, if any."""
        self._fresh_waiting = True
        if not self.queue or self.sending is not None or not self.is_waiting():
            return None
        item = self.queue.pop(0)
        self._send(item)
        return SENT

    def _can_send(self) -> bool:
        if self.sending is not None or self.output_stalled() or not self.is_waiting():
            return False
        if self._fresh_waiting or self._last_write is None:
            return True
        return self.clock() - self._last_write >= self.settle_seconds

    # -- sending -------------------------------------------------------------------------

    def encode(self, text: str) -> tuple[bytes, bool]:
        """The bytes of the paste for the agent's current modes, and whether it is bracketed."""
        if self.session.emulator.modes.bracketed_paste:
            return encode_paste(text, self.session.emulator.modes), True
        if self.newline is None:
            lines = [line.strip() for line in text.split("\n")]
            flat = FLATTEN.join(line for line in lines if line)
            return flat.encode("utf-8"), False
        return text.replace("\n", self.newline).encode("utf-8"), False

    def _send(self, item: _Request) -> None:
        """Take the checkpoint; the paste follows once it is written."""
        self.sending = item
        then = functools.partial(self._checkpointed, item)
        self.take_checkpoint("before injection", incident=item.incident, then=then)

    def _checkpoint_at_once(self, reason: str, *, incident: int | str | None, then: Taken) -> None:
        try:
            taken: checkpoints.Checkpoint | TetherError = checkpoints.take(
                self.tether, reason, incident=incident
            )
        except TetherError as error:
            taken = error
        then(taken)

    def _checkpointed(self, item: _Request, taken: checkpoints.Checkpoint | TetherError) -> None:
        """On the loop, with the checkpoint written: paste, if the agent still waits."""
        self.sending = None
        if not self.is_waiting():  # it stopped waiting meanwhile: queue again
            if all(queued.reason != item.reason for queued in self.queue):  # else a newer one
                self.queue.insert(0, item)
            self._notify()
            return
        self._write(item, taken)

    def _write(self, item: _Request, taken: checkpoints.Checkpoint | TetherError) -> None:
        """The paste, now that its checkpoint is on disk (or could not be written)."""
        checkpoint_seq: int | None = None
        checkpoint_error: str | None = None
        if isinstance(taken, TetherError):  # the payload matters more than the snapshot
            checkpoint_error = str(taken)
            self.problems.append(f"no checkpoint before injection: {taken}")
        else:
            checkpoint_seq = taken.seq
        if item.typed:
            data, bracketed = item.text.encode("utf-8"), False
        else:
            data, bracketed = self.encode(item.text)
        at_iso = utc_now()
        for notify in self.sent_listeners:  # before the agent can echo it anywhere
            notify(item.text)
        self.session.write(data)
        self.session.hold_input()  # the user's keys come after the submit key, not into the line
        self._fresh_waiting = False
        tokens = item.tokens
        if tokens is None:
            from supervisor.rehydrate.tokens import count_tokens

            tokens = count_tokens(item.text)
        details: dict[str, Any] = {
            "reason": item.reason,
            "incident": item.incident,
            "tokens": tokens.n,
            "exact": tokens.exact,
            "encoding": tokens.encoding,
            "chars": len(item.text),
            "bytes": len(data),
            "bracketed": bracketed,
            "checkpoint": checkpoint_seq,
            "queued_for_seconds": round(self.clock() - item.queued_at, 3),
            "submit_delay_ms": round(self.submit_delay * 1000),
        }
        if checkpoint_error:
            details["checkpoint_error"] = checkpoint_error
        details.update(item.details)
        sent = _Sent(item, at_iso, self.clock())
        self._last_write = sent.at
        try:
            sent.event = self.record_event("injection", self.source, **details)
        except TetherError as error:
            self.problems.append(f"injection not recorded: {error}")
        waiting = self.awaiting_acknowledgement()
        if item.expect_ack or waiting is None:
            self.last = sent
        else:  # a prompt to act on that recovery (its payload came another way): still its ack
            waiting.stage = "prompted"
        self._schedule(self.submit_delay, self._submit)
        self._notify()

    def _submit(self) -> None:
        self.session.write(self.profile.submit_key.encode("utf-8"))
        self.session.release_input()

    def _schedule(self, delay: float, callback: Callable[[], None]) -> None:
        call_later = self._call_later
        if call_later is None:
            import asyncio

            call_later = asyncio.get_running_loop().call_later
        call_later(delay, callback)

    def track_external(
        self, event: dict[str, Any], *, incident: int | str | None = None, held: bool = False
    ) -> None:
        """Watch for the acknowledgement of an injection made elsewhere.

        The SessionStart hook rehydrates Claude Code without us (its
        ``auto_rehydrate`` event is the recovery); the banner should still say
        what the agent restated. ``incident``: the incident it answers, when the
        supervisor knows better than the hook (which may run before the incident
        is recorded). ``held``: the agent keeps that payload until its next prompt (Claude
        Code's SessionStart answer), see :meth:`external_delivered`.
        """
        at_iso = str(event.get("at") or utc_now())
        request = _Request(
            "",
            str(event.get("kind") or "auto_rehydrate"),
            incident if incident is not None else event.get("incident"),
            True,
            None,
            self.clock(),
        )
        stage = "held" if held else ""
        self.last = _Sent(request, at_iso, self.clock(), event=dict(event), stage=stage)
        self._notify()

    def external_delivered(self) -> None:
        """The agent sent its model a turn: a held payload made elsewhere went with it."""
        if self.last is not None and self.last.stage == "held":
            self.last.stage = ""
            self._notify()

    # -- acknowledgement -----------------------------------------------------------------

    def awaiting_acknowledgement(self) -> _Sent | None:
        """The last send, while it is a recovery waiting for its recall check (read it with
        :func:`supervisor.rehydrate.acknowledgement.read_acknowledgement`)."""
        sent = self.last
        if sent is None or not sent.request.expect_ack or sent.acknowledged_after is not None:
            return None
        if sent.recall is not None or not sent.event or Recovery.of(sent.event) is None:
            return None  # "none" was recorded (a late ack does not change it), or no recovery
        return sent

    def recall_overdue(self, sent: _Sent) -> bool:
        """No `tether ack` within the profile's ``recall_timeout``: time to record ``none``."""
        return self.clock() - sent.at >= self.recall_timeout

    @property
    def acknowledged(self) -> bool:
        sent = self.last
        return sent is not None and sent.request.expect_ack and sent.acknowledged_after is not None

    def acknowledge(self, sent: _Sent, event: dict[str, Any]) -> bool:
        """``sent``'s recall check (``event``) is on disk; True when that acknowledges it now.

        A check of ``none`` is shown but acknowledges nothing; a newer send, or one
        already acknowledged, is left as it is.
        """
        if sent is not self.last or sent.acknowledged_after is not None or sent.recall:
            return False
        sent.recall = RecallCheck.from_event(event)
        if sent.recall.result == recall_check.NONE:
            self._notify()
            return False
        sent.acknowledged_after = self.clock() - sent.at
        try:
            self.record_event(
                "acknowledged",
                self.source,
                incident=sent.request.incident,
                reason=sent.request.reason,
                injection_at=sent.recall.injection_at,
                seconds=round(sent.acknowledged_after, 3),
                by=BY_ACK,
                recall=sent.recall.result,
            )
        except TetherError as error:
            self.problems.append(f"acknowledgement not recorded: {error}")
        self._notify()
        return True

    @property
    def last_recall(self) -> RecallCheck | None:
        """The recall check of the last send, once there is one."""
        return self.last.recall if self.last is not None else None

    # -- status --------------------------------------------------------------------------

    def status(self) -> InjectorStatus:
        """The state for the banner, with how long it has lasted."""
        now = self.clock()
        if self.queue:
            first = self.queue[0]
            why = (self.why_waiting() if self.why_waiting is not None else None) or ""
            return InjectorStatus(
                QUEUED, first.reason, now - first.queued_at, len(self.queue), first.incident, why
            )
        sent = self.last
        if sent is None:
            return InjectorStatus(IDLE)
        request = sent.request
        if sent.acknowledged_after is not None:
            return InjectorStatus(
                ACKNOWLEDGED,
                request.reason,
                sent.acknowledged_after,
                0,
                request.incident,
                recall=sent.recall,
            )
        age = now - sent.at
        if sent.recall is not None:  # "none": no ack within the timeout
            return InjectorStatus(
                UNACKNOWLEDGED, request.reason, age, 0, request.incident, recall=sent.recall
            )
        if request.expect_ack and age >= self.ack_warn_seconds:
            return InjectorStatus(UNACKNOWLEDGED, request.reason, age, 0, request.incident)
        return InjectorStatus(SENT, request.reason, age, 0, request.incident, stage=sent.stage)

    def _notify(self) -> None:
        status = self.status()
        for listener in self.listeners:
            listener(status)
