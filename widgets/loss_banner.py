"""A banner over the terminal naming the loss tether recognized and the key that repairs it.

It shows one line of text in a tone (``warning`` for an incident waiting for
the rehydrate key, ``info`` while a payload is queued or sent, ``error`` for a
crash, ``success`` once the agent acknowledged). With nothing to say it shows a
quiet ``idle`` line instead of disappearing: the row is always there, so the
agent's terminal never changes size (and never redraws) because of the banner.
For the same reason a new line of text needs no layout of the screen: the banner
only repaints its own row, and not at all when the text and tone are the same
(the app re-shows "sent N s ago" every tick, even while the agent floods output).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from supervisor.shown import shown_line

TONES = ("warning", "info", "error", "success", "idle")


class LossBanner(Static):
    DEFAULT_CSS = """
    LossBanner {
        height: 1;
        width: 1fr;
        padding: 0 1;
        text-style: bold;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    LossBanner.-idle { color: $text-muted; text-style: none; }
    LossBanner.-warning { background: $warning 40%; color: $text; }
    LossBanner.-info { background: $primary 40%; color: $text; }
    LossBanner.-error { background: $error 50%; color: $text; }
    LossBanner.-success { background: $success 40%; color: $text; }
    """

    text: reactive[str] = reactive("", init=False)
    tone: reactive[str] = reactive("idle", init=False)
    idle_text: reactive[str] = reactive("tether is watching: no loss of context seen")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._line: str | None = None  # what the row shows now
        self._short = ""  # the same notice with its action first, for a narrow row

    def on_mount(self) -> None:
        self.hide()
        self.watch_tone(self.tone)  # the first tone is no change, so no watcher call

    def show(self, text: str, tone: str = "warning", short: str = "") -> None:
        """``short``: the notice written to fit, its action first; shown when ``text`` does
        not fit the row (what is left past the row's end is ellipsized, never the action)."""
        self.tone = tone if tone in TONES else "warning"
        self._short = short
        self._set_line(text, self._fitted(text))

    def _fitted(self, text: str) -> str:
        width = self.content_size.width
        if not self._short or not width or cell_len(text) <= width:
            return text
        return self._short

    def on_resize(self) -> None:
        if self.text:
            self._set_line(self.text, self._fitted(self.text))

    def hide(self) -> None:
        """Back to the quiet line; ``text`` is empty while nothing needs attention."""
        self.tone = "idle"
        self._short = ""
        self._set_line("", self.idle_text)

    def _set_line(self, text: str, line: str) -> None:
        changed = line != self._line
        self.text = text
        if changed:
            self._line = line
            # One row, whatever it says; its words may quote files (a lock's start time, a
            # summary, an error naming a file): shown, never markup nor control characters.
            self.update(Text(shown_line(line)), layout=False)

    def watch_idle_text(self, idle_text: str) -> None:
        if not self.text:
            self._set_line("", idle_text)

    def watch_tone(self, tone: str) -> None:
        # One style update for the whole change (each class toggle alone would restyle).
        self.update_classes({f"-{name}": name == tone for name in TONES})
