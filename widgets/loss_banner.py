"""A banner over the terminal naming the loss tether recognized and the key that repairs it.

It shows one line of text in a tone (``warning`` for an incident waiting for
the rehydrate key, ``info`` while a payload is queued or sent, ``error`` for a
crash, ``success`` once the agent acknowledged); hidden when the text is empty.
"""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

TONES = ("warning", "info", "error", "success")


class LossBanner(Static):
    DEFAULT_CSS = """
    LossBanner {
        height: auto;
        width: 1fr;
        padding: 0 1;
        display: none;
        text-style: bold;
    }
    LossBanner.-visible { display: block; }
    LossBanner.-warning { background: $warning 40%; color: $text; }
    LossBanner.-info { background: $primary 40%; color: $text; }
    LossBanner.-error { background: $error 50%; color: $text; }
    LossBanner.-success { background: $success 40%; color: $text; }
    """

    text: reactive[str] = reactive("", init=False)
    tone: reactive[str] = reactive("warning", init=False)

    def show(self, text: str, tone: str = "warning") -> None:
        self.tone = tone if tone in TONES else "warning"
        self.text = text

    def hide(self) -> None:
        self.text = ""

    def watch_text(self, text: str) -> None:
        self.update(text)
        self.set_class(bool(text), "-visible")

    def watch_tone(self, tone: str) -> None:
        for name in TONES:
            self.set_class(name == tone, f"-{name}")
