"""The Notes tab: `notes.md` (or `task.md`) in an editor that saves itself.

The agent and the user edit the same file at the same time, so the pane keeps
the version it last read or wrote (the *base*). A save happens only while the
disk still holds the base, under the store's update lock; otherwise, and
whenever the file changes on disk while the user has unsaved edits, the pane
shows the disk version above the user's and lets the user keep either or merge
both. The user's editor stays live throughout, so no keystroke is lost either.
A save reads and rewrites a file that can be megabytes under the store's lock: it
runs on a worker thread, one at a time, and its outcome is applied on the loop. Loads
and the looks at the disk after a change run on worker threads too; a read and a save
each hand their outcome to the loop before the next one starts, so each is applied
against the disk as it was when it looked (never a stale read after a newer save).
While a load is under way the editor is read-only: no keystroke goes into the text
the load replaces.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Label, Static, TextArea

from supervisor.errors import TetherError
from supervisor.shown import shown
from supervisor.store.notes_merge import LineEdit, line_edits, lines_only_in, merge_additions
from supervisor.store.tether_dir import TetherDir
from widgets.side_pane.serial_reads import SerialReads
from widgets.side_pane.store_changed import StoreChanged
from widgets.text_editor import Editor
from widgets.widget_message import WidgetMessage

SAVE_DEBOUNCE_SECONDS = 0.6
SAVE_RETRY_SECONDS = 3.0
FILES = ("notes.md", "task.md")


def apply_line_edit(area: TextArea, edit: LineEdit) -> None:
    """Apply one line edit through the editor, so a typing user's cursor keeps its place."""
    lines = area.document.lines
    count = len(lines)
    if edit.end < count:
        area.replace("".join(line + "\n" for line in edit.lines), (edit.start, 0), (edit.end, 0))
    elif edit.start > 0:
        before = edit.start - 1
        area.replace(
            "".join("\n" + line for line in edit.lines),
            (before, len(lines[before])),
            (count - 1, len(lines[count - 1])),
        )
    else:
        area.replace("\n".join(edit.lines), (0, 0), (count - 1, len(lines[count - 1])))


def conflict_words(name: str, theirs: int, yours: int) -> str:
    """The conflict's title, the choice first (it wraps in a narrow pane, never cut)."""

    def lines(n: int) -> str:
        return f"{n} line{'s' * (n != 1)}"

    return (
        f"Pick one (shift+Tab, Enter): {name} changed on disk while you edited. "
        f"On disk, {lines(theirs)} not in yours; yours, {lines(yours)} not on disk. "
        "Nothing is saved until you pick."
    )


class NotesEditor(Editor):
    """The notes editor (its own name, for the pane's CSS and tests)."""


