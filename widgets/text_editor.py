"""A text editor with the keys people expect, that leaves tether's own keys to tether.

It shows files a clone can ship (notes.md, task.md): a control character in them is
drawn as its Unicode picture (``ESC`` as ␛), never sent to the terminal, while the
document keeps the file's text exactly, so a save changes nothing the user did not.

Textual's TextArea has no key to the start or the end of the whole text, so
ctrl+Home and ctrl+End (with shift: select) are added; it binds F6 and F7 itself
(select line, select all), which would shadow tether's keys, so those two are
dropped and go on to the app.

Its own keys run as they arrive. Textual runs a widget's bindings only when the
key has bubbled up to the app, through every ancestor's queue, while a typed
character is inserted at once: in a burst (ctrl+Home, Down, End, "Y" read in one
go) the "Y" would land before the moves. The editor runs its bindings itself,
in turn with the characters around them.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import TextArea

from supervisor.shown import shown_in_place
from widgets.missed_resize import ResizeWatch

TETHERS_KEYS = ("f6", "f7")  # the ones TextArea binds


def _without_tethers_keys(bindings) -> list[Binding]:
    kept = []
    for binding in bindings:
        if isinstance(binding, tuple):
            binding = Binding(*binding)
        keys = [key for key in binding.key.split(",") if key.strip() not in TETHERS_KEYS]
        if keys:
            kept.append(
                Binding(
                    ",".join(keys),
                    binding.action,
                    binding.description,
                    show=binding.show,
                    key_display=binding.key_display,
                    priority=binding.priority,
                )
            )
    return kept


class Editor(TextArea, inherit_bindings=False):
    """A TextArea with ctrl+Home / ctrl+End, and F6 / F7 left to the app."""

    BINDINGS = [
        *_without_tethers_keys(TextArea.BINDINGS),
        Binding("ctrl+home", "text_start", "Start", show=False),
        Binding("ctrl+end", "text_end", "End", show=False),
        Binding("ctrl+shift+home", "text_start(True)", show=False),
        Binding("ctrl+shift+end", "text_end(True)", show=False),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.resize_watch = ResizeWatch(self)  # wrapped at the width it is shown at, always

    def on_mount(self) -> None:
        self.resize_watch.watch()

    def on_resize(self, event: events.Resize) -> None:
        self.resize_watch.told(event.size)

    def get_line(self, line_index: int) -> Text:
        """The line as drawn: a control character in the file is shown as its picture (␛),
        one for one, so the terminal never receives it and the cursor keeps its column."""
        line = shown_in_place(self.document.get_line(line_index))
        return Text(line, end="", no_wrap=True)

    def action_text_start(self, select: bool = False) -> None:
        self.move_cursor(self.document.start, select=select)

    def action_text_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)

    async def _on_key(self, event: events.Key) -> None:
        """A key bound here runs now, in the order the keys came (see the module's docstring)."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
        await super()._on_key(event)
