"""tether's recovery keys: rehydrate, preview, compact now, pin, end the left-over agent.

The app's actions call one :class:`RecoveryKeys`, which shares one rule among
them: a payload is built on a worker thread (notes can be megabytes) and
delivered on the loop. What the user is told goes through the engine's
attention model, like everything else the banner says.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.app import App
from textual.worker import get_current_worker

from supervisor.errors import TetherError
from supervisor.run.supervision import Supervision

if TYPE_CHECKING:
    from supervisor.recognize.observations import Incident
    from supervisor.rehydrate.payload import Payload

T = TypeVar("T")


class RecoveryKeys:
    """The actions behind F3, F4, F6, F7 and F12 (by default; keys.toml renames them)."""

    def __init__(
        self, app: App[int], supervision: Supervision, focus_terminal: Callable[[], None]
    ) -> None:
        """``app``: runs the workers and the dialogs, and shows the toasts."""
        self.app = app
        self.supervision = supervision
        self.attention = supervision.attention
        self.focus_terminal = focus_terminal

    def rehydrate(self) -> None:
        if not self.supervision.session.running:
            self.attention.say("Restarting the agent with its resume command…", "info")
            self._build_payload(self._asked_first(self._restart_with))
            return
        self._build_payload(self._asked_first(self._send_payload))

    def _asked_first(self, then: Callable[[T], None]) -> Callable[[T], None]:
        """``then``, but for a shell profile only once the user says yes: a paste would run
        the payload's lines as commands there (the injector refuses it unconfirmed). F6
        and the preview's Send both ask."""
        if self.supervision.profile.kind != "shell":
            return then

        def ask(payload: T) -> None:
            from widgets.confirm_shell_paste import ConfirmShellPaste

            def answered(yes: bool | None) -> None:
                self.focus_terminal()
                if not yes:
                    self.attention.say("Nothing was pasted into the shell", "info")
                    return
                self.supervision.injector.confirm_into_shell()
                then(payload)

            self.app.push_screen(ConfirmShellPaste(self.supervision.profile.name), answered)

        return ask

    def _restart_with(self, payload: Payload) -> None:
        try:
            self.supervision.restart(payload=payload)
        except TetherError as error:
            self.attention.say(str(error), "error")

    def _build_payload(self, then: Callable[[Payload], None]) -> None:
        """Build the payload off the event loop (notes can be megabytes), then ``then`` on it.

        A newer F6/F7 cancels this one (``exclusive``): only the newest is delivered.
        """
        self.app.run_worker(
            functools.partial(self._build, then), thread=True, exclusive=True, group="payload"
        )

    def _build(self, then: Callable[[Payload], None]) -> None:
        try:
            payload = self.supervision.build_payload()
        except TetherError as error:
            self._from_thread(self.attention.say, str(error), "error")
            return
        if not get_current_worker().is_cancelled:
            self._from_thread(then, payload)

    def _from_thread(self, callback: Callable[..., object], *args: object) -> None:
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:  # the app has already stopped
            pass

    def _send_payload(self, payload: Payload) -> None:
        try:
            result = self.supervision.rehydrate(payload=payload)
        except TetherError as error:
            self.attention.say(str(error), "error")
            return
        if result == "empty":
            self.attention.say("Nothing to send: the payload is empty", "warning")

    def end_orphan(self) -> None:
        """SIGTERM, then SIGKILL, to the dead tether's agent; the banner says how it went."""
        if self.supervision.orphan is None:
            return
        self.app.run_worker(self._end_orphan(), exclusive=True, group="orphan")

    async def _end_orphan(self) -> None:
        self.attention.say("Ending the previous tether's agent…", "info")
        said = await self.supervision.end_orphan()
        self.attention.say(said, "success" if "was ended" in said else "error", "orphan")

    def preview(self) -> None:
        self._build_payload(self._preview_payload)

    def _preview_payload(self, payload: Payload) -> None:
        from widgets.payload_preview import PayloadPreview

        def send(text: str | None) -> None:
            self.focus_terminal()
            if text is not None:
                self._asked_first(self._send_edited)(text)

        self.app.push_screen(PayloadPreview(payload.text, budget=payload.budget), send)

    def _send_edited(self, text: str) -> None:
        result = self.supervision.rehydrate(text, reason="rehydrate (edited)")
        if result == "refused":
            self.attention.say(self.supervision.injector.problems[-1], "warning")

    def compact(self) -> None:
        """Compact the agent now (Claude Code's `/compact <instructions>` with the pins;
        Codex's bare `/compact`, and the banner says its summarizer is not told them)."""
        from supervisor.rehydrate.summary_instructions import reaches_summarizer
        from supervisor.run import banner_text

        try:
            result = self.supervision.compact_now()
        except TetherError as error:
            self.attention.say(str(error), "error")
            return
        self.attention.compaction_sent(result)
        told = reaches_summarizer(self.supervision.profile)
        if not told:  # the incident's banner soon replaces the above: a toast keeps it in view
            self.app.notify(banner_text.compact_sent(result, told), title="tether", timeout=10)

    def pin_dropped(self) -> None:
        """Pick from what the last compaction dropped that nobody pinned, and pin it."""
        incident = self.supervision.current_incident
        dropped = incident.dropped if incident is not None else ()
        if not dropped:  # a toast: the incident's banner stays as it was
            self.app.notify(nothing_to_pin(incident), title="tether", timeout=6)
            return
        from widgets.pin_dropped import PinDropped

        def pinned(added: list[str] | TetherError) -> None:
            if isinstance(added, TetherError):
                self.attention.say(str(added), "error")
            else:
                self.app.notify(f"{len(added)} decision(s) pinned", title="tether", timeout=3)

        def pin(sentences: list[str] | None) -> None:
            self.focus_terminal()
            if sentences:  # notes.md is rewritten off the loop (it can be megabytes)
                self.supervision.pin(sentences, "pinned from the audit", then=pinned)

        self.app.push_screen(PinDropped(dropped), pin)


def nothing_to_pin(incident: Incident | None) -> str:
    """Why F12 offers nothing, truly: no compaction, no summary to audit, or none dropped."""
    if incident is None or incident.kind != "compaction":
        return "Nothing to pin: there has been no compaction to audit"
    if not incident.summary:
        return (
            f"Nothing to pin: no summary of compaction #{incident.number} was available, "
            "so what it dropped is unknown"
        )
    if not incident.fold_audited:
        return (
            f"Nothing to pin: the conversation compaction #{incident.number} folded was not "
            "read (no transcript), so what it dropped is unknown"
        )
    return f"Nothing to pin: compaction #{incident.number} dropped no unpinned specific"
