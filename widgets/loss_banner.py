"""A banner over the terminal naming the loss tether recognized and the key that repairs it.

It shows one line of text in a tone (``warning`` for an incident waiting for
the rehydrate key, ``info`` while a payload is queued or sent, ``error`` for a
crash, ``success`` once the agent acknowledged). With nothing to say it shows a
quiet ``idle`` line instead of disappearing: the row is always there, so the
agent's terminal never changes size (and never redraws) because of the banner.
"""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

TONES = ("warning", "info", "error", "success", "idle")


class LossBanner(Static):
    DEFAULT_CSS = """
    LossBanner {
        height: 1;
        width: 1fr;
        padding: 0 1;
        text-style: bold;
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

    def on_mount(self) -> None:
        self.hide()
        self.watch_tone(self.tone)  # the first tone is no change, so no watcher call

    def show(self, text: str, tone: str = "warning") -> None:
        self.tone = tone if tone in TONES else "warning"
        self.text = text
        self.update(text)

    def hide(self) -> None:
        """Back to the quiet line; ``text`` is empty while nothing needs attention."""
        self.tone = "idle"
        self.text = ""
        self.update(self.idle_text)

    def watch_idle_text(self, idle_text: str) -> None:
        if not self.text:
            self.update(idle_text)

    def watch_tone(self, tone: str) -> None:
        for name in TONES:
            self.set_class(name == tone, f"-{name}")