class NotesPane(Widget):
    """Edits one of the two Markdown files of `.tether/`, saving with a short debounce."""

    DEFAULT_CSS = """
    NotesPane { layout: vertical; height: 1fr; }
    NotesPane #notes-files { height: 1; }
    NotesPane #notes-files Button { margin: 0 1 0 0; min-width: 10; }
    NotesPane #notes-files Button.-current { text-style: bold reverse; }
    NotesPane #notes-state { width: 1fr; content-align: right middle; color: $text-muted; }
    NotesPane #notes-message { display: none; height: auto; padding: 0 1; }
    NotesPane.-problem #notes-message { display: block; background: $error 30%; }
    NotesPane #notes-conflict { display: none; height: 1fr; border: round $warning; }
    NotesPane.-conflict #notes-conflict { display: block; }
    NotesPane #notes-conflict-title { width: 1fr; height: auto; color: $warning; text-style: bold; }
    NotesPane #notes-disk { height: 1fr; }
    NotesPane #notes-choices {
        layout: grid; grid-size: 3; grid-columns: auto auto auto; grid-gutter: 0 1; height: auto;
    }
    NotesPane #notes-choices Button { min-width: 0; width: auto; }
    NotesPane #notes-yours { display: none; color: $warning; text-style: bold; }
    NotesPane.-conflict #notes-yours { display: block; }
    NotesPane #notes-editor { height: 1fr; }
    NotesPane.-unloaded #notes-editor { display: none; }
    """

    editing: reactive[str] = reactive("notes.md")
    dirty: reactive[bool] = reactive(False)
    conflicted: reactive[bool] = reactive(False)

    @dataclass
    class Saved(WidgetMessage["NotesPane"]):
        """The user's text was written to ``path``."""

        path: Path

    @dataclass
    class Conflict(WidgetMessage["NotesPane"]):
        """``path`` changed on disk while the user had unsaved edits; both are on screen."""

        path: Path
        disk: str
        mine: str

    @dataclass
    class Resolved(WidgetMessage["NotesPane"]):
        """The user picked ``choice`` (``"disk"``, ``"mine"`` or ``"merge"``) for a conflict."""

        path: Path
        choice: str

    @dataclass
    class Problem(WidgetMessage["NotesPane"]):
        """A file could not be read or written; ``text`` names it and says what to do."""

        path: Path
        text: str

    def __init__(self, tether: TetherDir, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tether = tether
        self._base: str | None = None  # the text last read from or written to disk
        self._conflict_disk: str | None = None
        self._read_problem: str | None = None
        self._save_timer: Timer | None = None
        self._writing: str | None = None  # the text a save under way is writing
        self._save_again = False  # a save was asked for while one was under way
        self._switch_to: str | None = None  # the file to show once the save under way is done
        self._editor: TextArea | None = None
        self._state_shown: str | None = None
        self._reads = SerialReads(self, "notes-read")  # the saves go through it too

    @property
    def reading(self) -> bool:
        """A read of the file is under way: the editor may be about to change."""
        return self._reads.pending

    # -- composition -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="notes-files"):
            for name in FILES:
                yield Button(name, id=f"file-{name.split('.')[0]}", compact=True)
            yield Label("", id="notes-state")
        yield Static("", id="notes-message")
        with Vertical(id="notes-conflict"):
            yield Label("", id="notes-conflict-title")
            # the choices right under the question: a short pane still shows them
            with Horizontal(id="notes-choices"):
                yield Button("Keep disk", id="notes-keep-disk", compact=True)
                yield Button("Keep mine", id="notes-keep-mine", compact=True)
                yield Button("Merge both", id="notes-merge", compact=True, variant="primary")
            yield Label("on disk:")
            yield Editor("", id="notes-disk", read_only=True, show_line_numbers=False)
        yield Label("yours (not saved):", id="notes-yours")
        yield NotesEditor("", id="notes-editor", tab_behavior="focus", soft_wrap=True)

    @property
    def editor(self) -> TextArea:
        # Kept after compose: on_unmount still saves through it once children are gone.
        if self._editor is None:
            self._editor = self.query_one("#notes-editor", TextArea)
        return self._editor

    @property
    def path(self) -> Path:
        return self.tether.root / self.editing

    def on_mount(self) -> None:
        self._mark_current_file()
        self._load()

    async def on_unmount(self) -> None:
        """Quitting inside the debounce must not drop the last keystrokes (nor overwrite).

        The last save is awaited on a thread: Textual waits for this handler before the
        pane goes, and the loop stays free meanwhile."""
        self._cancel_save()
        if self._base is None or self.conflicted or self._read_problem is not None:
            return
        mine = self.editor.text
        if mine != self._base:
            try:  # the last one, as the app ends: nothing is left to hear a worker's outcome
                await asyncio.to_thread(self._write_if_unchanged, mine, self._base, self.editing)
            except TetherError:
                pass  # nowhere left to show it; the file on disk is untouched

    def focus_editor(self) -> None:
        self.editor.focus()

    # -- reactive state ----------------------------------------------------------------------

    def watch_dirty(self) -> None:
        self._show_state()

    def watch_conflicted(self, conflicted: bool) -> None:
        self.set_class(conflicted, "-conflict")
        self._show_state()

    def watch_editing(self) -> None:
        if self.children:
            self._mark_current_file()

    def _mark_current_file(self) -> None:
        for name in FILES:
            button = self.query_one(f"#file-{name.split('.')[0]}", Button)
            button.set_class(name == self.editing, "-current")

    def _show_state(self) -> None:
        if not self.children:
            return  # not composed yet: on_mount shows the state
        if self.conflicted:
            text = "conflict"
        elif self._base is None:
            text = "not loaded"
        else:
            text = "unsaved" if self.dirty else "saved"
        label = self.query_one("#notes-state", Label)
        if text != self._state_shown:
            self._state_shown = text
            label.update(text, layout=False)  # its place in the row is fixed (1fr)

    def _show_problem(self, text: str | None) -> None:
        self.set_class(text is not None, "-problem")
        self.query_one("#notes-message", Static).update(Text(shown(text or "")))
        if text is not None:
            self.post_message(self.Problem(self, self.path, text))

    # -- loading -----------------------------------------------------------------------------

    def _read_then(self, then: Callable[[str | None], None]) -> None:
        """Read the file on a worker thread, then ``then(text)`` on the loop (``None``: it
        could not be read, and the reason is shown in the pane). A read of a file the pane
        has left meanwhile is dropped: the switch made its own."""
        path = self.path
        read = functools.partial(self._read_off_loop, path)
        self._reads.read(read, functools.partial(self._was_read, path, then))

    def _read_off_loop(self, path: Path) -> str | TetherError:
        """On a worker thread."""
        try:
            return self.tether.read_text(path)
        except TetherError as error:
            return error

    def _was_read(
        self, path: Path, then: Callable[[str | None], None], outcome: str | TetherError
    ) -> None:
        if path != self.path:
            return
        if isinstance(outcome, TetherError):
            self._read_problem = str(outcome)
            self._show_problem(str(outcome))
            then(None)
            return
        if self._read_problem is not None:
            self._read_problem = None
            self._show_problem(None)
        then(outcome)

    def _load(self) -> None:
        """Show the file fresh, dropping any state of the previous file; until it is read,
        nothing is saved and the editor takes no keys."""
        self._cancel_save()
        self.conflicted = False
        self._conflict_disk = None
        self._base = None
        self.editor.read_only = True
        self._read_then(self._loaded)

    def _loaded(self, text: str | None) -> None:
        self._base = text
        self.set_class(text is None, "-unloaded")
        self.editor.read_only = False
        self.editor.load_text(text or "")
        self.dirty = False
        self._show_state()

    def show_file(self, name: str) -> bool:
        """Switch the editor to ``notes.md`` or ``task.md``; refused while edits are unsaved."""
        if name == self.editing:
            return True
        if self.dirty and not self.conflicted:
            self._switch_to = name  # once the save under way is written
            self._save()
            return False
        if self.dirty or self.conflicted:
            self.notify(f"{self.editing}: save or resolve your edits first", severity="warning")
            return False
        self.editing = name
        self._load()
        return True

    @on(Button.Pressed, "#notes-files Button")
    def _file_button(self, event: Button.Pressed) -> None:
        event.stop()
        self.show_file(str(event.button.label))
        self.editor.focus()

    # -- the disk changed --------------------------------------------------------------------

    def on_store_changed(self, message: StoreChanged) -> None:
        if message.path in (self.path, self.tether.root):
            self._read_then(self._disk_changed)

    def _disk_changed(self, disk: str | None) -> None:
        """On the loop: what the disk holds now, against the pane as it is now."""
        if disk is None:
            return
        if self._base is None:
            self._load()
            return
        if self.conflicted:
            if disk != self._conflict_disk:
                self._enter_conflict(disk)
            return
        if disk == self._base or disk == self._writing:
            return  # our own write coming back, or a rewrite with the same text
        mine = self.editor.text
        if mine == self._base:
            self._replace_editor_text(disk)
            self._base = disk
            self.dirty = False
        elif mine == disk:
            self._base = disk
            self.dirty = False
        else:
            self._enter_conflict(disk)

    def _replace_editor_text(self, text: str) -> None:
        """Bring the editor to ``text`` by line edits, keeping the cursor where it was."""
        editor = self.editor
        for edit in line_edits(editor.text, text):
            apply_line_edit(editor, edit)
        if editor.text != text:  # cannot happen with "\n" files; be safe with "\r\n"
            editor.load_text(text)
        # Undoing past a change that came from disk would silently revert it.
        editor.history.clear()

    # -- saving ------------------------------------------------------------------------------

    @on(TextArea.Changed, "#notes-editor")
    def _edited(self, event: TextArea.Changed) -> None:
        event.stop()
        if self._base is None:
            return
        self.dirty = self.editor.text != self._base
        if self.dirty and not self.conflicted:
            self._schedule_save(SAVE_DEBOUNCE_SECONDS)

    def _schedule_save(self, delay: float) -> None:
        self._cancel_save()
        self._save_timer = self.set_timer(delay, self._save)

    def _cancel_save(self) -> None:
        if self._save_timer is not None:
            self._save_timer.stop()
            self._save_timer = None

    def _write_if_unchanged(self, mine: str, base: str | None = None, editing: str = "") -> str:
        """Write ``mine`` if the disk still holds ``base`` (default: the pane's); return what
        the disk held."""
        base = self._base if base is None else base
        path = self.tether.root / (editing or self.editing)
        with self.tether.updating():
            disk = self.tether.read_text(path)
            if disk == base:
                if path.name == "task.md":
                    self.tether.write_task(mine)
                else:
                    self.tether.write_notes(mine)
        return disk

    def _save(self) -> None:
        """Write the user's text if the disk still holds the base; else show the conflict.

        The read and the write go to a worker thread (:meth:`_saved` hears them on the
        loop); one save at a time, and one asked for meanwhile follows it.
        """
        self._cancel_save()
        if self._base is None or self.conflicted or self._read_problem is not None:
            return
        if self._writing is not None:
            self._save_again = True
            return
        mine = self.editor.text
        if mine == self._base:
            self.dirty = False
            self._switch_now()
            return
        self._writing = mine
        job = functools.partial(self._save_off_loop, self.editing, self._base, mine)
        self.run_worker(
            functools.partial(self._reads.run_serially, job), thread=True, group="notes-save"
        )

    def _save_off_loop(self, editing: str, base: str, mine: str) -> None:
        """On a worker thread, between reads: the locked read and write, then :meth:`_saved`
        on the loop."""
        try:
            outcome: str | TetherError = self._write_if_unchanged(mine, base, editing)
        except TetherError as error:
            outcome = error
        try:
            self.app.call_from_thread(self._saved, editing, base, mine, outcome)
        except RuntimeError:  # the app has stopped: on_unmount saved what was left
            pass

    def _saved(self, editing: str, base: str, mine: str, outcome: str | TetherError) -> None:
        """On the loop: what the save found, applied to the pane as it is now."""
        self._writing = None
        again, self._save_again = self._save_again, False
        if editing != self.editing or base != self._base:
            return  # the pane moved on meanwhile (its own reads decide)
        if isinstance(outcome, TetherError):
            self._show_problem(f"{outcome} — your edits are kept in the pane")
            self._switch_to = None
            self._schedule_save(SAVE_RETRY_SECONDS)
            return
        if outcome != base:
            self._switch_to = None
            self._enter_conflict(outcome)
            return
        self._show_problem(None)
        self._base = mine
        self.dirty = self.editor.text != mine
        self.post_message(self.Saved(self, self.path))
        if self.dirty:
            if again:
                self._save()
            else:
                self._schedule_save(SAVE_DEBOUNCE_SECONDS)
            return
        self._switch_now()

    def _switch_now(self) -> None:
        """The file the user picked while a save was under way, now that it is written."""
        name, self._switch_to = self._switch_to, None
        if name is not None and name != self.editing:
            self.editing = name
            self._load()

    def save_now(self) -> None:
        """Save pending edits without waiting for the debounce."""
        if self.dirty:
            self._save()

    # -- conflicts ---------------------------------------------------------------------------

    def _enter_conflict(self, disk: str) -> None:
        self._cancel_save()
        self._conflict_disk = disk
        mine = self.editor.text
        theirs = lines_only_in(disk, mine)
        yours = lines_only_in(mine, disk)
        title = conflict_words(self.editing, theirs, yours)
        self.query_one("#notes-conflict-title", Label).update(title)
        self.query_one("#notes-disk", TextArea).load_text(disk)
        already = self.conflicted
        self.conflicted = True
        if not already:
            self.post_message(self.Conflict(self, self.path, disk, mine))

    @on(Button.Pressed, "#notes-choices Button")
    def _choice_button(self, event: Button.Pressed) -> None:
        event.stop()
        choice = {"notes-keep-disk": "disk", "notes-keep-mine": "mine", "notes-merge": "merge"}
        self.resolve(choice[event.button.id or ""])

    def resolve(self, choice: str) -> None:
        """End a conflict: keep the ``"disk"`` version, keep ``"mine"``, or ``"merge"`` both."""
        if self.conflicted and self._base is not None:
            self._read_then(functools.partial(self._resolve, choice))

    def _resolve(self, choice: str, disk: str | None) -> None:
        """On the loop: the choice applied to what the disk holds now."""
        if disk is None or not self.conflicted or self._base is None:
            return
        if choice == "mine" and disk != self._conflict_disk:
            # The file moved on since the user looked: show the new version first.
            self._enter_conflict(disk)
            self.notify(f"{self.editing} changed again on disk; look at it once more")
            return
        editor = self.editor
        if choice == "disk":
            self._replace_editor_text(disk)
        elif choice == "merge":
            for edit in merge_additions(self._base, disk, editor.text):
                apply_line_edit(editor, edit)
        self._base = disk
        self._conflict_disk = None
        self.conflicted = False
        self.dirty = editor.text != disk
        self.post_message(self.Resolved(self, self.path, choice))
        editor.focus()
        if self.dirty:
            self._save()
