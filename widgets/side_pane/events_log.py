"""The Events tab: one row per event of `events.jsonl`, newest at the bottom, and the
fields of the highlighted one in full underneath.

A row is the time, the incident it concerns and what happened in words
(:mod:`widgets.side_pane.event_words`); incidents stand out. A row that does not fit ends
in an ellipsis, and the whole event is always in the detail view below, so
nothing is lost to the width. The file grows for the whole life of a project, so
the log reads its tail once and then only the bytes appended since (see
:class:`JsonlFollower`); a line still being written is picked up on the next change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from supervisor.store.tether_dir import INCIDENT_KIND, TetherDir
from supervisor.store.watcher import JsonlFollower
from widgets.side_pane.event_words import EventRow, describe, fields_text
from widgets.side_pane.serial_reads import SerialReads
from widgets.side_pane.store_changed import StoreChanged
from widgets.widget_message import WidgetMessage

INITIAL_EVENTS = 200
MAX_EVENTS = 2000
TONE_STYLES = {
    "incident": "bold white on dark_red",
    "warning": "yellow",
    "good": "green",
    "note": "cyan",
    "quiet": "dim",
    "": "",
}


def row_text(row: EventRow, width: int) -> Text:
    """The row on one line of ``width`` cells, ending in an ellipsis if it is cut."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(f"{row.time} {row.incident:>3} ", style="dim")
    text.append(" ".join(row.what.split()), style=TONE_STYLES.get(row.tone, ""))
    if row.tone == "incident":
        text.stylize(TONE_STYLES["incident"])
    text.truncate(max(1, width), overflow="ellipsis")
    return text


class EventList(OptionList):
    """The rows; Enter (shown in the footer) opens the highlighted event's fields."""

    BINDINGS = [Binding("enter", "select", "All fields")]


class EventFields(VerticalScroll):
    """The highlighted event's fields; Escape goes back to the rows."""

    BINDINGS = [Binding("escape", "back", "Back to the events")]

    def action_back(self) -> None:
        self.screen.query_one("#events-list").focus()


class EventsLog(Widget):
    """The timeline; follows `events.jsonl` as hooks, detectors and the CLI append to it."""

    DEFAULT_CSS = """
    EventsLog { layout: vertical; height: 1fr; background: $surface; }
    EventsLog #events-list { height: 1fr; min-height: 4; border: none; padding: 0; }
    EventsLog #events-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    EventsLog #events-detail { height: 35%; min-height: 3; }
    EventsLog #events-fields { padding: 0 1; }
    """
    BINDINGS = [Binding("end", "newest", "Newest", show=False)]

    @dataclass
    class IncidentSeen(WidgetMessage["EventsLog"]):
        """An incident was appended while the log was watching (not one from history)."""

        event: dict[str, Any]

    def __init__(self, tether: TetherDir, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tether = tether
        self._follower = JsonlFollower(tether.events)
        self.events: list[dict[str, Any]] = []
        self._rows: list[EventRow] = []
        self._width = 0
        # The follower keeps its place in the file: only the workers of ``_reads`` use it,
        # one at a time, and each batch is applied before the next is read.
        self._reads = SerialReads(self, "events-read")

    @property
    def reading(self) -> bool:
        """A read of events.jsonl is under way: rows may be about to arrive."""
        return self._reads.pending

    def compose(self) -> ComposeResult:
        yield EventList(id="events-list")
        yield Static("", id="events-title")
        with EventFields(id="events-detail"):
            yield Static("", id="events-fields")

    @property
    def options(self) -> OptionList:
        return self.query_one("#events-list", OptionList)

    def on_mount(self) -> None:
        self._start()

    def focus(self, scroll_visible: bool = True) -> EventsLog:
        """Focus goes to the list, where the arrow keys move through the events."""
        self.options.focus(scroll_visible)
        return self

    def _start(self) -> None:
        """Read the tail again from the start (on a worker), then show only that."""
        self._reads.read(lambda: self._follower.start(INITIAL_EVENTS), self._restart)

    def _restart(self, events: list[dict[str, Any]]) -> None:
        self.events.clear()
        self._rows.clear()
        self._append(events)

    def on_store_changed(self, message: StoreChanged) -> None:
        if message.path == self.tether.root:
            self._start()
        elif message.path == self.tether.events:
            self._reads.read(self._follower.read_new, self._appended)

    def _appended(self, new: list[dict[str, Any]]) -> None:
        """On the loop: the events appended since the last read."""
        self._append(new)
        for event in new:
            if event.get("kind") == INCIDENT_KIND:
                self.post_message(self.IncidentSeen(self, event))

    def _append(self, events: list[dict[str, Any]]) -> None:
        options = self.options
        before = len(self.events)
        at_end = options.highlighted is None or options.highlighted >= before - 1
        self.events.extend(events)
        self._rows.extend(describe(event) for event in events)
        if before == 0 or len(self.events) > MAX_EVENTS:
            del self.events[:-MAX_EVENTS], self._rows[:-MAX_EVENTS]
            self._rebuild()
        elif events:
            width = self._row_width()
            options.add_options([Option(row_text(row, width)) for row in self._rows[before:]])
        if self.events and at_end:
            options.highlighted = len(self.events) - 1
        self._show_detail()

    def _row_width(self) -> int:
        return max(10, self.options.scrollable_content_region.width or self.size.width or 40)

    def _rebuild(self) -> None:
        options = self.options
        keep = options.highlighted
        options.clear_options()
        if not self.events:
            options.add_option(Option(Text("no events yet", style="italic dim"), id="none"))
            options.disable_option("none")
            return
        width = self._row_width()
        self._width = width
        options.add_options([Option(row_text(row, width)) for row in self._rows])
        if keep is not None and keep < len(self.events):
            options.highlighted = keep

    def on_resize(self) -> None:
        if self.events and self._row_width() != self._width:
            self._rebuild()

    @on(OptionList.OptionHighlighted, "#events-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(OptionList.OptionSelected, "#events-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_details()

    def _show_detail(self) -> None:
        index = self.options.highlighted
        title = self.query_one("#events-title", Static)
        fields = self.query_one("#events-fields", Static)
        if index is None or not 0 <= index < len(self.events):
            title.update("")
            fields.update("")
            return
        title.update(f"Event {index + 1} of {len(self.events)}, all its fields:")
        fields.update(Text(fields_text(self.events[index])))

    def action_details(self) -> None:
        """Enter: the fields below take the keys, to scroll through a long event."""
        self.query_one("#events-detail", EventFields).focus()

    def action_newest(self) -> None:
        if self.events:
            self.options.highlighted = len(self.events) - 1

    @property
    def shown_lines(self) -> list[str]:
        """The plain text of the rows, for tests and screenshots."""
        return [row_text(row, 10_000).plain for row in self._rows]
