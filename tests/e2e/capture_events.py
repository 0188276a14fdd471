"""The ``<capture>.events.json`` of a recording: where each marker is in the bytes and on screen.

The replay tests read the input events (their byte offsets end the resume window), the
process exit, every read's ``[t, offset, length]``, the hook calls on the capture clock,
and the first point where each marker was visible; a person reads the rest (terminal
queries, modes, titles) to know what a stream holds. Markers are found in the stream with
escape sequences and whitespace removed, because both agents place words with cursor
moves instead of spaces; the screen used for "visible" is a bare avt terminal (the
recorder's, not tether's emulator), fed read by read.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from tests.e2e.pty_recorder import Recording, Screen

NOTES = [
    "t = seconds since spawn, same clock as the .cast; raw_offset = byte offset in <scenario>.raw.",
    "Marker search is on the escape-stripped stream, ignoring whitespace, so a marker whose "
    "words are separated by cursor moves (CSI n G / CSI n C / CSI r;c H) instead of spaces is "
    "still found; contiguous_in_raw says whether the exact marker bytes appear as-is at "
    "raw_offset.",
    "t is the time of the read that completed the marker (t_first_byte: the read holding its "
    "first byte).",
    "occurrences_in_stream counts every (escape/whitespace-insensitive) match in the whole "
    "stream, literal_occurrences every exact byte match.",
    "screen: first read after which the marker was visible on a screen of the capture's size "
    "(a bare avt terminal; the first captures used pyte, which had no alternate screen).",
]

_ESCAPE = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1b[P_^X][^\x1b]*\x1b\\"  # DCS, APC, PM, SOS
    rb"|\x1b[ -/]*[0-~]"  # two-byte escapes
    rb"|[\x00-\x1f\x7f]"  # C0 controls
)

QUERIES = [
    ("XTVERSION", rb"\x1b\[>0?q"),
    ("DA1 (primary device attributes)", rb"\x1b\[0?c"),
    ("DA2 (secondary device attributes)", rb"\x1b\[>0?c"),
    ("DSR cursor position (CPR)", rb"\x1b\[\??6n"),
    ("kitty keyboard flags query", rb"\x1b\[\?u"),
    ("DECRQM (request mode)", rb"\x1b\[\?\d+\$p"),
    ("OSC 10 foreground colour query", rb"\x1b\]10;\?(?:\x07|\x1b\\)"),
    ("OSC 11 background colour query", rb"\x1b\]11;\?(?:\x07|\x1b\\)"),
    ("OSC 7501 status probe", rb"\x1b\]7501;\?(?:\x07|\x1b\\)"),
    ("XTWINOPS report", rb"\x1b\[1[468]t"),
    ("kitty graphics query", rb"\x1b_G[^\x1b]*\x1b\\"),
]

DEC_MODES = {
    "1": "cursor keys mode",
    "7": "autowrap",
    "25": "cursor visible",
    "1000": "mouse click tracking",
    "1002": "mouse drag tracking",
    "1003": "mouse any-motion tracking",
    "1004": "focus events",
    "1006": "mouse SGR encoding",
    "1007": "alternate scroll",
    "1016": "mouse SGR-pixel encoding",
    "1049": "alternate screen",
    "2004": "bracketed paste",
    "2026": "synchronized output",
    "2031": "theme change reports",
}
_DEC_MODE = re.compile(rb"\x1b\[\?([\d;]+)([hl])")
_KITTY = re.compile(rb"\x1b\[([<>=])(\d*)u")
_TITLE = re.compile(rb"\x1b\][02];([^\x07\x1b]*)(?:\x07|\x1b\\)")
_OSC7501 = re.compile(rb"\x1b\]7501;([^\x07\x1b?][^\x07\x1b]*)(?:\x07|\x1b\\)")


@dataclass(frozen=True)
class Marker:
    """A text the recorder waited for (or a byte sequence it expects), and from where on."""

    kind: str
    text: str | None = None
    data: bytes | None = None  # a byte marker (escape sequence) instead of text
    search_from: int = 0  # raw offset: look from here on (the input that caused it)


class _Stream:
    """The capture without escapes and whitespace, with each character's byte offset."""

    def __init__(self, raw: bytes) -> None:
        chars: list[str] = []
        offsets: list[int] = []
        ends: list[int] = []
        position = 0
        for escape in [*_ESCAPE.finditer(raw), None]:
            stop = escape.start() if escape else len(raw)
            index = position
            while index < stop:
                length = _utf8_length(raw[index])
                char = raw[index : index + length].decode("utf-8", "replace")
                if not char.isspace():
                    chars.append(char)
                    offsets.append(index)
                    ends.append(min(index + length, stop))
                index += max(1, min(length, stop - index))
            position = escape.end() if escape else len(raw)
        self.text = "".join(chars)
        self.offsets = offsets
        self.ends = ends

    def find(self, needle: str, from_offset: int) -> tuple[int, int] | None:
        start = bisect.bisect_left(self.offsets, from_offset)
        index = self.text.find(needle, start)
        if index < 0 or not needle:
            return None
        return self.offsets[index], self.ends[index + len(needle) - 1]

    def count(self, needle: str) -> int:
        return self.text.count(needle) if needle else 0


