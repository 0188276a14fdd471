"""The payload preview: read and edit what rehydration will send before it is sent.

A person may know better than the files (a decision not yet pinned, a next
step that changed), so the preview is an editable text area with the live
token count. It dismisses with the edited text (Send) or ``None`` (Cancel);
the caller injects the text, which the injector sanitizes again, so nothing
typed here can smuggle keystrokes either.

Only ctrl+s and escape are bound; every other key belongs to the text area
(:class:`Editor`: the usual editing keys, ctrl+Home and ctrl+End too; the cursor
starts at the end) or to the app, and nothing else is intercepted.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea

from supervisor.rehydrate.tokens import TokenCount, count_tokens
from widgets.text_editor import Editor


class PayloadPreview(ModalScreen[str | None]):
    """Shows the payload in a TextArea with its token count; Send or Cancel."""

    DEFAULT_CSS = """
    PayloadPreview { align: center middle; }
    PayloadPreview > Vertical {
        width: 90%; height: 85%; padding: 0 1;
        border: thick $accent; background: $surface;
    }
    PayloadPreview #preview-title { width: 100%; text-style: bold; padding: 0 0 1 0; }
    PayloadPreview TextArea { height: 1fr; }
    PayloadPreview #preview-tokens { width: 100%; height: 1; color: $text-muted; }
    PayloadPreview #preview-tokens.over { color: $warning; text-style: bold; }
    PayloadPreview Horizontal { height: auto; align-horizontal: right; }
    PayloadPreview Button { margin: 1 0 0 1; }
    """
    BINDINGS = [
        Binding("ctrl+s", "send", "Send"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        text: str,
        *,
        budget: int = 0,
        title: str = "Rehydrate payload: edit if needed, then send",
        count: Callable[[str], TokenCount] = count_tokens,
    ) -> None:
        super().__init__()
        self.initial_text = text
        self.budget = budget
        self.heading = title
        self.count = count
        self.tokens: TokenCount | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.heading, id="preview-title")
            yield Editor(
                self.initial_text,
                id="preview-text",
                soft_wrap=True,
                tab_behavior="focus",
                show_line_numbers=False,
            )
            yield Static("counting tokens…", id="preview-tokens")
            with Horizontal():
                yield Button("Send (ctrl+s)", variant="primary", id="send")
                yield Button("Cancel (esc)", id="cancel")

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#preview-text", TextArea)

    def on_mount(self) -> None:
        """The cursor starts at the end, where a person adds a line to what will be sent."""
        area = self.text_area
        area.focus()
        area.move_cursor(area.document.end)
        self._recount(self.initial_text)

    @on(TextArea.Changed, "#preview-text")
    def _text_changed(self, event: TextArea.Changed) -> None:
        self._recount(event.text_area.text)

    @work(thread=True, exclusive=True, group="payload-preview-count")
    def _recount(self, text: str) -> None:
        """Counted in a thread: the first count may load the tokenizer (a fraction of a second)."""
        tokens = self.count(text)
        self.app.call_from_thread(self._show_count, tokens)

    def _show_count(self, tokens: TokenCount) -> None:
        self.tokens = tokens
        if not self.is_attached:  # sent or cancelled while the count was running
            return
        label = self.query_one("#preview-tokens", Static)
        words = tokens.describe()
        over = bool(self.budget) and tokens.n > self.budget
        if self.budget:
            words += f" of a {self.budget} budget" + (" (over budget)" if over else "")
        label.update(words)
        label.set_class(over, "over")

    def action_send(self) -> None:
        self.dismiss(self.text_area.text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#send")
    def _send_pressed(self) -> None:
        self.action_send()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()
