"""A question the user answers with y or n: the one shape of tether's confirmations.

Quitting while the agent runs and restoring a checkpoint both ask first; each says its
own question and its own words for the two answers, and this screen does the asking.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from supervisor.shown import shown


class YesNo(ModalScreen[bool]):
    """Dismissed with True for y or the first button, False for n, Escape or the second.

    A subclass gives its BINDINGS (``answer(True)`` / ``answer(False)``, with its words for
    the footer) and its DEFAULT_CSS.
    """

    def __init__(self, question: str, yes: str, no: str, yes_variant: str = "warning") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no, self.yes_variant = yes, no, yes_variant

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(shown(self.question)))  # may quote a file: never markup
            with Horizontal():
                yield Button(f"{self.yes} (y)", variant=self.yes_variant, id="yes")
                yield Button(f"{self.no} (n)", variant="primary", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