def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1  # a continuation byte on its own


def _squeeze(text: str) -> str:
    return re.sub(r"\s", "", text)


class _Clock:
    """Which read holds a byte, and that read's time."""

    def __init__(self, recording: Recording) -> None:
        self.list: list[list] = []
        position = 0
        for t, data in recording.reads:
            self.list.append([t, position, len(data)])
            position += len(data)
        self._ends = [offset + length for _, offset, length in self.list]

    def read_of(self, offset: int) -> int:
        return min(bisect.bisect_right(self._ends, offset), len(self.list) - 1)

    def t(self, offset: int) -> float:
        return self.list[self.read_of(offset)][0] if self.list else 0.0


def _first_on_screen(recording: Recording, markers: list[Marker]) -> dict[int, dict]:
    """For each text marker (by index), the first read after which the screen shows it."""
    screen = Screen(recording.cols, recording.rows)
    pending = {i: _squeeze(m.text) for i, m in enumerate(markers) if m.text}
    seen: dict[int, dict] = {}
    position = 0
    for t, data in recording.reads:
        screen.feed(data)
        position += len(data)
        waiting = [i for i in pending if markers[i].search_from < position]
        if not waiting:
            continue
        shown = _squeeze("".join(screen.display))
        for i in waiting:
            if pending[i] in shown:
                seen[i] = {"t": t, "after_raw_offset": position}
                del pending[i]
        if not pending:
            break
    return seen


def texts_on_screen(recording: Recording, pattern: str) -> list[tuple[str, int]]:
    """Each distinct text matching ``pattern`` on the screen after some read, with the
    offset of the first read after which it showed: for texts drawn only for a moment."""
    regex = re.compile(pattern)
    screen = Screen(recording.cols, recording.rows)
    found: dict[str, int] = {}
    position = 0
    for _, data in recording.reads:
        screen.feed(data)
        position += len(data)
        for row in screen.display:
            for hit in regex.finditer(row):
                found.setdefault(hit.group(0).strip(), position - len(data))
    return list(found.items())


def _marker_events(recording: Recording, markers: list[Marker], clock: _Clock):
    raw = recording.raw
    stream = _Stream(raw)
    on_screen = _first_on_screen(recording, markers)
    events, missing = [], []
    for index, marker in enumerate(markers):
        if marker.data is not None:
            at = raw.find(marker.data, marker.search_from)
            if at < 0:
                missing.append({"kind": marker.kind, "marker_bytes": marker.data.decode()})
                continue
            events.append(
                {
                    "kind": marker.kind,
                    "marker_bytes": marker.data.decode(),
                    "search_from_offset": marker.search_from,
                    "t": clock.t(at + len(marker.data) - 1),
                    "raw_offset": at,
                    "raw_end": at + len(marker.data),
                    "literal_occurrences": raw.count(marker.data),
                }
            )
            continue
        needle = _squeeze(marker.text)
        found = stream.find(needle, marker.search_from)
        screen = on_screen.get(index)
        if found is None and screen is None:
            missing.append({"kind": marker.kind, "marker": marker.text})
            continue
        event = {
            "kind": marker.kind,
            "marker": marker.text,
            "search_from_offset": marker.search_from,
            "found_in_stream": found is not None,
            "occurrences_in_stream": stream.count(needle),
            "literal_occurrences": raw.count(marker.text.encode()),
        }
        if found is not None:
            start, end = found
            first, last = clock.read_of(start), clock.read_of(end - 1)
            event |= {
                "t": clock.list[last][0],
                "raw_offset": start,
                "raw_end": end,
                "t_first_byte": clock.list[first][0],
                "contiguous_in_raw": raw[start:end] == marker.text.encode(),
                "split_across_reads": first != last,
            }
            if not event["contiguous_in_raw"]:
                event["raw_bytes"] = raw[start:end].decode("utf-8", "replace")
        else:
            event |= {"t": screen["t"], "raw_offset": None, "screen_only": True}
        if screen is not None:
            event["screen"] = screen
        events.append(event)
    return events, missing


