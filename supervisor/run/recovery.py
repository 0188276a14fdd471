"""The recovery coordinator: from an incident to the payload, its injection and its recall.

Every request (the payload, a re-send of what a recall missed, a nudge to act
on the hook's payload, a compaction at a break, the initial brief) goes to the
injector, which sends it once the agent waits for input, so every way into the
agent keeps the same rules (never onto a typed line, no control sequence, one
at a time). The coordinator also follows the SessionStart hook's payload to the
model, so that F6 never adds a second copy, and pins decisions off the loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from supervisor.agents.codex_hooks import rehydrates_at_next_prompt
from supervisor.config.profiles import Profile
from supervisor.errors import TetherError
from supervisor.recognize.context_meter import ContextMeter
from supervisor.recognize.observations import Incident
from supervisor.rehydrate.injector import Injector
from supervisor.rehydrate.live_notes import LiveNotes
from supervisor.run.checkpointer import Checkpointer
from supervisor.run.event_recorder import Event, EventRecorder
from supervisor.run.input_gate import InputGate
from supervisor.run.tick_reads import CurrentNotes
from supervisor.store.tether_dir import TetherDir

if TYPE_CHECKING:
    from supervisor.rehydrate.payload import Payload

NUDGE_REASON = "act on the hook's payload"
# Hook events after the SessionStart answer that mean the agent sent its model a turn.
_TURN_HOOKS = ("UserPromptSubmit", "Stop")
_LOSS_WORDS = {"compaction": "compaction", "wipe": "context wipe"}


def nudge_text(kind: str | None, number: int | str | None) -> str:
    """The short prompt F6 sends when the agent already holds the hook's payload: it starts
    the turn that takes the payload to the model, without a second copy."""
    loss = _LOSS_WORDS.get(kind or "", "loss")
    named = f" #{number}" if number is not None else ""
    return (
        f"Recovery from tether: the recovery payload for {loss}{named} is already in your "
        "context (the SessionStart hook's additional context, above). Follow it now: re-read "
        "the .tether/ files it names, restate the pinned decisions with `tether ack`, then "
        "continue with the next step."
    )


def _whole_recovery(request: Any) -> bool:
    return bool(request.details.get("restate") == "all")


@dataclasses.dataclass(frozen=True)
class HeldPayload:
    """The SessionStart hook's payload that the agent holds, not yet sent to its model
    (Claude Code's comes at the compaction and goes with the next prompt)."""

    incident: int | str | None
    at: str | None


class RecoveryCoordinator:
    """Takes the current incident to a payload in the agent and its recall check."""

    def __init__(
        self,
        *,
        injector: Injector,
        profile: Profile,
        tether: TetherDir,
        meter: ContextMeter,
        gate: InputGate,
        notes: CurrentNotes,
        live: LiveNotes,
        writer: Checkpointer,
        events: EventRecorder,
        incident: Callable[[], Incident | None],
        note_input: Callable[[], None],
        problem: Callable[[str], None],
    ) -> None:
        """``incident``: the incident being recovered from (the supervision's current one);
        ``note_input``: tells the screen detector that what follows answers our input;
        ``writer``: the checkpointer, whose writer thread rewrites notes.md for a pin;
        ``live``: notes.md and task.md parsed once per change, which the payload reads."""
        self.injector = injector
        self.profile = profile
        self.tether = tether
        self.meter = meter
        self.gate = gate
        self.notes = notes
        self.live = live
        self.writer = writer
        self.events = events
        self._incident = incident
        self._note_input = note_input
        self._problem = problem
        self.held: HeldPayload | None = None

    # -- the payload -----------------------------------------------------------------

    def build_payload(self, *, checkpoint: int | None = None) -> Payload:
        """The rehydrate payload (file I/O: the app builds it on a worker thread)."""
        from supervisor.rehydrate.payload import build_payload

        return build_payload(
            self.tether,
            self.profile,
            checkpoint=checkpoint,
            incident=self._incident(),
            live=self.live,
        )

    def rehydrate(
        self, text: str | None = None, *, reason: str = "rehydrate", payload: Payload | None = None
    ) -> str:
        """Send the payload (or ``text``, an edited one) now, or queue it until the agent waits.

        ``payload``: one already built. After a partial recall check, only the decisions
        the agent did not restate are sent again instead (reason ``resend-missing``);
        every payload asks for `tether ack`.
        """
        from supervisor.rehydrate.tokens import TokenCount

        current = self._incident()
        number = current.number if current is not None else None
        recovery = {"restate": "all"}  # the injection is a recovery: its recall is checked
        self.gate.pressed_again(queued=bool(self.injector.queue))
        if text is None:
            resent = self._resend_missing(number)
            if resent is not None:
                return resent
            held = self.held
            if held is not None and held.incident == number:  # a paste would be a 2nd copy
                return self._nudge(number)
            payload = payload if payload is not None else self.build_payload()
            tokens = TokenCount(payload.tokens, payload.exact, payload.encoding)
            result = self.injector.request(
                payload.text, reason, incident=number, tokens=tokens, details=recovery
            )
        else:
            result = self.injector.request(text, reason, incident=number, details=recovery)
        return self._went(result)

    def _went(self, result: str) -> str:
        if result == "sent":
            self._note_input()
        return result

    def _resend_missing(self, number: int | None) -> str | None:
        """After a partial recall of this incident's recovery: send only what is missing."""
        from supervisor.rehydrate import recall_check

        injector = self.injector
        recall = injector.last_recall
        if recall is None or recall.result != recall_check.PARTIAL:
            return None
        answered = injector.last.request.incident if injector.last is not None else None
        if answered != number or not recall.missing:
            return None  # a newer incident wants the whole payload
        text = recall_check.resend_text(self.pinned_decisions(), recall)
        restate = [decision for decision, _terms in recall.missing]
        result = injector.request(
            text, recall_check.RESEND_REASON, incident=number, details={"restate": restate}
        )
        return self._went(result)

    def _nudge(self, number: int | str | None) -> str:
        current = self._incident()
        kind = current.kind if current is not None else None
        held = self.held
        result = self.injector.request(
            nudge_text(kind, number),
            NUDGE_REASON,
            incident=number,
            expect_ack=False,  # the ack answers the hook's recovery, which the injector tracks
            details={"payload_by": "SessionStart hook", "payload_at": held.at if held else None},
        )
        return self._went(result)

    # -- the hook's payload ---------------------------------------------------------

    def hook_delivery(self, record: Event) -> None:
        """Follow the SessionStart hook's payload to the model, so F6 never adds a copy.

        Codex answers the hook as a turn starts: its payload goes with that turn, and a
        whole payload F6 queued meanwhile is withdrawn. Claude Code answers at the
        compaction and sends the payload with the next prompt: until a turn starts
        (``UserPromptSubmit``, or ``Stop`` of a turn it retried), F6 sends a short prompt
        to act on it instead of the payload, and one queued before the answer becomes that.
        """
        kind = record.get("kind")
        injector = self.injector
        if kind == "auto_rehydrate":
            newer = self._newer_incident(record)
            with_turn = rehydrates_at_next_prompt(self.profile)
            injector.track_external(record, incident=newer, held=not with_turn)
            number = newer if newer is not None else record.get("incident")
            self.held = None if with_turn else HeldPayload(number, record.get("at"))
            for withdrawn in injector.withdraw(_whole_recovery):
                self.events.record(
                    "injection_withdrawn",
                    "supervisor",
                    failure="withdrawal not recorded",
                    reason=withdrawn.reason,
                    incident=withdrawn.incident,
                    why="the agent's SessionStart hook gave the payload",
                )
                if not with_turn:
                    self._nudge(number)
        elif kind == "hook" and record.get("event") in _TURN_HOOKS and self.held is not None:
            self.held = None  # the payload went to the model with this turn
            injector.withdraw(lambda request: request.reason == NUDGE_REASON)
            injector.external_delivered()

    def _newer_incident(self, record: Event) -> int | None:
        """The current incident when it is newer than the one a hook's event names: the
        SessionStart hook can answer before the supervisor recorded the compaction."""
        current = self._incident()
        named = record.get("incident")
        if current is None or (isinstance(named, int) and named >= current.number):
            return None
        return current.number

    # -- compaction at a break -----------------------------------------------------------

    def compact_now(self, *, by: str = "key") -> str:
        """Compact the agent at this break, with the pins as the summarizer's instructions.

        The profile's ``compact_command`` (Claude Code's ``/compact <instructions>``) is
        typed into the agent once it waits for input, like any injection; a profile
        without one cannot be compacted from outside. The injection records whether the
        summarizer is told the pins (Codex's is not: a bare ``/compact``).
        """
        template = self.profile.compact_command
        if not template:
            raise TetherError(f"profile {self.profile.name} has no compact_command to send")
        from supervisor.rehydrate.summary_instructions import reaches_summarizer

        # notes.md as the tick last read it (off the loop: it can be megabytes)
        text = template.replace("{instructions}", self.notes.digest.compact_instructions).strip()
        told = reaches_summarizer(self.profile)
        return self.injector.request(
            text,
            "compact",
            expect_ack=False,
            typed=True,
            details={"by": by, "summarizer_told": told},
        )

    def compact_offered(self) -> bool:
        """Whether the context meter passed the profile's threshold: the banner offers a
        compaction now, at a break, before the agent compacts by itself mid-task."""
        threshold = self.profile.compact_offer_percent
        if threshold <= 0 or not self.profile.compact_command or self.meter.stale:
            return False
        percent = self.meter.used_percent()  # the freshest reading
        return percent is not None and percent >= threshold

    def send_brief(self) -> None:
        """The initial brief, queued until the agent first waits for input."""
        from supervisor.rehydrate.brief import brief_text

        self.injector.request(brief_text(), "initial brief", expect_ack=False)

    # -- pins ------------------------------------------------------------------------------

    def pin(
        self,
        texts: list[str],
        source: str,
        then: Callable[[list[str] | TetherError], None] | None = None,
    ) -> None:
        """Pin decisions off the loop (notes.md is rewritten); ``then`` hears those that were
        new, or the error (else it is reported as a problem)."""

        def pinned(added: list[str] | TetherError) -> None:
            if isinstance(added, list):
                self.notes.add_pins(added)  # the tick reads the rest
            if then is not None:
                then(added)
            elif isinstance(added, TetherError):
                self._problem(str(added))

        self.writer.write(lambda: self.tether.add_decisions(texts, source), pinned)

    def pin_found(self, found: list[tuple[str, str]]) -> None:
        """Pin each ``(text, source)`` captured on screen or typed, under its true source."""
        for source in dict.fromkeys(source for _, source in found):
            self.pin([text for text, from_ in found if from_ == source], source)

    def pinned_decisions(self) -> list[str]:
        """The pins as the tick last read them from notes.md, with those pinned since."""
        return self.notes.decisions()
