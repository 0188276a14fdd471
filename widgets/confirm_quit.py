"""Asks before quitting while the agent still runs (quitting hangs up on it)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label


class ConfirmQuit(ModalScreen[bool]):
    DEFAULT_CSS = """
    ConfirmQuit { align: center middle; }
    ConfirmQuit > Vertical {
        width: 64; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ConfirmQuit Label { width: 100%; }
    ConfirmQuit Horizontal { height: auto; }
    ConfirmQuit Button { margin: 1 1 0 0; }
    """
    BINDINGS = [("y", "answer(True)", "Quit"), ("n,escape", "answer(False)", "Stay")]

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        with Vertical():
            yield Label("The agent is still running. Quit tether and hang up on it?")
            with Horizontal():
                yield Button("Quit (y)", variant="error", id="yes")
                yield Button("Stay (n)", variant="primary", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