def _queries(raw: bytes, clock: _Clock) -> list[dict]:
    found = []
    for name, pattern in QUERIES:
        for hit in re.finditer(pattern, raw):
            found.append(
                {
                    "query": name,
                    "bytes": hit.group(0).decode("utf-8", "replace"),
                    "raw_offset": hit.start(),
                    "t": clock.t(hit.start()),
                    "answered": False,
                }
            )
    return sorted(found, key=lambda q: q["raw_offset"])


def _modes(raw: bytes, clock: _Clock) -> list[dict]:
    seen: dict[str, dict] = {}

    def note(name: str, offset: int, data: bytes) -> None:
        entry = seen.setdefault(
            name,
            {
                "sequence": name,
                "count": 0,
                "first_offset": offset,
                "first_t": clock.t(offset),
                "distinct_bytes": [],
            },
        )
        entry["count"] += 1
        entry["last_offset"], entry["last_t"] = offset, clock.t(offset)
        text = data.decode("utf-8", "replace")
        if text not in entry["distinct_bytes"]:
            entry["distinct_bytes"].append(text)

    for hit in _DEC_MODE.finditer(raw):
        for mode in hit.group(1).decode().split(";"):
            label = DEC_MODES.get(mode, f"DEC mode ?{mode}")
            note(f"{label} {'on' if hit.group(2) == b'h' else 'off'}", hit.start(), hit.group(0))
    for hit in _KITTY.finditer(raw):
        verb = {b">": "push", b"<": "pop", b"=": "set"}[hit.group(1)]
        note(f"kitty keyboard {verb}", hit.start(), hit.group(0))
    for hit in _OSC7501.finditer(raw):
        note("OSC 7501 state report", hit.start(), hit.group(0))
    return sorted(seen.values(), key=lambda e: e["first_offset"])


def _titles(raw: bytes, clock: _Clock) -> dict:
    hits = list(_TITLE.finditer(raw))
    distinct: dict[str, dict] = {}
    for hit in hits:
        title = hit.group(1).decode("utf-8", "replace")
        distinct.setdefault(
            title, {"title": title, "first_offset": hit.start(), "first_t": clock.t(hit.start())}
        )
    return {"count": len(hits), "distinct": list(distinct.values())}


def _osc7501_events(raw: bytes, clock: _Clock) -> list[dict]:
    return [
        {
            "kind": "osc7501_state",
            "marker_bytes": hit.group(0).decode("utf-8", "replace"),
            "t": clock.t(hit.end() - 1),
            "raw_offset": hit.start(),
            "raw_end": hit.end(),
        }
        for hit in _OSC7501.finditer(raw)
    ]


def events_json(
    name: str,
    recording: Recording,
    markers: list[Marker],
    hooks: list[dict] | None = None,
    extra: dict | None = None,
) -> dict:
    """Everything ``<name>.events.json`` holds, from one recording and its markers."""
    raw = recording.raw
    clock = _Clock(recording)
    marker_events, missing = _marker_events(recording, markers, clock)
    inputs = [
        {"kind": "input", "t": t, "raw_offset": offset, "data": data.decode(), "note": note}
        for t, offset, data, note in recording.inputs
    ]
    events = [*recording.process, *inputs, *marker_events, *_osc7501_events(raw, clock)]
    if recording.reads:
        t, data = recording.reads[-1]
        start = len(raw) - len(data)
        events.append(
            {
                "kind": "last_output",
                "t": t,
                "raw_offset": start,
                "raw_end": len(raw),
                "last_bytes": data[-200:].decode("utf-8", "replace"),
            }
        )
    order = {"process_spawn": 0, "input": 1, "process_kill": 2, "process_eof": 3, "process_exit": 4}

    def sort_key(event):
        offset = event.get("raw_offset")
        return (event["t"], order.get(event["kind"], 1), offset if offset is not None else -1)

    meta = {
        "scenario": name,
        "argv": recording.argv,
        "terminal": {"cols": recording.cols, "rows": recording.rows, "TERM": "xterm-256color"},
        "raw_bytes": len(raw),
        "reads": len(recording.reads),
        "duration_s": recording.reads[-1][0] if recording.reads else 0.0,
        "exit": recording.exit,
        **(extra or {}),
        "notes": NOTES,
        "events": sorted(events, key=sort_key),
        "markers_not_found": missing,
        "terminal_queries": _queries(raw, clock),
        "mode_sequences": _modes(raw, clock),
        "window_titles": _titles(raw, clock),
    }
    if hooks is not None:
        meta["hooks"] = hooks
    meta["read_chunks"] = {
        "format": "[t, raw_offset, length] for every read() of the PTY master = every 'o' event",
        "list": clock.list,
    }
    return meta
