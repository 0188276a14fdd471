"""A widget's Resize that Textual laid out but never sent, sent after all.

Textual (8.2.8) tells a widget its new size with a Resize event, chosen by comparing
the screen's new layout with the previous one. That previous layout is also
rebuilt, at the new sizes, whenever something asks where a widget is while the
layout is out of date (``Compositor.full_map``); the next layout pass then sees
no change and sends nothing. Seen on a busy machine: the agent's terminal drawn
80 columns wide while the agent still wrote 120 (the side pane shown by its key),
the notes editor laid out 55 wide but never wrapped (its text one long row), and
(an earlier run) the Notes tab in front without its underline.

:class:`ResizeWatch` looks after each layout pass, once the events that pass sent
have been handled, and sends the widget the Resize it missed.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget


class ResizeWatch:
    """Sends ``widget`` a Resize when a layout pass gave it a size it was not told of.

    :meth:`watch` once the widget is mounted. A widget of ours calls :meth:`told` from its
    Resize handler; another's (Textual's tab bar) gets one Resize per new size, which may
    repeat the one Textual sent.
    """

    def __init__(self, widget: Widget) -> None:
        self.widget = widget
        self.size: Size | None = None  # the size the last Resize said

    def watch(self) -> None:
        self.widget.screen.screen_layout_refresh_signal.subscribe(self.widget, self._laid_out)

    def told(self, size: Size) -> None:
        self.size = size

    def _laid_out(self, _screen: Screen[object]) -> None:
        # After the Resize this pass posted to the widget, if it posted one.
        self.widget.call_later(self._check)

    def _check(self) -> None:
        widget = self.widget
        size = widget.size
        if widget.is_mounted and size.area and size != self.size:
            self.size = size
            widget.post_message(events.Resize(size, widget.virtual_size, widget.container_size))
