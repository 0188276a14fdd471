"""Pick which of the specifics a compaction dropped (and nobody pinned) to pin now.

The loss audit lists them "dropped, not pinned" with the sentence each was said
in; pinning one pins that sentence as a decision, so it goes verbatim into
every payload from now on.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, SelectionList

from supervisor.recognize.observations import Dropped
from supervisor.shown import shown_line


class PinDropped(ModalScreen[list[str] | None]):
    """Returns the sentences to pin (none selected: an empty list), or None when cancelled."""

    DEFAULT_CSS = """
    PinDropped { align: center middle; }
    PinDropped > Vertical {
        width: 90%; height: auto; max-height: 80%; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    PinDropped Label { width: 100%; }
    PinDropped SelectionList { height: auto; max-height: 20; }
    """
    BINDINGS = [("ctrl+s,p", "pin", "Pin selected"), ("escape", "cancel", "Cancel")]

    def __init__(self, dropped: list[Dropped] | tuple[Dropped, ...]) -> None:
        super().__init__()
        self.dropped = list(dropped)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                f"The summary dropped {len(self.dropped)} specifics nobody pinned. "
                "Space selects, p (or ctrl+s) pins the sentences they were said in, "
                "esc cancels."
            )
            yield SelectionList[int](
                # The agent's own sentences: shown, never markup nor control characters.
                *[
                    (Text(shown_line(f"{d.term} — {d.said}")), n)
                    for n, d in enumerate(self.dropped)
                ],
                id="dropped",
            )

    def on_mount(self) -> None:
        self.query_one(SelectionList).focus()

    def action_pin(self) -> None:
        chosen = self.query_one(SelectionList).selected
        sentences: list[str] = []
        for n in sorted(chosen):
            if self.dropped[n].said not in sentences:
                sentences.append(self.dropped[n].said)
        self.dismiss(sentences)

    def action_cancel(self) -> None:
        self.dismiss(None)
