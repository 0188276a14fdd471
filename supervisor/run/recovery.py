"""The supervision's recovery requests: the payload, a re-send of what a recall missed,
compaction at a break, and the initial brief; and the pins they carry.

A mixin of :class:`~supervisor.run.supervision.Supervision`: each request goes to the
injector, which sends it once the agent waits for input, so every way into the agent
keeps the same rules (never onto a typed line, no control sequence, one at a time).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from supervisor.agents.codex_hooks import rehydrates_at_next_prompt
from supervisor.errors import TetherError

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
    return request.details.get("restate") == "all"


class Recovery:
    """Needs the supervision's ``injector``, ``profile``, ``tether``, ``meter``, ``screen``,
    ``decisions``, ``notes`` and ``current_incident``."""

    injector: Any
    profile: Any
    tether: Any
    meter: Any
    screen: Any
    decisions: Any
    current_incident: Any
    notes: Any  # a NotesDigest (run/tick_reads.py)
    checkpointer: Any  # its writer thread writes pins too
    _problem: Callable[[str], None]
    _send_anyway: bool
    # The SessionStart hook's payload that the agent holds, not yet sent to its model
    # (Claude Code's comes at the compaction and goes with the next prompt): its incident.
    _held_payload: dict[str, Any] | None = None

    def build_payload(self, *, checkpoint: int | None = None):
        from supervisor.rehydrate.payload import build_payload

        return build_payload(
            self.tether, self.profile, checkpoint=checkpoint, incident=self.current_incident
        )

    def rehydrate(
        self, text: str | None = None, *, reason: str = "rehydrate", payload: Any = None
    ) -> str:
        """Send the payload (or ``text``, an edited one) now, or queue it until the agent waits.

        ``payload``: one already built (the app builds it on a worker thread). After a
        partial recall check, only the decisions the agent did not restate are sent
        again instead (reason ``resend-missing``); every payload asks for `tether ack`.
        """
        if self.injector is None:
            raise TetherError("the supervisor is not open")
        from supervisor.rehydrate.tokens import TokenCount

        number = self.current_incident.number if self.current_incident else None
        recovery = {"restate": "all"}  # the injection is a recovery: its recall is checked
        if self.decisions.typed and self.injector.queue:  # pressed again on a typed line
            self._send_anyway = True
        if text is None:
            resent = self._resend_missing(number)
            if resent is not None:
                return resent
            held = self._held_payload
            if held is not None and held["incident"] == number:  # a paste would be a 2nd copy
                return self._nudge(number)
            payload = payload if payload is not None else self.build_payload()
            tokens = TokenCount(payload.tokens, payload.exact, payload.encoding)
            result = self.injector.request(
                payload.text, reason, incident=number, tokens=tokens, details=recovery
            )
        else:
            result = self.injector.request(text, reason, incident=number, details=recovery)
        if result == "sent":
            self.screen.note_input()
        return result

    def _resend_missing(self, number: int | None) -> str | None:
        """After a partial recall of this incident's recovery: send only what is missing."""
        from supervisor.rehydrate import recall_check

        injector = self.injector
        recall = injector.last_recall if injector is not None else None
        if injector is None or recall is None or recall.result != recall_check.PARTIAL:
            return None
        answered = injector.last.request.incident if injector.last is not None else None
        if answered != number or not recall.missing:
            return None  # a newer incident wants the whole payload
        text = recall_check.resend_text(self._pinned_decisions(), recall)
        restate = [decision for decision, _terms in recall.missing]
        result = injector.request(
            text, recall_check.RESEND_REASON, incident=number, details={"restate": restate}
        )
        if result == "sent":
            self.screen.note_input()
        return result

    def _nudge(self, number: int | str | None) -> str:
        kind = self.current_incident.kind if self.current_incident is not None else None
        held = self._held_payload or {}
        result = self.injector.request(
            nudge_text(kind, number),
            NUDGE_REASON,
            incident=number,
            expect_ack=False,  # the ack answers the hook's recovery, which the injector tracks
            details={"payload_by": "SessionStart hook", "payload_at": held.get("at")},
        )
        if result == "sent":
            self.screen.note_input()
        return result

    def hook_delivery(self, record: dict[str, Any]) -> None:
        """Follow the SessionStart hook's payload to the model, so F6 never adds a copy.

        Codex answers the hook as a turn starts: its payload goes with that turn, and a
        whole payload F6 queued meanwhile is withdrawn. Claude Code answers at the
        compaction and sends the payload with the next prompt: until a turn starts
        (``UserPromptSubmit``, or ``Stop`` of a turn it retried), F6 sends a short prompt
        to act on it instead of the payload, and one queued before the answer becomes that.
        """
        kind = record.get("kind")
        if kind == "auto_rehydrate":
            newer = self._newer_incident(record)
            with_turn = rehydrates_at_next_prompt(self.profile)
            self.injector.track_external(record, incident=newer, held=not with_turn)
            number = newer if newer is not None else record.get("incident")
            self._held_payload = None if with_turn else {"incident": number, "at": record.get("at")}
            for withdrawn in self.injector.withdraw(_whole_recovery):
                try:
                    self.tether.record_event(
                        "injection_withdrawn",
                        "supervisor",
                        reason=withdrawn.reason,
                        incident=withdrawn.incident,
                        why="the agent's SessionStart hook gave the payload",
                    )
                except TetherError as error:
                    self.injector.problems.append(f"withdrawal not recorded: {error}")
                if not with_turn:
                    self._nudge(number)
        elif kind == "hook" and record.get("event") in _TURN_HOOKS and self._held_payload:
            self._held_payload = None  # the payload went to the model with this turn
            self.injector.withdraw(lambda request: request.reason == NUDGE_REASON)
            self.injector.external_delivered()

    def _newer_incident(self, record: dict) -> int | None:
        """The current incident when it is newer than the one a hook's event names: the
        SessionStart hook can answer before the supervisor recorded the compaction."""
        current = self.current_incident
        named = record.get("incident")
        if current is None or (isinstance(named, int) and named >= current.number):
            return None
        return current.number

    def compact_now(self, *, by: str = "key") -> str:
        """Compact the agent at this break, with the pins as the summarizer's instructions.

        The profile's ``compact_command`` (Claude Code's ``/compact <instructions>``) is
        typed into the agent once it waits for input, like any injection; a profile
        without one cannot be compacted from outside. The injection records whether the
        summarizer is told the pins (Codex's is not: a bare ``/compact``).
        """
        if self.injector is None:
            raise TetherError("the supervisor is not open")
        template = self.profile.compact_command
        if not template:
            raise TetherError(f"profile {self.profile.name} has no compact_command to send")
        from supervisor.rehydrate.summary_instructions import reaches_summarizer

        # notes.md as the tick last read it (off the loop: it can be megabytes)
        text = template.replace("{instructions}", self.notes.compact_instructions).strip()
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
        if self.injector is None:
            return
        from supervisor.rehydrate.brief import brief_text

        self.injector.request(brief_text(), "initial brief", expect_ack=False)

    def pin(self, texts: list[str], source: str, then: Callable | None = None) -> None:
        """Pin decisions off the loop (notes.md is rewritten); ``then`` hears those that were
        new, or the error (else it is reported as a problem)."""

        def pinned(added: list[str] | TetherError) -> None:
            if isinstance(added, list):
                pins = self.notes.pinned + tuple(t for t in added if t not in self.notes.pinned)
                self.notes = dataclasses.replace(self.notes, pinned=pins)  # the tick: the rest
            if then is not None:
                then(added)
            elif isinstance(added, TetherError):
                self._problem(str(added))

        self.checkpointer.write(lambda: self.tether.add_decisions(texts, source), pinned)

    def _pinned_decisions(self) -> list[str]:
        """The pins as the tick last read them from notes.md (on a worker: it can be
        megabytes), with those pinned since on the loop."""
        return list(self.notes.pinned)
