"""tether's recovery keys as app actions: rehydrate, preview, compact now, pin, end orphan.

A mixin of :class:`~supervisor.app.TetherApp`, which composes it: these actions
share one rule, that a payload is built on a worker thread (notes can be
megabytes) and delivered on the loop, and one set of attributes the app sets
(``supervision``, ``session``, ``banner``, ``terminal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from supervisor.errors import TetherError

if TYPE_CHECKING:
    from supervisor.rehydrate.payload import Payload


class RecoveryKeys:
    """The actions behind F3, F4, F6, F7 and F12 (by default; keys.toml renames them)."""

    supervision: Any
    session: Any
    banner: Any
    terminal: Any

    def action_rehydrate(self) -> None:
        if not self.session.running:
            self.banner.show("Restarting the agent with its resume command…", "info")
            self._build_payload(self._asked_first(self._restart_with))
            return
        self._build_payload(self._asked_first(self._send_payload))

    def _asked_first(self, then: Callable[[Payload], None]) -> Callable[[Payload], None]:
        """``then``, but for a shell profile only once the user says yes: a paste would run
        the payload's lines as commands there (the injector refuses it unconfirmed)."""
        if self.supervision.profile.kind != "shell":
            return then

        def ask(payload: Payload) -> None:
            from widgets.confirm_shell_paste import ConfirmShellPaste

            def answered(yes: bool | None) -> None:
                self.terminal.focus()
                if not yes:
                    self.banner.show("Nothing was pasted into the shell", "info")
                    return
                self.supervision.injector.confirm_into_shell()
                then(payload)

            self.push_screen(ConfirmShellPaste(self.supervision.profile.name), answered)

        return ask

    def _restart_with(self, payload: Payload) -> None:
        try:
            self.supervision.restart(payload=payload)
        except TetherError as error:
            self.banner.show(str(error), "error")

    @work(thread=True, exclusive=True, group="payload")
    def _build_payload(self, then: Callable[[Payload], None]) -> None:
        """Build the payload off the event loop (notes can be megabytes), then ``then`` on it.

        A newer F6/F7 cancels this one (``exclusive``): only the newest is delivered.
        """
        try:
            payload = self.supervision.build_payload()
        except TetherError as error:
            self._from_thread(self.banner.show, str(error), "error")
            return
        if not get_current_worker().is_cancelled:
            self._from_thread(then, payload)

    def _from_thread(self, callback: Callable[..., object], *args: object) -> None:
        try:
            self.call_from_thread(callback, *args)
        except RuntimeError:  # the app has already stopped
            pass

    def _send_payload(self, payload: Payload) -> None:
        try:
            result = self.supervision.rehydrate(payload=payload)
        except TetherError as error:
            self.banner.show(str(error), "error")
            return
        if result == "empty":
            self.banner.show("Nothing to send: the payload is empty", "warning")

    @work(exclusive=True, group="orphan")
    async def action_end_orphan(self) -> None:
        """SIGTERM, then SIGKILL, to the dead tether's agent; the banner says how it went."""
        if self.supervision.orphan is None:
            return
        self.banner.show("Ending the previous tether's agent…", "info")
        said = await self.supervision.end_orphan()
        self._show(said, "success" if "was ended" in said else "error", "orphan")

    def action_preview(self) -> None:
        self._build_payload(self._preview_payload)

    def _preview_payload(self, payload: Payload) -> None:
        from widgets.payload_preview import PayloadPreview

        def send(text: str | None) -> None:
            if text is not None:
                result = self.supervision.rehydrate(text, reason="rehydrate (edited)")
                if result == "refused":  # a shell: F6 asks before it pastes
                    self.banner.show(self.supervision.injector.problems[-1], "warning")
            self.terminal.focus()

        self.push_screen(PayloadPreview(payload.text, budget=payload.budget), send)

    def action_compact(self) -> None:
        """Compact the agent now (Claude Code's `/compact <instructions>` with the pins;
        Codex's bare `/compact`, and the banner says its summarizer is not told them)."""
        from supervisor.rehydrate.summary_instructions import reaches_summarizer
        from widgets import banner_text

        try:
            result = self.supervision.compact_now()
        except TetherError as error:
            self.banner.show(str(error), "error")
            return
        told = reaches_summarizer(self.supervision.profile)
        text = banner_text.compact_sent(result, told)
        if result == "queued":
            self._show(text, "info", "compact")
        if not told:  # the incident's banner soon replaces the above: a toast keeps it in view
            self.notify(text, title="tether", timeout=10)

    def action_pin_dropped(self) -> None:
        """Pick from what the last compaction dropped that nobody pinned, and pin it."""
        incident = self.supervision.current_incident
        dropped = incident.dropped if incident is not None else ()
        if not dropped:
            self.banner.show("Nothing to pin: no compaction dropped an unpinned specific", "info")
            return
        from widgets.pin_dropped import PinDropped

        def pinned(added: list[str] | TetherError) -> None:
            if isinstance(added, TetherError):
                self.banner.show(str(added), "error")
            else:
                self.notify(f"{len(added)} decision(s) pinned", title="tether", timeout=3)

        def pin(sentences: list[str] | None) -> None:
            self.terminal.focus()
            if sentences:  # notes.md is rewritten off the loop (it can be megabytes)
                self.supervision.pin(sentences, "pinned from the audit", then=pinned)

        self.push_screen(PinDropped(dropped), pin)
