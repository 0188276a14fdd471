"""One line under the terminal: agent state, context meter, compactions, checkpoint age.

While the side pane is hidden, the line starts with what the pane would have shown
first: the last incident, marked, and the key that brings the pane back (first, so an
80-column terminal still shows it).

Two counts that a reader could take for one are labelled with what they count: the
compactions of this run (fusion's count, from 0 at every start) and the incidents
recorded in `.tether/` in all, which go on across runs (the banner's ``#5`` is the
fifth).
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from supervisor.shown import shown_line

SEPARATOR = " · "


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar {
        height: 1; background: $panel; color: $foreground; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    agent_state: reactive[str] = reactive("starting")
    context: reactive[str] = reactive("")
    compactions: reactive[int] = reactive(0)
    incidents: reactive[int] = reactive(0)  # in all: the last incident's number
    checkpoint_age: reactive[str] = reactive("")
    profile: reactive[str] = reactive("")
    last_incident: reactive[str] = reactive("")
    """The last incident in a few words ("compaction #2, auto, 10:02"); empty before one."""
    pane_hidden: reactive[bool] = reactive(False)
    pane_key: reactive[str] = reactive("F5")

    def render(self) -> Text:
        """The first of the line's forms, from the fullest words to the fewest, that fits
        the bar: every fact stays, in fewer words, before the row would cut one."""
        width = self.content_size.width
        forms = [
            self._parts(),
            self._parts(short=True),
            self._parts(short=True, tight=True),
            self._fewest(),
        ]
        head = self._head()
        for parts in forms:
            line = head + Text(shown_line(SEPARATOR.join(parts)))
            if not width or line.cell_len <= width:
                return line
        return line

    def _head(self) -> Text:
        line = Text()
        if self.pane_hidden:
            if self.last_incident:
                line.append(f"⚠ {shown_line(self.last_incident)}", style="bold reverse")
                line.append(" ")
            line.append(f"{self.pane_key} pane", style="dim")
            line.append(" │ ")
        return line

    def _parts(self, *, short: bool = False, tight: bool = False) -> list[str]:
        parts = [self.agent_state if short else f"agent: {self.agent_state}"]
        if self.profile and not short:
            parts.insert(0, self.profile)
        if self.context:
            parts.append(f"context {_context(self.context) if tight else self.context}")
        if short:
            plural = "s" * (self.compactions != 1)
            parts.append(f"{self.compactions} compaction{plural} this run")
        else:
            parts.append(f"compactions {self.compactions} this run")
        if self.incidents:
            label = "#" if tight else "incidents "
            parts.append(f"{label}{self.incidents} in all")
        if self.checkpoint_age:
            parts.append(f"{'ckpt' if tight else 'checkpoint'} {self.checkpoint_age}")
        return parts

    def _fewest(self) -> list[str]:
        """Each fact in a word or two; the incidents' count goes when the mark before the
        line names the last one."""
        parts = [self.agent_state]
        if self.context:
            parts.append(_context(self.context))
        plural = "s" * (self.compactions != 1)
        parts.append(f"{self.compactions} compaction{plural}")
        if self.incidents and not (self.pane_hidden and self.last_incident):
            parts.append(f"#{self.incidents} in all")
        if self.checkpoint_age:
            parts.append(f"ckpt {self.checkpoint_age.split(', ')[-1]}")
        return parts


def _context(described: str) -> str:
    """The meter in its fewest words: "2%" of "15,982/1,000,000 (2%)", and "stale" if so."""
    found = re.search(r"\((\d+%)\)", described)
    short = found.group(1) if found else described.split(",")[0]
    return short + (" stale" if "stale" in described else "")
