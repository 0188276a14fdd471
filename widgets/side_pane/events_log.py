"""The Events tab: a timeline of `events.jsonl`, newest at the bottom, incidents highlighted.

The file grows for the whole life of a project, so the log reads its tail once
and then only the bytes appended since (see :class:`JsonlFollower`); a line
still being written is picked up on the next change.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import RichLog

from supervisor.store.tether_dir import INCIDENT_KIND, TetherDir
from supervisor.store.watcher import JsonlFollower
from widgets.side_pane.store_changed import StoreChanged

INITIAL_EVENTS = 200
# Keys every event has, or that describe_event already put into words.
_SHOWN_KEYS = {
    "at", "kind", "source", "number", "type", "trigger", "sources", "summary", "dropped_unpinned",
}  # fmt: skip


def describe_event(event: dict[str, Any]) -> tuple[str, str]:
    """One event as ``(text, style)``: the time, what happened, and its details in short."""
    at = str(event.get("at", ""))
    when = at[11:19] if len(at) >= 19 else at or "--:--:--"
    kind = str(event.get("kind", "?"))
    source = str(event.get("source", ""))
    if kind == INCIDENT_KIND:
        sources = event.get("sources")
        via = ", ".join(map(str, sources)) if isinstance(sources, list) and sources else source
        trigger = f" ({event['trigger']})" if event.get("trigger") else ""
        head = f"⚠ incident #{event.get('number', '?')} {event.get('type', '?')}{trigger} via {via}"
        style = "bold white on dark_red"
    elif kind == "invariant-fix":
        head = (
            f"invariant fixed: cursor {event.get('from_cursor')} → {event.get('to_cursor')}"
            f" ({event.get('violation', '?')})"
        )
        style = "yellow"
    elif kind == "decision":
        head = f"decision pinned: {event.get('text', '')}"
        style = "cyan"
    elif kind == "recall_check":
        head, style = _recall_words(event)
    elif kind == "ack":
        head = f"ack: {event.get('text', '')}"
        style = "dim"
    elif kind == "hook":
        head = f"hook {event.get('event') or event.get('name') or ''}".rstrip()
        style = "dim"
    else:
        head = kind
        style = ""
    extras = [
        f"{key}={_short(value)}"
        for key, value in event.items()
        if key not in _SHOWN_KEYS
        and not (kind == "invariant-fix" and key != "message")
        and not (kind == "decision" and key == "text")
        and not (kind in ("recall_check", "ack") and key not in ("incident",))
    ]
    dropped = event.get("dropped_unpinned")
    if kind in (INCIDENT_KIND, "incident_update") and isinstance(dropped, list) and dropped:
        terms = [str(d.get("term")) for d in dropped if isinstance(d, dict)]
        head += f"  dropped, not pinned: {', '.join(terms)}"
    line = f"{when} {head}"
    if source and kind != INCIDENT_KIND:
        line += f" [{source}]"
    if extras:
        line += "  " + " ".join(extras)
    return line, style


def _recall_words(event: dict[str, Any]) -> tuple[str, str]:
    """ "recall check: complete, 3 of 3 decisions restated", or the missing ones and terms."""
    restated = event.get("restated") if isinstance(event.get("restated"), list) else []
    missing = [row for row in event.get("missing") or [] if isinstance(row, dict)]
    result = str(event.get("result", "?"))
    asked = len(restated) + len(missing)
    if result == "none":
        plural = "s" * (asked != 1)
        return (
            f"recall check: none, no `tether ack` in time ({asked} decision{plural})",
            "bold yellow",
        )
    head = f"recall check: {result}, {len(restated)} of {asked} decisions restated"
    for row in missing:
        terms = ", ".join(map(str, row.get("terms") or [])) or "no ack"
        head += f"; decision {row.get('decision', '?')} missing: {terms}"
    style = {"complete": "green", "partial": "yellow"}.get(result, "bold yellow")
    return head, style


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EventsLog(RichLog):
    """The timeline; follows `events.jsonl` as hooks, detectors and the CLI append to it."""

    DEFAULT_CSS = """
    EventsLog { height: 1fr; background: $surface; }
    """

    class IncidentSeen(Message):
        """An incident was appended while the log was watching (not one from history)."""

        def __init__(self, log: EventsLog, event: dict[str, Any]) -> None:
            super().__init__()
            self.log_widget = log
            self.event = event

        @property
        def control(self) -> EventsLog:
            return self.log_widget

    def __init__(self, tether: TetherDir, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, max_lines=2000, **kwargs)
        self.tether = tether
        self._follower = JsonlFollower(tether.events)
        self._empty = True

    def on_mount(self) -> None:
        self._start()

    def _start(self) -> None:
        self.clear()
        self._empty = True
        events = self._follower.start(INITIAL_EVENTS)
        if not events:
            self.write(Text("no events yet", style="italic dim"))
        for event in events:
            self._append(event)

    def on_store_changed(self, message: StoreChanged) -> None:
        if message.path == self.tether.root:
            self._start()
        elif message.path == self.tether.events:
            for event in self._follower.read_new():
                self._append(event)
                if event.get("kind") == INCIDENT_KIND:
                    self.post_message(self.IncidentSeen(self, event))

    def _append(self, event: dict[str, Any]) -> None:
        if self._empty:
            self.clear()
            self._empty = False
        line, style = describe_event(event)
        self.write(Text(line, style=style))

    @property
    def shown_lines(self) -> list[str]:
        """The plain text of the lines on the log, for tests and screenshots."""
        return [strip.text for strip in self.lines]
