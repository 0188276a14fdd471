"""The footer with tether's keys, in the fewest cells when the terminal is narrow.

Textual's footer pads every key; at 80 columns tether's eight keys ran past the edge
("f10 Qui", and F12 never showed). Below :data:`ROOMY` columns it takes its compact
style, which drops that padding, so every key shows, F12 last.

tether's own keys come first, then those of the focused widget (the side pane's tabs,
the checkpoint list's): Textual puts the focused widget's first, and with the pane
focused they pushed F9, the way back to the agent, and F10 past the right edge.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ROOMY = 110  # columns from which the padded style fits every key


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that is compact while the screen is narrow."""

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < ROOMY

    def compose(self) -> ComposeResult:
        apps = {
            binding.action
            for node, binding, _enabled, _tip in self.screen.active_bindings.values()
            if node is self.app
        }
        keys = list(super().compose())
        ours = [key for key in keys if isinstance(key, FooterKey) and key.action in apps]
        yield from ours
        yield from (key for key in keys if all(key is not mine for mine in ours))
