"""The footer with tether's keys, in the fewest cells when the terminal is narrow.

Textual's footer pads every key; at 80 columns tether's eight keys ran past the edge
("f10 Qui", and F12 never showed). Below :data:`ROOMY` columns it takes its compact
style, which drops that padding, so every key shows, F12 last.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

ROOMY = 110  # columns from which the padded style fits every key


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that is compact while the screen is narrow."""

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < ROOMY
