"""The side pane's keys: switch tabs from anywhere in the pane, and keep Tab inside it.

Once F9 has put focus in the pane, every key stays there until F9 sends it back:
Tab and shift+Tab cycle through the pane's own controls (the tab bar, the file
buttons, the editor, the conflict choices, the lists) and wrap around, instead of
handing focus to the agent's terminal, where the next letter would go to the agent.
The footer shows these keys while the pane has focus.

A tab switch first takes the focus out of the tab it puts away: Textual would hand
the focus of the hidden widget to a sibling in that same tab, and a focused widget
brings its tab back to the front, undoing the switch.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import TabbedContent, Tabs

TAB_NAMES = ("notes", "progress", "checkpoints", "events")


class PaneKeys(Widget):
    """Mixed into the side pane: tab keys and a focus cycle that never leaves it."""

    BINDINGS = [
        Binding("ctrl+pagedown,alt+right", "next_tab", "Next tab"),
        Binding("ctrl+pageup,alt+left", "previous_tab", "Prev tab"),
        # No alt+digit: a terminal sends ESC 4 for alt+4, which Textual reads as "¢".
        Binding("tab", "cycle_focus(1)", "Next control", show=False),
        Binding("shift+tab", "cycle_focus(-1)", "Previous control", show=False),
    ]

    def focus_active_tab(self) -> None:  # the side pane's own
        raise NotImplementedError

    def _tabs(self) -> TabbedContent:
        return self.query_one(TabbedContent)

    def action_next_tab(self) -> None:
        self._step_tab(1)

    def action_previous_tab(self) -> None:
        self._step_tab(-1)

    def _step_tab(self, step: int) -> None:
        tabs = self._tabs()
        current = tabs.active.removeprefix("tab-")
        index = TAB_NAMES.index(current) if current in TAB_NAMES else 0
        self.action_show_tab(TAB_NAMES[(index + step) % len(TAB_NAMES)])

    def action_show_tab(self, name: str) -> None:
        """Bring ``name`` forward and put focus on its content, where its keys work."""
        tabs = self._tabs()
        self.screen.set_focus(tabs.query_one(Tabs))  # in no tab: nothing to bring back
        tabs.active = f"tab-{name}"
        self.call_after_refresh(self.focus_active_tab)

    def action_cycle_focus(self, step: int) -> None:
        chain = [widget for widget in self.screen.focus_chain if self in widget.ancestors]
        if not chain:
            return
        focused = self.screen.focused
        index = chain.index(focused) if focused in chain else (-1 if step > 0 else 0)
        chain[(index + step) % len(chain)].focus()
