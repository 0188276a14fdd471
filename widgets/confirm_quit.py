"""Asks before quitting while the agent still runs (quitting hangs up on it)."""

from __future__ import annotations

from widgets.yes_no import YesNo


class ConfirmQuit(YesNo):
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

    def __init__(self) -> None:
        question = "The agent is still running. Quit tether and hang up on it?"
        super().__init__(question, yes="Quit", no="Stay", yes_variant="error")
