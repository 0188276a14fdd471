"""Asks before pasting a recovery payload into a shell, where its lines would run."""

from __future__ import annotations

from supervisor.rehydrate.injector import shell_refusal
from widgets.yes_no import YesNo


class ConfirmShellPaste(YesNo):
    DEFAULT_CSS = """
    ConfirmShellPaste { align: center middle; }
    ConfirmShellPaste > Vertical {
        width: 72; height: auto; padding: 1 2;
        border: thick $error; background: $surface;
    }
    ConfirmShellPaste Label { width: 100%; }
    ConfirmShellPaste Horizontal { height: auto; }
    ConfirmShellPaste Button { margin: 1 1 0 0; }
    """
    BINDINGS = [("y", "answer(True)", "Paste"), ("n,escape", "answer(False)", "Don't paste")]

    def __init__(self, profile: str) -> None:
        question = shell_refusal(profile) + "\n\nPaste the payload into it now?"
        super().__init__(question, yes="Paste", no="Don't paste", yes_variant="error")
